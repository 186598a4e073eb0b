package api

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/store"
)

// The "EVM Transactions" operations: a tx with everything it did, a
// block's txs, the latest txs of a chain and of every chain (with the
// deprecated listAllLatestTransactions of "EVM Chains"), a contract's
// deployment transaction, the contracts a deployer made, an address's
// ERC-721 and ERC-1155 transfers, and a token's transfers. Lists are most
// recent first but a block's txs, in block order.

// getTransaction serves getTransaction: the tx with its transfers,
// internal txs, the chain's token and its Teleporter message.
func (a *API) getTransaction(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	hash, err := EVMHash(r, "txHash")
	if err != nil {
		return err
	}
	ctx := r.Context()
	d, err := a.evm.EVMTxDetails(ctx, chain.ChainID, hash)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("transaction %s is not indexed on chain %d", hash.Hex(), chain.ChainID)
	}
	if err != nil {
		return err
	}
	resp, err := a.txDetails(ctx, a.contracts(chain.ChainID), chain, d, Currencies[0])
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// getTransactionsForBlock serves getTransactionsForBlock: the block's txs
// in block order; a pageSize of 0 (the schema's default) pages by 100.
func (a *API) getTransactionsForBlock(w http.ResponseWriter, r *http.Request) error {
	chain, b, err := a.blockParam(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "getTransactionsForBlock", Filters: []string{strconv.FormatUint(chain.ChainID, 10), b.Hash.Hex()},
		DefaultPageSize: MaxPageSize, ZeroPageSize: true}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *txIndexCursor, limit int) ([]internal.EVMTx, error) {
			var idx *uint32
			if after != nil {
				idx = &after.I
			}
			return a.evm.EVMBlockTxs(ctx, chain.ChainID, b.Number, idx, limit)
		},
		func(t internal.EVMTx) txIndexCursor { return txIndexCursor{I: t.Index} })
	if err != nil {
		return err
	}
	a.writeTxs(w, chain.ChainID, items, next)
	return nil
}

// txIndexCursor is the keyset of a block's txs' page tokens.
type txIndexCursor struct {
	I uint32 `json:"i"`
}

// txCursor is the keyset of a chain's latest txs' page tokens.
type txCursor struct {
	B uint64 `json:"b"`
	I uint32 `json:"i"`
}

// listLatestTransactions serves listLatestTransactions: the chain's txs,
// most recent first, of one receipt status when asked.
func (a *API) listLatestTransactions(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	status, err := TxStatus(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listLatestTransactions", Filters: []string{strconv.FormatUint(chain.ChainID, 10), statusText(status)}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *txCursor, limit int) ([]internal.EVMTx, error) {
			var k *store.EVMTxKey
			if after != nil {
				k = &store.EVMTxKey{BlockNumber: after.B, Index: after.I}
			}
			return a.evm.EVMLatestTxs(ctx, chain.ChainID, status, k, limit)
		},
		func(t internal.EVMTx) txCursor { return txCursor{B: t.BlockNumber, I: t.Index} })
	if err != nil {
		return err
	}
	a.writeTxs(w, chain.ChainID, items, next)
	return nil
}

// listLatestTransactionsAllChains serves listLatestTransactionsAllChains
// and the deprecated listAllLatestTransactions: the txs of every chain
// served (of network, when given), most recent first.
func (a *API) listLatestTransactionsAllChains(w http.ResponseWriter, r *http.Request) error {
	chains, err := a.networkChains(r)
	if err != nil {
		return err
	}
	status, err := TxStatus(r)
	if err != nil {
		return err
	}
	ids := chainIDs(chains)
	spec := listSpec{Op: "listLatestTransactionsAllChains", Filters: []string{idList(ids), statusText(status)}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *timeCursor, limit int) ([]store.EVMChainTx, error) {
			if len(ids) == 0 {
				return nil, nil
			}
			return a.evm.EVMLatestTxsAllChains(ctx, ids, status, after.key(), limit)
		},
		func(t store.EVMChainTx) timeCursor {
			return timeCursor{T: t.Timestamp.Unix(), C: t.ChainID, N: t.BlockNumber, I: t.Index}
		})
	if err != nil {
		return err
	}
	resp := ListNativeTransactionsResponse{NextPageToken: next, Transactions: make([]NativeTransaction, 0, len(items))}
	for i := range items {
		resp.Transactions = append(resp.Transactions, a.contracts(items[i].ChainID).listedTx(&items[i].EVMTx))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// writeTxs writes a page of the chain's txs.
func (a *API) writeTxs(w http.ResponseWriter, chainID uint64, items []internal.EVMTx, next string) {
	c := a.contracts(chainID)
	resp := ListNativeTransactionsResponse{NextPageToken: next, Transactions: make([]NativeTransaction, 0, len(items))}
	for i := range items {
		resp.Transactions = append(resp.Transactions, c.listedTx(&items[i]))
	}
	WriteJSON(w, http.StatusOK, resp)
}

// statusText is a status filter as a page-token filter.
func statusText(status *uint8) string {
	if status == nil {
		return ""
	}
	return strconv.Itoa(int(*status))
}

// notAContract is the 404 of an address no contract was deployed at.
func notAContract(addr common.Address, chainID uint64) error {
	return derrors.Missing("address %s is not a contract deployed on chain %d", addr.Hex(), chainID)
}

// getDeployment serves getDeploymentTransaction: the tx that deployed the
// contract, with everything it did.
func (a *API) getDeployment(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	currency, err := Currency(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c := a.contracts(chain.ChainID)
	v, err := c.get(ctx, addr)
	if err != nil {
		return err
	}
	if v.stored == nil {
		return notAContract(addr, chain.ChainID)
	}
	if !v.deployed() {
		return derrors.Missing("the contract %s was not deployed by an indexed transaction of chain %d (a genesis contract)", addr.Hex(), chain.ChainID)
	}
	d, err := a.evm.EVMTxDetails(ctx, chain.ChainID, v.stored.TxHash)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("the deployment transaction %s of %s is not indexed", v.stored.TxHash.Hex(), addr.Hex())
	}
	if err != nil {
		return err
	}
	resp, err := a.txDetails(ctx, c, chain, d, currency)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// txDetails renders a tx with its transfers, internal txs, the native
// token's prices and its Teleporter message.
func (a *API) txDetails(ctx context.Context, c *contracts, chain evmchains.Chain, d *internal.EVMTxDetails, currency string) (*GetTransactionResponse, error) {
	block, err := a.evm.EVMBlock(ctx, chain.ChainID, d.Tx.BlockNumber)
	if err != nil && !errors.Is(err, derrors.NotFound) {
		return nil, err
	}
	native, err := c.nativeTx(ctx, &d.Tx, block)
	if err != nil {
		return nil, err
	}
	resp := &GetTransactionResponse{
		Erc20Transfers:       []Erc20TransferDetails{},
		Erc721Transfers:      []Erc721TransferDetails{},
		Erc1155Transfers:     []Erc1155TransferDetails{},
		InternalTransactions: make([]InternalTransactionDetails, 0, len(d.InternalTxs)),
		NetworkTokenDetails:  NetworkTokenDetails{NetworkToken: networkToken(chain.NetworkToken)},
		NativeTransaction:    native,
	}
	for i := range d.Transfers {
		td, err := c.transferDetails(ctx, &d.Transfers[i], currency)
		if err != nil {
			return nil, err
		}
		switch td := td.(type) {
		case Erc20TransferDetails:
			resp.Erc20Transfers = append(resp.Erc20Transfers, td)
		case Erc721TransferDetails:
			resp.Erc721Transfers = append(resp.Erc721Transfers, td)
		case Erc1155TransferDetails:
			resp.Erc1155Transfers = append(resp.Erc1155Transfers, td)
		}
	}
	for i := range d.InternalTxs {
		it, err := c.internalTx(ctx, &d.InternalTxs[i])
		if err != nil {
			return nil, err
		}
		resp.InternalTransactions = append(resp.InternalTransactions, it)
	}
	// The current price, and the historical one of a tx old enough.
	type priceAt struct {
		at  time.Time
		dst **Money
	}
	prices := []priceAt{{time.Time{}, &resp.NetworkTokenDetails.CurrentPrice}}
	if time.Since(d.Tx.Timestamp) > a.priceMinAge {
		prices = append(prices, priceAt{d.Tx.Timestamp, &resp.NetworkTokenDetails.HistoricalPrice})
	}
	for _, p := range prices {
		v, ok, err := c.priced.TokenPrice(ctx, chain.ChainID, common.Address{}, p.at, currency)
		if err != nil {
			return nil, err
		}
		if ok {
			*p.dst = &Money{CurrencyCode: currency, Value: v}
		}
	}
	if m := d.Teleporter; m != nil {
		info := &TeleporterMessageInfo{TeleporterMessageID: hex.EncodeToString(m.MessageID[:]), Direction: string(m.Direction)}
		if m.Direction == internal.TeleporterSource {
			info.DestinationChainID = m.DestinationBlockchainID.String()
		} else {
			info.SourceChainID = m.SourceBlockchainID.String()
		}
		resp.TeleporterMessageInfo = info
	}
	return resp, nil
}

// contractCursor is the keyset of the deployments' page tokens.
type contractCursor struct {
	B uint64 `json:"b"`
	I uint64 `json:"i"`
}

// listDeployments serves listContractDeployments: the contracts the
// address deployed, by a tx it sent or as the contract whose CREATE made
// them.
func (a *API) listDeployments(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listContractDeployments", Filters: []string{strconv.FormatUint(chain.ChainID, 10), addr.Hex()}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *contractCursor, limit int) ([]internal.EVMContract, error) {
			var k *store.EVMContractKey
			if after != nil {
				k = &store.EVMContractKey{BlockNumber: after.B, Index: after.I}
			}
			return a.evm.EVMContractsByDeployer(ctx, chain.ChainID, addr, k, limit)
		},
		func(c internal.EVMContract) contractCursor { return contractCursor{B: c.BlockNumber, I: c.Index} })
	if err != nil {
		return err
	}
	resp := ListContractsResponse{NextPageToken: next, Contracts: make([]ContractMetadata, 0, len(items))}
	for i := range items {
		v := &contractView{addr: items[i].Address, stored: &items[i]}
		v.curated, v.listed = a.catalog.Contract(chain.ChainID, v.addr)
		resp.Contracts = append(resp.Contracts, contractMetadata(v))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// transferCursor is the keyset of the transfer lists' page tokens.
type transferCursor struct {
	B uint64 `json:"b"`
	L uint32 `json:"l"`
	I uint32 `json:"i"`
}

func transferKey(t internal.EVMTransfer) transferCursor {
	return transferCursor{B: t.BlockNumber, L: t.LogIndex, I: t.BatchIndex}
}

func (c *transferCursor) key() *store.EVMTransferKey {
	if c == nil {
		return nil
	}
	return &store.EVMTransferKey{BlockNumber: c.B, LogIndex: c.L, BatchIndex: c.I}
}

// transfersQuery is what the transfer lists share: the chain, the address
// and the block range.
type transfersQuery struct {
	chain evmchains.Chain
	addr  common.Address
	r     store.BlockRange
	// filters scope the page tokens.
	filters []string
}

func (a *API) transfersQuery(r *http.Request) (*transfersQuery, error) {
	chain, err := a.evmChain(r)
	if err != nil {
		return nil, err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return nil, err
	}
	start, end, err := BlockRange(r)
	if err != nil {
		return nil, err
	}
	opt := func(v *uint64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatUint(*v, 10)
	}
	return &transfersQuery{chain: chain, addr: addr, r: store.BlockRange{From: start, To: end},
		filters: []string{strconv.FormatUint(chain.ChainID, 10), addr.Hex(), opt(start), opt(end)}}, nil
}

// addressTransfers lists q.addr's transfers of tokens of type typ.
func (a *API) addressTransfers(r *http.Request, op string, typ internal.ERCType) (*transfersQuery, []internal.EVMTransfer, string, error) {
	q, err := a.transfersQuery(r)
	if err != nil {
		return nil, nil, "", err
	}
	items, next, err := listPage(a, r, listSpec{Op: op, Filters: q.filters},
		func(ctx context.Context, after *transferCursor, limit int) ([]internal.EVMTransfer, error) {
			return a.evm.EVMAddressTransfers(ctx, q.chain.ChainID, q.addr, typ, q.r, after.key(), limit)
		}, transferKey)
	return q, items, next, err
}

// listedAs renders the transfers of a list that holds one shape, T (any
// for the lists of every standard), in the default currency; a transfer
// of another shape is the store's fault.
func listedAs[T any](c *contracts, op string) func(context.Context, *internal.EVMTransfer) (T, error) {
	return func(ctx context.Context, t *internal.EVMTransfer) (T, error) {
		v, err := c.listedTransfer(ctx, t, Currencies[0])
		if err != nil {
			var zero T
			return zero, err
		}
		item, ok := v.(T)
		if !ok {
			return item, errors.New(op + ": the store answered a transfer of type " + string(t.Type))
		}
		return item, nil
	}
}

// listAddressTransfers serves a list of an address's transfers of one
// standard, each in its shape T, in the body that body makes of a page.
func listAddressTransfers[T any](a *API, w http.ResponseWriter, r *http.Request, op string, typ internal.ERCType,
	body func(next string, txs []T) any,
) error {
	q, items, next, err := a.addressTransfers(r, op, typ)
	if err != nil {
		return err
	}
	txs, err := renderPage(r.Context(), items, listedAs[T](a.contracts(q.chain.ChainID), op))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, body(next, txs))
	return nil
}

// listErc20 serves listErc20Transactions.
func (a *API) listErc20(w http.ResponseWriter, r *http.Request) error {
	return listAddressTransfers(a, w, r, "listErc20Transactions", internal.ERC20, func(next string, txs []Erc20Transfer) any {
		return ListErc20TransactionsResponse{NextPageToken: next, Transactions: txs}
	})
}

// listErc721 serves listErc721Transactions.
func (a *API) listErc721(w http.ResponseWriter, r *http.Request) error {
	return listAddressTransfers(a, w, r, "listErc721Transactions", internal.ERC721, func(next string, txs []Erc721Transfer) any {
		return ListErc721TransactionsResponse{NextPageToken: next, Transactions: txs}
	})
}

// listErc1155 serves listErc1155Transactions.
func (a *API) listErc1155(w http.ResponseWriter, r *http.Request) error {
	return listAddressTransfers(a, w, r, "listErc1155Transactions", internal.ERC1155, func(next string, txs []Erc1155Transfer) any {
		return ListErc1155TransactionsResponse{NextPageToken: next, Transactions: txs}
	})
}

// listTokenTransfers serves listTransfers: every transfer of one token
// contract, each in the shape of the token's standard.
func (a *API) listTokenTransfers(w http.ResponseWriter, r *http.Request) error {
	q, err := a.transfersQuery(r)
	if err != nil {
		return err
	}
	items, next, err := listPage(a, r, listSpec{Op: "listTransfers", Filters: q.filters},
		func(ctx context.Context, after *transferCursor, limit int) ([]internal.EVMTransfer, error) {
			return a.evm.EVMTokenTransfers(ctx, q.chain.ChainID, q.addr, q.r, after.key(), limit)
		}, transferKey)
	if err != nil {
		return err
	}
	c := a.contracts(q.chain.ChainID)
	transfers, err := renderPage(r.Context(), items, listedAs[any](c, "listTransfers"))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListTransfersResponse{NextPageToken: next, Transfers: transfers})
	return nil
}

// listAddressTxs serves listTransactions: every tx the address took part
// in (sent, received, created a contract by, or a party of its token
// transfers or listed internal txs), each with its transfers and listed
// internal txs, most recent first unless sortOrder is asc.
func (a *API) listAddressTxs(w http.ResponseWriter, r *http.Request) error {
	q, err := a.transfersQuery(r)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	asc := order == Asc
	spec := listSpec{Op: "listTransactions", Filters: append(slices.Clone(q.filters), order)}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *txCursor, limit int) ([]internal.EVMTxDetails, error) {
			return a.evm.EVMAddressHistory(ctx, q.chain.ChainID, q.addr, q.r, asc, after.key(), limit)
		},
		func(d internal.EVMTxDetails) txCursor { return txCursor{B: d.Tx.BlockNumber, I: d.Tx.Index} })
	if err != nil {
		return err
	}
	ctx := r.Context()
	c := a.contracts(q.chain.ChainID)
	resp := ListTransactionDetailsResponse{NextPageToken: next, Transactions: make([]TransactionDetails, 0, len(items))}
	for i := range items {
		d := &items[i]
		td := TransactionDetails{NativeTransaction: c.listedTx(&d.Tx)}
		for k := range d.Transfers {
			v, err := c.transferDetails(ctx, &d.Transfers[k], Currencies[0])
			if err != nil {
				return err
			}
			switch v := v.(type) {
			case Erc20TransferDetails:
				td.Erc20Transfers = append(td.Erc20Transfers, v)
			case Erc721TransferDetails:
				td.Erc721Transfers = append(td.Erc721Transfers, v)
			case Erc1155TransferDetails:
				td.Erc1155Transfers = append(td.Erc1155Transfers, v)
			}
		}
		for k := range d.InternalTxs {
			td.InternalTransactions = append(td.InternalTransactions, c.listedInternalTx(&d.InternalTxs[k]))
		}
		resp.Transactions = append(resp.Transactions, td)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// key is the store's key of a txCursor; nil for none.
func (c *txCursor) key() *store.EVMTxKey {
	if c == nil {
		return nil
	}
	return &store.EVMTxKey{BlockNumber: c.B, Index: c.I}
}

// listNativeTxs serves listNativeTransactions: the txs the address sent,
// received, or created a contract by, most recent first.
func (a *API) listNativeTxs(w http.ResponseWriter, r *http.Request) error {
	q, err := a.transfersQuery(r)
	if err != nil {
		return err
	}
	items, next, err := listPage(a, r, listSpec{Op: "listNativeTransactions", Filters: q.filters},
		func(ctx context.Context, after *txCursor, limit int) ([]internal.EVMTx, error) {
			return a.evm.EVMAddressTxs(ctx, q.chain.ChainID, q.addr, true, q.r, false, after.key(), limit)
		},
		func(t internal.EVMTx) txCursor { return txCursor{B: t.BlockNumber, I: t.Index} })
	if err != nil {
		return err
	}
	a.writeTxs(w, q.chain.ChainID, items, next)
	return nil
}

// internalCursor is the keyset of the internal txs' page tokens.
type internalCursor struct {
	B uint64 `json:"b"`
	T uint32 `json:"t"`
	I uint32 `json:"i"`
}

// listInternalTxs serves listInternalTransactions: the listed internal
// txs (value moved, or a contract created) the address sent or received,
// most recent first.
func (a *API) listInternalTxs(w http.ResponseWriter, r *http.Request) error {
	q, err := a.transfersQuery(r)
	if err != nil {
		return err
	}
	items, next, err := listPage(a, r, listSpec{Op: "listInternalTransactions", Filters: q.filters},
		func(ctx context.Context, after *internalCursor, limit int) ([]store.EVMListedInternalTx, error) {
			var k *store.EVMInternalTxKey
			if after != nil {
				k = &store.EVMInternalTxKey{BlockNumber: after.B, TxIndex: after.T, Index: after.I}
			}
			return a.evm.EVMAddressInternalTxs(ctx, q.chain.ChainID, q.addr, q.r, k, limit)
		},
		func(it store.EVMListedInternalTx) internalCursor {
			return internalCursor{B: it.BlockNumber, T: it.TxIndex, I: it.Index}
		})
	if err != nil {
		return err
	}
	c := a.contracts(q.chain.ChainID)
	resp := ListInternalTransactionsResponse{NextPageToken: next, Transactions: make([]InternalTransaction, 0, len(items))}
	for i := range items {
		it := &items[i]
		resp.Transactions = append(resp.Transactions, InternalTransaction{
			BlockNumber:                strconv.FormatUint(it.BlockNumber, 10),
			BlockTimestamp:             it.Timestamp.Unix(),
			BlockTimestampMilliseconds: it.BlockTimeMilliseconds,
			BlockHash:                  it.BlockHash.Hex(),
			TxHash:                     it.TxHash.Hex(),
			InternalTransactionDetails: c.listedInternalTx(&it.EVMInternalTx),
		})
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// listedInternalTx renders a listed internal tx, its ends with their
// curated metadata only.
func (c *contracts) listedInternalTx(it *internal.EVMInternalTx) InternalTransactionDetails {
	typ, ok := internalTxTypes[it.CallType]
	if !ok {
		typ = "UNKNOWN"
	}
	return InternalTransactionDetails{From: c.curatedAddress(it.From), To: c.curatedAddress(it.To), InternalTxType: typ,
		Value: decimal(it.Value), IsReverted: it.Reverted, GasUsed: strconv.FormatUint(it.GasUsed, 10),
		GasLimit: strconv.FormatUint(it.Gas, 10)}
}

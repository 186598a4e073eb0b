package tests

import (
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// The ERC standards' transfer events, as the token standards define them.
var (
	eventTransfer       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	eventTransferSingle = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	eventTransferBatch  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

type nodeLog struct {
	Topics []common.Hash  `json:"topics"`
	Data   hexutil.Bytes  `json:"data"`
	Addr   common.Address `json:"address"`
}

// nodeTxActivity is what the node says a tx did: its receipt with its
// logs and its call frames below the top one.
type nodeTxActivity struct {
	block  *nodeFullBlock
	tx     *nodeTx
	rc     nodeReceipt
	logs   []nodeLog
	frames []api.InternalTransactionDetails
}

// transferEnds are the senders and recipients of the tx's ERC-20, ERC-721
// and ERC-1155 transfer events, and how many of each standard it has
// (a batch counts its items).
func (a *nodeTxActivity) transferEnds() (ends []common.Address, n20, n721, n1155 int) {
	for _, l := range a.logs {
		switch {
		case len(l.Topics) == 3 && l.Topics[0] == eventTransfer && len(l.Data) == 32:
			ends, n20 = append(ends, common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:])), n20+1
		case len(l.Topics) == 4 && l.Topics[0] == eventTransfer && len(l.Data) == 0:
			ends, n721 = append(ends, common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:])), n721+1
		case len(l.Topics) == 4 && l.Topics[0] == eventTransferSingle:
			ends, n1155 = append(ends, common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])), n1155+1
		case len(l.Topics) == 4 && l.Topics[0] == eventTransferBatch && len(l.Data) >= 96:
			// ids' offset, values' offset, then the ids' length.
			items := int(new(big.Int).SetBytes(l.Data[64:96]).Int64())
			ends, n1155 = append(ends, common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])), n1155+items
		}
	}
	return ends, n20, n721, n1155
}

// listedFrames are the tx's frames that move value or create a contract:
// the schema's rule for the internal transaction lists.
func (a *nodeTxActivity) listedFrames() []api.InternalTransactionDetails {
	var out []api.InternalTransactionDetails
	for _, f := range a.frames {
		if f.Value != "0" || strings.HasPrefix(f.InternalTxType, "CREATE") {
			out = append(out, f)
		}
	}
	return out
}

// TestEVMAddressHistoryMatchesNode checks an address's lists
// (listTransactions in both orders, listNativeTransactions,
// listInternalTransactions) and listAddressChains with its deprecated
// alias, on both stores, against what the node says of every tx since the
// EVM scenarios began (eth_getBlockByNumber, eth_getTransactionByHash,
// receipts and their logs, callTracer traces), for every address the txs
// touched, the reverted ones included. Every body is validated against
// the reference document.
func TestEVMAddressHistoryMatchesNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n, r := evmScenario(t)
	doc := openapitest.Default(t)
	ctx := t.Context()
	const rpc = "/ext/bc/C/rpc"
	call := func(method string, out any, params ...any) {
		t.Helper()
		if err := n.Call(ctx, rpc, method, params, out); err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
	}
	chainID := strconv.FormatUint(n.EVMChainID, 10)

	// What the node says of each tx since the scenarios began, oldest
	// first, and each address's part in them.
	first := r.s.First - 1
	var acts []*nodeTxActivity
	type parts struct{ all, native, internal []int } // indexes into acts
	byAddr := map[common.Address]*parts{}
	part := func(a common.Address) *parts {
		if byAddr[a] == nil {
			byAddr[a] = &parts{}
		}
		return byAddr[a]
	}
	reverted := 0
	for h := first; h <= r.head; h++ {
		b := &nodeFullBlock{}
		call("eth_getBlockByNumber", b, hexutil.Uint64(h), true)
		for i := range b.Transactions {
			tx := &b.Transactions[i]
			var byHash nodeTx
			call("eth_getTransactionByHash", &byHash, tx.Hash)
			if byHash.BlockHash != b.Hash || byHash.From != tx.From {
				t.Fatalf("the node's tx %s by hash differs from its block's", tx.Hash)
			}
			a := &nodeTxActivity{block: b, tx: tx}
			var rc struct {
				nodeReceipt
				Logs []nodeLog `json:"logs"`
			}
			call("eth_getTransactionReceipt", &rc, tx.Hash)
			a.rc, a.logs = rc.nodeReceipt, rc.Logs
			var frame callFrame
			call("debug_traceTransaction", &frame, tx.Hash, map[string]any{"tracer": "callTracer"})
			frame.flatten(frame.Error != "", &a.frames)
			k := len(acts)
			acts = append(acts, a)
			if a.rc.Status == 0 {
				reverted++
			}

			native := []common.Address{tx.From}
			if tx.To != nil {
				native = append(native, *tx.To)
			} else if a.rc.ContractAddress != nil {
				native = append(native, *a.rc.ContractAddress)
			}
			ends, _, _, _ := a.transferEnds()
			var internal []common.Address
			for _, f := range a.listedFrames() {
				internal = append(internal, common.HexToAddress(f.From.Address), common.HexToAddress(f.To.Address))
			}
			seen := map[common.Address]bool{}
			for _, x := range slices.Concat(native, ends, internal) {
				if !seen[x] {
					seen[x] = true
					part(x).all = append(part(x).all, k)
				}
			}
			for _, x := range slices.Compact(slices.Clone(native)) {
				if !slices.Contains(part(x).native, k) {
					part(x).native = append(part(x).native, k)
				}
			}
			for _, x := range internal {
				if !slices.Contains(part(x).internal, k) {
					part(x).internal = append(part(x).internal, k)
				}
			}
		}
	}
	if reverted == 0 || len(byAddr) < 5 {
		t.Fatalf("%d reverted txs, %d addresses since block %d: the test checks too little", reverted, len(byAddr), first)
	}

	wantTx := func(a *nodeTxActivity) api.NativeTransaction {
		b, tx, rc := a.block, a.tx, a.rc
		to := tx.To
		if to == nil {
			to = rc.ContractAddress
		}
		out := api.NativeTransaction{BlockNumber: strconv.FormatUint(uint64(b.Number), 10), BlockTimestamp: int64(b.Timestamp),
			BlockHash: b.Hash.Hex(), ChainID: chainID, BlockIndex: uint32(tx.Index), TxHash: tx.Hash.Hex(),
			TxStatus: strconv.FormatUint(uint64(rc.Status), 10), TxType: int(tx.Type), GasLimit: strconv.FormatUint(uint64(tx.Gas), 10),
			GasUsed: strconv.FormatUint(uint64(rc.GasUsed), 10), GasPrice: rc.EffectiveGasPrice.ToInt().String(),
			Nonce: strconv.FormatUint(uint64(tx.Nonce), 10), From: api.RichAddress{Address: tx.From.Hex()},
			To: api.RichAddress{Address: to.Hex()}, Value: tx.Value.ToInt().String()}
		if b.TimestampMilliseconds != nil {
			ms, d := uint64(*b.TimestampMilliseconds), uint64(*b.MinDelayExcess)
			out.BlockTimestampMilliseconds, out.BlockMinDelayExcess = &ms, &d
		}
		return out
	}
	bare := func(tx api.NativeTransaction) api.NativeTransaction {
		tx.From, tx.To, tx.Method = api.RichAddress{Address: tx.From.Address}, api.RichAddress{Address: tx.To.Address}, nil
		return tx
	}
	bareFrame := func(f api.InternalTransactionDetails) api.InternalTransactionDetails {
		f.From, f.To = api.RichAddress{Address: f.From.Address}, api.RichAddress{Address: f.To.Address}
		if !slices.Contains([]string{"CALL", "CREATE", "CREATE2", "CALLCODE", "DELEGATECALL", "STATICCALL"}, f.InternalTxType) {
			f.InternalTxType = "UNKNOWN"
		}
		return f
	}
	hashes := func(ks []int, desc bool) []string {
		out := []string{}
		for _, k := range ks {
			out = append(out, acts[k].tx.Hash.Hex())
		}
		if desc {
			slices.Reverse(out)
		}
		return out
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitEVMIndexed(t, dsn, n.EVMChainID, r.head)
		getJSON := apiGetter(t, base, doc)
		abase := "/v1/chains/" + chainID + "/addresses/"
		rangeQ := func(extra ...string) url.Values {
			q := url.Values{"pageSize": {"3"}, "startBlock": {strconv.FormatUint(first, 10)}, "endBlock": {strconv.FormatUint(r.head+1, 10)}}
			for i := 0; i+1 < len(extra); i += 2 {
				q.Set(extra[i], extra[i+1])
			}
			return q
		}
		all := func(api.TransactionDetails) (bool, bool) { return true, true }
		checked, withInternal := 0, 0
		for addr, p := range byAddr {
			path := abase + addr.Hex() + "/transactions"
			got := collectPages(getJSON, path, rangeQ(), func(pg *api.ListTransactionDetailsResponse) ([]api.TransactionDetails, string) {
				return pg.Transactions, pg.NextPageToken
			}, all)
			var gotHashes []string
			for _, d := range got {
				gotHashes = append(gotHashes, d.NativeTransaction.TxHash)
			}
			sameJSON(t, "the history of "+addr.Hex(), gotHashes, hashes(p.all, true))
			// Each tx as the node tells it, with its transfers and
			// listed internal txs.
			for i, d := range got {
				if i >= len(p.all) {
					break
				}
				a := acts[p.all[len(p.all)-1-i]]
				sameJSON(t, "history tx "+a.tx.Hash.Hex(), bare(d.NativeTransaction), wantTx(a))
				_, n20, n721, n1155 := a.transferEnds()
				if len(d.Erc20Transfers) != n20 || len(d.Erc721Transfers) != n721 || len(d.Erc1155Transfers) != n1155 {
					t.Errorf("tx %s: %d/%d/%d ERC-20/721/1155 transfers, the node's logs %d/%d/%d", a.tx.Hash, len(d.Erc20Transfers),
						len(d.Erc721Transfers), len(d.Erc1155Transfers), n20, n721, n1155)
				}
				var frames []api.InternalTransactionDetails
				for _, f := range d.InternalTransactions {
					frames = append(frames, bareFrame(f))
				}
				var wantFrames []api.InternalTransactionDetails
				for _, f := range a.listedFrames() {
					wantFrames = append(wantFrames, bareFrame(f))
				}
				sameJSON(t, "history internal txs of "+a.tx.Hash.Hex(), frames, wantFrames)
			}
			asc := collectPages(getJSON, path, rangeQ("sortOrder", "asc"), func(pg *api.ListTransactionDetailsResponse) ([]api.TransactionDetails, string) {
				return pg.Transactions, pg.NextPageToken
			}, all)
			var ascHashes []string
			for _, d := range asc {
				ascHashes = append(ascHashes, d.NativeTransaction.TxHash)
			}
			sameJSON(t, "the history of "+addr.Hex()+" ascending", ascHashes, hashes(p.all, false))

			natives := collectPages(getJSON, path+":listNative", rangeQ(), func(pg *api.ListNativeTransactionsResponse) ([]api.NativeTransaction, string) {
				return pg.Transactions, pg.NextPageToken
			}, func(api.NativeTransaction) (bool, bool) { return true, true })
			var gotNative, wantNative []api.NativeTransaction
			for _, tx := range natives {
				gotNative = append(gotNative, bare(tx))
			}
			for i := len(p.native) - 1; i >= 0; i-- {
				wantNative = append(wantNative, wantTx(acts[p.native[i]]))
			}
			sameJSON(t, "the native txs of "+addr.Hex(), gotNative, wantNative)

			internals := collectPages(getJSON, path+":listInternals", rangeQ(), func(pg *api.ListInternalTransactionsResponse) ([]api.InternalTransaction, string) {
				return pg.Transactions, pg.NextPageToken
			}, func(api.InternalTransaction) (bool, bool) { return true, true })
			var wantInternal []api.InternalTransaction
			for i := len(p.internal) - 1; i >= 0; i-- {
				a := acts[p.internal[i]]
				frames := a.listedFrames()
				for j := len(frames) - 1; j >= 0; j-- {
					f := frames[j]
					if common.HexToAddress(f.From.Address) != addr && common.HexToAddress(f.To.Address) != addr {
						continue
					}
					it := api.InternalTransaction{BlockNumber: strconv.FormatUint(uint64(a.block.Number), 10),
						BlockTimestamp: int64(a.block.Timestamp), BlockHash: a.block.Hash.Hex(), TxHash: a.tx.Hash.Hex(),
						InternalTransactionDetails: bareFrame(f)}
					if a.block.TimestampMilliseconds != nil {
						ms := uint64(*a.block.TimestampMilliseconds)
						it.BlockTimestampMilliseconds = &ms
					}
					wantInternal = append(wantInternal, it)
				}
			}
			for i := range internals {
				internals[i].InternalTransactionDetails = bareFrame(internals[i].InternalTransactionDetails)
			}
			sameJSON(t, "the internal txs of "+addr.Hex(), internals, wantInternal)
			if len(wantInternal) > 0 {
				withInternal++
			}

			for _, chains := range []string{"/v1/address/" + addr.Hex() + "/chains", "/v1/chains/address/" + addr.Hex()} {
				var resp api.ListAddressChainsResponse
				getJSON(chains, nil, &resp)
				if !slices.ContainsFunc(resp.IndexedChains, func(c api.EVMChainInfo) bool { return c.ChainID == chainID }) {
					t.Errorf("%s: %+v lacks chain %s", chains, resp.IndexedChains, chainID)
				}
			}
			checked++
		}
		if withInternal == 0 {
			t.Error("no address had internal txs: the internal lists were not checked")
		}
		t.Logf("%d addresses, %d txs (%d reverted) since block %d", checked, len(acts), reverted, first)

		var none api.ListAddressChainsResponse
		getJSON("/v1/address/"+common.Address{0xde, 0xad}.Hex()+"/chains", nil, &none)
		if len(none.IndexedChains) != 0 {
			t.Errorf("an unused address's chains: %+v", none.IndexedChains)
		}
		for _, bad := range []string{abase + "0x12/transactions", abase + common.Address{1}.Hex() + "/transactions?sortOrder=up",
			"/v1/address/nope/chains"} {
			if status, body, _ := get(t, base+bad); status != http.StatusBadRequest {
				t.Errorf("%s: %d %s, want 400", bad, status, body)
			}
		}
		if status, body, _ := get(t, base+"/v1/chains/addresses/"+common.Address{1}.Hex()); status != http.StatusNotFound {
			t.Errorf("a path beside the alias: %d %s, want 404", status, body)
		}
	})
}

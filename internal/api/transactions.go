package api

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// The Primary Network Transactions endpoints; txrender.go renders their
// transactions.

// getTx serves getTxByHash: the tx in the shape of the chain named, a
// PChainTransaction, an XChain(Non)LinearTransaction or a
// CChainExport/ImportTransaction.
func (a *API) getTx(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	if err != nil {
		return err
	}
	v := r.PathValue("txHash")
	id, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("txHash must be a cb58 transaction id, got %s", got(v))
	}
	ctx := r.Context()
	var body any
	switch chain {
	case internal.PChain:
		var (
			rec *store.TxRecord
			d   *pchain.TxDescription
			us  *store.TxUTXOs
		)
		if rec, d, err = a.pTx(ctx, id); err == nil {
			us, err = a.store.TxUTXOs(ctx, internal.PChain, id)
		}
		if err == nil {
			body, err = a.renderP(ctx, rec, d, us)
		}
	case internal.XChain:
		var (
			rec *store.TxRecord
			vs  map[ids.ID][]store.Vertex
			us  *store.TxUTXOs
		)
		if rec, err = a.store.XTx(ctx, id); err == nil {
			vs, err = a.dagVertices(ctx, rec)
		}
		if err == nil {
			us, err = a.store.TxUTXOs(ctx, internal.XChain, id)
		}
		if err == nil {
			body, err = a.renderX(ctx, rec, vs, us)
		}
	default:
		var rec *store.TxRecord
		if rec, err = a.store.CTx(ctx, id); err == nil {
			body, err = a.renderC(ctx, rec)
		}
	}
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("transaction %s not found on the %s", id, chainNames[chain])
	}
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, body)
	return nil
}

// assetTxCursor is the keyset of listAssetTxs' page tokens: the position
// of the last tx of the previous page.
type assetTxCursor struct {
	Height uint64 `json:"h"`
	Index  int64  `json:"i"`
}

// listAssetTxs serves listAssetTransactions: the X-chain txs that created
// the asset or moved any of it, newest first. An asset nothing moved (or
// that is not indexed) has no txs.
func (a *API) listAssetTxs(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.XChain)
	if err != nil {
		return err
	}
	v := r.PathValue("assetId")
	assetID, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("assetId must be a cb58 asset id, got %s", got(v))
	}
	types, err := param.EnumList(r, "txTypes", primaryNetworkTxTypes...)
	if err != nil {
		return err
	}
	start, end, err := timeRange(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listAssetTransactions",
		Filters: []string{string(chain), assetID.String(), sortedList(types), optString(start), optString(end)}}
	recs, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *assetTxCursor, limit int) ([]*store.TxRecord, error) {
			q := store.AssetTxQuery{AssetID: assetID, TxTypes: types, Start: start, End: end, Limit: limit}
			if after != nil {
				q.After = &store.TxPosition{Height: after.Height, Index: after.Index}
			}
			return a.store.XAssetTxs(ctx, q)
		},
		func(rec *store.TxRecord) assetTxCursor {
			return assetTxCursor{Height: rec.Height, Index: int64(rec.Index)}
		})
	if err != nil {
		return err
	}
	resp := ListXChainTransactionsResponse{
		NextPageToken: next,
		Transactions:  []XChainTransaction{},
		ChainInfo:     ChainInfo{ChainName: chainNames[chain], Network: network},
	}
	vs, err := a.dagVertices(r.Context(), recs...)
	if err != nil {
		return err
	}
	us, err := a.store.TxsUTXOs(r.Context(), internal.XChain, idsOf(recs, func(r *store.TxRecord) ids.ID { return r.ID }))
	if err != nil {
		return err
	}
	for _, rec := range recs {
		tx, err := a.renderX(r.Context(), rec, vs, us[rec.ID])
		if err != nil {
			return err
		}
		resp.Transactions = append(resp.Transactions, *tx)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// timeRange returns the startTimestamp and endTimestamp query parameters
// (unix seconds, inclusive), nil when absent.
func timeRange(r *http.Request) (start, end *int64, err error) {
	s, okS, err := param.OptionalUint(r, "startTimestamp")
	if err != nil {
		return nil, nil, err
	}
	e, okE, err := param.OptionalUint(r, "endTimestamp")
	if err != nil {
		return nil, nil, err
	}
	if okS && okE && s > e {
		return nil, nil, derrors.Invalid("startTimestamp (%d) must not be after endTimestamp (%d)", s, e)
	}
	if okS {
		start = &s
	}
	if okE {
		end = &e
	}
	return start, end, nil
}

// sortedList is a list filter as a page-token scope part: its items in a
// fixed order.
func sortedList(items []string) string {
	s := slices.Clone(items)
	slices.Sort(s)
	return strings.Join(s, ",")
}

func optString(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// MaxStakingAddresses bounds the addresses of listStaking: the limit of
// the Data API's GET lists of addresses.
const MaxStakingAddresses = 64

// stakingCursor is the keyset of listStaking's page tokens: the start time
// and tx id of the last staker of the previous page. Stakers that start
// while a client pages start later than every listed one, so pages stay
// consistent in either order: in descending order they come before the
// first page, in ascending order after the last.
type stakingCursor struct {
	Start uint64 `json:"s"`
	TxID  ids.ID `json:"t"`
}

// listStaking serves listActivePrimaryNetworkStakingTransactions: the
// staking txs whose staker is current at the last indexed block, whose
// reward owners include any of the addresses (all of them when none is
// given), by start time (desc by default) and then tx id.
func (a *API) listStaking(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain)
	if err != nil {
		return err
	}
	addrs, err := Addresses(r, "addresses", MaxStakingAddresses, a.network.HRP)
	if err != nil {
		return err
	}
	types, err := param.EnumList(r, "txTypes", primaryNetworkTxTypes...)
	if err != nil {
		return err
	}
	start, end, err := timeRange(r)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	q := store.ActiveStakerQuery{TxTypes: types, Desc: order == Desc}
	var names []string
	for _, ad := range addrs {
		q.Addresses = append(q.Addresses, ad.ID)
		names = append(names, ad.Bech32)
	}
	if start != nil {
		q.Start = ptr(uint64(*start))
	}
	if end != nil {
		q.End = ptr(uint64(*end))
	}
	spec := listSpec{Op: "listActivePrimaryNetworkStakingTransactions",
		Filters: []string{string(chain), sortedList(names), sortedList(types), optString(start), optString(end), order}}
	stakers, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *stakingCursor, limit int) ([]*store.StakerRecord, error) {
			q := q
			q.Limit = limit
			if after != nil {
				q.After = &store.StakerKey{StartTime: after.Start, TxID: after.TxID}
			}
			return a.store.ActiveStakers(ctx, q)
		},
		func(s *store.StakerRecord) stakingCursor { return stakingCursor{Start: s.StartTime, TxID: s.TxID} })
	if err != nil {
		return err
	}
	resp := ListPChainTransactionsResponse{
		NextPageToken: next,
		Transactions:  []PChainTransaction{},
		ChainInfo:     ChainInfo{ChainName: chainNames[chain], Network: network},
	}
	ctx := r.Context()
	us, err := a.store.TxsUTXOs(ctx, internal.PChain, idsOf(stakers, func(s *store.StakerRecord) ids.ID { return s.TxID }))
	if err != nil {
		return err
	}
	for _, s := range stakers {
		rec, d, err := a.pTx(ctx, s.TxID)
		if errors.Is(err, derrors.NotFound) {
			// A genesis staker of a genesis avaindex cannot rebuild: its tx
			// is in no block.
			continue
		}
		if err != nil {
			return err
		}
		tx, err := a.renderP(ctx, rec, d, us[s.TxID])
		if err != nil {
			return err
		}
		resp.Transactions = append(resp.Transactions, *tx)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// idsOf is the id of each of xs, for TxsUTXOs: a page's txs' UTXOs are
// read at once, not a tx at a time.
func idsOf[T any](xs []T, id func(T) ids.ID) []ids.ID {
	out := make([]ids.ID, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

// MaxHistoryAddresses bounds the addresses of
// listLatestPrimaryNetworkTransactions, as the other GET lists of
// addresses are bounded.
const MaxHistoryAddresses = 64

// historyCursor is the keyset of listLatestPrimaryNetworkTransactions'
// page tokens: the block time and the position-and-id key of the last tx
// of the previous page (store.AddressTxKey).
type historyCursor struct {
	Time int64  `json:"t"`
	Key  []byte `json:"k"`
}

// historyAddresses parses the addresses parameter of chain's history:
// bech32 addresses (with or without a chain prefix) and, on the C-chain,
// 0x EVM addresses, whose atomic txs debit or credit them. Each comes
// back with its canonical text, for the page-token scope.
func (a *API) historyAddresses(r *http.Request, chain internal.Chain) ([]ids.ShortID, []string, error) {
	v, ok, err := param.QueryValue(r, "addresses")
	if err != nil || !ok {
		return nil, nil, err
	}
	items, err := param.SplitList("addresses", v, MaxHistoryAddresses, 0)
	if err != nil {
		return nil, nil, err
	}
	var (
		out   []ids.ShortID
		names []string
	)
	for _, it := range items {
		if len(it) > 2 && (it[:2] == "0x" || it[:2] == "0X") {
			if chain != internal.CChain {
				return nil, nil, derrors.Invalid("addresses: %s is an EVM address; only the C-chain's atomic txs name EVM addresses", got(it))
			}
			b, err := hex.DecodeString(it[2:])
			if err != nil || len(b) != len(ids.ShortID{}) {
				return nil, nil, derrors.Invalid("addresses: %s is not a 20-byte 0x address", got(it))
			}
			id, _ := ids.ToShortID(b)
			out, names = append(out, id), append(names, hex0x(b))
			continue
		}
		ad, err := ParseAddresses("addresses", it, 1, a.network.HRP)
		if err != nil {
			return nil, nil, err
		}
		out, names = append(out, ad[0].ID), append(names, ad[0].Bech32)
	}
	return out, names, nil
}

// listHistory serves listLatestPrimaryNetworkTransactions: the chain's
// txs (the C-chain's atomic txs), of the addresses when given (their
// history: the txs that created, spent or imported a UTXO they own, the
// staking txs they are a reward owner of, on the C-chain the atomic txs
// that debit or credit their EVM address), of the L1 validator
// l1ValidationId changed when given (P-chain), newest first by default.
func (a *API) listHistory(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	if err != nil {
		return err
	}
	addrs, names, err := a.historyAddresses(r, chain)
	if err != nil {
		return err
	}
	types, err := param.EnumList(r, "txTypes", primaryNetworkTxTypes...)
	if err != nil {
		return err
	}
	start, end, err := timeRange(r)
	if err != nil {
		return err
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	q := store.AddressTxQuery{Chain: chain, Addresses: addrs, TxTypes: types, Start: start, End: end, Desc: order == Desc}
	vid := ""
	if v, ok, err := param.QueryValue(r, "l1ValidationId"); err != nil {
		return err
	} else if ok {
		if chain != internal.PChain {
			return derrors.Invalid("l1ValidationId filters P-chain txs only, not the %s's", chainNames[chain])
		}
		id, err := ids.FromString(v)
		if err != nil {
			return derrors.Invalid("l1ValidationId must be a cb58 validation id, got %s", got(v))
		}
		q.L1ValidationID, vid = &id, id.String()
	}
	spec := listSpec{Op: "listLatestPrimaryNetworkTransactions",
		Filters: []string{string(chain), sortedList(names), vid, sortedList(types), optString(start), optString(end), order}}
	txs, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *historyCursor, limit int) ([]*store.AddressTx, error) {
			q := q
			q.Limit = limit
			if after != nil {
				q.After = &store.AddressTxKey{Time: after.Time, Key: after.Key}
			}
			return a.store.AddressTxs(ctx, q)
		},
		func(t *store.AddressTx) historyCursor { return historyCursor{Time: t.Key.Time, Key: t.Key.Key} })
	if err != nil {
		return err
	}
	ctx := r.Context()
	info := ChainInfo{ChainName: chainNames[chain], Network: network}
	switch chain {
	case internal.PChain:
		resp := ListPChainTransactionsResponse{NextPageToken: next, Transactions: []PChainTransaction{}, ChainInfo: info}
		us, err := a.store.TxsUTXOs(ctx, internal.PChain, idsOf(txs, func(t *store.AddressTx) ids.ID { return t.ID }))
		if err != nil {
			return err
		}
		for _, t := range txs {
			d, err := pchain.DescribeTx(t.Bytes, t.Timestamp)
			if err != nil {
				return fmt.Errorf("stored P-chain tx %s: %w", t.ID, err)
			}
			tx, err := a.renderP(ctx, &t.TxRecord, d, us[t.ID])
			if err != nil {
				return err
			}
			resp.Transactions = append(resp.Transactions, *tx)
		}
		WriteJSON(w, http.StatusOK, resp)
	case internal.XChain:
		resp := ListXChainTransactionsResponse{NextPageToken: next, Transactions: []XChainTransaction{}, ChainInfo: info}
		recs := make([]*store.TxRecord, len(txs))
		for i, t := range txs {
			recs[i] = &t.TxRecord
		}
		vs, err := a.dagVertices(ctx, recs...)
		if err != nil {
			return err
		}
		us, err := a.store.TxsUTXOs(ctx, internal.XChain, idsOf(recs, func(r *store.TxRecord) ids.ID { return r.ID }))
		if err != nil {
			return err
		}
		for _, rec := range recs {
			tx, err := a.renderX(ctx, rec, vs, us[rec.ID])
			if err != nil {
				return err
			}
			resp.Transactions = append(resp.Transactions, *tx)
		}
		WriteJSON(w, http.StatusOK, resp)
	default:
		resp := ListCChainAtomicTransactionsResponse{NextPageToken: next, Transactions: []any{}, ChainInfo: info}
		for _, t := range txs {
			tx, err := a.renderC(ctx, &t.TxRecord)
			if err != nil {
				return err
			}
			resp.Transactions = append(resp.Transactions, tx)
		}
		WriteJSON(w, http.StatusOK, resp)
	}
	return nil
}

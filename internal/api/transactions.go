package api

import (
	"context"
	"errors"
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
		)
		if rec, d, err = a.pTx(ctx, id); err == nil {
			body, err = a.renderP(ctx, rec, d)
		}
	case internal.XChain:
		var (
			rec *store.TxRecord
			vs  map[ids.ID][]store.Vertex
		)
		if rec, err = a.store.XTx(ctx, id); err == nil {
			vs, err = a.dagVertices(ctx, rec)
		}
		if err == nil {
			body, err = a.renderX(ctx, rec, vs)
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
	for _, rec := range recs {
		tx, err := a.renderX(r.Context(), rec, vs)
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
		tx, err := a.renderP(ctx, rec, d)
		if err != nil {
			return err
		}
		resp.Transactions = append(resp.Transactions, *tx)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

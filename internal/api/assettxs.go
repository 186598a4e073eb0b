package api

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

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
	types, err := EnumList(r, "txTypes", primaryNetworkTxTypes...)
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
	for _, rec := range recs {
		tx, err := a.renderX(r.Context(), rec)
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
	s, okS, err := OptionalUint(r, "startTimestamp")
	if err != nil {
		return nil, nil, err
	}
	e, okE, err := OptionalUint(r, "endTimestamp")
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

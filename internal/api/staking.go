package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

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
	types, err := EnumList(r, "txTypes", primaryNetworkTxTypes...)
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

package api

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// The "Primary Network Rewards" operation listHistoricalPrimaryNetworkRewards:
// one record per reward UTXO a RewardValidatorTx created (stakers that
// earned nothing have none), for the addresses among its owners and/or the
// nodes its staker validated or delegated to, ordered by the staker's end
// time (when the reward was granted).

// Limits of the historical rewards' filters.
const (
	MaxRewardAddresses = 64
	MaxRewardNodeIDs   = 64
)

// defaultPriceMinAge is how old a reward or transaction must be for its
// historicalPrice by default (the schema's: only those of more than 24
// hours ago have one).
const defaultPriceMinAge = 24 * time.Hour

// rewardCursor is the keyset of the rewards' page tokens: the staker end
// time and UTXO id of the last reward of the page.
type rewardCursor struct {
	E uint64 `json:"e"`
	U ids.ID `json:"u"`
}

// listRewards serves listHistoricalPrimaryNetworkRewards.
func (a *API) listRewards(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	addrs, err := Addresses(r, "addresses", MaxRewardAddresses, a.network.HRP)
	if err != nil {
		return err
	}
	nodes, err := NodeIDs(r, "nodeIds", MaxRewardNodeIDs)
	if err != nil {
		return err
	}
	if len(addrs) == 0 && len(nodes) == 0 {
		return derrors.Invalid("addresses or nodeIds is required: give at least one of them")
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	currency, err := Currency(r)
	if err != nil {
		return err
	}
	q := store.RewardQuery{NodeIDs: nodes, Desc: order == Desc}
	for _, ad := range addrs {
		q.Addresses = append(q.Addresses, ad.ID)
	}
	spec := listSpec{Op: "listHistoricalPrimaryNetworkRewards",
		Filters: []string{addressesKey(q.Addresses), nodesKey(nodes), order}}
	rewards, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *rewardCursor, limit int) ([]*store.HistoricalReward, error) {
			var k *store.RewardKey
			if after != nil {
				k = &store.RewardKey{EndTime: after.E, UTXOID: after.U}
			}
			return a.store.HistoricalRewards(ctx, q, k, limit)
		},
		func(h *store.HistoricalReward) rewardCursor { return rewardCursor{E: h.EndTime, U: h.UTXOID} })
	if err != nil {
		return err
	}
	resp := ListHistoricalRewardsResponse{NextPageToken: next, HistoricalRewards: make([]HistoricalReward, 0, len(rewards))}
	prices := a.responsePrices()
	for _, h := range rewards {
		item, err := a.historicalReward(r.Context(), prices, h, currency)
		if err != nil {
			return err
		}
		resp.HistoricalRewards = append(resp.HistoricalRewards, item)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// nodesKey is the normalized node list of a page token's scope.
func nodesKey(nodes []ids.NodeID) string {
	s := slices.Clone(nodes)
	slices.SortFunc(s, func(a, b ids.NodeID) int { return bytes.Compare(a[:], b[:]) })
	s = slices.Compact(s)
	var b []byte
	for _, n := range s {
		b = append(b, n[:]...)
	}
	return string(b)
}

func (a *API) historicalReward(ctx context.Context, prices *boundedPrices, h *store.HistoricalReward, currency string) (HistoricalReward, error) {
	asset, err := a.assetAmount(ctx, h.AssetID, h.Amount)
	if err != nil {
		return HistoricalReward{}, err
	}
	owners, err := a.bech32s(h.Owners)
	if err != nil {
		return HistoricalReward{}, err
	}
	reward := AssetWithPriceInfo{AssetAmount: asset}
	granted := time.Unix(int64(h.EndTime), 0)
	if time.Since(granted) > a.priceMinAge {
		v, ok, err := prices.HistoricalPrice(ctx, h.AssetID, granted, currency)
		if err != nil {
			return HistoricalReward{}, err
		}
		if ok {
			reward.HistoricalPrice = &Money{CurrencyCode: currency, Value: v}
		}
	}
	return HistoricalReward{
		Addresses:      owners,
		TxHash:         h.StakerTxID.String(),
		AmountStaked:   strconv.FormatUint(h.Weight, 10),
		NodeID:         h.NodeID.String(),
		StartTimestamp: h.StartTime,
		EndTimestamp:   h.EndTime,
		RewardType:     h.Type,
		UtxoID:         h.UTXOID.String(),
		OutputIndex:    h.OutputIndex,
		Reward:         reward,
		RewardTxHash:   h.RewardTxID.String(),
	}, nil
}

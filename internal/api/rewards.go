package api

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
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
	addrs, nodes, order, err := a.rewardFilters(r)
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

// rewardFilters parses the {network} and filters of the reward lists:
// addresses and nodeIds (one of them at least) and sortOrder.
func (a *API) rewardFilters(r *http.Request) (addrs []Address, nodes []ids.NodeID, order string, err error) {
	if _, err = a.networks.Network(r); err != nil {
		return nil, nil, "", err
	}
	if addrs, err = Addresses(r, "addresses", MaxRewardAddresses, a.network.HRP); err != nil {
		return nil, nil, "", err
	}
	if nodes, err = NodeIDs(r, "nodeIds", MaxRewardNodeIDs); err != nil {
		return nil, nil, "", err
	}
	if len(addrs) == 0 && len(nodes) == 0 {
		return nil, nil, "", derrors.Invalid("addresses or nodeIds is required: give at least one of them")
	}
	order, err = SortOrder(r, Desc)
	return addrs, nodes, order, err
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

// primaryStakerTxTypes are the txs that add primary-network validators
// and delegators.
var primaryStakerTxTypes = []string{"AddValidatorTx", "AddDelegatorTx", "AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx"}

// pendingCursor is the keyset of listPendingPrimaryNetworkRewards' page
// tokens: the last staker's start time and tx.
type pendingCursor struct {
	S uint64 `json:"s"`
	T ids.ID `json:"t"`
}

// listPendingRewards serves listPendingPrimaryNetworkRewards: the current
// primary-network validators and delegators whose reward owners include
// one of addresses, or that validate (or delegate to) one of nodeIds,
// ordered by start time (then tx id), newest first unless sortOrder is
// asc. Each staker's estimatedReward is its potential reward (the node's
// potentialReward, replayed by pchain.RewardState), progress the percent
// of its staking period elapsed now.
func (a *API) listPendingRewards(w http.ResponseWriter, r *http.Request) error {
	addrs, nodes, order, err := a.rewardFilters(r)
	if err != nil {
		return err
	}
	desc := order == Desc
	var owners []ids.ShortID
	for _, ad := range addrs {
		owners = append(owners, ad.ID)
	}
	spec := listSpec{Op: "listPendingPrimaryNetworkRewards", Filters: []string{addressesKey(owners), nodesKey(nodes), order}}
	stakers, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *pendingCursor, limit int) ([]*store.StakerRecord, error) {
			var k *store.StakerKey
			if after != nil {
				k = &store.StakerKey{StartTime: after.S, TxID: after.T}
			}
			if len(nodes) == 0 {
				// The address index's scan; a permissionless staker of
				// an elastic subnet (none since Etna) is left out.
				got, err := a.store.ActiveStakers(ctx, store.ActiveStakerQuery{Addresses: owners,
					TxTypes: primaryStakerTxTypes, After: k, Desc: desc, Limit: limit})
				return slices.DeleteFunc(got, func(s *store.StakerRecord) bool { return s.SubnetID != constants.PrimaryNetworkID }), err
			}
			return a.pendingOfNodes(ctx, owners, nodes, k, limit, desc)
		},
		func(s *store.StakerRecord) pendingCursor { return pendingCursor{S: s.StartTime, T: s.TxID} })
	if err != nil {
		return err
	}
	resp := ListPendingRewardsResponse{NextPageToken: next, PendingRewards: make([]PendingReward, 0, len(stakers))}
	now := time.Now().Unix()
	for _, s := range stakers {
		item, err := a.pendingReward(r.Context(), s, now)
		if err != nil {
			return err
		}
		resp.PendingRewards = append(resp.PendingRewards, item)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// pendingOfNodes is a page of the current primary-network stakers of
// nodes (and of owners, when given), read from the current staker set.
func (a *API) pendingOfNodes(ctx context.Context, owners []ids.ShortID, nodes []ids.NodeID, after *store.StakerKey, limit int, desc bool) ([]*store.StakerRecord, error) {
	cur, err := a.store.CurrentStakers(ctx, constants.PrimaryNetworkID)
	if err != nil {
		return nil, err
	}
	cmpKey := func(s *store.StakerRecord, k store.StakerKey) int {
		c := cmp.Compare(s.StartTime, k.StartTime)
		if c == 0 {
			c = s.TxID.Compare(k.TxID)
		}
		if desc {
			c = -c
		}
		return c
	}
	var out []*store.StakerRecord
	for _, s := range cur.Stakers {
		if (s.Kind != pchain.KindValidator && s.Kind != pchain.KindDelegator) || !slices.Contains(nodes, s.NodeID) ||
			(len(owners) > 0 && !ownedByAny(s, owners)) || (after != nil && cmpKey(s, *after) <= 0) {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y *store.StakerRecord) int {
		return cmpKey(x, store.StakerKey{StartTime: y.StartTime, TxID: y.TxID})
	})
	return out[:min(len(out), limit)], nil
}

// ownedByAny reports whether one of owners is among s's reward owners.
func ownedByAny(s *store.StakerRecord, owners []ids.ShortID) bool {
	for _, o := range []*pchain.StakerOwner{s.ValidationRewardOwner, s.DelegationRewardOwner, s.RewardOwner} {
		if o == nil {
			continue
		}
		for _, a := range o.Addresses {
			if slices.Contains(owners, a) {
				return true
			}
		}
	}
	return false
}

func (a *API) pendingReward(ctx context.Context, s *store.StakerRecord, now int64) (PendingReward, error) {
	typ, owner := "VALIDATOR", s.ValidationRewardOwner
	if s.Kind == pchain.KindDelegator {
		typ, owner = "DELEGATOR", s.RewardOwner
	}
	var addrs []ids.ShortID
	if owner != nil {
		addrs = owner.Addresses
	}
	owners, err := a.bech32s(addrs)
	if err != nil {
		return PendingReward{}, err
	}
	var reward uint64
	if s.PotentialReward != nil {
		reward = *s.PotentialReward
	}
	est, err := a.assetAmount(ctx, a.network.AVAXAssetID, reward)
	if err != nil {
		return PendingReward{}, err
	}
	progress := 100.0
	if s.EndTime > s.StartTime {
		elapsed := min(max(float64(now)-float64(s.StartTime), 0), float64(s.EndTime-s.StartTime))
		progress = math.Round(elapsed/float64(s.EndTime-s.StartTime)*10000) / 100
	}
	return PendingReward{Addresses: owners, TxHash: s.TxID.String(), AmountStaked: strconv.FormatUint(s.Weight, 10),
		NodeID: s.NodeID.String(), StartTimestamp: s.StartTime, EndTimestamp: s.EndTime, RewardType: typ,
		Progress: progress, EstimatedReward: est}, nil
}

package api

import (
	"context"
	"math"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs/executor"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// The validator lists filter and sort on values no column holds: a
// validator's delegated weight, its delegation capacity, its uptime. They
// are computed across every staker at once, so the lists read an
// in-memory view of all stakers, rebuilt when the P-chain tip moves (and
// re-sorted by uptime when the uptimes are refreshed), with each sort
// order kept as an index: a page is a binary search and a walk that
// applies the filters.

// UptimeSource tells the primary-network validators' uptimes as the
// indexed node observes them (platform.getCurrentValidators' uptime and
// connected), with what the node knows of each as a peer (info.peers):
// node-local values no chain holds.
type UptimeSource interface {
	Uptimes(ctx context.Context) (map[ids.NodeID]Uptime, error)
}

// Uptime is one validator's uptime and peer state, as the node reports
// them.
type Uptime struct {
	// Percent is the uptime in percent, 0-100.
	Percent   float64
	Connected bool
	// Version is the validator's node version as its handshake told the
	// indexed node ("avalanchego/1.14.2"; the node's own for itself), ""
	// when it is no peer of the node.
	Version string
	// BenchedOn are the chains on which the node currently benches it
	// (info.peers' benched: a chain's primary alias, "P", "X" or "C", or
	// its id): their requests to it fail at once.
	BenchedOn []string
}

// uptimeTTL is how long fetched uptimes are served before being asked
// again: the node measures them over the whole validation, so they move
// slowly.
const uptimeTTL = 30 * time.Second

// Validation statuses (ValidationStatusType, DelegationStatusType).
const (
	statusActive    = "active"
	statusPending   = "pending"
	statusCompleted = "completed"
	statusRemoved   = "removed"
)

// Sort options of listValidators (SortByOption).
const (
	sortBlockIndex         = "blockIndex"
	sortDelegationCapacity = "delegationCapacity"
	sortTimeRemaining      = "timeRemaining"
	sortDelegationFee      = "delegationFee"
	sortUptimePerformance  = "uptimePerformance"
)

var validatorSorts = []string{sortBlockIndex, sortDelegationCapacity, sortTimeRemaining, sortDelegationFee, sortUptimePerformance}

// valItem is a validator (primary network, elastic or permissioned
// subnet) in the view.
type valItem struct {
	row    *store.StakerRow
	nodeID string
	status string
	// delegatorCount and delegated are its delegators': the current ones
	// while it is active, all of them once it completed.
	delegatorCount int
	delegated      uint64
	// capacity is what may still be delegated to it (active primary-network
	// validators only; see delegationCapacity).
	capacity    uint64
	hasCapacity bool
	// feeEstimate is the delegation fee its current delegators will pay
	// it if rewarded, added to the fee already accrued.
	feeEstimate uint64
	// paidFees is, for a validator that started before Cortina, the
	// delegation fee its rewarded delegators paid it: the P-chain paid
	// each at once, as a reward UTXO of the delegator's RewardValidatorTx,
	// and accrued none (store.StakerRow.DelegateeReward stays 0).
	paidFees  uint64
	uptime    Uptime
	hasUptime bool
}

// delItem is a delegator in the view, with the validation it delegates to
// (nil when the store does not have it).
type delItem struct {
	row       *store.StakerRow
	status    string
	validator *valItem
}

// vKey is an item's place in one of the view's orders: compared field by
// field, only the fields of the order set.
type vKey struct {
	K  uint64  `json:"k,omitempty"`
	K2 uint64  `json:"k2,omitempty"`
	F  float64 `json:"f,omitempty"`
	T  ids.ID  `json:"t"`
}

func cmpKey(a, b vKey) int {
	if c := cmpU(a.K, b.K); c != 0 {
		return c
	}
	if c := cmpU(a.K2, b.K2); c != 0 {
		return c
	}
	switch {
	case a.F < b.F:
		return -1
	case a.F > b.F:
		return 1
	}
	return a.T.Compare(b.T)
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// valKey is v's key in sortBy's order. Items without the sorted value (no
// capacity, no fee, no uptime) sort as zero.
func valKey(v *valItem, sortBy string) vKey {
	k := vKey{T: v.row.TxID}
	switch sortBy {
	case sortBlockIndex:
		k.K, k.K2 = v.row.AddedHeight, uint64(v.row.AddedIndex)
	case sortDelegationCapacity:
		k.K = v.capacity
	case sortTimeRemaining:
		// Time remaining falls with the end time everywhere.
		k.K = v.row.EndTime
	case sortDelegationFee:
		k.K = uint64(v.row.DelegationShares)
	case sortUptimePerformance:
		k.F = v.uptime.Percent
	case "start":
		k.K = v.row.StartTime
	}
	return k
}

func delKey(d *delItem) vKey { return vKey{K: d.row.StartTime, T: d.row.TxID} }

// validatorView is every staker at one P-chain tip.
type validatorView struct {
	height    uint64
	chainTime int64
	vals      []valItem
	// orders are the indexes of vals in each sort order, ascending.
	orders map[string][]int32
	// byNode are each node's validations by start time, ascending.
	byNode map[ids.NodeID][]int32
	dels   []delItem
	// delOrder is dels by start time, ascending.
	delOrder  []int32
	uptimesAt time.Time
	// next is the earliest chain time at which a status changes with no
	// tx (a pending staker starts, a permissioned validator ends); 0 for
	// none. built is when the view was built.
	next  uint64
	built time.Time
	// activeStake is each subnet's active stake: its active validators'
	// own and their current delegations.
	activeStake map[ids.ID]*big.Int
}

// viewMaxAge bounds how long a view is kept when no staker changed: a
// guard against changes the checks do not see (a store rederived in
// place).
const viewMaxAge = 5 * time.Minute

// views holds the current view and builds the next one.
type views struct {
	mu   sync.Mutex
	view *validatorView
}

// validatorView returns the view at the store's current tip, building it
// (or refreshing its uptimes) when it is out of date.
func (a *API) validatorView(ctx context.Context) (*validatorView, error) {
	h, ts, ok, err := a.store.PChainTip(ctx)
	if err != nil {
		return nil, err
	}
	a.views.mu.Lock()
	defer a.views.mu.Unlock()
	v := a.views.view
	stale := v == nil || !ok || time.Since(v.built) > viewMaxAge || (v.next != 0 && uint64(max(ts, 0)) >= v.next)
	if !stale && h != v.height {
		// A new block: the view holds unless it added or removed a
		// staker.
		if stale, err = a.store.StakersChangedSince(ctx, v.height); err != nil {
			return nil, err
		}
	}
	if stale {
		table, err := a.store.StakerTable(ctx)
		if err != nil {
			return nil, err
		}
		v = buildView(table, a.maxValidatorStake(), a.cortinaTime())
		a.applyUptimes(ctx, v)
		a.views.view = v
		return v, nil
	}
	if a.uptimes != nil && time.Since(v.uptimesAt) > uptimeTTL {
		// A copy: pages being served keep the view they started with.
		c := *v
		c.vals = slices.Clone(v.vals)
		c.orders = maps2(v.orders)
		a.applyUptimes(ctx, &c)
		a.views.view = &c
		v = &c
	}
	return v, nil
}

func maps2(m map[string][]int32) map[string][]int32 {
	out := make(map[string][]int32, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// maxValidatorStake is the network's maximum validator weight (its
// genesis staking configuration).
func (a *API) maxValidatorStake() uint64 {
	return genesis.GetStakingConfig(a.network.ID).MaxValidatorStake
}

// cortinaTime is when the network activated Cortina (unix seconds): the
// validators that started before it were paid their delegation fees by
// each delegator's reward, not at their own end. The replay of the rewards
// (pchain) reads the same upgrade times.
func (a *API) cortinaTime() uint64 {
	return uint64(max(upgrade.GetConfig(a.network.ID).CortinaTime.Unix(), 0))
}

// applyUptimes sets the active validators' uptimes from the uptime source
// (left unset when there is none or it fails) and sorts by them.
func (a *API) applyUptimes(ctx context.Context, v *validatorView) {
	v.uptimesAt = time.Now()
	var ups map[ids.NodeID]Uptime
	if a.uptimes != nil {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ups, _ = a.uptimes.Uptimes(ctx)
		cancel()
	}
	for i := range v.vals {
		it := &v.vals[i]
		it.uptime, it.hasUptime = Uptime{}, false
		if it.status != statusActive {
			continue
		}
		// A subnet validator validates the primary network too: the node
		// measures its uptime there.
		it.uptime, it.hasUptime = ups[it.row.NodeID], true
	}
	v.orders[sortUptimePerformance] = sortedVals(v.vals, sortUptimePerformance)
}

// buildView makes the view of table. maxStake bounds a validator's weight
// with its delegations; cortina is when Cortina activated (unix seconds).
func buildView(table *store.StakerTable, maxStake, cortina uint64) *validatorView {
	v := &validatorView{height: table.Height, chainTime: table.ChainTime, orders: map[string][]int32{},
		byNode: map[ids.NodeID][]int32{}, built: time.Now()}
	ts := uint64(max(table.ChainTime, 0))
	for i := range table.Rows {
		r := &table.Rows[i]
		var at uint64
		switch {
		case r.Removed:
			continue
		case r.StartTime > ts:
			at = r.StartTime
		case r.Kind == internal.StakerSubnetValidator && r.EndTime > ts:
			at = r.EndTime
		default:
			continue
		}
		if ts != 0 && (v.next == 0 || at < v.next) {
			v.next = at
		}
	}
	type subnetNode struct {
		subnet ids.ID
		node   ids.NodeID
	}
	bySN := map[subnetNode][]int32{}
	for i := range table.Rows {
		r := &table.Rows[i]
		if r.Kind == internal.StakerDelegator {
			continue
		}
		it := valItem{row: r, nodeID: r.NodeID.String(), status: validatorStatus(r, ts)}
		idx := int32(len(v.vals))
		v.vals = append(v.vals, it)
		bySN[subnetNode{r.SubnetID, r.NodeID}] = append(bySN[subnetNode{r.SubnetID, r.NodeID}], idx)
		v.byNode[r.NodeID] = append(v.byNode[r.NodeID], idx)
	}
	for i := range table.Rows {
		r := &table.Rows[i]
		if r.Kind != internal.StakerDelegator {
			continue
		}
		d := delItem{row: r, status: delegatorStatus(r, ts)}
		// A delegation lies within the validation it delegates to.
		for _, j := range bySN[subnetNode{r.SubnetID, r.NodeID}] {
			vr := v.vals[j].row
			if vr.StartTime <= r.StartTime && r.EndTime <= vr.EndTime {
				d.validator = &v.vals[j]
				break
			}
		}
		if vi := d.validator; vi != nil {
			switch {
			case vi.status == statusActive && d.status == statusActive:
				vi.delegatorCount++
				vi.delegated += r.Weight
				if r.PotentialReward != nil {
					fee, _ := reward.Split(*r.PotentialReward, vi.row.DelegationShares)
					vi.feeEstimate += fee
				}
			case vi.status == statusCompleted:
				vi.delegatorCount++
				vi.delegated += r.Weight
			}
			// avalanchego's rewardDelegatorTx: before Cortina the fee went
			// to the validator with the delegator's committed reward.
			if vi.row.StartTime < cortina && r.Removed && r.RewardCommitted && r.PotentialReward != nil {
				fee, _ := reward.Split(*r.PotentialReward, vi.row.DelegationShares)
				vi.paidFees += fee
			}
			if vi.status == statusActive && d.status == statusPending {
				// Pending delegations take capacity too.
				vi.capacity += r.Weight
			}
		}
		v.dels = append(v.dels, d)
	}
	for i := range v.vals {
		it := &v.vals[i]
		pending := it.capacity
		it.capacity = 0
		if it.status == statusActive && it.row.SubnetID == constants.PrimaryNetworkID && it.row.Kind == internal.StakerValidator {
			it.capacity, it.hasCapacity = delegationCapacity(it.row.Weight, it.delegated+pending, maxStake), true
		}
	}
	v.activeStake = map[ids.ID]*big.Int{}
	for i := range v.vals {
		it := &v.vals[i]
		if it.status != statusActive {
			continue
		}
		t := v.activeStake[it.row.SubnetID]
		if t == nil {
			t = new(big.Int)
			v.activeStake[it.row.SubnetID] = t
		}
		t.Add(t, new(big.Int).SetUint64(it.row.Weight))
		t.Add(t, new(big.Int).SetUint64(it.delegated))
	}
	for _, s := range validatorSorts {
		if s != sortUptimePerformance {
			v.orders[s] = sortedVals(v.vals, s)
		}
	}
	for _, idxs := range v.byNode {
		slices.SortFunc(idxs, func(a, b int32) int { return cmpKey(valKey(&v.vals[a], "start"), valKey(&v.vals[b], "start")) })
	}
	v.delOrder = make([]int32, len(v.dels))
	for i := range v.delOrder {
		v.delOrder[i] = int32(i)
	}
	slices.SortFunc(v.delOrder, func(a, b int32) int { return cmpKey(delKey(&v.dels[a]), delKey(&v.dels[b])) })
	return v
}

func sortedVals(vals []valItem, sortBy string) []int32 {
	out := make([]int32, len(vals))
	for i := range out {
		out[i] = int32(i)
	}
	slices.SortFunc(out, func(a, b int32) int { return cmpKey(valKey(&vals[a], sortBy), valKey(&vals[b], sortBy)) })
	return out
}

// delegationCapacity is what may still be delegated to a primary-network
// validator of weight stake that has delegated delegated: the P-chain
// refuses a delegation that takes the validator's total weight above
// min(MaxValidatorWeightFactor × stake, the network's maximum validator
// stake), so the capacity is that bound less the stake and what is
// delegated, and 0 once reached.
func delegationCapacity(stake, delegated, maxStake uint64) uint64 {
	bound := uint64(math.MaxUint64)
	if stake <= math.MaxUint64/executor.MaxValidatorWeightFactor {
		bound = stake * executor.MaxValidatorWeightFactor
	}
	bound = min(bound, maxStake)
	used := stake + delegated
	if used < stake || used >= bound {
		return 0
	}
	return bound - used
}

// validatorStatus is a validation's status at chain time ts: pending
// before its start, completed once its RewardValidatorTx removed it (or,
// for a permissioned subnet validator, once the chain time passed its
// end), removed when a RemoveSubnetValidatorTx removed it, active
// otherwise.
func validatorStatus(r *store.StakerRow, ts uint64) string {
	switch {
	case r.Removed && r.Kind == internal.StakerSubnetValidator:
		return statusRemoved
	case r.Removed:
		return statusCompleted
	case ts != 0 && r.StartTime > ts:
		return statusPending
	case ts != 0 && r.Kind == internal.StakerSubnetValidator && r.EndTime <= ts:
		return statusCompleted
	}
	return statusActive
}

// delegatorStatus is validatorStatus for a delegation.
func delegatorStatus(r *store.StakerRow, ts uint64) string {
	switch {
	case r.Removed:
		return statusCompleted
	case ts != 0 && r.StartTime > ts:
		return statusPending
	}
	return statusActive
}

// walk calls f on the items of order (indexes, ascending by key), after
// the item at *after (in the walk's direction), in ascending order or
// descending when desc, until f returns false.
func walk(order []int32, key func(int32) vKey, after *vKey, desc bool, f func(int32) bool) {
	if !desc {
		start := 0
		if after != nil {
			start, _ = slices.BinarySearchFunc(order, *after, func(i int32, k vKey) int { return cmpKey(key(i), k) })
			if start < len(order) && cmpKey(key(order[start]), *after) == 0 {
				start++
			}
		}
		for _, i := range order[start:] {
			if !f(i) {
				return
			}
		}
		return
	}
	end := len(order)
	if after != nil {
		end, _ = slices.BinarySearchFunc(order, *after, func(i int32, k vKey) int { return cmpKey(key(i), k) })
	}
	for j := end - 1; j >= 0; j-- {
		if !f(order[j]) {
			return
		}
	}
}

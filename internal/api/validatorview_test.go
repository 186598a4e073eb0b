package api

import (
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/units"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// TestDelegationCapacityByHand checks the capacity against values worked
// out by hand from the rule min(5 × stake, maxValidatorStake) − stake −
// delegated.
func TestDelegationCapacityByHand(t *testing.T) {
	const maxStake = 3 * units.MegaAvax
	for _, c := range []struct {
		stake, delegated, want uint64
	}{
		// min(10,000, 3,000,000) − 2,000 − 500 = 7,500 AVAX.
		{2_000 * units.Avax, 500 * units.Avax, 7_500_000_000_000},
		// min(5,000,000, 3,000,000) − 1,000,000 − 0 = 2,000,000 AVAX.
		{1_000_000 * units.Avax, 0, 2_000_000_000_000_000},
		// Full: 2,000 AVAX with 8,000 delegated.
		{2_000 * units.Avax, 8_000 * units.Avax, 0},
		// Over the maximum (a genesis validator may be): 0.
		{3_000_000 * units.Avax, 1, 0},
	} {
		if got := delegationCapacity(c.stake, c.delegated, maxStake); got != c.want {
			t.Errorf("delegationCapacity(%d, %d) = %d, want %d", c.stake, c.delegated, got, c.want)
		}
	}
}

// TestValidatorViewByHand builds a view of a few stakers whose statuses,
// delegations, capacities and fee estimates are worked out by hand.
func TestValidatorViewByHand(t *testing.T) {
	node := ids.GenerateTestNodeID()
	subnet := ids.GenerateTestID()
	p := func(v uint64) *uint64 { return &v }
	const now = 1_000_000
	rows := []store.StakerRow{
		// An active validator, 2,000 AVAX, 10% fee, two current
		// delegations (300 and 200 AVAX) and one pending (100 AVAX).
		{TxID: ids.GenerateTestID(), Kind: internal.StakerValidator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 2_000 * units.Avax, StartTime: now - 100, EndTime: now + 1000, DelegationShares: 100_000, AddedHeight: 5,
			PotentialReward: p(40), DelegateeReward: 7},
		{TxID: ids.GenerateTestID(), Kind: internal.StakerDelegator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 300 * units.Avax, StartTime: now - 50, EndTime: now + 500, PotentialReward: p(1001)},
		{TxID: ids.GenerateTestID(), Kind: internal.StakerDelegator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 200 * units.Avax, StartTime: now - 40, EndTime: now + 500, PotentialReward: p(20)},
		{TxID: ids.GenerateTestID(), Kind: internal.StakerDelegator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 100 * units.Avax, StartTime: now + 10, EndTime: now + 500},
		// The same node's completed earlier validation with one delegation.
		{TxID: ids.GenerateTestID(), Kind: internal.StakerValidator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 2_000 * units.Avax, StartTime: now - 5000, EndTime: now - 1000, DelegationShares: 20_000, AddedHeight: 1,
			Removed: true, RewardCommitted: true},
		{TxID: ids.GenerateTestID(), Kind: internal.StakerDelegator, SubnetID: constants.PrimaryNetworkID, NodeID: node,
			Weight: 25 * units.Avax, StartTime: now - 4000, EndTime: now - 2000, Removed: true},
		// Permissioned subnet validators: one past its end, one removed.
		{TxID: ids.GenerateTestID(), Kind: internal.StakerSubnetValidator, SubnetID: subnet, NodeID: node,
			Weight: 10, StartTime: now - 100, EndTime: now - 1, AddedHeight: 6},
		{TxID: ids.GenerateTestID(), Kind: internal.StakerSubnetValidator, SubnetID: subnet, NodeID: node,
			Weight: 10, StartTime: now - 100, EndTime: now + 100, AddedHeight: 7, Removed: true},
	}
	v := buildView(&store.StakerTable{Height: 9, ChainTime: now, Rows: rows}, 3*units.MegaAvax)
	byTx := map[ids.ID]*valItem{}
	for i := range v.vals {
		byTx[v.vals[i].row.TxID] = &v.vals[i]
	}
	active, done, ended, removed := byTx[rows[0].TxID], byTx[rows[4].TxID], byTx[rows[6].TxID], byTx[rows[7].TxID]
	if active.status != statusActive || done.status != statusCompleted || ended.status != statusCompleted || removed.status != statusRemoved {
		t.Fatalf("statuses %s %s %s %s", active.status, done.status, ended.status, removed.status)
	}
	// Current delegations: 2 of 500 AVAX; capacity 10,000 − 2,000 − 500 −
	// 100 (pending) = 7,400 AVAX.
	if active.delegatorCount != 2 || active.delegated != 500*units.Avax || !active.hasCapacity || active.capacity != 7_400*units.Avax {
		t.Errorf("active: %d delegators, %d delegated, capacity %d (%t)", active.delegatorCount, active.delegated, active.capacity, active.hasCapacity)
	}
	// Fees at 10%: reward.Split(1001) gives the validator 1001 − floor(1001 ×
	// 0.9) = 1001 − 900 = 101, and Split(20) 20 − 18 = 2: 103.
	if active.feeEstimate != 103 {
		t.Errorf("fee estimate %d, want 103", active.feeEstimate)
	}
	if done.delegatorCount != 1 || done.delegated != 25*units.Avax || done.hasCapacity {
		t.Errorf("completed: %d delegators, %d delegated, capacity %t", done.delegatorCount, done.delegated, done.hasCapacity)
	}
	if len(v.dels) != 4 || v.dels[3].status != statusCompleted || v.dels[3].validator != done {
		t.Errorf("delegators %+v", v.dels)
	}
	// blockIndex order, ascending: heights 1, 5, 6, 7.
	var heights []uint64
	for _, i := range v.orders[sortBlockIndex] {
		heights = append(heights, v.vals[i].row.AddedHeight)
	}
	if len(heights) != 4 || heights[0] != 1 || heights[1] != 5 || heights[2] != 6 || heights[3] != 7 {
		t.Errorf("blockIndex order %v", heights)
	}
	// A walk after the second item, descending, gives the first.
	var got []int32
	after := valKey(&v.vals[v.orders[sortBlockIndex][1]], sortBlockIndex)
	walk(v.orders[sortBlockIndex], func(i int32) vKey { return valKey(&v.vals[i], sortBlockIndex) }, &after, true, func(i int32) bool {
		got = append(got, i)
		return true
	})
	if len(got) != 1 || v.vals[got[0]].row.AddedHeight != 1 {
		t.Errorf("walk desc after height 5: %v", got)
	}
	if f := feePercent(100_000); f != "10.0000" {
		t.Errorf("feePercent(100000) = %s", f)
	}
	if f := feePercent(20_500); f != "2.0500" {
		t.Errorf("feePercent(20500) = %s", f)
	}
}

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
	v := buildView(&store.StakerTable{Height: 9, ChainTime: now, Rows: rows}, 3*units.MegaAvax, 0)
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

// TestPreCortinaDelegationFeesByHand checks delegationRewardAmount against
// avalanchego's rule (v1.14.2, rewardDelegatorTx and rewardValidatorTx):
// a validator that started before Cortina was paid each delegator's fee
// when that delegator's reward committed, and accrued nothing; one that
// started from Cortina on accrues the fees (the store's DelegateeReward)
// and is paid them at its end, whether its own reward commits or aborts.
// The fees are reward.Split's, worked out by hand: the delegator keeps
// floor((1,000,000 − shares) × reward / 1,000,000), the validator the rest.
func TestPreCortinaDelegationFeesByHand(t *testing.T) {
	p := func(v uint64) *uint64 { return &v }
	const (
		now     = 10_000_000
		cortina = now - 3000
	)
	node, node2, node3 := ids.GenerateTestNodeID(), ids.GenerateTestNodeID(), ids.GenerateTestNodeID()
	primary := constants.PrimaryNetworkID
	val := func(n ids.NodeID, start, end uint64, shares uint32) store.StakerRow {
		return store.StakerRow{TxID: ids.GenerateTestID(), Kind: internal.StakerValidator, SubnetID: primary, NodeID: n,
			Weight: 2_000 * units.Avax, StartTime: start, EndTime: end, DelegationShares: shares}
	}
	del := func(n ids.NodeID, start, end uint64, reward *uint64, removed, committed bool) store.StakerRow {
		return store.StakerRow{TxID: ids.GenerateTestID(), Kind: internal.StakerDelegator, SubnetID: primary, NodeID: n,
			Weight: 25 * units.Avax, StartTime: start, EndTime: end, PotentialReward: reward, Removed: removed, RewardCommitted: committed}
	}
	// A pre-Cortina validation, 2% fee, completed, its own reward aborted.
	pre := val(node, now-10_000, now-100, 20_000)
	pre.Removed = true
	// A pre-Cortina validation, 10% fee, still active.
	preActive := val(node2, now-5000, now+1000, 100_000)
	// A validation from Cortina on, 2% fee, completed and committed, with
	// 7 nAVAX accrued.
	post := val(node3, cortina, now-10, 20_000)
	post.Removed, post.RewardCommitted, post.PotentialReward, post.DelegateeReward = true, true, p(40), 7
	rows := []store.StakerRow{pre, preActive, post,
		// pre: 2% of 1,000,003: the delegator keeps floor(980,000 ×
		// 1,000,003 / 10^6) = floor(980,002.94) = 980,002; the fee is 20,001.
		del(node, now-9000, now-8000, p(1_000_003), true, true),
		// 2% of 50: keeps floor(49) = 49, fee 1.
		del(node, now-8000, now-7000, p(50), true, true),
		// Aborted: no fee.
		del(node, now-7000, now-6000, p(999_999), true, false),
		// preActive: 10% of 1001 committed: keeps floor(900.9) = 900, fee 101.
		del(node2, now-4000, now-3500, p(1001), true, true),
		// Current: 10% of 20 if rewarded: keeps 18, fee 2.
		del(node2, now-100, now+500, p(20), false, false),
		// post: committed, but from Cortina on the fee is in DelegateeReward.
		del(node3, cortina+10, now-20, p(1_000_003), true, true),
	}
	v := buildView(&store.StakerTable{Height: 9, ChainTime: now, Rows: rows}, 3*units.MegaAvax, cortina)
	byTx := map[ids.ID]*valItem{}
	for i := range v.vals {
		byTx[v.vals[i].row.TxID] = &v.vals[i]
	}
	for _, c := range []struct {
		name   string
		tx     ids.ID
		status string
		want   uint64
	}{
		{"pre-Cortina, completed, aborted", pre.TxID, statusCompleted, 20_001 + 1},
		{"pre-Cortina, active", preActive.TxID, statusActive, 101 + 2},
		{"from Cortina, completed", post.TxID, statusCompleted, 7},
	} {
		it := byTx[c.tx]
		if it == nil {
			t.Fatalf("%s: not in the view", c.name)
		}
		if it.status != c.status || it.delegationFees() != c.want {
			t.Errorf("%s: %s, delegation fees %d (paid %d, accrued %d, estimated %d); want %s, %d", c.name, it.status,
				it.delegationFees(), it.paidFees, it.row.DelegateeReward, it.feeEstimate, c.status, c.want)
		}
	}
	// With Cortina at the genesis (every local network), no fee is paid
	// before it: the pre-Cortina validations read only what they accrued.
	v = buildView(&store.StakerTable{Height: 9, ChainTime: now, Rows: rows}, 3*units.MegaAvax, 0)
	for i := range v.vals {
		if it := &v.vals[i]; it.paidFees != 0 {
			t.Errorf("Cortina at 0: validator %s paid %d", it.row.TxID, it.paidFees)
		}
	}
}

// TestValidatorHealthFromPeers checks validatorHealth against info.peers'
// naming of benched chains (a primary alias or a chain id): each chain's
// percentage is 100 while the node benches the validator there.
func TestValidatorHealthFromPeers(t *testing.T) {
	n := &internal.Network{PChainID: constants.PlatformChainID, XChainID: ids.GenerateTestID(), CChainID: ids.GenerateTestID()}
	a := &API{network: n}
	for _, c := range []struct {
		up                 Uptime
		reach, bp, bx, bcc float64
	}{
		{Uptime{}, 0, 0, 0, 0},
		{Uptime{Connected: true}, 100, 0, 0, 0},
		{Uptime{Connected: true, BenchedOn: []string{"X", n.CChainID.String()}}, 100, 0, 100, 100},
		{Uptime{BenchedOn: []string{n.PChainID.String(), "some-subnet-chain"}}, 0, 100, 0, 0},
	} {
		h := a.validatorHealth(c.up)
		if h.ReachabilityPercent != c.reach || h.BenchedPChainRequestsPercent != c.bp ||
			h.BenchedXChainRequestsPercent != c.bx || h.BenchedCChainRequestsPercent != c.bcc {
			t.Errorf("validatorHealth(%+v) = %+v", c.up, h)
		}
	}
}

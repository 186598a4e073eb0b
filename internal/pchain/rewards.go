package pchain

import (
	"bytes"
	"fmt"
	"sort"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/math"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
)

// Staking rewards are minted from a supply that no block holds: it starts
// at the genesis's initial supply, grows by each staker's potential reward
// when the staker enters the current set, and shrinks by it again when the
// reward is not paid. A potential reward depends on the supply at that
// moment, so the whole history is replayed here, in the executor's order,
// with avalanchego's reward calculator. Elastic subnets (TransformSubnetTx)
// have a supply and rates of their own.

// DefaultRewardConfig is the reward configuration a node of networkID uses
// unless its operator overrides it with --stake-* flags.
func DefaultRewardConfig(networkID uint32) reward.Config {
	return genesis.GetStakingConfig(networkID).RewardConfig
}

// rewardEvent is one thing that moves rewards in a block, at position idx.
type rewardEvent struct {
	idx       int
	staker    *Staker
	transform *SubnetTransform
	end       *StakerEnd
	advance   *TimeAdvance
}

// ApplyBlocks replays blocks (ascending heights from s.Next on) of the
// network networkID, whose primary network rewards with primary, with the
// staking changes ch derived from them. It returns the supplies that
// changed, per block.
func (s *RewardState) ApplyBlocks(networkID uint32, primary reward.Config, blocks []*Block, ch *StakingChanges, book RewardBook) ([]SupplyChange, error) {
	if len(blocks) == 0 || !s.Complete {
		return nil, nil
	}
	if blocks[0].Height > s.Next {
		s.Complete = false // blocks before these were indexed without the replay
		return nil, nil
	}
	if s.Subnets == nil {
		s.Subnets = map[ids.ID]*SubnetRewards{}
	}
	events := map[uint64][]rewardEvent{}
	for i := range ch.Stakers {
		st := &ch.Stakers[i]
		events[st.Height] = append(events[st.Height], rewardEvent{idx: st.Index, staker: st})
	}
	for i := range ch.Transforms {
		t := &ch.Transforms[i]
		events[t.Height] = append(events[t.Height], rewardEvent{idx: t.Index, transform: t})
	}
	for i := range ch.Ends {
		events[ch.Ends[i].Height] = append(events[ch.Ends[i].Height], rewardEvent{end: &ch.Ends[i]})
	}
	for i := range ch.Advances {
		events[ch.Advances[i].Height] = append(events[ch.Advances[i].Height], rewardEvent{advance: &ch.Advances[i]})
	}
	r := &replay{state: s, book: book, up: upgrade.GetConfig(networkID), primary: primary}
	var out []SupplyChange
	for _, b := range blocks {
		if b.Height < s.Next {
			continue // applied already
		}
		r.changed = map[ids.ID]bool{}
		if b.Height == 0 {
			if b.Genesis == nil {
				s.Complete = false // the genesis is not known
				return nil, nil
			}
			s.Time = b.Genesis.Timestamp
			s.Subnets[constants.PrimaryNetworkID] = &SubnetRewards{Supply: b.Genesis.InitialSupply, Config: primary}
			r.changed[constants.PrimaryNetworkID] = true
		} else if !b.Timestamp.IsZero() {
			if err := r.advance(uint64(b.Timestamp.Unix()), b.Height); err != nil {
				return nil, fmt.Errorf("block %d: %w", b.Height, err)
			}
		}
		evs := events[b.Height]
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].idx < evs[j].idx })
		for _, e := range evs {
			if err := r.apply(e, b.Height); err != nil {
				return nil, fmt.Errorf("block %d: %w", b.Height, err)
			}
		}
		for id := range r.changed {
			out = append(out, SupplyChange{SubnetID: id, Height: b.Height, Supply: s.Subnets[id].Supply})
		}
		s.Next = b.Height + 1
	}
	return out, nil
}

type replay struct {
	state   *RewardState
	book    RewardBook
	up      upgrade.Config
	primary reward.Config
	changed map[ids.ID]bool
}

func (r *replay) apply(e rewardEvent, height uint64) error {
	s := r.state
	switch {
	case e.staker != nil:
		st := e.staker
		if st.Kind == KindSubnetValidator {
			return nil // permissioned validators earn nothing
		}
		// Genesis stakers are current from the genesis; before Durango the
		// others wait in the pending set until their start time.
		if st.Height != 0 && !r.up.IsDurangoActivated(time.Unix(int64(s.Time), 0)) {
			if s.NextPending == 0 || st.StartTime < s.NextPending {
				s.NextPending = st.StartTime
			}
			return nil
		}
		return r.enter(st)
	case e.transform != nil:
		t := e.transform
		s.Subnets[t.SubnetID] = &SubnetRewards{Supply: t.InitialSupply, Config: reward.Config{
			MaxConsumptionRate: t.MaxConsumptionRate,
			MinConsumptionRate: t.MinConsumptionRate,
			MintingPeriod:      r.primary.MintingPeriod,
			SupplyCap:          t.MaximumSupply,
		}}
		r.changed[t.SubnetID] = true
	case e.advance != nil:
		return r.advance(e.advance.Time, height)
	case e.end != nil:
		return r.end(e.end, height)
	}
	return nil
}

// enter makes st current: it is promised its reward, which the supply
// grows by.
func (r *replay) enter(st *Staker) error {
	sub := r.state.Subnets[st.SubnetID]
	if sub == nil {
		return fmt.Errorf("staker %s of subnet %s, which mints no rewards", st.TxID, st.SubnetID)
	}
	// Genesis stakers are rewarded for the period their tx names.
	start := st.StartTime
	if st.Height == 0 && st.TxStartTime != 0 {
		start = st.TxStartTime
	}
	if st.EndTime < start {
		return fmt.Errorf("staker %s ends at %d before it starts at %d", st.TxID, st.EndTime, start)
	}
	duration := time.Duration(st.EndTime-start) * time.Second
	potential := reward.NewCalculator(sub.Config).Calculate(duration, st.Weight, sub.Supply)
	supply, err := math.Add(sub.Supply, potential)
	if err != nil {
		return fmt.Errorf("supply of subnet %s: %w", st.SubnetID, err)
	}
	sub.Supply = supply
	r.changed[st.SubnetID] = true
	return r.book.SetPotentialReward(st.TxID, potential)
}

// advance moves the chain time to t at the block at height, promoting the
// pending stakers that start by then, in the pending set's order.
func (r *replay) advance(t, height uint64) error {
	s := r.state
	if t > s.Time {
		s.Time = t
	}
	if s.NextPending == 0 || s.NextPending > t {
		return nil
	}
	pending, err := r.book.Pending(t, height)
	if err != nil {
		return err
	}
	sort.Slice(pending, func(i, j int) bool {
		a, b := &pending[i], &pending[j]
		if a.StartTime != b.StartTime {
			return a.StartTime < b.StartTime
		}
		if pa, pb := PendingPriority(a.TxType, a.SubnetID), PendingPriority(b.TxType, b.SubnetID); pa != pb {
			return pa < pb
		}
		return bytes.Compare(a.TxID[:], b.TxID[:]) < 0
	})
	for i := range pending {
		if pending[i].Kind == KindSubnetValidator {
			continue
		}
		if err := r.enter(&pending[i]); err != nil {
			return err
		}
	}
	s.NextPending, err = r.book.NextPendingStart(height)
	return err
}

// end settles the staker a RewardValidatorTx removed: an aborted reward
// is taken back from the supply; a paid delegation gives its validator
// the delegation fee, accrued until the validator leaves when the
// validator started from Cortina on (paid at once before, as a reward
// UTXO the node reports).
func (r *replay) end(e *StakerEnd, height uint64) error {
	st, err := r.book.Staker(e.StakerTxID)
	if err != nil {
		return fmt.Errorf("staker %s rewarded by %s: %w", e.StakerTxID, e.TxID, err)
	}
	if !e.Committed {
		sub := r.state.Subnets[st.SubnetID]
		if sub == nil {
			return fmt.Errorf("staker %s of subnet %s, which mints no rewards", st.TxID, st.SubnetID)
		}
		supply, err := math.Sub(sub.Supply, st.PotentialReward)
		if err != nil {
			return fmt.Errorf("supply of subnet %s: %w", st.SubnetID, err)
		}
		sub.Supply = supply
		r.changed[st.SubnetID] = true
		return nil
	}
	if st.Kind != KindDelegator {
		return nil
	}
	v, err := r.book.Validator(st.SubnetID, st.NodeID, height)
	if err != nil {
		return fmt.Errorf("validator of delegator %s: %w", st.TxID, err)
	}
	delegatee, _ := reward.Split(st.PotentialReward, v.DelegationShares)
	if delegatee == 0 || !r.up.IsCortinaActivated(time.Unix(int64(v.StartTime), 0)) {
		return nil
	}
	return r.book.AddDelegateeReward(v.TxID, delegatee)
}

// PendingPriority is avalanchego's pending-set priority of a staker added
// by a tx of type txType to subnetID: it orders promotions at equal start
// times.
func PendingPriority(txType string, subnetID ids.ID) txs.Priority {
	primary := subnetID == constants.PrimaryNetworkID
	switch {
	case txType == "AddDelegatorTx":
		return txs.PrimaryNetworkDelegatorApricotPendingPriority
	case txType == "AddValidatorTx" || (txType == "AddPermissionlessValidatorTx" && primary):
		return txs.PrimaryNetworkValidatorPendingPriority
	case txType == "AddPermissionlessDelegatorTx" && primary:
		return txs.PrimaryNetworkDelegatorBanffPendingPriority
	case txType == "AddPermissionlessValidatorTx":
		return txs.SubnetPermissionlessValidatorPendingPriority
	case txType == "AddPermissionlessDelegatorTx":
		return txs.SubnetPermissionlessDelegatorPendingPriority
	}
	return txs.SubnetPermissionedValidatorPendingPriority
}

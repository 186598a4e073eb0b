package pchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/fx"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// DeriveStaking derives staker changes from blocks (consecutive,
// ascending). A proposal block's proposal tx takes effect with the commit or
// abort block that follows it, whose Proposal must be linked (see
// LinkProposals). The height-0 block brings the genesis stakers when it
// carries the genesis.
func DeriveStaking(blocks []*Block) (*StakingChanges, error) {
	out := &StakingChanges{}
	for _, b := range blocks {
		if b.Height == 0 {
			if b.Genesis != nil {
				out.Stakers = append(out.Stakers, b.Genesis.Stakers...)
			}
			continue
		}
		switch b.Type {
		case "BanffCommitBlock", "ApricotCommitBlock", "BanffAbortBlock", "ApricotAbortBlock":
			prop := b.Proposal
			if prop == nil {
				return nil, fmt.Errorf("%s %s at height %d: its proposal block is not linked", b.Type, b.ID, b.Height)
			}
			if len(prop.Txs) == 0 {
				return nil, fmt.Errorf("block %d decided by %s %s has no proposal tx", prop.Height, b.Type, b.ID)
			}
			i := len(prop.Txs) - 1
			// The decided tx takes effect at the decision block, at the
			// proposal block's chain time.
			if err := addStakingTx(out, prop.Txs[i], b.Height, i, prop.Timestamp, b.Committed(), true); err != nil {
				return nil, err
			}
		case "BanffProposalBlock", "ApricotProposalBlock":
			// Decision txs carried by a Banff proposal block apply on both
			// outcomes; the last tx waits for the decision.
			for i := 0; i < len(b.Txs)-1; i++ {
				if err := addStakingTx(out, b.Txs[i], b.Height, i, b.Timestamp, true, false); err != nil {
					return nil, err
				}
			}
		default:
			for i := range b.Txs {
				if err := addStakingTx(out, b.Txs[i], b.Height, i, b.Timestamp, true, false); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// addTx derives the changes of one accepted tx. committed is false only for
// the proposal tx of a proposal block that was aborted.
func addStakingTx(c *StakingChanges, t *Tx, height uint64, idx int, blockTime time.Time, committed, proposal bool) error {
	tx := t.Tx
	chainTime := uint64(0)
	if !blockTime.IsZero() {
		chainTime = uint64(blockTime.Unix())
	}
	switch u := tx.Unsigned.(type) {
	case *txs.AdvanceTimeTx:
		if proposal && committed {
			c.Advances = append(c.Advances, TimeAdvance{Height: height, Time: u.Time})
		}
	case *txs.TransformSubnetTx:
		c.Transforms = append(c.Transforms, SubnetTransform{
			TxID: tx.ID(), Height: height, Index: idx, SubnetID: u.Subnet,
			InitialSupply: u.InitialSupply, MaximumSupply: u.MaximumSupply,
			MinConsumptionRate: u.MinConsumptionRate, MaxConsumptionRate: u.MaxConsumptionRate,
		})
	case *txs.RewardValidatorTx:
		if proposal {
			c.Ends = append(c.Ends, StakerEnd{StakerTxID: u.TxID, TxID: tx.ID(), Height: height, Committed: committed})
		}
	case *txs.AddValidatorTx, *txs.AddDelegatorTx, *txs.AddSubnetValidatorTx,
		*txs.AddPermissionlessValidatorTx, *txs.AddPermissionlessDelegatorTx:
		if !committed {
			return nil // an aborted proposal added nothing
		}
		s, err := StakerFromTx(tx, blockTime)
		if err != nil {
			return fmt.Errorf("tx %s of block %d: %w", tx.ID(), height, err)
		}
		s.Height, s.Index = height, idx
		c.Stakers = append(c.Stakers, *s)
	case *txs.RemoveSubnetValidatorTx:
		c.SubnetRemovals = append(c.SubnetRemovals, SubnetValidatorRemoval{
			TxID: tx.ID(), Height: height, Index: idx, SubnetID: u.Subnet, NodeID: u.NodeID,
		})
	case *txs.ConvertSubnetToL1Tx:
		for i, v := range u.Validators {
			nodeID, err := ids.ToNodeID(v.NodeID)
			if err != nil {
				return fmt.Errorf("tx %s validator %d: %w", tx.ID(), i, err)
			}
			c.L1Events = append(c.L1Events, L1Event{
				TxID: tx.ID(), Height: height, Index: idx, Kind: L1Convert,
				ValidationID: u.Subnet.Append(uint32(i)),
				Time:         chainTime,
				SubnetID:     u.Subnet, NodeID: nodeID,
				PublicKey:             append([]byte(nil), v.Signer.PublicKey[:]...),
				RemainingBalanceOwner: pchainOwner(v.RemainingBalanceOwner),
				DeactivationOwner:     pchainOwner(v.DeactivationOwner),
				Weight:                v.Weight,
				Balance:               v.Balance,
			})
		}
	case *txs.RegisterL1ValidatorTx:
		msg, err := registerMessage(u.Message)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.ID(), err)
		}
		nodeID, err := ids.ToNodeID(msg.NodeID)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.ID(), err)
		}
		c.L1Events = append(c.L1Events, L1Event{
			TxID: tx.ID(), Height: height, Index: idx, Kind: L1Register,
			ValidationID: msg.ValidationID(),
			Time:         chainTime,
			SubnetID:     msg.SubnetID, NodeID: nodeID,
			PublicKey:             append([]byte(nil), msg.BLSPublicKey[:]...),
			RemainingBalanceOwner: pchainOwner(msg.RemainingBalanceOwner),
			DeactivationOwner:     pchainOwner(msg.DisableOwner),
			Weight:                msg.Weight,
			Balance:               u.Balance,
		})
	case *txs.SetL1ValidatorWeightTx:
		msg, err := weightMessage(u.Message)
		if err != nil {
			return fmt.Errorf("tx %s: %w", tx.ID(), err)
		}
		c.L1Events = append(c.L1Events, L1Event{
			TxID: tx.ID(), Height: height, Index: idx, Kind: L1SetWeight,
			ValidationID: msg.ValidationID, Time: chainTime,
			Weight: msg.Weight, Nonce: msg.Nonce,
		})
	case *txs.IncreaseL1ValidatorBalanceTx:
		c.L1Events = append(c.L1Events, L1Event{
			TxID: tx.ID(), Height: height, Index: idx, Kind: L1IncreaseBalance,
			ValidationID: u.ValidationID, Time: chainTime, Balance: u.Balance,
		})
	case *txs.DisableL1ValidatorTx:
		c.L1Events = append(c.L1Events, L1Event{
			TxID: tx.ID(), Height: height, Index: idx, Kind: L1Disable,
			ValidationID: u.ValidationID, Time: chainTime,
		})
	}
	return nil
}

func registerMessage(b []byte) (*message.RegisterL1Validator, error) {
	call, err := addressedCall(b)
	if err != nil {
		return nil, err
	}
	msg, err := message.ParseRegisterL1Validator(call.Payload)
	if err != nil {
		return nil, fmt.Errorf("RegisterL1Validator message: %w", err)
	}
	return msg, nil
}

func weightMessage(b []byte) (*message.L1ValidatorWeight, error) {
	call, err := addressedCall(b)
	if err != nil {
		return nil, err
	}
	msg, err := message.ParseL1ValidatorWeight(call.Payload)
	if err != nil {
		return nil, fmt.Errorf("L1ValidatorWeight message: %w", err)
	}
	return msg, nil
}

func addressedCall(b []byte) (*payload.AddressedCall, error) {
	wm, err := warp.ParseMessage(b)
	if err != nil {
		return nil, fmt.Errorf("warp message: %w", err)
	}
	call, err := payload.ParseAddressedCall(wm.Payload)
	if err != nil {
		return nil, fmt.Errorf("warp addressed call: %w", err)
	}
	return call, nil
}

func pchainOwner(o message.PChainOwner) *StakerOwner {
	return &StakerOwner{Threshold: o.Threshold, Addresses: append([]ids.ShortID{}, o.Addresses...)}
}

func fxOwner(o fx.Owner) *StakerOwner {
	oo, ok := o.(*secp256k1fx.OutputOwners)
	if !ok || oo == nil {
		return nil
	}
	return &StakerOwner{Locktime: oo.Locktime, Threshold: oo.Threshold, Addresses: append([]ids.ShortID{}, oo.Addrs...)}
}

// StakerFromTx describes the staker tx adds when a block with chain time
// blockTime (zero for pre-Banff blocks) accepts it.
func StakerFromTx(tx *txs.Tx, blockTime time.Time) (*Staker, error) {
	st, ok := tx.Unsigned.(txs.Staker)
	if !ok {
		return nil, fmt.Errorf("%T is not a staker tx", tx.Unsigned)
	}
	s := &Staker{
		TxID:     tx.ID(),
		TxType:   typeName(tx.Unsigned),
		Priority: st.CurrentPriority(),
		SubnetID: st.SubnetID(),
		NodeID:   st.NodeID(),
		Weight:   st.Weight(),
		EndTime:  uint64(st.EndTime().Unix()),
	}
	switch {
	case st.CurrentPriority().IsPermissionedValidator():
		s.Kind = KindSubnetValidator
	case st.CurrentPriority().IsCurrentDelegator():
		s.Kind = KindDelegator
	default:
		s.Kind = KindValidator
	}
	if sch, ok := st.(txs.ScheduledStaker); ok {
		s.TxStartTime = uint64(sch.StartTime().Unix())
	}
	// Pre-Durango stakers start at the time their tx names; from Durango on
	// they start when accepted.
	s.StartTime = s.TxStartTime
	if !blockTime.IsZero() && durango(networkIDOf(tx), blockTime) {
		s.StartTime = uint64(blockTime.Unix())
	}
	if v, ok := st.(txs.ValidatorTx); ok {
		s.DelegationShares = v.Shares()
		s.ValidationRewardOwner = fxOwner(v.ValidationRewardsOwner())
		s.DelegationRewardOwner = fxOwner(v.DelegationRewardsOwner())
	}
	if d, ok := st.(txs.DelegatorTx); ok {
		s.RewardOwner = fxOwner(d.RewardsOwner())
	}
	if pv, ok := tx.Unsigned.(*txs.AddPermissionlessValidatorTx); ok {
		if pop, ok := pv.Signer.(*signer.ProofOfPossession); ok {
			s.PublicKey = append([]byte(nil), pop.PublicKey[:]...)
			s.ProofOfPossession = append([]byte(nil), pop.ProofOfPossession[:]...)
		}
	}
	return s, nil
}

func networkIDOf(tx *txs.Tx) uint32 {
	switch u := tx.Unsigned.(type) {
	case *txs.AddValidatorTx:
		return u.NetworkID
	case *txs.AddDelegatorTx:
		return u.NetworkID
	case *txs.AddSubnetValidatorTx:
		return u.NetworkID
	case *txs.AddPermissionlessValidatorTx:
		return u.NetworkID
	case *txs.AddPermissionlessDelegatorTx:
		return u.NetworkID
	}
	return constants.UnitTestID
}

func durango(networkID uint32, t time.Time) bool {
	c := upgrade.GetConfig(networkID)
	return c.IsDurangoActivated(t)
}

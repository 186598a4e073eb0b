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

// StakerKind says what a staker of the permissionless/permissioned staker
// set is.
type StakerKind string

const (
	// KindValidator is a primary-network (or elastic-subnet) validator,
	// added by AddValidatorTx or AddPermissionlessValidatorTx.
	KindValidator StakerKind = "validator"
	// KindDelegator is a delegator, added by AddDelegatorTx or
	// AddPermissionlessDelegatorTx.
	KindDelegator StakerKind = "delegator"
	// KindSubnetValidator is a permissioned (PoA) subnet validator, added by
	// AddSubnetValidatorTx.
	KindSubnetValidator StakerKind = "subnet_validator"
)

// StakerOwner is a secp256k1fx owner as staking records keep it: the
// reward owners of stakers, the remaining-balance and deactivation owners
// of L1 validators.
type StakerOwner struct {
	Locktime  uint64
	Threshold uint32
	Addresses []ids.ShortID
}

// Staker is a validator or delegator as its adding tx (or the genesis)
// defines it.
type Staker struct {
	TxID   ids.ID
	TxType string
	Kind   StakerKind
	// Priority is avalanchego's current-staker priority, which orders
	// stakers with equal end times.
	Priority txs.Priority
	SubnetID ids.ID
	NodeID   ids.NodeID
	Weight   uint64
	// StartTime is when the staker entered (or enters, pre-Durango) the
	// current set: the tx's start time before Durango, the chain time of
	// the accepting block after. Unix seconds.
	StartTime uint64
	// TxStartTime is the start time written in the tx (0 when it has none).
	TxStartTime uint64
	EndTime     uint64
	// DelegationShares is the validator's delegation fee in millionths
	// (validators only).
	DelegationShares uint32
	// ValidationRewardOwner and DelegationRewardOwner are a validator's
	// reward owners; RewardOwner is a delegator's. Nil when absent or not
	// a secp256k1fx owner.
	ValidationRewardOwner *StakerOwner
	DelegationRewardOwner *StakerOwner
	RewardOwner           *StakerOwner
	// PublicKey (compressed, 48 bytes) and ProofOfPossession (96 bytes) of
	// the BLS signer, nil when the tx has none.
	PublicKey         []byte
	ProofOfPossession []byte
	// Height is the block that added the staker (the commit block for
	// proposal txs); 0 for genesis stakers.
	Height uint64
	Index  int // position of the tx in its block
}

// StakerEnd is the RewardValidatorTx that removed a validator or delegator.
type StakerEnd struct {
	StakerTxID ids.ID
	TxID       ids.ID
	Height     uint64 // the commit/abort block that decided it
	Committed  bool   // true: rewarded; false: aborted, stake returned without reward
}

// SubnetValidatorRemoval is a RemoveSubnetValidatorTx.
type SubnetValidatorRemoval struct {
	TxID     ids.ID
	Height   uint64
	Index    int
	SubnetID ids.ID
	NodeID   ids.NodeID
}

// L1EventKind names what an L1 validator event does.
type L1EventKind string

const (
	L1Convert         L1EventKind = "convert"          // ConvertSubnetToL1Tx: added
	L1Register        L1EventKind = "register"         // RegisterL1ValidatorTx: added
	L1SetWeight       L1EventKind = "set_weight"       // SetL1ValidatorWeightTx; weight 0 removes
	L1IncreaseBalance L1EventKind = "increase_balance" // IncreaseL1ValidatorBalanceTx
	L1Disable         L1EventKind = "disable"          // DisableL1ValidatorTx
)

// L1Event is one change of one L1 validator by one tx.
type L1Event struct {
	TxID         ids.ID
	Height       uint64
	Index        int // position of the tx in its block
	Kind         L1EventKind
	ValidationID ids.ID
	// Time is the chain time of the block (unix seconds).
	Time uint64

	// Set for L1Convert and L1Register.
	SubnetID              ids.ID
	NodeID                ids.NodeID
	PublicKey             []byte // compressed, 48 bytes
	RemainingBalanceOwner *StakerOwner
	DeactivationOwner     *StakerOwner

	// Weight: the initial weight (convert, register) or the new weight
	// (set_weight). Nonce: the message nonce (set_weight). Balance: the
	// initial balance (convert, register) or the amount added
	// (increase_balance).
	Weight  uint64
	Nonce   uint64
	Balance uint64
}

// TimeAdvance is a committed AdvanceTimeTx: pre-Banff, the only way the
// chain time moved.
type TimeAdvance struct {
	Height uint64 // the commit block
	Time   uint64 // unix seconds
}

// SubnetTransform is a TransformSubnetTx: the subnet becomes an elastic
// (permissionless) subnet with its own supply and reward rates.
type SubnetTransform struct {
	TxID               ids.ID
	Height             uint64
	Index              int
	SubnetID           ids.ID
	InitialSupply      uint64
	MaximumSupply      uint64
	MinConsumptionRate uint64
	MaxConsumptionRate uint64
}

// StakingChanges is what a batch of blocks changed in the staker sets.
type StakingChanges struct {
	Stakers        []Staker
	Ends           []StakerEnd
	SubnetRemovals []SubnetValidatorRemoval
	L1Events       []L1Event
	Advances       []TimeAdvance
	Transforms     []SubnetTransform
}

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
			if err := out.addTx(prop.Txs[i], b.Height, i, prop.Timestamp, b.Committed(), true); err != nil {
				return nil, err
			}
		case "BanffProposalBlock", "ApricotProposalBlock":
			// Decision txs carried by a Banff proposal block apply on both
			// outcomes; the last tx waits for the decision.
			for i := 0; i < len(b.Txs)-1; i++ {
				if err := out.addTx(b.Txs[i], b.Height, i, b.Timestamp, true, false); err != nil {
					return nil, err
				}
			}
		default:
			for i := range b.Txs {
				if err := out.addTx(b.Txs[i], b.Height, i, b.Timestamp, true, false); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// addTx derives the changes of one accepted tx. committed is false only for
// the proposal tx of a proposal block that was aborted.
func (c *StakingChanges) addTx(t *Tx, height uint64, idx int, blockTime time.Time, committed, proposal bool) error {
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

// L1Validator is an L1 validator's state after a sequence of its events.
type L1Validator struct {
	ValidationID          ids.ID
	SubnetID              ids.ID
	NodeID                ids.NodeID
	PublicKey             []byte // compressed
	RemainingBalanceOwner *StakerOwner
	DeactivationOwner     *StakerOwner
	StartTime             uint64
	// Weight is 0 once a SetL1ValidatorWeightTx removed the validator.
	Weight   uint64
	MinNonce uint64
	// DepositedBalance is what was paid in for the continuous fee since the
	// validator was last activated; 0 while it is disabled. The node's
	// balance is this minus the fees accrued since, which the txs do not
	// tell.
	DepositedBalance uint64
	Active           bool
	AddedTxID        ids.ID
	AddedHeight      uint64
	RemovedTxID      ids.ID // ids.Empty while not removed
	RemovedHeight    uint64
	DisabledTxID     ids.ID // the DisableL1ValidatorTx while disabled by one
	UpdatedHeight    uint64
}

// Removed reports whether the validator's weight was set to 0.
func (v *L1Validator) Removed() bool { return v.RemovedTxID != ids.Empty }

// FoldL1 applies the events of one validator, in chain order, as the
// P-chain's executor does, and returns its state; ok is false when no
// event adds it (its register or convert event is unknown).
func FoldL1(events []L1Event) (v *L1Validator, ok bool) {
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case L1Convert, L1Register:
			v = &L1Validator{
				ValidationID:          e.ValidationID,
				SubnetID:              e.SubnetID,
				NodeID:                e.NodeID,
				PublicKey:             e.PublicKey,
				RemainingBalanceOwner: e.RemainingBalanceOwner,
				DeactivationOwner:     e.DeactivationOwner,
				StartTime:             e.Time,
				Weight:                e.Weight,
				DepositedBalance:      e.Balance,
				Active:                e.Balance != 0,
				AddedTxID:             e.TxID,
				AddedHeight:           e.Height,
			}
		case L1SetWeight:
			if v == nil {
				continue
			}
			// The nonce wraps when a removal uses MaxUint64, as on the node.
			v.MinNonce = e.Nonce + 1
			v.Weight = e.Weight
			if e.Weight == 0 {
				// The remaining balance is refunded; the validator is gone.
				v.RemovedTxID, v.RemovedHeight = e.TxID, e.Height
				v.Active, v.DepositedBalance = false, 0
			}
		case L1IncreaseBalance:
			if v == nil {
				continue
			}
			if !v.Active {
				v.Active, v.DepositedBalance, v.DisabledTxID = true, 0, ids.Empty
			}
			v.DepositedBalance += e.Balance
		case L1Disable:
			if v == nil {
				continue
			}
			if v.Active {
				v.Active, v.DepositedBalance, v.DisabledTxID = false, 0, e.TxID
			}
		default:
			continue
		}
		if v != nil {
			v.UpdatedHeight = e.Height
		}
	}
	return v, v != nil
}

package internal

import (
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
)

// The P-chain's values as the store keeps them: decoded and derived by
// package pchain (Batch), which keeps its old names for them as aliases.

// StakerKind says what a staker of the permissionless/permissioned staker
// set is.
type StakerKind string

const (
	// StakerValidator is a primary-network (or elastic-subnet) validator,
	// added by AddValidatorTx or AddPermissionlessValidatorTx.
	StakerValidator StakerKind = "validator"
	// StakerDelegator is a delegator, added by AddDelegatorTx or
	// AddPermissionlessDelegatorTx.
	StakerDelegator StakerKind = "delegator"
	// StakerSubnetValidator is a permissioned (PoA) subnet validator, added by
	// AddSubnetValidatorTx.
	StakerSubnetValidator StakerKind = "subnet_validator"
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

// SubnetOwner is a P-chain owner: Threshold of Addresses may spend (or, for a
// subnet, authorize) once Locktime (unix seconds) has passed.
type SubnetOwner struct {
	Locktime  uint64
	Threshold uint32
	Addresses []ids.ShortID
}

// PPos is the position of a transaction in the chain: its block's height
// and its index in the block. Positions order the changes to one record.
type PPos struct {
	Height uint64
	Index  int
	// Time is the block's timestamp; zero for pre-Banff blocks.
	Time time.Time
}

// Less reports whether p comes before q in the chain.
func (p PPos) Less(q PPos) bool {
	return p.Height < q.Height || (p.Height == q.Height && p.Index < q.Index)
}

// Subnet is a subnet as P-chain transactions made it.
type Subnet struct {
	// ID is the id of the CreateSubnetTx that created it.
	ID      ids.ID
	Created PPos
	// Owner is the current owner, set by CreateSubnetTx and changed by
	// TransferSubnetOwnershipTx; OwnerPos is where it was last set.
	Owner    SubnetOwner
	OwnerPos PPos
	// Conversion is set once the subnet was converted to an L1.
	Conversion *SubnetConversion
	// TransformTxID is the TransformSubnetTx that made the subnet
	// permissionless (elastic); ids.Empty if it never was.
	TransformTxID ids.ID
	Transformed   PPos
}

// SubnetConversion is what a ConvertSubnetToL1Tx records for its subnet.
type SubnetConversion struct {
	// ID is the conversion id: the hash of the SubnetToL1ConversionData
	// message that validators sign.
	ID             ids.ID
	ManagerChainID ids.ID
	ManagerAddress []byte
	TxID           ids.ID
	At             PPos
}

// Blockchain is a chain created by a CreateChainTx.
type Blockchain struct {
	// ID is the id of the CreateChainTx.
	ID       ids.ID
	Name     string
	SubnetID ids.ID
	VMID     ids.ID
	FxIDs    []ids.ID
	Genesis  []byte
	Created  PPos
}

// SubnetOwnerChange is a TransferSubnetOwnershipTx.
type SubnetOwnerChange struct {
	SubnetID ids.ID
	Owner    SubnetOwner
	At       PPos
}

// SubnetConverted is a ConvertSubnetToL1Tx.
type SubnetConverted struct {
	SubnetID ids.ID
	SubnetConversion
}

// SubnetTransformed is a TransformSubnetTx.
type SubnetTransformed struct {
	SubnetID ids.ID
	TxID     ids.ID
	At       PPos
}

// PStateChanges are the subnet and blockchain changes of a run of blocks,
// each kind in chain order.
type PStateChanges struct {
	Subnets     []Subnet
	Chains      []Blockchain
	Owners      []SubnetOwnerChange
	Conversions []SubnetConverted
	Transforms  []SubnetTransformed
}

// Empty reports whether there are no changes.
func (c *PStateChanges) Empty() bool {
	return len(c.Subnets)+len(c.Chains)+len(c.Owners)+len(c.Conversions)+len(c.Transforms) == 0
}

// Kinds of P-chain UTXOs, as the store records them.
const (
	// PKindRegular is an output of a tx's Outs (or a genesis allocation).
	PKindRegular = "regular"
	// PKindStake is a stake output of a staker tx: it is locked while the
	// staker is active and enters the UTXO set when the staker leaves (its
	// RewardValidatorTx, or the abort of a pre-Banff staker proposal).
	PKindStake = "stake"
	// PKindReward is a reward UTXO created by a RewardValidatorTx.
	PKindReward = "reward"
	// PKindExported is an output exported to another chain: it goes into
	// shared memory, never into the P-chain's UTXO set.
	PKindExported = UTXOKindExported
)

// PTxUTXOs is what one P-chain tx does to the UTXO set.
type PTxUTXOs struct {
	TxID ids.ID
	// Consumed are the P-chain UTXOs the tx spends.
	Consumed []UTXOInput
	// Imported are the other chain's UTXOs an ImportTx spends.
	Imported []UTXOInput
	// Produced are the outputs it creates: regular outputs, then stake
	// outputs (staked) or exported outputs, with output indices continuing
	// after the regular ones as the node numbers them.
	Produced []*UTXOOutput
	// RewardedStaker is, for a RewardValidatorTx, the staker tx whose stake
	// outputs enter the UTXO set; its reward UTXOs come from the node
	// (Block.Rewards).
	RewardedStaker ids.ID
	// HasStake reports a staker tx with stake outputs.
	HasStake bool
}

// SubnetRewards is the supply of a subnet that mints rewards (the primary
// network or an elastic subnet) and the rates its rewards follow.
type SubnetRewards struct {
	Supply uint64
	Config reward.Config
}

// RewardState is the reward bookkeeping of the P-chain before block Next.
type RewardState struct {
	// Complete is false once the replay could not start at the genesis
	// (the store indexed blocks before it existed, or the genesis is not
	// known): what it would compute is then unknown.
	Complete bool
	Next     uint64
	// Time is the chain time, unix seconds.
	Time uint64
	// NextPending is the earliest start time of a pending (pre-Durango)
	// staker, 0 when there is none: the chain time reaching it promotes
	// stakers.
	NextPending uint64
	Subnets     map[ids.ID]*SubnetRewards
}

// NewRewardState is the state before the genesis.
func NewRewardState() *RewardState {
	return &RewardState{Complete: true, Subnets: map[ids.ID]*SubnetRewards{}}
}

// SupplyChange is the supply of a subnet after the block at Height.
type SupplyChange struct {
	SubnetID ids.ID
	Height   uint64
	Supply   uint64
}

// RewardedStaker is a staker with the reward it was promised.
type RewardedStaker struct {
	Staker
	PotentialReward uint64
}

// RewardBook is what the replay reads and records about stakers outside
// its own state; the store implements it over the staking records, which
// already hold the batch's stakers.
type RewardBook interface {
	// Pending returns the validators and delegators added below height
	// that are not current yet (no potential reward recorded) and start at
	// or before t, in any order.
	Pending(t, height uint64) ([]Staker, error)
	// NextPendingStart returns the earliest start time of the stakers
	// added below height that are not current yet, 0 when there are none.
	NextPendingStart(height uint64) (uint64, error)
	// Staker returns the validator or delegator added by txID.
	Staker(txID ids.ID) (*RewardedStaker, error)
	// Validator returns the validator of subnetID on nodeID current at
	// height.
	Validator(subnetID ids.ID, nodeID ids.NodeID, height uint64) (*Staker, error)
	SetPotentialReward(txID ids.ID, reward uint64) error
	AddDelegateeReward(validatorTxID ids.ID, reward uint64) error
}

// Reward types of reward UTXOs (the Data API's RewardType).
const (
	RewardValidator    = "VALIDATOR"
	RewardDelegator    = "DELEGATOR"
	RewardValidatorFee = "VALIDATOR_FEE"
)

// RewardFacts is what tells apart the reward UTXOs that one
// RewardValidatorTx created for its staker.
type RewardFacts struct {
	// Kind is StakerValidator or StakerDelegator.
	Kind StakerKind
	// Committed is false when the RewardValidatorTx was aborted.
	Committed bool
	// N is the number of reward UTXOs the staker got.
	N int
	// PotentialReward is the staker's potential reward, nil when unknown.
	PotentialReward *uint64
	// Shares is a delegator's validator's delegation shares, nil when
	// unknown.
	Shares *uint32
}

// RewardTypes returns the type of each of the staker's reward UTXOs, in
// output index order, as the executor creates them (rewardValidatorTx,
// rewardDelegatorTx): first the staker's own reward when it got one (a
// committed validator's reward above 0; a committed delegator's share
// of its reward, above 0), then the delegation fees paid to a validator,
// VALIDATOR_FEE: those a validator accrued, paid even when its reward is
// aborted, or a pre-Cortina validator's fee from one delegator.
//
// Only a single UTXO is ambiguous; when what decides it is unknown, it is
// taken for the staker's own reward, by far the common case.
func RewardTypes(f RewardFacts) []string {
	own := ""
	if f.Committed {
		switch f.Kind {
		case StakerValidator:
			if f.N >= 2 || f.PotentialReward == nil || *f.PotentialReward > 0 {
				own = RewardValidator
			}
		case StakerDelegator:
			if f.N >= 2 || f.PotentialReward == nil || f.Shares == nil || delegatorShare(*f.PotentialReward, *f.Shares) > 0 {
				own = RewardDelegator
			}
		}
	}
	out := make([]string, f.N)
	for i := range out {
		out[i] = RewardValidatorFee
	}
	if own != "" && f.N > 0 {
		out[0] = own
	}
	return out
}

// delegatorShare is what a delegator keeps of its reward r when its
// validator takes shares millionths.
func delegatorShare(r uint64, shares uint32) uint64 {
	_, delegator := reward.Split(r, shares)
	return delegator
}

// L1Fees is the P-chain's validator-fee state before the block at Next.
type L1Fees struct {
	Next    uint64
	Time    uint64 // chain time, unix seconds
	Accrued uint64
	Excess  gas.Gas
	// Validators are the L1 validators with their end points; End is 0 for
	// an inactive validator.
	Validators map[ids.ID]*L1FeeValidator
	// History, when set, receives what a replay changes, in chain order:
	// the store keeps it as the fee state's history, which the state
	// itself (its latest value) does not hold.
	History *L1FeeHistory
}

// L1FeeHistory is what a replay of the L1 validator-fee state changed.
type L1FeeHistory struct {
	// Blocks are the replayed blocks with the accrued fee total before and
	// after their time advance (equal before Etna), from the first block
	// at which the state holds an L1 validator or a fee.
	Blocks []L1FeeBlock
	// Changes are the L1 validators' balance changes, in chain order.
	Changes []L1BalanceChange
}

// L1FeeBlock is a replayed block's time and the accrued fee total its
// time advance moved from Before to After: the fees its block charged.
type L1FeeBlock struct {
	Height        uint64
	Time          uint64 // chain time after the block's advance, unix s
	Before, After uint64
}

// L1BalanceKind is what changed an L1 validator's balance.
type L1BalanceKind string

// The L1BalanceKinds: a deposit (register, which ConvertSubnetToL1Tx's
// validators count as too, and increase), a refund (disable, remove: a
// SetL1ValidatorWeightTx to weight 0) and the fee's end of the balance
// (deactivate, by a block's time advance).
const (
	L1BalanceRegister   L1BalanceKind = "register"
	L1BalanceIncrease   L1BalanceKind = "increase"
	L1BalanceDisable    L1BalanceKind = "disable"
	L1BalanceRemove     L1BalanceKind = "remove"
	L1BalanceDeactivate L1BalanceKind = "deactivate"
)

// L1BalanceChange is a change of an L1 validator's balance. Between
// changes an active validator's balance is End less the accrued total.
type L1BalanceChange struct {
	ValidationID ids.ID
	Height       uint64
	// Index is the tx's position in its block; -1 for a deactivation,
	// which the block's time advance makes before its txs.
	Index int
	Time  uint64 // chain time, unix seconds
	Kind  L1BalanceKind
	// Accrued is the accrued fee total at which the change takes effect:
	// for a deactivation the validator's old end point, where it stopped
	// paying.
	Accrued uint64
	// End is the end point after the change (0: inactive, or removed).
	End uint64
	// Amount is what was deposited (register, increase) or refunded
	// (disable, remove).
	Amount uint64
}

// L1FeeValidator is what the fee state keeps of one L1 validator.
type L1FeeValidator struct {
	End   uint64
	Owner StakerOwner // the remaining-balance owner
}

// L1Refund is the UTXO the P-chain creates when a validator with a
// remaining balance is disabled or removed.
type L1Refund struct {
	TxID        ids.ID
	OutputIndex uint32 // after the tx's own outputs
	Height      uint64
	Index       int // the tx's position in its block
	Amount      uint64
	Owner       StakerOwner
	// UTXO is the refund as the P-chain holds it: AVAX to the owner.
	UTXO *UTXOOutput
}

// PTxData is a P-chain tx as the store keeps it: as stored, and what it
// does to the UTXO set.
type PTxData struct {
	PTx
	UTXOs *PTxUTXOs
	// Value is what the tx moves, for the burned sums; nil for a tx
	// avaindex could not parse.
	Value *PTxValue
}

// PTxValue is what a P-chain tx moves, by asset: what its inputs (own
// and imported) spend, and what it puts back (its own, stake and
// exported outputs), plus the nAVAX it moves into L1 validators'
// balances. In less Out and L1Balance is what it burns.
type PTxValue struct {
	In, Out   map[ids.ID]uint64
	L1Balance uint64
}

// Burned is what the tx burns of asset avax, as UTXOEffects.Burned
// counts it.
func (v *PTxValue) Burned(avax ids.ID) *big.Int {
	return burnedBeyond(new(big.Int).SetUint64(v.In[avax]), new(big.Int).SetUint64(v.Out[avax]), v.L1Balance)
}

// PGenesisData is what the store keeps of the P-chain's genesis: its time
// (unix seconds), its allocations (tx id ids.Empty) and what each genesis
// validator tx does to the UTXO set (its stake, staked from genesis).
type PGenesisData struct {
	Timestamp uint64
	UTXOs     []*UTXOOutput
	Stakes    []*PTxUTXOs
}

// PBlockData is a P-chain block as the store keeps it.
type PBlockData struct {
	Height   uint64
	ID       ids.ID
	ParentID ids.ID
	// Type is the platformvm block kind, e.g. "BanffStandardBlock".
	Type string
	// Timestamp is zero for pre-Banff blocks, which carry none.
	Timestamp time.Time
	Bytes     []byte
	Txs       []PTxData
	// Genesis is set on the height-0 block when avaindex knows the
	// genesis; nil otherwise.
	Genesis *PGenesisData
	// AbortedStaker is, on an abort block whose proposal was a staker tx
	// with stake outputs (pre-Banff), that tx: its stake returns at once.
	AbortedStaker ids.ID
	// Rewards holds, for each RewardValidatorTx of the block, keyed by the
	// staker tx it rewards, the reward UTXOs the node reports for it; nil
	// when they were not fetched.
	Rewards map[ids.ID][]*UTXOOutput
}

// UTXOBlock returns b as its chain metrics read it.
func (b *PBlockData) UTXOBlock() UTXOBlock {
	ub := UTXOBlock{Height: b.Height, Time: b.Timestamp, Txs: len(b.Txs)}
	for _, t := range b.Txs {
		if t.UTXOs != nil {
			ub.Effects = append(ub.Effects, UTXOEffects{Consumed: t.UTXOs.Consumed, Imported: t.UTXOs.Imported, Produced: t.UTXOs.Produced})
		}
	}
	return ub
}

// RewardedStakers returns the stakers b's RewardValidatorTxs reward, in
// block order.
func (b *PBlockData) RewardedStakers() []ids.ID {
	var out []ids.ID
	for _, t := range b.Txs {
		if t.UTXOs != nil && t.UTXOs.RewardedStaker != ids.Empty {
			out = append(out, t.UTXOs.RewardedStaker)
		}
	}
	return out
}

// PBatch is a batch of consecutive P-chain blocks (ascending) as the store
// applies them: the blocks, and what their txs change in the staker sets
// and in the subnets and chains.
type PBatch struct {
	Blocks  []*PBlockData
	Staking *StakingChanges
	State   *PStateChanges
	// Replay computes what follows from the batch and from the state
	// stored before it.
	Replay PReplay
}

// PReplay replays a batch over the P-chain state that no block carries
// and that the store keeps from the batches before it: the derivation
// (derive/staking) loads the state through the batch's transaction,
// calls these, and has the store write what they changed.
type PReplay interface {
	// L1Fees advances s, the validator-fee state of network n, over the
	// batch and returns the refund UTXOs of the validators it disabled or
	// removed.
	L1Fees(s *L1Fees, n *Network) ([]L1Refund, error)
	// Rewards advances s, the reward state of network n, over the batch,
	// reading and recording stakers through book, and returns the
	// supplies that changed.
	Rewards(s *RewardState, n *Network, book RewardBook) ([]SupplyChange, error)
}

// PaidReward is a reward UTXO a RewardValidatorTx created, with its
// staker (the tx that added it), the staker's node and end time: a row of
// the historical rewards.
type PaidReward struct {
	UTXO    *UTXOOutput
	Staker  ids.ID
	NodeID  ids.NodeID
	EndTime uint64
}

// StakerPeriod is a stored staker's node and end time, what its rewards
// are listed by.
type StakerPeriod struct {
	NodeID  ids.NodeID
	EndTime uint64
}

// PUTXOTx is what the P-chain tx at Pos does to the UTXO set, with the
// reward UTXOs the node reported for the staker a RewardValidatorTx
// rewards. The genesis allocations are a PUTXOTx of their own (tx id
// ids.Empty), and each genesis validator's stake another, at index -1
// of height 0.
type PUTXOTx struct {
	Pos     TxPosition
	Effects *PTxUTXOs
	Rewards []*UTXOOutput
}

// StakeRelease is the end of a staker's stake: its stake outputs leave
// the staked state and enter the UTXO set at Height, released by the tx
// By (its RewardValidatorTx, or the aborted pre-Banff staker proposal
// itself).
type StakeRelease struct {
	Staker, By ids.ID
	Height     uint64
}

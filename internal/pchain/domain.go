package pchain

import "github.com/avaindex/avaindex/internal"

// The P-chain's values the store keeps have their types in package
// internal; these are their names here.

type (
	StakerKind             = internal.StakerKind
	StakerOwner            = internal.StakerOwner
	Staker                 = internal.Staker
	StakerEnd              = internal.StakerEnd
	SubnetValidatorRemoval = internal.SubnetValidatorRemoval
	L1EventKind            = internal.L1EventKind
	L1Event                = internal.L1Event
	TimeAdvance            = internal.TimeAdvance
	SubnetTransform        = internal.SubnetTransform
	StakingChanges         = internal.StakingChanges
	L1Validator            = internal.L1Validator

	SubnetOwner      = internal.SubnetOwner
	Pos              = internal.PPos
	Subnet           = internal.Subnet
	SubnetConversion = internal.SubnetConversion
	Blockchain       = internal.Blockchain
	OwnerChange      = internal.SubnetOwnerChange
	Conversion       = internal.SubnetConverted
	Transform        = internal.SubnetTransformed
	StateChanges     = internal.PStateChanges

	TxUTXOs = internal.PTxUTXOs

	SubnetRewards  = internal.SubnetRewards
	SupplyChange   = internal.SupplyChange
	RewardedStaker = internal.RewardedStaker
	RewardBook     = internal.RewardBook
	RewardFacts    = internal.RewardFacts

	L1FeeValidator  = internal.L1FeeValidator
	L1Refund        = internal.L1Refund
	L1BalanceChange = internal.L1BalanceChange
	L1FeeBlock      = internal.L1FeeBlock
)

// RewardState is the reward bookkeeping of the P-chain before block Next,
// with the replay's methods (see internal.RewardState).
type RewardState internal.RewardState

// L1Fees is the P-chain's validator-fee state before the block at Next,
// with the replay's methods (see internal.L1Fees).
type L1Fees internal.L1Fees

// NewRewardState is the state before the genesis.
func NewRewardState() *RewardState { return (*RewardState)(internal.NewRewardState()) }

// RewardTypes returns the type of each of a staker's reward UTXOs (see
// internal.RewardTypes).
func RewardTypes(f RewardFacts) []string { return internal.RewardTypes(f) }

// FoldL1 applies the events of one L1 validator (see internal.FoldL1).
func FoldL1(events []L1Event) (*L1Validator, bool) { return internal.FoldL1(events) }

const (
	L1BalanceRegister   = internal.L1BalanceRegister
	L1BalanceIncrease   = internal.L1BalanceIncrease
	L1BalanceDisable    = internal.L1BalanceDisable
	L1BalanceRemove     = internal.L1BalanceRemove
	L1BalanceDeactivate = internal.L1BalanceDeactivate
	KindValidator       = internal.StakerValidator
	KindDelegator       = internal.StakerDelegator
	KindSubnetValidator = internal.StakerSubnetValidator

	L1Convert         = internal.L1Convert
	L1Register        = internal.L1Register
	L1SetWeight       = internal.L1SetWeight
	L1IncreaseBalance = internal.L1IncreaseBalance
	L1Disable         = internal.L1Disable

	KindRegular  = internal.PKindRegular
	KindStake    = internal.PKindStake
	KindReward   = internal.PKindReward
	KindExported = internal.PKindExported

	RewardValidator    = internal.RewardValidator
	RewardDelegator    = internal.RewardDelegator
	RewardValidatorFee = internal.RewardValidatorFee
)

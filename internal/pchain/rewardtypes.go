package pchain

import "github.com/ava-labs/avalanchego/vms/platformvm/reward"

// Reward types of reward UTXOs (the Data API's RewardType).
const (
	RewardValidator    = "VALIDATOR"
	RewardDelegator    = "DELEGATOR"
	RewardValidatorFee = "VALIDATOR_FEE"
)

// RewardFacts is what tells apart the reward UTXOs that one
// RewardValidatorTx created for its staker.
type RewardFacts struct {
	// Kind is KindValidator or KindDelegator.
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
		case KindValidator:
			if f.N >= 2 || f.PotentialReward == nil || *f.PotentialReward > 0 {
				own = RewardValidator
			}
		case KindDelegator:
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

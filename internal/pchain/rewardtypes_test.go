package pchain

import (
	"slices"
	"testing"
)

func TestRewardTypes(t *testing.T) {
	r := func(v uint64) *uint64 { return &v }
	s := func(v uint32) *uint32 { return &v }
	const (
		v   = RewardValidator
		d   = RewardDelegator
		fee = RewardValidatorFee
	)
	for _, tc := range []struct {
		name string
		f    RewardFacts
		want []string
	}{
		{"validator with its reward and accrued fees", RewardFacts{Kind: KindValidator, Committed: true, N: 2, PotentialReward: r(10)}, []string{v, fee}},
		{"validator with its reward", RewardFacts{Kind: KindValidator, Committed: true, N: 1, PotentialReward: r(10)}, []string{v}},
		{"validator that earned nothing but fees", RewardFacts{Kind: KindValidator, Committed: true, N: 1, PotentialReward: r(0)}, []string{fee}},
		{"validator, reward unknown", RewardFacts{Kind: KindValidator, Committed: true, N: 1}, []string{v}},
		{"aborted validator paid its fees", RewardFacts{Kind: KindValidator, N: 1, PotentialReward: r(10)}, []string{fee}},
		{"delegator with the pre-Cortina fee", RewardFacts{Kind: KindDelegator, Committed: true, N: 2, PotentialReward: r(1000), Shares: s(20_000)}, []string{d, fee}},
		{"delegator", RewardFacts{Kind: KindDelegator, Committed: true, N: 1, PotentialReward: r(1000), Shares: s(20_000)}, []string{d}},
		{"delegator to a validator taking everything", RewardFacts{Kind: KindDelegator, Committed: true, N: 1, PotentialReward: r(1000), Shares: s(1_000_000)}, []string{fee}},
		{"delegator whose share rounds to 0", RewardFacts{Kind: KindDelegator, Committed: true, N: 1, PotentialReward: r(1), Shares: s(20_000)}, []string{fee}},
		{"delegator, shares unknown", RewardFacts{Kind: KindDelegator, Committed: true, N: 1, PotentialReward: r(1000)}, []string{d}},
		{"nothing", RewardFacts{Kind: KindDelegator, Committed: true}, []string{}},
	} {
		if got := RewardTypes(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

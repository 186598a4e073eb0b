// Package rewards derives the P-chain's historical rewards: each reward
// UTXO a RewardValidatorTx created, with the staker it paid, whose node
// and end time the Data API's lists of rewards select and order by.
package rewards

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// Writer is what the history reads and writes in the batch's transaction
// (store.PTx).
type Writer interface {
	// StakerPeriods returns the node and end time of those of stakers that
	// are stored.
	StakerPeriods(ctx context.Context, stakers []ids.ID) (map[ids.ID]internal.StakerPeriod, error)
	// WriteRewardHistory writes rewards, with their owners. Idempotent.
	WriteRewardHistory(ctx context.Context, rewards []internal.PaidReward) error
}

// History writes the historical rewards of the reward UTXOs a batch's
// RewardValidatorTxs created (internal.PBlockData.Rewards), after the
// staking step stored their stakers. A staker that is not stored (one of
// a genesis avaindex does not know) pays no historical reward.
func History(ctx context.Context, w Writer, blocks []*internal.PBlockData) error {
	rewards := map[ids.ID][]*internal.UTXOOutput{}
	var stakers []ids.ID
	for _, b := range blocks {
		for _, staker := range b.RewardedStakers() {
			if us := b.Rewards[staker]; len(us) > 0 {
				rewards[staker] = us
				stakers = append(stakers, staker)
			}
		}
	}
	if len(stakers) == 0 {
		return nil
	}
	known, err := w.StakerPeriods(ctx, stakers)
	if err != nil {
		return err
	}
	var out []internal.PaidReward
	for _, staker := range stakers {
		s, ok := known[staker]
		if !ok {
			continue
		}
		for _, u := range rewards[staker] {
			out = append(out, internal.PaidReward{UTXO: u, Staker: staker, NodeID: s.NodeID, EndTime: s.EndTime})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return w.WriteRewardHistory(ctx, out)
}

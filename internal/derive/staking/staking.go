// Package staking derives the P-chain's staking state from a batch: the
// L1 validator-fee replay and the refunds it pays, the staking records
// (stakers, their ends, the L1 validators folded from their events, the
// per-address lists) and the reward replay, which reads those records.
// The replays themselves are the batch's (internal.PReplay); this package
// loads their state through the store, runs them and hands back what they
// changed, in the order they depend on each other.
package staking

import (
	"context"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// Writer is what the staking step reads and writes in the batch's
// transaction (store.PTx). Every write is idempotent: a batch may be
// applied again after a crash.
type Writer interface {
	// Network returns the stored network; ok is false in a store that
	// holds none (the store's own tests), which keeps no fee or reward
	// state.
	Network(ctx context.Context) (n *internal.Network, ok bool, err error)

	// L1Fees returns the replayed L1 validator-fee state as stored.
	L1Fees(ctx context.Context) (*internal.L1Fees, error)
	// WriteL1Fees writes s, its validators that differ from before, and
	// the history the replay recorded in s.History.
	WriteL1Fees(ctx context.Context, s *internal.L1Fees, before map[ids.ID]internal.L1FeeValidator) error
	// WriteL1Refunds writes the refund UTXOs the replay paid over blocks,
	// and counts them in each block's refunded sum (zero for a block
	// that paid none).
	WriteL1Refunds(ctx context.Context, blocks []*internal.PBlockData, refunds []internal.L1Refund) error

	// WriteStakers writes the staking records of ch: the stakers and their
	// reward owners, their address lists, the ends of those ch removes,
	// and the L1 validators' events with their owners.
	WriteStakers(ctx context.Context, ch *internal.StakingChanges) error
	// L1Events returns the stored events of an L1 validator, in chain
	// order.
	L1Events(ctx context.Context, validationID ids.ID) ([]internal.L1Event, error)
	// WriteL1Validator writes an L1 validator's state, replacing the one
	// stored.
	WriteL1Validator(ctx context.Context, v *internal.L1Validator) error

	// RewardState returns the reward replay's state as stored.
	RewardState(ctx context.Context) (*internal.RewardState, error)
	// RewardBook is the staking records as the reward replay reads and
	// records them, in the batch's transaction.
	RewardBook(ctx context.Context) internal.RewardBook
	// WriteRewards writes s, the subnets' supplies that changed, and the
	// supply history of changes.
	WriteRewards(ctx context.Context, s *internal.RewardState, changes []internal.SupplyChange) error
}

// P derives the staking state of batch. The fee replay runs first: its
// refund UTXOs may be spent in the batch, which the UTXO step, after this
// one, marks. The reward replay runs last: it reads the stakers the
// batch added.
func P(ctx context.Context, w Writer, batch *internal.PBatch) error {
	if len(batch.Blocks) == 0 {
		return nil
	}
	n, ok, err := w.Network(ctx)
	if err != nil {
		return err
	}
	if ok {
		if err := fees(ctx, w, n, batch); err != nil {
			return fmt.Errorf("L1 fee replay: %w", err)
		}
	}
	if batch.Staking != nil {
		if err := stakers(ctx, w, batch.Staking); err != nil {
			return fmt.Errorf("staking records: %w", err)
		}
	}
	if ok {
		if err := rewards(ctx, w, n, batch); err != nil {
			return fmt.Errorf("reward replay: %w", err)
		}
	}
	return nil
}

// lastHeight is the height of the batch's last block.
func lastHeight(batch *internal.PBatch) uint64 { return batch.Blocks[len(batch.Blocks)-1].Height }

// fees replays the L1 validator fees over the batch, unless the stored
// state is past it already (the batch was applied before).
func fees(ctx context.Context, w Writer, n *internal.Network, batch *internal.PBatch) error {
	s, err := w.L1Fees(ctx)
	if err != nil {
		return err
	}
	if lastHeight(batch) < s.Next {
		return nil
	}
	before := make(map[ids.ID]internal.L1FeeValidator, len(s.Validators))
	for id, v := range s.Validators {
		before[id] = *v
	}
	s.History = &internal.L1FeeHistory{}
	refunds, err := batch.Replay.L1Fees(s, n)
	if err != nil {
		return err
	}
	if err := w.WriteL1Fees(ctx, s, before); err != nil {
		return err
	}
	return w.WriteL1Refunds(ctx, batch.Blocks, refunds)
}

// stakers writes the staking records of ch, then folds each L1 validator
// it touched from all of its stored events: its state is recomputed, not
// patched, so a batch applied again writes the same.
func stakers(ctx context.Context, w Writer, ch *internal.StakingChanges) error {
	if err := w.WriteStakers(ctx, ch); err != nil {
		return err
	}
	seen := map[ids.ID]bool{}
	for i := range ch.L1Events {
		vid := ch.L1Events[i].ValidationID
		if seen[vid] {
			continue
		}
		seen[vid] = true
		events, err := w.L1Events(ctx, vid)
		if err != nil {
			return err
		}
		v, ok := internal.FoldL1(events)
		if !ok {
			continue // its registration is not indexed
		}
		if err := w.WriteL1Validator(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// rewards replays the staking rewards over the batch, once the replay is
// complete (a store indexed from a known genesis) and unless the stored
// state is past the batch.
func rewards(ctx context.Context, w Writer, n *internal.Network, batch *internal.PBatch) error {
	s, err := w.RewardState(ctx)
	if err != nil {
		return err
	}
	if !s.Complete || lastHeight(batch) < s.Next {
		return nil
	}
	changes, err := batch.Replay.Rewards(s, n, w.RewardBook(ctx))
	if err != nil {
		return err
	}
	return w.WriteRewards(ctx, s, changes)
}

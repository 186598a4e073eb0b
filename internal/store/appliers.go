package store

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// This file holds the P-chain's appliers: one ordered list, run in the
// batch's transaction by ApplyPBlocks and by its rederive, so that both
// write the same. Order matters where an applier reads what an earlier one
// wrote in the same transaction; the list's comment says where. (The X-,
// C- and EVM chains' lists are in derive: derive/xstate, cstate and
// evmstate.)

// pApplier writes state derived from a P-chain batch inside the batch's
// transaction; like an applier, it must be idempotent.
type pApplier func(ctx context.Context, tx *database.DB, batch *internal.PBatch) error

// pAppliers, in order: applyPStaking writes L1 refund UTXOs that
// applyPUTXOs may see spent, and the stakers that applyPRewardHistory
// reads; applyPAtomic needs the exports and imports applyPUTXOs stores;
// applyPMetrics reads the owners of the UTXOs spent; applyPWebhookEvents
// reads the UTXOs and stakers the others wrote; the address history reads
// what all of them stored; the burned sums read nothing of theirs.
var pAppliers = []pApplier{
	applyPStaking,
	onBlocks(applyPUTXOs),
	onBlocks(applyPRewardHistory),
	onBlocks(applyPAtomic),
	applyPState,
	onBlocks(applyPMetrics),
	applyPWebhookEvents,
	onBlocks(applyPAddressTxs),
	onBlocks(applyPBurned),
}

// runPAppliers runs pAppliers over batch, in order, with the context
// they share (the spent UTXOs' owners, the fee replay's history): an
// apply and a rederive write the same.
func runPAppliers(ctx context.Context, tx *database.DB, batch *internal.PBatch) error {
	ctx, sums := withBalanceDeltas(withL1FeeReplay(withSpentOwners(ctx)))
	for _, apply := range pAppliers {
		if err := apply(ctx, tx, batch); err != nil {
			return err
		}
	}
	return sums.write(ctx, tx)
}

// onBlocks is apply, which reads the batch's blocks alone, as a pApplier.
func onBlocks(apply func(ctx context.Context, tx *database.DB, blocks []*internal.PBlockData) error) pApplier {
	return func(ctx context.Context, tx *database.DB, batch *internal.PBatch) error {
		return apply(ctx, tx, batch.Blocks)
	}
}

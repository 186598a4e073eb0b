package store

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// This file holds each chain's appliers: one ordered list per chain, run
// in the batch's transaction by the chain's Apply*Blocks and by its
// rederive, so that both write the same. Order matters where an applier
// reads what an earlier one wrote in the same transaction; each list's
// comment says where.

// applier writes state derived from a batch of a chain's blocks inside
// the batch's transaction. Appliers must be idempotent: a batch may be
// applied again after a crash.
type applier[B any] func(ctx context.Context, tx *database.DB, blocks []B) error

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

// xAppliers, in order: applyXMetrics and applyXWebhookEvents read the
// owners of the UTXOs applyXUTXOs marks spent; the address history reads
// what the others stored.
var xAppliers = []applier[*internal.XBlockData]{
	applyXUTXOs,
	applyXMetrics,
	applyXWebhookEvents,
	applyXAddressTxs,
	applyXBurned,
}

// cAppliers: the atomic txs' effects on shared memory, then the address
// history, which reads the atomic rows applyCAtomic stored.
var cAppliers = []applier[*internal.CBlockData]{
	applyCAtomic,
	applyCAddressTxs,
	applyCBurned,
}

// runAppliers runs appliers over blocks, in order.
// The UTXO sums they change are written last (withBalanceDeltas).
func runAppliers[B any](ctx context.Context, tx *database.DB, appliers []applier[B], blocks []B) error {
	ctx, sums := withBalanceDeltas(ctx)
	for _, apply := range appliers {
		if err := apply(ctx, tx, blocks); err != nil {
			return err
		}
	}
	return sums.write(ctx, tx)
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
func onBlocks(apply applier[*internal.PBlockData]) pApplier {
	return func(ctx context.Context, tx *database.DB, batch *internal.PBatch) error {
		return apply(ctx, tx, batch.Blocks)
	}
}

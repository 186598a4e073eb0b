// Package pstate is the derivation of the P-chain's blocks: the ordered
// list of what a batch (pchain.Batch: the blocks with what was derived of
// them before the store) derives, run in the batch's transaction after the
// store has written the blocks, their txs and the reward UTXOs. Apply is
// the list, run by the indexer through store.ApplyPBlocks and by a
// rederive through store.RederivePBlocks. It calls the store only through
// Writer, which store.PTx satisfies.
package pstate

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/addresstxs"
	"github.com/avaindex/avaindex/internal/derive/burned"
	"github.com/avaindex/avaindex/internal/derive/metrics"
	"github.com/avaindex/avaindex/internal/derive/rewards"
	"github.com/avaindex/avaindex/internal/derive/sharedmemory"
	"github.com/avaindex/avaindex/internal/derive/staking"
	"github.com/avaindex/avaindex/internal/derive/steps"
	"github.com/avaindex/avaindex/internal/derive/utxoset"
	"github.com/avaindex/avaindex/internal/derive/webhookevents"
)

// Writer is what the derivation writes and reads in the batch's
// transaction: each derivation package's writer.
type Writer interface {
	staking.Writer
	utxoset.PWriter
	rewards.Writer
	sharedmemory.Writer
	WriteStateChanges(ctx context.Context, changes *internal.PStateChanges) error
	metrics.UTXOWriter
	webhookevents.PWriter
	addresstxs.RangeWriter
	burned.PWriter
}

// list is the steps in order: the staking writes L1 refund UTXOs that
// the UTXOs' step may see spent, and the stakers that the reward history
// reads; the atomic step needs the exports and imports the UTXOs' step
// stores; the metrics read the owners of the UTXOs spent; the webhook
// events read the UTXOs and stakers the others wrote; the address history
// reads what all of them stored; the burned sums read nothing of theirs.
var list = []steps.Step[Writer, *internal.PBatch]{
	{Name: "staking", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return staking.P(ctx, w, b)
	}},
	{Name: "UTXOs", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return utxoset.P(ctx, w, b.Blocks)
	}},
	{Name: "reward history", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return rewards.History(ctx, w, b.Blocks)
	}},
	{Name: "atomic", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return sharedmemory.P(ctx, w, b.Blocks)
	}},
	{Name: "state", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return w.WriteStateChanges(ctx, b.State)
	}},
	{Name: "metrics", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return metrics.UTXO(ctx, w, b.Blocks)
	}},
	{Name: "webhook events", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return webhookevents.P(ctx, w, b)
	}},
	{Name: "address txs", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error {
		return addresstxs.UTXOs(ctx, w, b.Blocks)
	}},
	{Name: "burned", Apply: func(w Writer, ctx context.Context, b *internal.PBatch) error { return burned.P(ctx, w, b.Blocks) }},
}

// Apply derives the state of batch through w, in order. It is idempotent
// as each step is: a batch may be applied again after a crash. It is
// generic so that Apply[*store.PTx] is a store.PDerivation.
func Apply[W Writer](ctx context.Context, w W, batch *internal.PBatch) error {
	return steps.Run[Writer](ctx, w, batch, list)
}

// Package xstate is the derivation of the X-chain's blocks: the ordered
// list of what a batch derives (the UTXO set, the metrics rollups, webhook
// events, the address history, burned AVAX), run in the batch's
// transaction after the store has written the blocks and their txs. Apply
// is the list, run by the indexer through store.ApplyXBlocks and by a
// rederive through store.RederiveXBlocks. It calls the store only through
// Writer, which store.XTx satisfies. ApplyDAG is the same for the txs of
// the pre-Cortina DAG (store.ApplyXDAGTxs, RederiveXDAGTxs, over
// DAGWriter: store.DAGTx).
package xstate

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/addresstxs"
	"github.com/avaindex/avaindex/internal/derive/burned"
	"github.com/avaindex/avaindex/internal/derive/metrics"
	"github.com/avaindex/avaindex/internal/derive/steps"
	"github.com/avaindex/avaindex/internal/derive/utxoset"
	"github.com/avaindex/avaindex/internal/derive/webhookevents"
)

// Writer is what the derivation writes and reads in the batch's
// transaction: each derivation package's writer.
type Writer interface {
	utxoset.XWriter
	metrics.UTXOWriter
	webhookevents.PlatformWriter
	addresstxs.RangeWriter
	burned.UTXOWriter
}

// list is the steps in order: the metrics and the webhook events read the
// owners of the UTXOs the UTXO changes mark spent; the address history reads
// what the others stored; the burned sums read nothing of theirs.
var list = []steps.Step[Writer, []*internal.XBlockData]{
	{Name: "UTXOs", Apply: func(w Writer, ctx context.Context, b []*internal.XBlockData) error {
		return utxoset.X(ctx, w, b)
	}},
	{Name: "metrics", Apply: func(w Writer, ctx context.Context, b []*internal.XBlockData) error {
		return metrics.UTXO(ctx, w, b)
	}},
	{Name: "webhook events", Apply: func(w Writer, ctx context.Context, b []*internal.XBlockData) error {
		return webhookevents.X(ctx, w, b)
	}},
	{Name: "address txs", Apply: func(w Writer, ctx context.Context, b []*internal.XBlockData) error {
		return addresstxs.UTXOs(ctx, w, b)
	}},
	{Name: "burned", Apply: func(w Writer, ctx context.Context, b []*internal.XBlockData) error { return burned.X(ctx, w, b) }},
}

// Apply derives the state of blocks (a batch, consecutive and ascending)
// through w, in order. It is idempotent as each step is: a batch may be
// applied again after a crash. It is generic so that Apply[*store.XTx] is
// a store.XDerivation.
func Apply[W Writer](ctx context.Context, w W, blocks []*internal.XBlockData) error {
	return steps.Run[Writer](ctx, w, blocks, list)
}

// DAGWriter is what the derivation of the X-chain's DAG txs writes and
// reads in the batch's transaction (store.DAGTx).
type DAGWriter interface {
	utxoset.XWriter
	burned.UTXOWriter
	addresstxs.RangeWriter
}

// dagList is the steps of a batch of DAG txs in order: the address
// history reads the UTXOs the first step stores. DAG txs roll up no
// metrics and raise no webhook events.
var dagList = []steps.Step[DAGWriter, []*internal.XDAGTxData]{
	{Name: "UTXOs", Apply: func(w DAGWriter, ctx context.Context, t []*internal.XDAGTxData) error {
		return utxoset.XDAG(ctx, w, t)
	}},
	{Name: "burned", Apply: func(w DAGWriter, ctx context.Context, t []*internal.XDAGTxData) error {
		return burned.XDAG(ctx, w, t)
	}},
	{Name: "address txs", Apply: func(w DAGWriter, ctx context.Context, t []*internal.XDAGTxData) error {
		return addresstxs.DAG(ctx, w, t)
	}},
}

// ApplyDAG derives the state of a batch of DAG txs (consecutive indices,
// ascending) through w, in order; idempotent. ApplyDAG[*store.DAGTx] is a
// store.XDAGDerivation.
func ApplyDAG[W DAGWriter](ctx context.Context, w W, dtxs []*internal.XDAGTxData) error {
	return steps.Run[DAGWriter](ctx, w, dtxs, dagList)
}

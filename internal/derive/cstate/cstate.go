// Package cstate is the derivation of the C-chain's atomic txs: the
// ordered list of what a batch derives (shared memory, the address
// history, burned AVAX), run in the batch's transaction after the store
// has written the atomic txs. Apply is the list, run by the indexer
// through store.ApplyCBlocks and by a rederive through
// store.RederiveCBlocks. It calls the store only through Writer, which
// store.CTx satisfies.
package cstate

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/addresstxs"
	"github.com/avaindex/avaindex/internal/derive/burned"
	"github.com/avaindex/avaindex/internal/derive/sharedmemory"
	"github.com/avaindex/avaindex/internal/derive/steps"
)

// Writer is what the derivation writes and reads in the batch's
// transaction: each derivation package's writer.
type Writer interface {
	sharedmemory.CWriter
	addresstxs.AtomicWriter
	burned.UTXOWriter
}

// list is the steps in order: the atomic txs' effects on shared memory,
// then the address history, which reads the atomic rows they stored; the burned sums read nothing of theirs.
var list = []steps.Step[Writer, []*internal.CBlockData]{
	{Name: "atomic", Apply: func(w Writer, ctx context.Context, b []*internal.CBlockData) error {
		return sharedmemory.C(ctx, w, b)
	}},
	{Name: "address txs", Apply: func(w Writer, ctx context.Context, b []*internal.CBlockData) error {
		return addresstxs.Atomic(ctx, w, b)
	}},
	{Name: "burned", Apply: func(w Writer, ctx context.Context, b []*internal.CBlockData) error { return burned.C(ctx, w, b) }},
}

// Apply derives the state of blocks (a batch, ascending) through w, in
// order. It is idempotent as each step is. It is generic so that
// Apply[*store.CTx] is a store.CDerivation.
func Apply[W Writer](ctx context.Context, w W, blocks []*internal.CBlockData) error {
	return steps.Run[Writer](ctx, w, blocks, list)
}

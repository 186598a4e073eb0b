// Package evmstate is the derivation of an EVM chain's blocks: the
// ordered list of what a batch derives (the address index, NFTs and their
// spans, native and ERC-20 balances, the metrics rollups, webhook events,
// burned fees), run in the batch's transaction after the store has written
// what evm decoded. Apply is the list, run by the indexer through
// store.ApplyEVMBlocks. It calls the store only through Writer, which
// store.EVMTx satisfies.
package evmstate

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/addresstxs"
	"github.com/avaindex/avaindex/internal/derive/balances"
	"github.com/avaindex/avaindex/internal/derive/burned"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/derive/metrics"
	"github.com/avaindex/avaindex/internal/derive/nfts"
	"github.com/avaindex/avaindex/internal/derive/steps"
	"github.com/avaindex/avaindex/internal/derive/webhookevents"
)

// Writer is what the derivation writes and reads in the batch's
// transaction, bound to one chain: each derivation package's writer.
type Writer interface {
	addresstxs.Writer
	nfts.TokenWriter
	nfts.SpanWriter
	balances.NativeWriter
	erc20.Writer
	metrics.EVMWriter
	webhookevents.EVMWriter
	burned.EVMWriter
}

// list is the steps in order. Each reads the batch's blocks and its own
// tables, none another's rows, so the order is the one ingestion has
// always run: the indexes and holdings first, the metrics after them as
// on every chain, the webhook events and burned sums last.
var list = []steps.Step[Writer, []*internal.EVMBlockData]{
	{Name: "address txs", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return addresstxs.Apply(ctx, w, b)
	}},
	{Name: "NFTs", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return nfts.Tokens(ctx, w, b)
	}},
	{Name: "NFT spans", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return nfts.Spans(ctx, w, b)
	}},
	{Name: "native balances", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return balances.Native(ctx, w, b)
	}},
	{Name: "ERC-20 balances", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return erc20.Apply(ctx, w, b)
	}},
	{Name: "metrics", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return metrics.EVM(ctx, w, b)
	}},
	{Name: "webhook events", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return webhookevents.EVM(ctx, w, b)
	}},
	{Name: "burned fees", Apply: func(w Writer, ctx context.Context, b []*internal.EVMBlockData) error {
		return burned.EVM(ctx, w, b)
	}},
}

// Apply derives the state of blocks (a batch of one chain, consecutive
// and ascending) through w, in order. It is idempotent as each step is:
// a batch may be applied again after a crash. It is generic so that
// Apply[*store.EVMTx] is a store.EVMDerivation.
func Apply[W Writer](ctx context.Context, w W, blocks []*internal.EVMBlockData) error {
	return steps.Run[Writer](ctx, w, blocks, list)
}

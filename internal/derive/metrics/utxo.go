package metrics

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
)

// UTXOWriter adds blocks to a P- or X-chain's rollups, bound to the
// chain (store.PTx, XTx, MetricsTx).
type UTXOWriter interface {
	// InputOwners returns the owners' addresses of the UTXOs ids on the
	// chain's UTXO lists (its own and those exported to it); an imported
	// UTXO whose export is not stored has none. It runs after the UTXO
	// changes are written.
	InputOwners(ctx context.Context, ids []ids.ID) (map[ids.ID][][]byte, error)
	RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error
}

// UTXO rolls a P- or X-chain batch up, after its UTXO changes.
func UTXO[B interface{ UTXOBlock() internal.UTXOBlock }](ctx context.Context, w UTXOWriter, blocks []B) error {
	ubs := make([]internal.UTXOBlock, len(blocks))
	for i, b := range blocks {
		ubs[i] = b.UTXOBlock()
	}
	return UTXOBlocks(ctx, w, ubs)
}

// UTXOBlocks rolls up blocks as the metrics see them: their txs, the
// owners of the outputs they produce, and those of the UTXOs they consume
// or import, who send. It is generic so that UTXOBlocks[*store.MetricsTx]
// is the metrics' catch-up's derivation.
func UTXOBlocks[W UTXOWriter](ctx context.Context, w W, blocks []internal.UTXOBlock) error {
	var inputs []ids.ID
	for _, b := range blocks {
		for _, e := range b.Effects {
			inputs = appendInputIDs(inputs, e.Consumed, e.Imported)
		}
	}
	owners, err := w.InputOwners(ctx, inputs)
	if err != nil {
		return err
	}
	out := make([]chainmetrics.Block, len(blocks))
	for i, b := range blocks {
		mb := chainmetrics.Block{Height: b.Height, Time: unixSeconds(b.Time), Txs: b.Txs}
		for _, e := range b.Effects {
			mb.Addresses = appendOwners(mb.Addresses, e.Produced)
			mb.Senders = appendSenders(mb.Senders, owners, e.Consumed, e.Imported)
		}
		out[i] = mb
	}
	return w.RollupMetrics(ctx, out)
}

func appendInputIDs(dst []ids.ID, lists ...[]internal.UTXOInput) []ids.ID {
	for _, l := range lists {
		for _, in := range l {
			dst = append(dst, in.ID)
		}
	}
	return dst
}

func appendOwners(dst [][]byte, outs []*internal.UTXOOutput) [][]byte {
	for _, o := range outs {
		for _, a := range o.Owners.Addrs {
			dst = append(dst, a[:])
		}
	}
	return dst
}

func appendSenders(dst [][]byte, owners map[ids.ID][][]byte, lists ...[]internal.UTXOInput) [][]byte {
	for _, l := range lists {
		for _, in := range l {
			dst = append(dst, owners[in.ID]...)
		}
	}
	return dst
}

// Package utxoset derives the changes to a chain's UTXO set: each tx's
// UTXO effects (which the chain's decoder reads from the tx) at its
// position in the chain, and the genesis outputs a chain's first block
// brings, which the store writes as the UTXOs created and spent there.
package utxoset

import (
	"context"

	"github.com/avaindex/avaindex/internal"
)

// XWriter is what the X-chain's UTXO changes write in the batch's
// transaction (store.XTx).
type XWriter interface {
	// WriteUTXOChanges writes what txs (in chain order) do to the
	// X-chain's UTXOs: outputs produced, inputs consumed (matched with
	// their UTXOs whichever is stored first), exported outputs kept as
	// such, imported inputs matched with the exporting chain's rows.
	// Idempotent.
	WriteUTXOChanges(ctx context.Context, txs []internal.UTXOTx) error
}

// X writes what an X-chain batch's txs do to its UTXOs, as the avm's
// executor makes them (see xchain.UTXOsOfTx). Block 0 of a chain linear
// from its genesis brings the genesis UTXOs, each at index -1 of its
// genesis tx (a DAG chain's genesis goes with its DAG txs).
func X(ctx context.Context, w XWriter, blocks []*internal.XBlockData) error {
	var txs []internal.UTXOTx
	for _, b := range blocks {
		if b.Genesis != nil {
			for _, p := range b.Genesis.UTXOs {
				txs = append(txs, internal.UTXOTx{
					Pos:     internal.TxPosition{TxID: p.UTXO.TxID, Height: 0, Index: -1, Time: b.Timestamp},
					Effects: &internal.UTXOEffects{Produced: []*internal.UTXOOutput{p}},
				})
			}
		}
		for j, t := range b.Txs {
			txs = append(txs, internal.UTXOTx{
				Pos:     internal.TxPosition{TxID: t.ID, Height: b.Height, Index: j, Time: b.Timestamp},
				Effects: t.UTXOs,
			})
		}
	}
	if len(txs) == 0 {
		return nil
	}
	return w.WriteUTXOChanges(ctx, txs)
}

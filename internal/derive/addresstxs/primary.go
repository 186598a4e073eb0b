package addresstxs

import (
	"context"

	"github.com/avaindex/avaindex/internal"
)

// RangeWriter is what a primary-network chain's history writes in the
// batch's transaction (store.PTx, XTx, CTx).
type RangeWriter interface {
	// WriteAddressTxRange writes the history rows of the txs of the
	// blocks at heights first..last, from the UTXOs and stakers stored
	// for them (their owners), with the parts they need. Idempotent.
	WriteAddressTxRange(ctx context.Context, first, last uint64, parts internal.AddressTxParts) error
}

// AtomicWriter is what the C-chain's history writes: the rows of its
// atomic txs' UTXOs, and those of the EVM addresses they debit or credit,
// which only the decoded txs name.
type AtomicWriter interface {
	RangeWriter
	WriteAddressTxRows(ctx context.Context, rows []internal.AddressTxRow) error
}

// UTXOs writes the history of a P- or X-chain batch (consecutive heights,
// ascending), after its UTXOs and stakers are stored.
func UTXOs[B interface{ UTXOBlock() internal.UTXOBlock }](ctx context.Context, w RangeWriter, blocks []B) error {
	if len(blocks) == 0 {
		return nil
	}
	first, last := blocks[0].UTXOBlock().Height, blocks[len(blocks)-1].UTXOBlock().Height
	return w.WriteAddressTxRange(ctx, first, last, partsOf(blocks))
}

// partsOf returns the parts blocks need, from their txs' UTXO effects;
// a tx whose effects are unknown may need anything.
func partsOf[B interface{ UTXOBlock() internal.UTXOBlock }](blocks []B) internal.AddressTxParts {
	var has internal.AddressTxParts
	for _, b := range blocks {
		ub := b.UTXOBlock()
		if len(ub.Effects) < ub.Txs {
			return internal.AllAddressTxParts
		}
		for _, e := range ub.Effects {
			has.Imports = has.Imports || len(e.Imported) > 0
			for _, o := range e.Produced {
				has.Exports = has.Exports || o.Kind == internal.UTXOKindExported
			}
		}
	}
	return has
}

// DAG writes the history of a batch of the X-chain's DAG txs (consecutive
// indices, ascending), after their UTXOs are stored, with every part.
func DAG(ctx context.Context, w RangeWriter, dtxs []*internal.XDAGTxData) error {
	if len(dtxs) == 0 {
		return nil
	}
	return w.WriteAddressTxRange(ctx, dtxs[0].Index, dtxs[len(dtxs)-1].Index, internal.AllAddressTxParts)
}

// Atomic writes the history of a C-chain batch (ascending), after its
// atomic txs are stored: their UTXOs' owners, with every part (the
// decoded atomic txs say nothing of the order their peers were indexed
// in), and the EVM addresses they debit or credit, once per tx.
func Atomic(ctx context.Context, w AtomicWriter, blocks []*internal.CBlockData) error {
	if len(blocks) == 0 {
		return nil
	}
	if err := w.WriteAddressTxRange(ctx, blocks[0].Height, blocks[len(blocks)-1].Height, internal.AllAddressTxParts); err != nil {
		return err
	}
	var rows []internal.AddressTxRow
	for _, b := range blocks {
		for i, t := range b.AtomicTxs {
			seen := map[[20]byte]bool{}
			for _, e := range t.EVM {
				if seen[e.Address] {
					continue
				}
				seen[e.Address] = true
				rows = append(rows, internal.AddressTxRow{Chain: internal.CChain, Address: append([]byte(nil), e.Address[:]...),
					Pos: internal.TxAt(t.ID, b.Height, i, b.Timestamp), Type: t.Type})
			}
		}
	}
	return w.WriteAddressTxRows(ctx, rows)
}

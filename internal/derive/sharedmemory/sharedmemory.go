// Package sharedmemory derives the state of the chains' shared memory:
// which exported UTXOs another chain's ImportTx consumed. An export and
// its import may be indexed in either order (each chain has its own
// indexer), so each side matches what the other stored before it.
package sharedmemory

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// Writer is what the matching writes in the batch's transaction
// (store.PTx, CTx).
type Writer interface {
	// MatchAtomic marks consumed the exports (of any chain) that imports
	// consume, and those of exported whose imports are stored already.
	// Idempotent.
	MatchAtomic(ctx context.Context, imports []internal.AtomicImport, exported []ids.ID) error
}

// CWriter is what the C-chain's atomic txs write: the C-chain keeps no
// UTXO set of its own, so its exports and imports are stored here, not
// with a UTXO set's changes.
type CWriter interface {
	Writer
	// WriteAtomicUTXOs writes the UTXOs the exports put into shared
	// memory and the UTXOs the imports consume. Idempotent.
	WriteAtomicUTXOs(ctx context.Context, exports []internal.AtomicExport, imports []internal.AtomicImport) error
}

// P matches a P-chain batch's ImportTxs and ExportTxs with the other
// chains' exports and imports, after the P-chain's UTXO changes (which
// hold its exports and imports) are stored.
func P(ctx context.Context, w Writer, blocks []*internal.PBlockData) error {
	var (
		imports  []internal.AtomicImport
		exported []ids.ID
	)
	for _, b := range blocks {
		for j, t := range b.Txs {
			if t.UTXOs == nil {
				continue
			}
			pos := internal.TxAt(t.ID, b.Height, j, b.Timestamp)
			for _, in := range t.UTXOs.Imported {
				imports = append(imports, internal.AtomicImport{UTXO: in, Pos: pos})
			}
			for _, p := range t.UTXOs.Produced {
				if p.Kind == internal.UTXOKindExported {
					exported = append(exported, p.ID())
				}
			}
		}
	}
	return match(ctx, w, imports, exported)
}

// C stores a C-chain batch's exports and imports (see cchain.AtomicTx)
// and matches them with the other chains' imports and exports.
func C(ctx context.Context, w CWriter, blocks []*internal.CBlockData) error {
	var (
		exports  []internal.AtomicExport
		imports  []internal.AtomicImport
		exported []ids.ID
	)
	for _, b := range blocks {
		for j, t := range b.AtomicTxs {
			pos := internal.TxAt(t.ID, b.Height, j, b.Timestamp)
			for _, e := range t.Exported {
				exports = append(exports, internal.AtomicExport{Output: e, Pos: pos})
				exported = append(exported, e.ID())
			}
			for _, in := range t.Imported {
				imports = append(imports, internal.AtomicImport{UTXO: in, Pos: pos})
			}
		}
	}
	if len(exports) > 0 || len(imports) > 0 {
		if err := w.WriteAtomicUTXOs(ctx, exports, imports); err != nil {
			return err
		}
	}
	return match(ctx, w, imports, exported)
}

func match(ctx context.Context, w Writer, imports []internal.AtomicImport, exported []ids.ID) error {
	if len(imports) == 0 && len(exported) == 0 {
		return nil
	}
	return w.MatchAtomic(ctx, imports, exported)
}

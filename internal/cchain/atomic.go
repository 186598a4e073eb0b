// Package cchain decodes what avaindex keeps of C-chain blocks: the atomic
// import and export transactions in their extra data, parsed with coreth's
// atomic codec.
package cchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/upgrade"

	"github.com/avaindex/avaindex/internal"
)

// AtomicTxs parses the extra data of a C-chain block of the network with id
// networkID, produced at time t. Before Apricot Phase 5 a block carried at
// most one atomic tx; since then, a batch.
func AtomicTxs(networkID uint32, t time.Time, extData []byte) ([]internal.CAtomicTx, error) {
	if len(extData) == 0 {
		return nil, nil
	}
	cfg := upgrade.GetConfig(networkID)
	txs, err := atomic.ExtractAtomicTxs(extData, cfg.IsApricotPhase5Activated(t), atomic.Codec)
	if err != nil {
		return nil, fmt.Errorf("parsing C-chain atomic txs: %w", err)
	}
	out := make([]internal.CAtomicTx, 0, len(txs))
	for _, tx := range txs {
		var typ string
		switch tx.UnsignedAtomicTx.(type) {
		case *atomic.UnsignedImportTx:
			typ = "ImportTx"
		case *atomic.UnsignedExportTx:
			typ = "ExportTx"
		default:
			return nil, fmt.Errorf("atomic tx %s has unknown type %T", tx.ID(), tx.UnsignedAtomicTx)
		}
		out = append(out, internal.CAtomicTx{ID: tx.ID(), Type: typ, Bytes: tx.SignedBytes()})
	}
	return out, nil
}

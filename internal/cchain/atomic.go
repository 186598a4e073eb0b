// Package cchain decodes what avaindex keeps of C-chain blocks: the atomic
// import and export transactions in their extra data, parsed with coreth's
// atomic codec, with what each does to shared memory: the UTXOs an export
// puts into it, the inputs an import takes. describe.go decodes a stored
// atomic tx or UTXO for display.
package cchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/utxo"
)

// KindExported is the kind of the UTXOs a C-chain ExportTx puts into
// another chain's shared memory.
const KindExported = "exported"

// Block is what avaindex keeps of one accepted C-chain block.
type Block = internal.CBlockData

// AtomicTx is an atomic tx of a C-chain block: as stored, and what it does
// to shared memory.
type AtomicTx = internal.CAtomicTxData

// EVMChange is an atomic tx's change to one EVM account's balance of one
// asset.
type EVMChange = internal.CAtomicEVMChange

// AtomicTxs parses the extra data of a C-chain block of the network with id
// networkID, produced at time t. Before Apricot Phase 5 a block carried at
// most one atomic tx; since then, a batch.
func AtomicTxs(networkID uint32, t time.Time, extData []byte) ([]*AtomicTx, error) {
	if len(extData) == 0 {
		return nil, nil
	}
	cfg := upgrade.GetConfig(networkID)
	txs, err := atomic.ExtractAtomicTxs(extData, cfg.IsApricotPhase5Activated(t), atomic.Codec)
	if err != nil {
		return nil, fmt.Errorf("parsing C-chain atomic txs: %w", err)
	}
	out := make([]*AtomicTx, 0, len(txs))
	for _, tx := range txs {
		a, err := NewAtomicTx(tx)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// DecodeAtomicTx decodes one atomic tx from its signed bytes (as stored:
// internal.CAtomicTx.Bytes), the encoding of a pre-Apricot Phase 5
// block's extra data, which held exactly one.
func DecodeAtomicTx(b []byte) (*AtomicTx, error) {
	txs, err := atomic.ExtractAtomicTxs(b, false, atomic.Codec)
	if err != nil {
		return nil, fmt.Errorf("parsing a C-chain atomic tx: %w", err)
	}
	if len(txs) != 1 {
		return nil, fmt.Errorf("parsing a C-chain atomic tx: %d txs", len(txs))
	}
	return NewAtomicTx(txs[0])
}

// NewAtomicTx decodes what the parsed atomic tx does to shared memory.
func NewAtomicTx(tx *atomic.Tx) (*AtomicTx, error) {
	txID := tx.ID()
	a := &AtomicTx{CAtomicTx: internal.CAtomicTx{ID: txID, Bytes: tx.SignedBytes()}}
	switch u := tx.UnsignedAtomicTx.(type) {
	case *atomic.UnsignedExportTx:
		a.Type = "ExportTx"
		for i, o := range u.ExportedOutputs {
			if o == nil || o.Out == nil {
				return nil, fmt.Errorf("C-chain export %s output %d is nil", txID, i)
			}
			utx := &avax.UTXO{
				UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(i)},
				Asset:  avax.Asset{ID: o.AssetID()},
				Out:    o.Out,
			}
			b, err := atomic.Codec.Marshal(atomic.CodecVersion, utx)
			if err != nil {
				return nil, fmt.Errorf("encoding C-chain export %s output %d: %w", txID, i, err)
			}
			e := utxo.New(utx, b, KindExported)
			e.PeerChain = u.DestinationChain
			a.Exported = append(a.Exported, e)
		}
		for _, in := range u.Ins {
			a.EVM = append(a.EVM, EVMChange{Address: in.Address, AssetID: in.AssetID, Amount: in.Amount, Debit: true})
		}
	case *atomic.UnsignedImportTx:
		a.Type = "ImportTx"
		var err error
		if a.Imported, err = utxo.AppendInputs(nil, u.ImportedInputs, u.SourceChain); err != nil {
			return nil, fmt.Errorf("C-chain import %s: %w", txID, err)
		}
		for _, out := range u.Outs {
			a.EVM = append(a.EVM, EVMChange{Address: out.Address, AssetID: out.AssetID, Amount: out.Amount})
		}
	default:
		return nil, fmt.Errorf("atomic tx %s has unknown type %T", txID, tx.UnsignedAtomicTx)
	}
	return a, nil
}

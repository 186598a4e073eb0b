package internal

import (
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// The C-chain's blocks as the store keeps them: their atomic txs, decoded
// by package cchain.

// CBlockData is what avaindex keeps of one accepted C-chain block: its identity
// and its atomic transactions, decoded.
type CBlockData struct {
	Height    uint64
	Hash      ids.ID // the EVM block hash
	Parent    ids.ID
	Timestamp time.Time
	AtomicTxs []*CAtomicTxData
}

// CAtomicTxData is an atomic tx of a C-chain block: as stored, and what it does
// to shared memory.
type CAtomicTxData struct {
	CAtomicTx
	// Exported are an ExportTx's outputs as the UTXOs they become in the
	// destination chain's shared memory: output i of tx t is the UTXO
	// (t, i), as coreth's AtomicOps makes it, encoded with coreth's atomic
	// codec.
	Exported []*UTXOOutput
	// Imported are the UTXOs an ImportTx takes from its source chain's
	// shared memory.
	Imported []UTXOInput
	// EVM is what the tx does to EVM accounts, in the asset's units
	// (nAVAX for AVAX): an ImportTx's outputs credit them, an ExportTx's
	// inputs debit them. coreth applies it after the block's EVM txs.
	EVM []CAtomicEVMChange
}

// CAtomicEVMChange is an atomic tx's change to one EVM account's balance of one
// asset.
type CAtomicEVMChange struct {
	Address common.Address
	AssetID ids.ID
	Amount  uint64
	Debit   bool
}

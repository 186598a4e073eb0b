package internal

import (
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// What the P-, X- and C-chains share about UTXOs, as the store keeps it
// (package utxo builds these values from avalanchego's).

// UTXOInput is a UTXO a transaction spends, on any chain.
type UTXOInput struct {
	UTXOID avax.UTXOID
	// ID is UTXOID.InputID(), the key the consumed UTXO is stored under.
	ID      ids.ID
	AssetID ids.ID
	// Amount is the input's amount; 0 for an X-chain operation's inputs.
	Amount uint64
	// SourceChain is the chain whose shared memory an imported input comes
	// from; empty for inputs from the spending chain's own UTXO set.
	SourceChain ids.ID
}

// UTXOKindExported is every chain's kind of an output an ExportTx puts
// into another chain's shared memory: never part of its own UTXO set.
const UTXOKindExported = "exported"

// UTXOOutput is one UTXO as a chain (or shared memory) holds it, with the
// fields the store indexes read from it.
type UTXOOutput struct {
	UTXO *avax.UTXO
	// Bytes is the UTXO in its chain's encoding: what the chain's getUTXOs
	// serves and what an ExportTx puts into shared memory.
	Bytes []byte
	// Kind is the chain's name for what the UTXO is (e.g. "regular",
	// "stake", UTXOKindExported).
	Kind string
	// PeerChain is the destination chain of an exported output.
	PeerChain ids.ID

	AssetID ids.ID
	Amount  uint64
	// Owners are the output's owners (threshold, addresses, locktime); zero
	// for outputs without any.
	Owners secp256k1fx.OutputOwners
	// StakeableLocktime is a P-chain stakeable.LockOut's locktime; 0 when
	// the output is not stakeable-locked.
	StakeableLocktime uint64
}

// ID is avalanchego's key of the UTXO: its tx id prefixed with its output
// index (avax.UTXOID.InputID).
func (o *UTXOOutput) ID() ids.ID { return o.UTXO.InputID() }

// UTXOBlock is a P- or X-chain block as its chain metrics read it: its
// height, time and number of txs, and what those txs do to UTXOs (txs
// without UTXOs left out).
type UTXOBlock struct {
	Height  uint64
	Time    time.Time
	Txs     int
	Effects []UTXOEffects
}

// UTXOEffects are what a tx does to UTXOs: the chain's own UTXOs it
// consumes, the other chains' it imports, the outputs it produces.
type UTXOEffects struct {
	Consumed, Imported []UTXOInput
	Produced           []*UTXOOutput
}

// Burned is what the tx's AVAX (asset avax) inputs bring in beyond its
// AVAX outputs (its own, staked, exported), less what it moves into L1
// validators' balances (l1Balance): the fee it paid, plus whatever a
// malformed tx lets go. A tx that mints (a reward, a refund) burns
// nothing.
func (e *UTXOEffects) Burned(avax ids.ID, l1Balance uint64) *big.Int {
	in, out := new(big.Int), new(big.Int)
	for _, l := range [][]UTXOInput{e.Consumed, e.Imported} {
		for _, u := range l {
			if u.AssetID == avax {
				in.Add(in, new(big.Int).SetUint64(u.Amount))
			}
		}
	}
	for _, o := range e.Produced {
		if o.AssetID == avax {
			out.Add(out, new(big.Int).SetUint64(o.Amount))
		}
	}
	return burnedBeyond(in, out, l1Balance)
}

// burnedBeyond is what in brings beyond out and l1Balance, zero when it
// brings nothing more. It may change in and out.
func burnedBeyond(in, out *big.Int, l1Balance uint64) *big.Int {
	out.Add(out, new(big.Int).SetUint64(l1Balance))
	if in.Cmp(out) <= 0 {
		return new(big.Int)
	}
	return in.Sub(in, out)
}

// AddressTxParts are what a batch's address history needs beyond its
// own txs' UTXOs: the imports (the other chains' UTXOs its ImportTxs
// spend) and the exports (the importing txs of what it exported, when
// another chain indexed them first). Most batches need neither, and each
// is a join per other chain.
type AddressTxParts struct{ Imports, Exports bool }

// AllAddressTxParts is what a range whose UTXO effects are unknown needs.
var AllAddressTxParts = AddressTxParts{Imports: true, Exports: true}

// AddressTxRow is an address's row in a primary-network chain's tx
// history that no UTXO names: an EVM address a C-chain atomic tx debits
// or credits.
type AddressTxRow struct {
	Chain   Chain
	Address []byte
	Pos     TxPosition
	Type    string
}

// TxPosition is a tx and its position in its chain (PPos: block height,
// index in the block, the block's time), on any chain.
type TxPosition struct {
	TxID ids.ID
	PPos
}

// TxAt is the tx id at height, index i, of a block of time t.
func TxAt(id ids.ID, height uint64, i int, t time.Time) TxPosition {
	return TxPosition{TxID: id, PPos: PPos{Height: height, Index: i, Time: t}}
}

// AtomicImport is a UTXO of a chain's shared memory that the ImportTx at
// Pos, on another chain, consumes.
type AtomicImport struct {
	UTXO UTXOInput
	Pos  TxPosition
}

// AtomicExport is an output that the ExportTx at Pos put into another
// chain's shared memory.
type AtomicExport struct {
	Output *UTXOOutput
	Pos    TxPosition
}

// UTXOTx is what the tx at Pos does to its chain's UTXOs. A genesis
// output is a UTXOTx of its own, at index -1 of height 0, that produces
// it.
type UTXOTx struct {
	Pos     TxPosition
	Effects *UTXOEffects
}

// Package xchain decodes X-chain blocks and txs with avalanchego's avm
// parser, and derives what txs do to the UTXO set.
//
// A post-Cortina block is decoded once into a Block; a pre-Cortina DAG tx,
// from the mirrored X/tx index, into a DAGTx; a DAG vertex, from the
// mirrored X/vtx index, into a Vertex with the ids of the txs it carried
// (vertex.go). It also holds the X-chain genesis of every known network,
// its assets too, and describe.go, a stored tx, UTXO or asset decoded for
// display.
package xchain

import (
	"fmt"
	"reflect"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
)

// Block is an accepted (post-Cortina) X-chain block, decoded once: its
// identity and bytes, and its txs with what each does to the UTXO set.
type Block struct {
	Height    uint64
	ID        ids.ID
	ParentID  ids.ID
	Timestamp time.Time
	Bytes     []byte
	Txs       []*Tx
	// Genesis is set on block 0 of an X-chain that was linear from its
	// genesis: its UTXOs enter the set with that block. Nil otherwise.
	Genesis *Genesis
}

// Tx is one X-chain tx, decoded once: as stored, parsed, and what it does
// to the UTXO set.
type Tx struct {
	internal.XTx
	Tx    *txs.Tx
	UTXOs *TxUTXOs
}

// DAGTx is one pre-Cortina X-chain tx: a container of the node's X/tx
// index, decoded.
type DAGTx struct {
	*Tx
	// Index is its position in the X/tx index.
	Index uint64
	// Timestamp is when the node accepted it.
	Timestamp time.Time
	// Genesis is set on container 0 of an X-chain that ran as a DAG: its
	// UTXOs precede the first DAG tx. Nil otherwise.
	Genesis *Genesis
}

// Decode parses the avm bytes of the block the node accepted at height. g
// is the chain's genesis (see GenesisFor), nil when it is not known.
func Decode(height uint64, b []byte, g *Genesis) (*Block, error) {
	blk, err := builder.Parser.ParseBlock(b)
	if err != nil {
		return nil, fmt.Errorf("parsing X-chain block at height %d: %w", height, err)
	}
	if blk.Height() != height {
		return nil, fmt.Errorf("X-chain block %s claims height %d, expected %d", blk.ID(), blk.Height(), height)
	}
	xb := &Block{
		Height:    height,
		ID:        blk.ID(),
		ParentID:  blk.Parent(),
		Timestamp: blk.Timestamp(),
		Bytes:     b,
	}
	if height == 0 && g != nil && !g.DAG {
		xb.Genesis = g
	}
	for _, tx := range blk.Txs() {
		t, err := NewTx(tx)
		if err != nil {
			return nil, fmt.Errorf("X-chain block %d: %w", height, err)
		}
		xb.Txs = append(xb.Txs, t)
	}
	return xb, nil
}

// DecodeDAGTx decodes the container at index of the node's X/tx index: id
// and the tx bytes, accepted at timestamp (the node's RFC 3339 text). g is
// the chain's genesis, nil when it is not known.
func DecodeDAGTx(index uint64, id ids.ID, b []byte, timestamp string, g *Genesis) (*DAGTx, error) {
	ts, err := time.Parse(time.RFC3339Nano, timestamp)
	if err != nil {
		return nil, fmt.Errorf("X/tx container %d: timestamp: %w", index, err)
	}
	tx, err := ParseTx(b)
	if err != nil {
		return nil, fmt.Errorf("X/tx container %d (%s): %w", index, id, err)
	}
	if tx.ID() != id {
		return nil, fmt.Errorf("X/tx container %d is %s, but its tx is %s", index, id, tx.ID())
	}
	t, err := NewTx(tx)
	if err != nil {
		return nil, fmt.Errorf("X/tx container %d: %w", index, err)
	}
	d := &DAGTx{Tx: t, Index: index, Timestamp: ts}
	if index == 0 && g != nil && g.DAG {
		d.Genesis = g
	}
	return d, nil
}

// NewTx decodes the parsed tx.
func NewTx(tx *txs.Tx) (*Tx, error) {
	eff, err := UTXOsOfTx(tx)
	if err != nil {
		return nil, err
	}
	return &Tx{XTx: internal.XTx{ID: tx.ID(), Type: TxType(tx), Bytes: tx.Bytes()}, Tx: tx, UTXOs: eff}, nil
}

// TxType is the avm type name of tx, e.g. "CreateAssetTx".
func TxType(tx *txs.Tx) string {
	return reflect.Indirect(reflect.ValueOf(tx.Unsigned)).Type().Name()
}

package internal

import (
	"time"

	"github.com/ava-labs/avalanchego/ids"
)

// The X-chain's blocks, pre-Cortina DAG txs and DAG vertices as the store
// keeps them, decoded by package xchain (its Data methods).

// XTxData is an X-chain tx as the store keeps it: as stored, and what it
// does to UTXOs.
type XTxData struct {
	XTx
	UTXOs *UTXOEffects
}

// XBlockData is an X-chain block as the store keeps it.
type XBlockData struct {
	Height    uint64
	ID        ids.ID
	ParentID  ids.ID
	Timestamp time.Time
	Bytes     []byte
	Txs       []XTxData
	// Genesis is set on block 0 of an X-chain that was linear from its
	// genesis: its UTXOs enter the set with that block. Nil otherwise.
	Genesis *XGenesisData
}

// XDAGTxData is a pre-Cortina X-chain tx (a container of the node's X/tx
// index) as the store keeps it.
type XDAGTxData struct {
	XTxData
	// Index is its position in the X/tx index.
	Index uint64
	// Timestamp is when the node accepted it.
	Timestamp time.Time
	// Genesis is set on container 0 of an X-chain that ran as a DAG: its
	// UTXOs precede the first DAG tx. Nil otherwise.
	Genesis *XGenesisData
}

// XGenesisData is what the store keeps of an X-chain's genesis: its
// UTXOs, and the network's genesis time (unix seconds).
type XGenesisData struct {
	Timestamp uint64
	UTXOs     []*UTXOOutput
}

// UTXOBlock returns b as its chain metrics read it.
func (b *XBlockData) UTXOBlock() UTXOBlock {
	ub := UTXOBlock{Height: b.Height, Time: b.Timestamp, Txs: len(b.Txs)}
	for _, t := range b.Txs {
		if t.UTXOs != nil {
			ub.Effects = append(ub.Effects, *t.UTXOs)
		}
	}
	return ub
}

// XVertex is one container of the node's X/vtx index, decoded: a vertex of
// the X-chain's pre-Cortina DAG and the txs it carried.
type XVertex struct {
	// Index is its position in the X/vtx index.
	Index uint64
	ID    ids.ID
	// Height is the vertex's height in the DAG (one more than its highest
	// parent's).
	Height uint64
	// Timestamp is when the node accepted it.
	Timestamp time.Time
	// TxIDs are the txs it carried, each once, in the vertex's order. A
	// stop vertex (Stop), the last one the DAG accepted before Cortina's
	// linearization, carries none.
	TxIDs []ids.ID
	Stop  bool
	// Parents are the vertices it extends, in the vertex's order.
	Parents []ids.ID
}

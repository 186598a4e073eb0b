package xchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal"
)

// Vertex is one container of the node's X/vtx index, decoded.
type Vertex = internal.XVertex

// DecodeVertex decodes the container at index of the node's X/vtx index:
// id and the vertex bytes, accepted at timestamp (the node's RFC 3339
// text).
//
// The vertex is parsed, not verified: the node accepted it, and a rule
// checked here that the node did not check then would stop the decoding of
// the index for good.
func DecodeVertex(index uint64, id ids.ID, b []byte, timestamp string) (*Vertex, error) {
	ts, err := time.Parse(time.RFC3339Nano, timestamp)
	if err != nil {
		return nil, fmt.Errorf("X/vtx container %d: timestamp: %w", index, err)
	}
	vtx, err := vertex.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("X/vtx container %d (%s): %w", index, id, err)
	}
	if vtx.ID() != id {
		return nil, fmt.Errorf("X/vtx container %d is %s, but its vertex is %s", index, id, vtx.ID())
	}
	v := &Vertex{Index: index, ID: id, Height: vtx.Height(), Timestamp: ts, Stop: vtx.StopVertex(), Parents: vtx.ParentIDs()}
	seen := make(map[ids.ID]bool, len(vtx.Txs()))
	for _, tx := range vtx.Txs() {
		// A tx's id is the hash of its signed bytes, as the avm computes
		// it (txs.Tx.Initialize), so the vertex's txs need not be parsed.
		txID := hashing.ComputeHash256Array(tx)
		if !seen[txID] {
			seen[txID] = true
			v.TxIDs = append(v.TxIDs, txID)
		}
	}
	return v, nil
}

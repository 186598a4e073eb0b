package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// XVtxIndex is the node's index of the X-chain's DAG vertices, in
// acceptance order. Like XTxIndex, only the DAG engine feeds it.
const XVtxIndex = "X/vtx"

// XVertexStore keeps the X-chain's pre-Cortina (DAG) vertices, decoded
// from the mirrored X/vtx index (see ContainerStore), and which txs each
// carried.
//
// They are no derived state: a vertex is its container decoded, and what
// is stored of it depends on nothing else, so the X-chain's rederive
// leaves them be (rederivestate.go).
type XVertexStore interface {
	// XVertexContainers returns up to max of the X/vtx containers mirrored
	// beyond XVtxCursor, in index order: the next vertices to decode. None
	// when the vertices are caught up with the mirror.
	XVertexContainers(ctx context.Context, max int) ([]Container, error)
	// ApplyXVertices stores vs (consecutive X/vtx indices, ascending) with
	// the txs each carried and moves XVtxCursor to the last, in one
	// transaction. A batch that would leave a gap after the cursor fails
	// with derrors.InvalidArgument. Re-applying changes nothing; the
	// cursor never moves back. An empty batch does nothing.
	ApplyXVertices(ctx context.Context, vs []*internal.XVertex) error
	// TxVertices returns the stored vertices that carried each of txIDs,
	// by height and then X/vtx index; a tx no stored vertex carried has no
	// entry.
	TxVertices(ctx context.Context, txIDs []ids.ID) (map[ids.ID][]Vertex, error)
}

// Vertex is a stored vertex of the X-chain's DAG.
type Vertex struct {
	// Index is its position in the node's X/vtx index.
	Index  uint64
	ID     ids.ID
	Height uint64
	// Timestamp is when the node accepted it, to the second.
	Timestamp time.Time
}

var (
	xVertexColumns   = []string{"idx", "id", "height", "timestamp"}
	xVertexTxColumns = []string{"tx_id", "height", "vertex_idx"}
)

func (s *sqlStore) XVertexContainers(ctx context.Context, max int) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.XVertexContainers(%d)", max)
	if max <= 0 {
		return nil, derrors.Invalid("max must be positive")
	}
	return containersBeyond(ctx, s.db, XVtxCursor, XVtxIndex, max)
}

func (s *sqlStore) ApplyXVertices(ctx context.Context, vs []*internal.XVertex) (err error) {
	if len(vs) == 0 {
		return nil
	}
	first, last := vs[0], vs[len(vs)-1]
	if first == nil || last == nil {
		return fmt.Errorf("store.ApplyXVertices: nil vertex: %w", derrors.InvalidArgument)
	}
	defer derrors.Wrap(&err, "store.ApplyXVertices(%d..%d)", first.Index, last.Index)
	var vertices, links [][]any
	for i, v := range vs {
		switch {
		case v == nil:
			return fmt.Errorf("vertex %d of the batch is nil: %w", i, derrors.InvalidArgument)
		case i > 0 && v.Index != vs[i-1].Index+1:
			return fmt.Errorf("indices not consecutive: %d follows %d: %w", v.Index, vs[i-1].Index, derrors.InvalidArgument)
		case v.Index > math.MaxInt64 || v.Height > math.MaxInt64:
			return fmt.Errorf("X/vtx container %d: index or height %d beyond BIGINT: %w", v.Index, v.Height, derrors.InvalidArgument)
		}
		idx, h := int64(v.Index), int64(v.Height)
		vertices = append(vertices, []any{idx, v.ID[:], h, v.Timestamp.Unix()})
		for _, txID := range v.TxIDs {
			links = append(links, []any{txID[:], h, idx})
		}
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		cur, ok, err := cursor(ctx, tx, XVtxCursor)
		if err != nil {
			return err
		}
		if next := cur + 1; (ok && first.Index > next) || (!ok && first.Index > 0) {
			return fmt.Errorf("batch starts at X/vtx container %d, beyond the vertex cursor: %w", first.Index, derrors.InvalidArgument)
		}
		if err := tx.Append(ctx, "x_vertices", xVertexColumns, vertices, onConflictDoNothing); err != nil {
			return err
		}
		if err := tx.Append(ctx, "x_vertex_txs", xVertexTxColumns, links, onConflictDoNothing); err != nil {
			return err
		}
		return moveCursor(ctx, tx, XVtxCursor, last.Index, last.ID)
	})
}

func (s *sqlStore) TxVertices(ctx context.Context, txIDs []ids.ID) (_ map[ids.ID][]Vertex, err error) {
	defer derrors.Wrap(&err, "store.TxVertices(%d txs)", len(txIDs))
	out := map[ids.ID][]Vertex{}
	err = idChunksOf(txIDs, readInList, func(args []any, in string) error {
		return s.db.RunQuery(ctx, `SELECT l.tx_id, v.idx, v.id, v.height, v.timestamp FROM x_vertex_txs l
			JOIN x_vertices v ON v.idx = l.vertex_idx WHERE l.tx_id IN `+in+`
			ORDER BY l.tx_id, l.height, l.vertex_idx`, func(r *sql.Rows) error {
			var (
				txID, id   []byte
				idx, h, ts int64
				v          Vertex
				tid        ids.ID
				err        error
			)
			if err := r.Scan(&txID, &idx, &id, &h, &ts); err != nil {
				return err
			}
			if tid, err = ids.ToID(txID); err != nil {
				return err
			}
			if v.ID, err = ids.ToID(id); err != nil {
				return err
			}
			v.Index, v.Height, v.Timestamp = uint64(idx), uint64(h), time.Unix(ts, 0).UTC()
			out[tid] = append(out[tid], v)
			return nil
		}, args...)
	})
	return out, err
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// XVertexListStore reads the stored DAG vertices with the bytes the node's
// X/vtx index served, for the Data API's vertex endpoints, which decode
// them (xchain.DecodeVertex) for what x_vertices does not keep: parents,
// txs and size.
type XVertexListStore interface {
	// XVertices returns up to limit stored vertices by X/vtx index,
	// latest first, below index *before when before is not nil.
	XVertices(ctx context.Context, before *uint64, limit int) ([]Container, error)
	// XVertexByID returns the stored vertex id.
	XVertexByID(ctx context.Context, id ids.ID) (*Container, error)
	// XVerticesAtHeight returns up to limit stored vertices of DAG height
	// height, by X/vtx index, descending when desc, beyond index *after
	// in that order when after is not nil.
	XVerticesAtHeight(ctx context.Context, height uint64, after *uint64, limit int, desc bool) ([]Container, error)
}

// xVertexSelect reads stored vertices' containers; x_vertices holds only
// the decoded ones, so that a vertex listed is one the index decoded.
const xVertexSelect = `SELECT c.idx, c.id, c.timestamp, c.bytes FROM x_vertices v
	JOIN containers c ON c.index_name = ? AND c.idx = v.idx`

func (s *sqlStore) XVertices(ctx context.Context, before *uint64, limit int) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.XVertices(limit=%d)", limit)
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	q, args := xVertexSelect, []any{XVtxIndex}
	if before != nil && *before <= math.MaxInt64 {
		q, args = q+" WHERE v.idx < ?", append(args, int64(*before))
	}
	return s.xVertexRows(ctx, q+" ORDER BY v.idx DESC LIMIT ?", append(args, limit)...)
}

func (s *sqlStore) XVertexByID(ctx context.Context, id ids.ID) (_ *Container, err error) {
	defer derrors.Wrap(&err, "store.XVertexByID(%s)", id)
	cs, err := s.xVertexRows(ctx, xVertexSelect+" WHERE v.id = ?", XVtxIndex, id[:])
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, derrors.NotFound
	}
	return &cs[0], nil
}

func (s *sqlStore) XVerticesAtHeight(ctx context.Context, height uint64, after *uint64, limit int, desc bool) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.XVerticesAtHeight(%d, limit=%d, desc=%t)", height, limit, desc)
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	if height > math.MaxInt64 {
		return nil, nil
	}
	q, args := xVertexSelect+" WHERE v.height = ?", []any{XVtxIndex, int64(height)}
	if after != nil {
		switch {
		case desc && *after > math.MaxInt64:
		case desc:
			q, args = q+" AND v.idx < ?", append(args, int64(*after))
		case *after >= math.MaxInt64:
			return nil, nil
		default:
			q, args = q+" AND v.idx > ?", append(args, int64(*after))
		}
	}
	if desc {
		q += " ORDER BY v.idx DESC LIMIT ?"
	} else {
		q += " ORDER BY v.idx LIMIT ?"
	}
	return s.xVertexRows(ctx, q, append(args, limit)...)
}

func (s *sqlStore) xVertexRows(ctx context.Context, q string, args ...any) ([]Container, error) {
	var out []Container
	err := s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var (
			c  Container
			i  int64
			id []byte
		)
		if err := rows.Scan(&i, &id, &c.Timestamp, &c.Bytes); err != nil {
			return err
		}
		c.Index = uint64(i)
		var err error
		if c.ID, err = ids.ToID(id); err != nil {
			return fmt.Errorf("stored vertex %d: %w", i, err)
		}
		c.Bytes = nonNil(c.Bytes)
		out = append(out, c)
		return nil
	}, args...)
	return out, err
}

package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// CursorKey names a sequence that avaindex applies in order and keeps a
// cursor of: a chain's blocks (ChainCursor), a container index of the node
// (IndexCursor), the X-chain's DAG txs (XDAGCursor) and vertices
// (XVtxCursor), and whatever else is followed the same way. Its text is
// the key of the cursors row.
type CursorKey string

// ChainCursor is the cursor of chain's blocks: the last height applied.
func ChainCursor(chain internal.Chain) CursorKey { return CursorKey(chain) }

// IndexCursor is the cursor of the mirror of the node's container index
// named index (e.g. "C/block"): the last index mirrored.
func IndexCursor(index string) CursorKey { return CursorKey("index:" + index) }

// XDAGCursor is the cursor of the X-chain's pre-Cortina DAG txs applied:
// the index, in the mirrored X/tx index, of the last one.
const XDAGCursor CursorKey = "X/dag"

// XVtxCursor is the cursor of the X-chain's pre-Cortina DAG vertices
// decoded: the index, in the mirrored X/vtx index, of the last one. (Not
// IndexCursor(XVtxIndex), which is how far the index is mirrored.)
const XVtxCursor CursorKey = "X/vertices"

// CursorStore reads cursors.
type CursorStore interface {
	// Cursor returns the last position applied of key; ok is false when
	// nothing has been applied yet.
	Cursor(ctx context.Context, key CursorKey) (height uint64, ok bool, err error)
	// Cursors returns every cursor, by key.
	Cursors(ctx context.Context) (map[CursorKey]uint64, error)
}

func (s *sqlStore) Cursors(ctx context.Context) (_ map[CursorKey]uint64, err error) {
	defer derrors.Wrap(&err, "store.Cursors")
	out := map[CursorKey]uint64{}
	err = s.db.RunQuery(ctx, "SELECT chain, height FROM cursors", func(rows *sql.Rows) error {
		var key string
		var h int64
		if err := rows.Scan(&key, &h); err != nil {
			return err
		}
		out[CursorKey(key)] = uint64(h)
		return nil
	})
	return out, err
}

func (s *sqlStore) Cursor(ctx context.Context, key CursorKey) (_ uint64, _ bool, err error) {
	defer derrors.Wrap(&err, "store.Cursor(%s)", key)
	return cursor(ctx, s.db, key)
}

func cursor(ctx context.Context, db *database.DB, key CursorKey) (uint64, bool, error) {
	var h int64
	err := db.QueryRow(ctx, "SELECT height FROM cursors WHERE chain = ?", string(key)).Scan(&h)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return uint64(h), true, nil
}

// moveCursor sets key's cursor to height, whose block (or container, or
// tx) is id, never moving it back.
func moveCursor(ctx context.Context, tx *database.DB, key CursorKey, height uint64, id ids.ID) error {
	_, err := tx.Exec(ctx, `INSERT INTO cursors (chain, height, block_id) VALUES (?, ?, ?)
		ON CONFLICT (chain) DO UPDATE SET height = excluded.height, block_id = excluded.block_id
		WHERE excluded.height > cursors.height`,
		string(key), int64(height), id[:])
	return err
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The container indexes a node serves, by their path below /ext/index.
var IndexNames = []string{"C/block", "P/block", "X/block", "X/tx", "X/vtx"}

// PBlockIndex is the index that avaindex can also serve from its own
// P-chain blocks when the node has no index (see IndexState).
const PBlockIndex = "P/block"

// IndexSource is what avaindex last learned of whether the node serves an
// index.
type IndexSource string

const (
	// SourceUnknown: the node was not asked yet.
	SourceUnknown IndexSource = ""
	// SourceNode: the node serves the index; avaindex mirrors it.
	SourceNode IndexSource = "node"
	// SourceNone: the node answered that it has no such index.
	SourceNone IndexSource = "none"
)

// Container is one accepted container of an index.
type Container struct {
	// Index is the container's position in its index; the first is 0.
	Index uint64
	ID    ids.ID
	Bytes []byte
	// Timestamp is the node's RFC 3339 text of the acceptance time, as the
	// node rendered it.
	Timestamp string
}

// IndexState is, read at one moment, what is stored about one index.
type IndexState struct {
	Source IndexSource
	// Last is the index of the last mirrored container; HasLast is false
	// when none is stored.
	Last    uint64
	HasLast bool
	// PHeight is the P-chain cursor (HasPHeight false when no P-chain
	// block is stored), for serving PBlockIndex from p_blocks.
	PHeight    uint64
	HasPHeight bool
}

// ContainerStore keeps the per-chain container index mirrored from the
// node's /ext/index endpoints.
type ContainerStore interface {
	// ApplyContainers writes containers (consecutive indices, ascending) of
	// the index named index and moves its cursor ("index:"+index) to the
	// last one, in one transaction. Re-applying stored containers changes
	// nothing; a batch that would leave a gap (the first index beyond the
	// cursor+1, or not 0 when nothing is stored), or that disagrees with
	// what is stored, fails whole with nothing written. Empty does nothing.
	ApplyContainers(ctx context.Context, index string, cs []Container) error

	// SetIndexSource records whether the node serves index.
	SetIndexSource(ctx context.Context, index string, src IndexSource) error

	// IndexState returns the source and cursor of index and the P-chain
	// cursor, read together.
	IndexState(ctx context.Context, index string) (IndexState, error)

	// ContainerRange returns the stored containers of index at indices
	// first..last (inclusive), in order; missing ones are left out.
	ContainerRange(ctx context.Context, index string, first, last uint64) ([]Container, error)

	// ContainerByID returns the container of index with the given id.
	ContainerByID(ctx context.Context, index string, id ids.ID) (Container, error)

	// PBlockContainerRange and PBlockContainerByID read the P-chain blocks
	// as containers of an index in which container i is the block at
	// height i+1 (the genesis block is not in it), with the platformvm
	// bytes and the block's own timestamp.
	PBlockContainerRange(ctx context.Context, first, last uint64) ([]Container, error)
	PBlockContainerByID(ctx context.Context, id ids.ID) (Container, error)
}

var containerColumns = []string{"index_name", "idx", "id", "timestamp", "bytes"}

func indexSourceKey(index string) string { return "index-source:" + index }

func (s *sqlStore) ApplyContainers(ctx context.Context, index string, cs []Container) (err error) {
	if len(cs) == 0 {
		return nil
	}
	first, last := cs[0].Index, cs[len(cs)-1].Index
	defer derrors.Wrap(&err, "store.ApplyContainers(%s, %d..%d)", index, first, last)
	if index == "" {
		return derrors.Invalid("no index name")
	}
	rows := make([][]any, len(cs))
	vals := make([]any, len(cs)*len(containerColumns))
	for i := range cs {
		c := &cs[i]
		if c.Index > math.MaxInt64 {
			return fmt.Errorf("index %d out of range: %w", c.Index, derrors.InvalidArgument)
		}
		if i > 0 && c.Index != cs[i-1].Index+1 {
			return fmt.Errorf("indices not consecutive: %d follows %d: %w", c.Index, cs[i-1].Index, derrors.InvalidArgument)
		}
		n := len(containerColumns)
		row := vals[i*n : (i+1)*n : (i+1)*n]
		row[0] = index
		row[1] = int64(c.Index)
		row[2] = c.ID[:]
		row[3] = c.Timestamp
		row[4] = nonNil(c.Bytes)
		rows[i] = row
	}
	cursorKey := IndexCursor(index)
	return s.db.Transact(ctx, func(tx *database.DB) error {
		cur, ok, err := cursor(ctx, tx, cursorKey)
		switch {
		case err != nil:
			return err
		case !ok && first != 0:
			return fmt.Errorf("batch starts at %d but nothing is stored: indices 0..%d would be missing: %w",
				first, first-1, derrors.InvalidArgument)
		case ok && first > cur+1:
			return fmt.Errorf("batch starts at %d but the cursor is at %d: indices %d..%d would be missing: %w",
				first, cur, cur+1, first-1, derrors.InvalidArgument)
		}
		n, err := tx.BulkInsert(ctx, "containers", containerColumns, rows, onConflictDoNothing)
		if err != nil {
			return err
		}
		if n != int64(len(cs)) {
			if err := checkStoredContainers(ctx, tx, index, cs); err != nil {
				return err
			}
		}
		if err := writeProposers(ctx, tx, index, cs); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO cursors (chain, height) VALUES (?, ?)
			ON CONFLICT (chain) DO UPDATE SET height = excluded.height
			WHERE excluded.height > cursors.height`,
			string(cursorKey), int64(last))
		return err
	})
}

// checkStoredContainers verifies that the stored containers at the indices
// of cs are cs.
func checkStoredContainers(ctx context.Context, tx *database.DB, index string, cs []Container) error {
	first, last := cs[0].Index, cs[len(cs)-1].Index
	stored, err := storedIDs(ctx, tx, "container", "SELECT idx, id FROM containers WHERE index_name = ? AND idx BETWEEN ? AND ?",
		index, int64(first), int64(last))
	if err != nil {
		return err
	}
	for _, c := range cs {
		if got, ok := stored[c.Index]; !ok || got != c.ID {
			return fmt.Errorf("container %d: %s could not be stored (another container is stored at that index, or its id at another index)",
				c.Index, c.ID)
		}
	}
	return nil
}

func (s *sqlStore) SetIndexSource(ctx context.Context, index string, src IndexSource) (err error) {
	defer derrors.Wrap(&err, "store.SetIndexSource(%s, %q)", index, src)
	_, err = s.db.Exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		indexSourceKey(index), []byte(src))
	return err
}

func (s *sqlStore) IndexState(ctx context.Context, index string) (_ IndexState, err error) {
	defer derrors.Wrap(&err, "store.IndexState(%s)", index)
	var (
		src     []byte
		last, p sql.NullInt64
		st      IndexState
	)
	err = s.db.QueryRow(ctx, `SELECT
		(SELECT value FROM settings WHERE key = ?),
		(SELECT height FROM cursors WHERE chain = ?),
		(SELECT height FROM cursors WHERE chain = ?)`,
		indexSourceKey(index), string(IndexCursor(index)), "P").Scan(&src, &last, &p)
	if err != nil {
		return st, err
	}
	st.Source = IndexSource(src)
	if last.Valid {
		st.Last, st.HasLast = uint64(last.Int64), true
	}
	if p.Valid {
		st.PHeight, st.HasPHeight = uint64(p.Int64), true
	}
	return st, nil
}

func (s *sqlStore) ContainerRange(ctx context.Context, index string, first, last uint64) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.ContainerRange(%s, %d..%d)", index, first, last)
	if first > last || first > math.MaxInt64 {
		return nil, nil
	}
	last = min(last, math.MaxInt64)
	return s.containers(ctx, last-first+1, false,
		"SELECT idx, id, timestamp, bytes FROM containers WHERE index_name = ? AND idx BETWEEN ? AND ? ORDER BY idx",
		index, int64(first), int64(last))
}

func (s *sqlStore) ContainerByID(ctx context.Context, index string, id ids.ID) (_ Container, err error) {
	defer derrors.Wrap(&err, "store.ContainerByID(%s, %s)", index, id)
	cs, err := s.containers(ctx, 1, false,
		"SELECT idx, id, timestamp, bytes FROM containers WHERE index_name = ? AND id = ?", index, id[:])
	if err != nil {
		return Container{}, err
	}
	if len(cs) == 0 {
		return Container{}, derrors.NotFound
	}
	return cs[0], nil
}

func (s *sqlStore) PBlockContainerRange(ctx context.Context, first, last uint64) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.PBlockContainerRange(%d..%d)", first, last)
	// Container i is the block at height i+1.
	if first > last || first >= math.MaxInt64 {
		return nil, nil
	}
	last = min(last, math.MaxInt64-1)
	return s.containers(ctx, last-first+1, true,
		"SELECT height, id, timestamp, bytes FROM p_blocks WHERE height BETWEEN ? AND ? ORDER BY height",
		int64(first+1), int64(last+1))
}

func (s *sqlStore) PBlockContainerByID(ctx context.Context, id ids.ID) (_ Container, err error) {
	defer derrors.Wrap(&err, "store.PBlockContainerByID(%s)", id)
	cs, err := s.containers(ctx, 1, true,
		"SELECT height, id, timestamp, bytes FROM p_blocks WHERE id = ? AND height > 0", id[:])
	if err != nil {
		return Container{}, err
	}
	if len(cs) == 0 {
		return Container{}, derrors.NotFound
	}
	return cs[0], nil
}

// containers runs query, whose rows are (index, id, timestamp, bytes), and
// returns its containers. When pBlocks, the rows are p_blocks rows: the
// index is the height and the timestamp unix seconds, and they are turned
// into the containers of the P-chain block index.
func (s *sqlStore) containers(ctx context.Context, sizeHint uint64, pBlocks bool, query string, args ...any) ([]Container, error) {
	out := make([]Container, 0, min(sizeHint, 1024))
	err := s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var (
			i     int64
			id    []byte
			c     Container
			tsSec int64
			ts    any = &c.Timestamp
		)
		if pBlocks {
			ts = &tsSec
		}
		if err := rows.Scan(&i, &id, ts, &c.Bytes); err != nil {
			return err
		}
		var err error
		if c.ID, err = ids.ToID(id); err != nil {
			return fmt.Errorf("stored container %d: %w", i, err)
		}
		c.Index = uint64(i)
		if pBlocks {
			c.Index--
			c.Timestamp = time.Unix(tsSec, 0).UTC().Format(time.RFC3339Nano)
		}
		c.Bytes = nonNil(c.Bytes)
		out = append(out, c)
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// containersBeyond returns up to max of the containers of index mirrored
// beyond the cursor done (of what is decoded from them), in index order;
// none when done has caught up with the mirror.
func containersBeyond(ctx context.Context, db *database.DB, done CursorKey, index string, max int) ([]Container, error) {
	var at, mirrored sql.NullInt64
	err := db.QueryRow(ctx, "SELECT (SELECT height FROM cursors WHERE chain = ?), (SELECT height FROM cursors WHERE chain = ?)",
		string(done), string(IndexCursor(index))).Scan(&at, &mirrored)
	if err != nil || !mirrored.Valid || at.Valid && at.Int64 >= mirrored.Int64 {
		return nil, err
	}
	next := int64(0)
	if at.Valid {
		next = at.Int64 + 1
	}
	var cs []Container
	err = db.RunQuery(ctx, `SELECT idx, id, timestamp, bytes FROM containers WHERE index_name = ? AND idx >= ?
		ORDER BY idx LIMIT ?`, func(r *sql.Rows) error {
		var (
			c  Container
			i  int64
			id []byte
		)
		if err := r.Scan(&i, &id, &c.Timestamp, &c.Bytes); err != nil {
			return err
		}
		c.Index = uint64(i)
		var err error
		c.ID, err = ids.ToID(id)
		c.Bytes = nonNil(c.Bytes)
		cs = append(cs, c)
		return err
	}, index, next, max)
	return cs, err
}

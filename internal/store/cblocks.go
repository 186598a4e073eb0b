package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// CStore keeps the atomic transactions of C-chain blocks.
type CStore interface {
	// ApplyCBlocks stores the atomic txs of blocks (consecutive heights,
	// ascending; blocks without atomic txs included, so that the cursor
	// moves past them), runs derive, and moves the C-chain cursor to the
	// last height, in one transaction. Re-applying changes nothing.
	ApplyCBlocks(ctx context.Context, blocks []*internal.CBlockData, derive CDerivation) error
	// CLastHash returns the hash of the C-chain block at the cursor.
	CLastHash(ctx context.Context) (ids.ID, error)
}

var cAtomicColumns = []string{"id", "block_height", "block_hash", "idx", "type", "timestamp", "bytes"}

// CDerivation writes, through tx, the state a C-chain batch's atomic txs
// derive (derive/cstate). It runs in the batch's transaction, after the
// atomic txs are written, and must be idempotent.
type CDerivation func(ctx context.Context, tx *CTx, blocks []*internal.CBlockData) error

// CTx is a C-chain batch's transaction as ApplyCBlocks and
// RederiveCBlocks hand it to the derivation. It is valid only during that
// call.
type CTx struct{ *batchTx }

// runCDerivation runs derive on a C-chain batch in tx.
func runCDerivation(ctx context.Context, tx *database.DB, derive CDerivation, blocks []*internal.CBlockData) error {
	b := newBatchTx(tx, false)
	return b.run(ctx, func() error { return derive(ctx, &CTx{b}, blocks) })
}

func (s *sqlStore) ApplyCBlocks(ctx context.Context, blocks []*internal.CBlockData, derive CDerivation) (err error) {
	if len(blocks) == 0 {
		return nil
	}
	first, last := blocks[0].Height, blocks[len(blocks)-1].Height
	defer derrors.Wrap(&err, "store.ApplyCBlocks(%d..%d)", first, last)
	var rows [][]any
	for i, b := range blocks {
		if b.Height > math.MaxInt64 || (i > 0 && b.Height != blocks[i-1].Height+1) {
			return fmt.Errorf("heights not consecutive at %d: %w", b.Height, derrors.InvalidArgument)
		}
		for j, t := range b.AtomicTxs {
			rows = append(rows, []any{t.ID[:], int64(b.Height), b.Hash[:], int64(j), t.Type, unixSeconds(b.Timestamp), nonNil(t.Bytes)})
		}
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		cur, ok, err := cursor(ctx, tx, ChainCursor(internal.CChain))
		if err != nil {
			return err
		}
		if ok && first > cur+1 {
			return fmt.Errorf("batch starts at %d but the C-chain cursor is at %d: %w", first, cur, derrors.InvalidArgument)
		}
		if err := refuseWhileRederiving(ctx, tx, internal.CChain); err != nil {
			return err
		}
		n, err := tx.BulkInsert(ctx, "c_atomic_txs", cAtomicColumns, rows, onConflictDoNothing)
		if err != nil {
			return err
		}
		if n != int64(len(rows)) {
			// Re-applied rows must be where the batch puts them.
			for _, r := range rows {
				var h int64
				if err := tx.QueryRow(ctx, "SELECT block_height FROM c_atomic_txs WHERE id = ?", r[0]).Scan(&h); err != nil {
					return err
				}
				if h != r[1].(int64) {
					return fmt.Errorf("atomic tx %x is stored at block %d, not %d", r[0], h, r[1])
				}
			}
		}
		if err := runCDerivation(ctx, tx, derive, blocks); err != nil {
			return err
		}
		return moveCursor(ctx, tx, ChainCursor(internal.CChain), last, blocks[len(blocks)-1].Hash)
	})
}

func (s *sqlStore) CAtomicTxs(ctx context.Context, from, to uint64) (_ []internal.CAtomicTx, _ []uint64, err error) {
	defer derrors.Wrap(&err, "store.CAtomicTxs(%d..%d)", from, to)
	var (
		txs     []internal.CAtomicTx
		heights []uint64
	)
	err = s.db.RunQuery(ctx, `SELECT id, block_height, type, bytes FROM c_atomic_txs
		WHERE block_height BETWEEN ? AND ? ORDER BY block_height, idx`, func(rows *sql.Rows) error {
		var (
			t  internal.CAtomicTx
			id []byte
			h  int64
		)
		if err := rows.Scan(&id, &h, &t.Type, &t.Bytes); err != nil {
			return err
		}
		var err error
		if t.ID, err = ids.ToID(id); err != nil {
			return err
		}
		t.Bytes = nonNil(t.Bytes)
		txs = append(txs, t)
		heights = append(heights, uint64(h))
		return nil
	}, int64(min(from, math.MaxInt64)), int64(min(to, math.MaxInt64)))
	return txs, heights, err
}

func (s *sqlStore) CLastHash(ctx context.Context) (_ ids.ID, err error) {
	defer derrors.Wrap(&err, "store.CLastHash")
	var b []byte
	err = s.db.QueryRow(ctx, "SELECT block_id FROM cursors WHERE chain = ?", string(internal.CChain)).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return ids.Empty, derrors.NotFound
	}
	if err != nil {
		return ids.Empty, err
	}
	return ids.ToID(b)
}

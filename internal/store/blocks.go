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

// linearTables names the tables of a linear chain whose blocks carry
// transactions (the P-chain and the post-Cortina X-chain): the blocks
// table has columns height, id, parent_id, type, timestamp, bytes and the
// txs table id, block_height, idx, type, bytes.
type linearTables struct {
	chain  internal.Chain
	blocks string
	txs    string
}

var (
	pTables = linearTables{internal.PChain, "p_blocks", "p_txs"}
	xTables = linearTables{internal.XChain, "x_blocks", "x_txs"}

	blockColumns = []string{"height", "id", "parent_id", "type", "timestamp", "bytes"}
	txColumns    = []string{"id", "block_height", "idx", "type", "bytes"}
)

// newBlocksKey marks the context of a batch none of whose blocks was
// stored before it (withNewBlocks).
type newBlocksKey struct{}

// withNewBlocks marks ctx as that of a batch of new blocks: one that
// starts above its chain's cursor (applyBlocks, ApplyEVMBlocks). Nothing
// derived from a block is stored before the
// block (both commit with the cursor, and only with it), so the rows
// that only the batch's blocks derive (keyed by their block or their
// txs) are new too.
func withNewBlocks(ctx context.Context) context.Context {
	return context.WithValue(ctx, newBlocksKey{}, true)
}

// newRowsConflict is the conflict clause of rows that only the batch's
// blocks derive: none in a batch of new blocks, so that PostgreSQL
// copies them (COPY) and neither engine looks for conflicts; else (a
// batch applied again, a rederive, a backfill) onConflictDoNothing.
func newRowsConflict(ctx context.Context) string {
	if ctx.Value(newBlocksKey{}) != nil {
		return ""
	}
	return onConflictDoNothing
}

// blockRow and txRow are a block and a transaction of any linear chain.
type blockRow struct {
	height     uint64
	id, parent ids.ID
	typ        string
	ts         time.Time
	bytes      []byte
	txs        []txRow
}

type txRow struct {
	id    ids.ID
	typ   string
	bytes []byte
}

// applyBlocks writes blocks (consecutive heights, ascending) and their
// transactions, runs derive, and moves the chain's cursor to the last
// height, all in one transaction. Rows already stored are skipped, but
// they must be the same as the batch's. derive's context says whether
// the batch is new (newRowsConflict).
func (s *sqlStore) applyBlocks(ctx context.Context, lt linearTables, blocks []blockRow, derive func(ctx context.Context, tx *database.DB) error) error {
	ntx := 0
	for i, b := range blocks {
		if b.height > math.MaxInt64 {
			return fmt.Errorf("height %d out of range: %w", b.height, derrors.InvalidArgument)
		}
		if i > 0 && b.height != blocks[i-1].height+1 {
			return fmt.Errorf("heights not consecutive: %d follows %d: %w", b.height, blocks[i-1].height, derrors.InvalidArgument)
		}
		ntx += len(b.txs)
	}
	blockRows := make([][]any, len(blocks))
	txRows := make([][]any, 0, ntx)
	for i, b := range blocks {
		blockRows[i] = []any{int64(b.height), b.id[:], b.parent[:], b.typ, unixSeconds(b.ts), nonNil(b.bytes)}
		for j, t := range b.txs {
			txRows = append(txRows, []any{t.id[:], int64(b.height), int64(j), t.typ, nonNil(t.bytes)})
		}
	}
	first, last := blocks[0].height, blocks[len(blocks)-1].height

	return s.db.Transact(ctx, func(tx *database.DB) error {
		cur, ok, err := cursor(ctx, tx, ChainCursor(lt.chain))
		if err != nil {
			return err
		}
		if ok && first > cur+1 {
			return fmt.Errorf("batch starts at %d but the %s-chain cursor is at %d: heights %d..%d would be missing: %w",
				first, lt.chain, cur, cur+1, first-1, derrors.InvalidArgument)
		}
		if !ok || first > cur {
			ctx = withNewBlocks(ctx)
		}
		if conflict := newRowsConflict(ctx); conflict == "" {
			// New blocks: without a conflict clause every row is written
			// or the transaction fails, so there is no count to check.
			if err := tx.Append(ctx, lt.blocks, blockColumns, blockRows, ""); err != nil {
				return err
			}
			if err := tx.Append(ctx, lt.txs, txColumns, txRows, ""); err != nil {
				return err
			}
		} else {
			nb, err := tx.BulkInsert(ctx, lt.blocks, blockColumns, blockRows, conflict)
			if err != nil {
				return err
			}
			nt, err := tx.BulkInsert(ctx, lt.txs, txColumns, txRows, conflict)
			if err != nil {
				return err
			}
			if nb != int64(len(blocks)) || nt != int64(ntx) {
				// Some rows were there already: the batch must be what was
				// stored, or the index would silently mix two histories.
				if err := checkStored(ctx, tx, lt, blocks, first, last); err != nil {
					return err
				}
			}
		}
		if derive != nil {
			if err := derive(ctx, tx); err != nil {
				return err
			}
		}
		return moveCursor(ctx, tx, ChainCursor(lt.chain), last, blocks[len(blocks)-1].id)
	})
}

// checkStored verifies that the stored blocks first..last and their
// transactions are those of blocks. Ids are hashes of the bytes, so equal
// ids mean equal contents.
func checkStored(ctx context.Context, tx *database.DB, lt linearTables, blocks []blockRow, first, last uint64) error {
	stored, err := storedIDs(ctx, tx, "block", "SELECT height, id FROM "+lt.blocks+" WHERE height BETWEEN ? AND ?", int64(first), int64(last))
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if got, ok := stored[b.height]; !ok || got != b.id {
			return fmt.Errorf("block %d: stored block %s differs from applied block %s", b.height, got, b.id)
		}
	}

	type pos struct {
		height uint64
		idx    int64
	}
	storedTxs := map[pos]ids.ID{}
	err = tx.RunQuery(ctx, "SELECT block_height, idx, id FROM "+lt.txs+" WHERE block_height BETWEEN ? AND ?", func(rows *sql.Rows) error {
		var h, idx int64
		var id []byte
		if err := rows.Scan(&h, &idx, &id); err != nil {
			return err
		}
		v, err := ids.ToID(id)
		if err != nil {
			return fmt.Errorf("stored tx %d/%d: %w", h, idx, err)
		}
		storedTxs[pos{uint64(h), idx}] = v
		return nil
	}, int64(first), int64(last))
	if err != nil {
		return err
	}
	n := 0
	for _, b := range blocks {
		for j, t := range b.txs {
			n++
			if got, ok := storedTxs[pos{b.height, int64(j)}]; !ok || got != t.id {
				// Either the block's stored tx differs, or the tx id is
				// already stored for another block (or twice in the batch).
				return fmt.Errorf("block %d tx %d: tx %s could not be stored (its id is already stored elsewhere, or the stored tx differs)",
					b.height, j, t.id)
			}
		}
	}
	if n != len(storedTxs) {
		return fmt.Errorf("blocks %d..%d: %d txs stored, %d applied", first, last, len(storedTxs), n)
	}
	return nil
}

// fromUnixSeconds is the inverse of unixSeconds: 0 is the zero time.
func fromUnixSeconds(ts int64) time.Time {
	if ts == 0 {
		return time.Time{}
	}
	return time.Unix(ts, 0).UTC()
}

// storedIDs runs query, which selects (position, id) rows of what is
// stored (blocks by height, containers by index), and returns the ids by
// position.
func storedIDs(ctx context.Context, tx *database.DB, what, query string, args ...any) (map[uint64]ids.ID, error) {
	stored := map[uint64]ids.ID{}
	err := tx.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var pos int64
		var id []byte
		if err := rows.Scan(&pos, &id); err != nil {
			return err
		}
		v, err := ids.ToID(id)
		if err != nil {
			return fmt.Errorf("stored %s %d: %w", what, pos, err)
		}
		stored[uint64(pos)] = v
		return nil
	}, args...)
	return stored, err
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// PBlockStore keeps the P-chain's blocks and transactions.
type PBlockStore interface {
	// ApplyPBlocks writes a batch of blocks (consecutive heights,
	// ascending, with what the derivation layer derived from them: see
	// pchain.Batch) with their transactions, runs derive (the state
	// derived from them), and moves the P-chain cursor to the last height, all in
	// one database transaction. Re-applying a block already stored changes
	// nothing, so a crash at any point resumes with nothing lost or doubled;
	// the cursor never moves back. A batch that is not consecutive, or that
	// would leave a gap after the cursor (first height > cursor+1), fails
	// with derrors.InvalidArgument; one that disagrees with what is stored
	// (another block at a stored height, a tx id stored for another block)
	// fails whole. An empty batch does nothing.
	ApplyPBlocks(ctx context.Context, batch *internal.PBatch, derive PDerivation) error

	// PBlockByHeight returns a stored P-chain block with its
	// transactions.
	PBlockByHeight(ctx context.Context, height uint64) (*internal.PBlock, error)
	// PBlockBytesByHeight and PBlockBytesByID return a stored P-chain
	// block's id and platformvm bytes alone, in one indexed read: what the
	// node API's getBlock and getBlockByHeight serve, its hottest path.
	PBlockBytesByHeight(ctx context.Context, height uint64) (ids.ID, []byte, error)
	PBlockBytesByID(ctx context.Context, id ids.ID) ([]byte, error)
	// PBlockTime returns the timestamp of the stored block at height,
	// zero for a pre-Banff block (which carries none).
	PBlockTime(ctx context.Context, height uint64) (time.Time, error)
}

func scanPBlock(r scanner) (*internal.PBlock, error) {
	var (
		h, ts      int64
		id, parent []byte
		b          internal.PBlock
		err        error
	)
	if err := r.Scan(&h, &id, &parent, &b.Type, &ts, &b.Bytes); err != nil {
		return nil, err
	}
	b.Height = uint64(h)
	if b.ID, err = ids.ToID(id); err != nil {
		return nil, fmt.Errorf("stored block %d: id: %w", h, err)
	}
	if b.ParentID, err = ids.ToID(parent); err != nil {
		return nil, fmt.Errorf("stored block %d: parent id: %w", h, err)
	}
	b.Timestamp = fromUnixSeconds(ts)
	b.Bytes = nonNil(b.Bytes)
	return &b, nil
}

// PDerivation writes, through tx, the state a P-chain batch derives
// (derive/pstate). It runs in the batch's transaction, after the blocks,
// their txs and the reward UTXOs are written, and must be idempotent.
type PDerivation func(ctx context.Context, tx *PTx, batch *internal.PBatch) error

// PTx is a P-chain batch's transaction as ApplyPBlocks and
// RederivePBlocks hand it to the derivation. It is valid only during that
// call. The order its writes must run in is derive/pstate's.
type PTx struct{ *batchTx }

// runPDerivation runs derive on a P-chain batch in tx, keeping the spent
// UTXOs' owners: an apply and a rederive write the same.
func runPDerivation(ctx context.Context, tx *database.DB, derive PDerivation, batch *internal.PBatch) error {
	b := newBatchTx(tx, true)
	if newRowsConflict(ctx) == "" {
		b.history = &batchHistory{blocks: batch.Blocks}
	}
	return b.run(ctx, func() error { return derive(ctx, &PTx{b}, batch) })
}

func (s *sqlStore) ApplyPBlocks(ctx context.Context, batch *internal.PBatch, derive PDerivation) (err error) {
	if batch == nil || len(batch.Blocks) == 0 {
		return nil
	}
	blocks := batch.Blocks
	defer derrors.Wrap(&err, "store.ApplyPBlocks(%s)", batchLabel(blocks))
	rows := make([]blockRow, len(blocks))
	for i, b := range blocks {
		if b == nil {
			return fmt.Errorf("block %d of the batch is nil: %w", i, derrors.InvalidArgument)
		}
		rows[i] = blockRow{height: b.Height, id: b.ID, parent: b.ParentID, typ: b.Type, ts: b.Timestamp, bytes: b.Bytes}
		for _, t := range b.Txs {
			rows[i].txs = append(rows[i].txs, txRow{id: t.ID, typ: t.Type, bytes: t.Bytes})
		}
	}
	return s.applyBlocks(ctx, pTables, rows, func(ctx context.Context, tx *database.DB) error {
		if err := refuseWhileRederiving(ctx, tx, internal.PChain); err != nil {
			return err
		}
		if err := writePRewardUTXOs(ctx, tx, blocks); err != nil {
			return err
		}
		// Derived state, written with the blocks so that it commits (or
		// not) with them and the cursor.
		return runPDerivation(ctx, tx, derive, batch)
	})
}

const pBlockSelect = "SELECT height, id, parent_id, type, timestamp, bytes FROM p_blocks"

func (s *sqlStore) PBlockByHeight(ctx context.Context, height uint64) (_ *internal.PBlock, err error) {
	defer derrors.Wrap(&err, "store.PBlockByHeight(%d)", height)
	if height > math.MaxInt64 {
		return nil, fmt.Errorf("no block at height %d: %w", height, derrors.NotFound)
	}
	return s.oneBlock(ctx, pBlockSelect+" WHERE height = ?", int64(height))
}

func (s *sqlStore) PBlockTime(ctx context.Context, height uint64) (_ time.Time, err error) {
	defer derrors.Wrap(&err, "store.PBlockTime(%d)", height)
	if height > math.MaxInt64 {
		return time.Time{}, fmt.Errorf("no block at height %d: %w", height, derrors.NotFound)
	}
	var ts int64
	err = s.db.QueryRow(ctx, "SELECT timestamp FROM p_blocks WHERE height = ?", int64(height)).Scan(&ts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, fmt.Errorf("no block at height %d: %w", height, derrors.NotFound)
	case err != nil:
		return time.Time{}, err
	case ts == 0:
		return time.Time{}, nil
	}
	return time.Unix(ts, 0).UTC(), nil
}

func (s *sqlStore) PBlockByID(ctx context.Context, id ids.ID) (_ *internal.PBlock, err error) {
	defer derrors.Wrap(&err, "store.PBlockByID(%s)", id)
	return s.oneBlock(ctx, pBlockSelect+" WHERE id = ?", id[:])
}

func (s *sqlStore) PBlockBytesByHeight(ctx context.Context, height uint64) (_ ids.ID, _ []byte, err error) {
	defer derrors.Wrap(&err, "store.PBlockBytesByHeight(%d)", height)
	if height > math.MaxInt64 {
		return ids.Empty, nil, fmt.Errorf("no block at height %d: %w", height, derrors.NotFound)
	}
	var id, b []byte
	if err := s.oneRow(ctx, "SELECT id, bytes FROM p_blocks WHERE height = ?", []any{&id, &b}, int64(height)); err != nil {
		return ids.Empty, nil, err
	}
	bid, err := ids.ToID(id)
	if err != nil {
		return ids.Empty, nil, fmt.Errorf("stored block id: %w", err)
	}
	return bid, b, nil
}

func (s *sqlStore) PBlockBytesByID(ctx context.Context, id ids.ID) (_ []byte, err error) {
	defer derrors.Wrap(&err, "store.PBlockBytesByID(%s)", id)
	var b []byte
	if err := s.oneRow(ctx, "SELECT bytes FROM p_blocks WHERE id = ?", []any{&b}, id[:]); err != nil {
		return nil, err
	}
	return b, nil
}

// oneRow scans the one row of a frequent query into dest (statements kept
// prepared), derrors.NotFound when there is none.
func (s *sqlStore) oneRow(ctx context.Context, query string, dest []any, args ...any) error {
	found := false
	err := s.db.RunPrepared(ctx, query, func(rows *sql.Rows) error {
		found = true
		return rows.Scan(dest...)
	}, args...)
	if err == nil && !found {
		return derrors.NotFound
	}
	return err
}

func (s *sqlStore) oneBlock(ctx context.Context, query string, arg any) (*internal.PBlock, error) {
	b, err := scanPBlock(s.db.QueryRow(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	if err := s.attachTxs(ctx, []*internal.PBlock{b}); err != nil {
		return nil, err
	}
	return b, nil
}

// attachTxs reads the transactions of blocks, which have consecutive
// heights in either order, and sets each block's Txs in block order.
func (s *sqlStore) attachTxs(ctx context.Context, blocks []*internal.PBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	lo, hi := blocks[0].Height, blocks[len(blocks)-1].Height
	if lo > hi {
		lo, hi = hi, lo
	}
	byHeight := make(map[uint64]*internal.PBlock, len(blocks))
	for _, b := range blocks {
		byHeight[b.Height] = b
	}
	return s.db.RunQuery(ctx, `SELECT block_height, id, type, bytes FROM p_txs
		WHERE block_height BETWEEN ? AND ? ORDER BY block_height, idx`,
		func(rows *sql.Rows) error {
			var (
				h        int64
				id, data []byte
				t        internal.PTx
			)
			if err := rows.Scan(&h, &id, &t.Type, &data); err != nil {
				return err
			}
			var err error
			if t.ID, err = ids.ToID(id); err != nil {
				return fmt.Errorf("stored tx of block %d: %w", h, err)
			}
			t.Bytes = nonNil(data)
			if b := byHeight[uint64(h)]; b != nil {
				b.Txs = append(b.Txs, t)
			}
			return nil
		}, int64(lo), int64(hi))
}

// batchLabel names a batch for errors: its first and last heights.
func batchLabel(blocks []*internal.PBlockData) string {
	first, last := blocks[0], blocks[len(blocks)-1]
	if first == nil || last == nil {
		return fmt.Sprintf("%d blocks", len(blocks))
	}
	return fmt.Sprintf("%d..%d", first.Height, last.Height)
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// BlockSummary is a stored block as lists show it: its header fields, its
// size and its transactions' ids, without the block's or the txs' bytes.
type BlockSummary struct {
	Height   uint64
	ID       ids.ID
	ParentID ids.ID
	// Type is the block kind, e.g. "BanffStandardBlock".
	Type string
	// Timestamp is zero for blocks that carry none.
	Timestamp time.Time
	// Size is the length of the block's bytes.
	Size int
	// TxIDs are the ids of the block's transactions, in block order; nil
	// when it has none.
	TxIDs []ids.ID
}

// Block summaries are for the Data API's block lists (ChainBlockStore),
// which would otherwise read every block's and tx's bytes to show ids and
// counts. PBlockSummaries and PBlockSummaryByID, the P-chain's alone, are
// on no interface of the store: only tests read through them.

// length(bytes) is the byte length of a BYTEA on PostgreSQL and of a BLOB
// on SQLite, so the size is read without the bytes.
const pSummarySelect = "SELECT height, id, parent_id, type, timestamp, length(bytes) FROM p_blocks"

func (s *sqlStore) PBlockSummaries(ctx context.Context, after *uint64, limit int, desc bool) (_ []*BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.PBlockSummaries(limit=%d, desc=%t)", limit, desc)
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	q := pSummarySelect
	var args []any
	if after != nil {
		a := *after
		switch {
		case desc && a > math.MaxInt64:
			// Every stored height is below it: no condition.
		case desc:
			q += " WHERE height < ?"
			args = append(args, int64(a))
		case a >= math.MaxInt64:
			return nil, nil // nothing is stored above it
		default:
			q += " WHERE height > ?"
			args = append(args, int64(a))
		}
	}
	if desc {
		q += " ORDER BY height DESC LIMIT ?"
	} else {
		q += " ORDER BY height ASC LIMIT ?"
	}
	args = append(args, limit)
	var blocks []*BlockSummary
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		b, err := scanBlockSummary(rows)
		if err != nil {
			return err
		}
		blocks = append(blocks, b)
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	if err := s.attachTxIDs(ctx, blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

func (s *sqlStore) PBlockSummaryByID(ctx context.Context, id ids.ID) (_ *BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.PBlockSummaryByID(%s)", id)
	b, err := scanBlockSummary(s.db.QueryRow(ctx, pSummarySelect+" WHERE id = ?", id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	if err := s.attachTxIDs(ctx, []*BlockSummary{b}); err != nil {
		return nil, err
	}
	return b, nil
}

// attachTxIDs reads the tx ids of blocks, which have consecutive heights in
// either order, and sets each block's TxIDs in block order.
func (s *sqlStore) attachTxIDs(ctx context.Context, blocks []*BlockSummary) error {
	if len(blocks) == 0 {
		return nil
	}
	lo, hi := blocks[0].Height, blocks[len(blocks)-1].Height
	if lo > hi {
		lo, hi = hi, lo
	}
	byHeight := make(map[uint64]*BlockSummary, len(blocks))
	for _, b := range blocks {
		byHeight[b.Height] = b
	}
	return s.db.RunPrepared(ctx, `SELECT block_height, id FROM p_txs
		WHERE block_height BETWEEN ? AND ? ORDER BY block_height, idx`,
		func(rows *sql.Rows) error {
			var (
				h  int64
				id []byte
			)
			if err := rows.Scan(&h, &id); err != nil {
				return err
			}
			txID, err := ids.ToID(id)
			if err != nil {
				return fmt.Errorf("stored tx of block %d: %w", h, err)
			}
			if b := byHeight[uint64(h)]; b != nil {
				b.TxIDs = append(b.TxIDs, txID)
			}
			return nil
		}, int64(lo), int64(hi))
}

func scanBlockSummary(r scanner) (*BlockSummary, error) {
	var (
		h, ts, size int64
		id, parent  []byte
		b           BlockSummary
		err         error
	)
	if err := r.Scan(&h, &id, &parent, &b.Type, &ts, &size); err != nil {
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
	b.Size = int(size)
	return &b, nil
}

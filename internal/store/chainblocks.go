package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
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

// ChainBlockStore reads block summaries of every chain, for the Data
// API's block lists, which would otherwise read every block's and tx's
// bytes to show ids and counts.
//
// The C-chain's are partial: avaindex keeps of C-chain blocks only those
// that carry atomic txs, and of them their number, hash, time and atomic
// txs (see CStore). A C-chain summary has no ParentID, Type or Size, and
// its TxIDs are its atomic txs.
type ChainBlockStore interface {
	// BlockSummaries returns up to limit block summaries of chain, ordered
	// by height, descending when desc, beyond *after in that order when
	// after is not nil.
	BlockSummaries(ctx context.Context, chain internal.Chain, after *uint64, limit int, desc bool) ([]*BlockSummary, error)
	// BlockSummaryByID returns the summary of chain's block id (the EVM
	// block hash on the C-chain).
	BlockSummaryByID(ctx context.Context, chain internal.Chain, id ids.ID) (*BlockSummary, error)
	// BlockSummaryByHeight returns the summary of chain's block at height.
	BlockSummaryByHeight(ctx context.Context, chain internal.Chain, height uint64) (*BlockSummary, error)
}

// blockTables are the tables of the chains whose every block is stored.
var blockTables = map[internal.Chain]struct{ blocks, txs string }{
	internal.PChain: {"p_blocks", "p_txs"},
	internal.XChain: {"x_blocks", "x_txs"},
}

func (s *sqlStore) BlockSummaries(ctx context.Context, chain internal.Chain, after *uint64, limit int, desc bool) (_ []*BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaries(%s, limit=%d, desc=%t)", chain, limit, desc)
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	var (
		cond string
		args []any
	)
	if after != nil {
		a := *after
		switch {
		case desc && a > math.MaxInt64:
			// Every stored height is below it.
		case desc:
			cond, args = "height < ?", append(args, int64(a))
		case a >= math.MaxInt64:
			return nil, nil
		default:
			cond, args = "height > ?", append(args, int64(a))
		}
	}
	order := " ORDER BY height ASC LIMIT ?"
	if desc {
		order = " ORDER BY height DESC LIMIT ?"
	}
	return s.blockSummaries(ctx, chain, cond, order, append(args, limit)...)
}

func (s *sqlStore) BlockSummaryByID(ctx context.Context, chain internal.Chain, id ids.ID) (_ *BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaryByID(%s, %s)", chain, id)
	col := "id = ?"
	if chain == internal.CChain {
		col = "block_hash = ?"
	}
	return s.oneBlockSummary(ctx, chain, col, id[:])
}

func (s *sqlStore) BlockSummaryByHeight(ctx context.Context, chain internal.Chain, height uint64) (_ *BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaryByHeight(%s, %d)", chain, height)
	if height > math.MaxInt64 {
		return nil, derrors.NotFound
	}
	return s.oneBlockSummary(ctx, chain, "height = ?", int64(height))
}

func (s *sqlStore) oneBlockSummary(ctx context.Context, chain internal.Chain, cond string, arg any) (*BlockSummary, error) {
	bs, err := s.blockSummaries(ctx, chain, cond, " LIMIT 1", arg)
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		return nil, derrors.NotFound
	}
	return bs[0], nil
}

// blockSummaries reads the summaries of chain's blocks that meet cond (SQL
// over a height column, or ""), in order (an ORDER BY and LIMIT clause),
// with their txs' ids.
func (s *sqlStore) blockSummaries(ctx context.Context, chain internal.Chain, cond, order string, args ...any) ([]*BlockSummary, error) {
	if chain == internal.CChain {
		cond = strings.ReplaceAll(cond, "height", "block_height")
	}
	where := ""
	if cond != "" {
		where = " WHERE " + cond
	}
	var query, txQuery string
	if chain == internal.CChain {
		query = `SELECT block_height, block_hash, NULL, NULL, MAX(timestamp), 0 FROM c_atomic_txs` + where +
			` GROUP BY block_height, block_hash` + strings.ReplaceAll(order, "height", "block_height")
		txQuery = "SELECT block_height, id FROM c_atomic_txs WHERE block_height IN (%s) ORDER BY block_height, idx"
	} else {
		t, ok := blockTables[chain]
		if !ok {
			return nil, derrors.Invalid("no blocks of chain %q", chain)
		}
		query = "SELECT height, id, parent_id, type, timestamp, length(bytes) FROM " + t.blocks + where + order
		txQuery = "SELECT block_height, id FROM " + t.txs + " WHERE block_height IN (%s) ORDER BY block_height, idx"
	}
	var blocks []*BlockSummary
	byHeight := map[uint64]*BlockSummary{}
	err := s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var (
			h, ts, size int64
			id, parent  []byte
			typ         sql.NullString
			b           BlockSummary
		)
		if err := rows.Scan(&h, &id, &parent, &typ, &ts, &size); err != nil {
			return err
		}
		b.Height, b.Type, b.Timestamp, b.Size = uint64(h), typ.String, fromUnixSeconds(ts), int(size)
		if err := toIDs(map[*ids.ID][]byte{&b.ID: id, &b.ParentID: parent}); err != nil {
			return fmt.Errorf("stored block %d: %w", h, err)
		}
		blocks = append(blocks, &b)
		byHeight[b.Height] = &b
		return nil
	}, args...)
	if err != nil || len(blocks) == 0 {
		return nil, err
	}
	heights := make([]any, len(blocks))
	for i, b := range blocks {
		heights[i] = int64(b.Height)
	}
	err = s.db.RunQuery(ctx, fmt.Sprintf(txQuery, "?"+strings.Repeat(", ?", len(heights)-1)), func(rows *sql.Rows) error {
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
	}, heights...)
	if err != nil {
		return nil, err
	}
	return blocks, nil
}

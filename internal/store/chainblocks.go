package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
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
// The C-chain's are its EVM blocks as the EVM follower stored them
// (evm_blocks, under the C-chain's EVM chain id), with their atomic txs as
// TxIDs; Type is empty, for the C-chain's blocks have no kind.
type ChainBlockStore interface {
	// BlockSummaries returns up to limit block summaries of q.Chain in
	// q's time range, ordered by height, descending when q.Desc, beyond
	// *after in that order when after is not nil.
	BlockSummaries(ctx context.Context, q BlockQuery, after *uint64, limit int) ([]*BlockSummary, error)
	// BlockSummaryByID returns the summary of q.Chain's block id (the EVM
	// block hash on the C-chain); q's range and order do not apply.
	BlockSummaryByID(ctx context.Context, q BlockQuery, id ids.ID) (*BlockSummary, error)
	// BlockSummaryByHeight returns the summary of q.Chain's block at
	// height; q's range and order do not apply.
	BlockSummaryByHeight(ctx context.Context, q BlockQuery, height uint64) (*BlockSummary, error)
}

// BlockQuery selects the blocks of a chain.
type BlockQuery struct {
	Chain internal.Chain
	// EVMChainID is the C-chain's EVM chain id, under which evm_blocks
	// keeps its blocks; only the C-chain's reads use it.
	EVMChainID uint64
	// Start and End, when not nil, bound the blocks' timestamps (unix
	// seconds, both inclusive).
	Start, End *int64
	Desc       bool
}

// blockTables are the tables of the chains whose every block is stored.
var blockTables = map[internal.Chain]struct{ blocks, txs string }{
	internal.PChain: {"p_blocks", "p_txs"},
	internal.XChain: {"x_blocks", "x_txs"},
}

func (s *sqlStore) BlockSummaries(ctx context.Context, q BlockQuery, after *uint64, limit int) (_ []*BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaries(%s, limit=%d, desc=%t)", q.Chain, limit, q.Desc)
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	var (
		conds []string
		args  []any
	)
	if after != nil {
		a := *after
		switch {
		case q.Desc && a > math.MaxInt64:
			// Every stored height is below it.
		case q.Desc:
			conds, args = append(conds, "height < ?"), append(args, int64(a))
		case a >= math.MaxInt64:
			return nil, nil
		default:
			conds, args = append(conds, "height > ?"), append(args, int64(a))
		}
	}
	// A chain's timestamps never decrease with its heights (blocks
	// without one, before Banff, are a prefix at 0), so a time range is a
	// height range, found by binary search over the height index: the
	// scan then stops at the range's end, not at the table's. The
	// timestamps are filtered too, so a block out of that order is never
	// listed out of its range.
	if q.Start != nil {
		conds, args = append(conds, "timestamp >= ?"), append(args, *q.Start)
	}
	if q.End != nil {
		conds, args = append(conds, "timestamp <= ?"), append(args, *q.End)
	}
	if q.Start != nil {
		h, ok, err := s.lastHeightAtOrBefore(ctx, q, *q.Start-1)
		if err != nil {
			return nil, err
		}
		if ok {
			conds, args = append(conds, "height > ?"), append(args, h)
		}
	}
	if q.End != nil {
		h, ok, err := s.lastHeightAtOrBefore(ctx, q, *q.End)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil // every block is after the range
		}
		conds, args = append(conds, "height <= ?"), append(args, h)
	}
	order := " ORDER BY height ASC LIMIT ?"
	if q.Desc {
		order = " ORDER BY height DESC LIMIT ?"
	}
	return s.blockSummaries(ctx, q, strings.Join(conds, " AND "), order, append(args, limit)...)
}

// lastHeightAtOrBefore returns the last stored height of q.Chain whose
// block's timestamp is at most ts, and false when there is none, in
// O(log n) seeks of the height index.
func (s *sqlStore) lastHeightAtOrBefore(ctx context.Context, q BlockQuery, ts int64) (int64, bool, error) {
	table, height, where, args := "p_blocks", "height", "", []any{}
	switch q.Chain {
	case internal.PChain:
	case internal.XChain:
		table = "x_blocks"
	case internal.CChain:
		table, height, where, args = "evm_blocks", "number", "chain_id = ? AND ", []any{int64(q.EVMChainID)}
	default:
		return 0, false, derrors.Invalid("no blocks of chain %q", q.Chain)
	}
	whole := ""
	if where != "" {
		whole = " WHERE " + strings.TrimSuffix(where, " AND ")
	}
	// One subquery per bound: SQLite reads MIN or MAX alone as one seek
	// of the index, but both in one SELECT as a scan of the whole index.
	var lo, hi sql.NullInt64
	err := s.db.QueryRow(ctx, "SELECT (SELECT MIN("+height+") FROM "+table+whole+"), (SELECT MAX("+height+") FROM "+table+whole+")",
		append(slices.Clone(args), args...)...).Scan(&lo, &hi)
	if err != nil || !lo.Valid {
		return 0, false, err
	}
	// at returns the first stored height at or above h and its time.
	at := func(h int64) (int64, int64, error) {
		var got, t int64
		err := s.db.QueryRow(ctx, "SELECT "+height+", timestamp FROM "+table+" WHERE "+where+height+" >= ? ORDER BY "+height+" LIMIT 1",
			append(slices.Clone(args), h)...).Scan(&got, &t)
		return got, t, err
	}
	if _, t, err := at(lo.Int64); err != nil || t > ts {
		return 0, false, err
	}
	// Invariant: l is a stored height at or before ts; none above r is.
	l, r := lo.Int64, hi.Int64
	for l < r {
		mid := l + (r-l+1)/2
		got, t, err := at(mid)
		if err != nil {
			return 0, false, err
		}
		if t <= ts {
			l = got // got >= mid > l, and got <= r: what is above r is later
		} else {
			r = mid - 1
		}
	}
	return l, true, nil
}

func (s *sqlStore) BlockSummaryByID(ctx context.Context, q BlockQuery, id ids.ID) (_ *BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaryByID(%s, %s)", q.Chain, id)
	col := "id = ?"
	if q.Chain == internal.CChain {
		col = "hash = ?"
	}
	return s.oneBlockSummary(ctx, q, col, id[:])
}

func (s *sqlStore) BlockSummaryByHeight(ctx context.Context, q BlockQuery, height uint64) (_ *BlockSummary, err error) {
	defer derrors.Wrap(&err, "store.BlockSummaryByHeight(%s, %d)", q.Chain, height)
	if height > math.MaxInt64 {
		return nil, derrors.NotFound
	}
	return s.oneBlockSummary(ctx, q, "height = ?", int64(height))
}

func (s *sqlStore) oneBlockSummary(ctx context.Context, q BlockQuery, cond string, arg any) (*BlockSummary, error) {
	bs, err := s.blockSummaries(ctx, q, cond, " LIMIT 1", arg)
	if err != nil {
		return nil, err
	}
	if len(bs) == 0 {
		return nil, derrors.NotFound
	}
	return bs[0], nil
}

// blockSummaries reads the summaries of q.Chain's blocks that meet cond
// (SQL over height and timestamp columns, or ""), in order (an ORDER BY and
// LIMIT clause), with their txs' ids.
func (s *sqlStore) blockSummaries(ctx context.Context, q BlockQuery, cond, order string, args ...any) ([]*BlockSummary, error) {
	var query, txQuery string
	if q.Chain == internal.CChain {
		where := " WHERE chain_id = ?"
		if cond != "" {
			where += " AND " + strings.ReplaceAll(cond, "height", "number")
		}
		args = append([]any{int64(q.EVMChainID)}, args...)
		query = "SELECT number, hash, parent_hash, NULL, timestamp, size FROM evm_blocks" + where +
			strings.ReplaceAll(order, "height", "number")
		txQuery = "SELECT block_height, id FROM c_atomic_txs WHERE block_height IN (%s) ORDER BY block_height, idx"
	} else {
		t, ok := blockTables[q.Chain]
		if !ok {
			return nil, derrors.Invalid("no blocks of chain %q", q.Chain)
		}
		where := ""
		if cond != "" {
			where = " WHERE " + cond
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

package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"
	proposerblock "github.com/ava-labs/avalanchego/vms/proposervm/block"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The blocks each node proposed (table block_proposers, migration 0029),
// from the proposervm wrapper of the mirrored P/block and X/block
// containers.

// ProposerIndexes are the container indexes whose blocks' proposers are
// kept.
var ProposerIndexes = map[string]bool{"P/block": true, "X/block": true}

// ProposerStore lists the blocks a node proposed.
type ProposerStore interface {
	// ProposedBlocks returns up to limit blocks of index (a
	// ProposerIndexes name) that nodeID proposed, newest first (by
	// container index), before the container index *before when not nil,
	// within the proposer timestamps [*start, *end] when given.
	ProposedBlocks(ctx context.Context, index string, nodeID ids.NodeID, q ProposedQuery) ([]*ProposedBlock, error)
}

// ProposedQuery bounds ProposedBlocks.
type ProposedQuery struct {
	Before     *uint64
	Start, End *int64
	Limit      int
}

// ProposedBlock is a block as its proposervm wrapper tells of it.
type ProposedBlock struct {
	Index        uint64 // the container's index
	BlockID      ids.ID // the inner block's
	ProposerID   ids.ID // the proposervm block's
	ParentID     ids.ID // the proposervm parent
	NodeID       ids.NodeID
	PChainHeight uint64
	Timestamp    time.Time
}

var proposerColumns = []string{"index_name", "node_id", "idx", "block_id", "proposer_id", "parent_id", "p_chain_height", "timestamp"}

// proposerRow is the block_proposers row of a container, nil when no node
// signed it (or it is no proposervm block).
func proposerRow(index string, c *Container) []any {
	b, err := proposerblock.ParseWithoutVerification(c.Bytes)
	if err != nil {
		return nil // a block of the chain before the proposervm
	}
	sb, ok := b.(proposerblock.SignedBlock)
	if !ok || sb.Proposer() == ids.EmptyNodeID || sb.PChainHeight() > math.MaxInt64 {
		return nil
	}
	node, inner, id, parent := sb.Proposer(), hashing.ComputeHash256(sb.Block()), sb.ID(), sb.ParentID()
	return []any{index, node[:], int64(c.Index), inner, id[:], parent[:], int64(sb.PChainHeight()), sb.Timestamp().Unix()}
}

// writeProposers writes the rows of the containers cs of index.
func writeProposers(ctx context.Context, tx *database.DB, index string, cs []Container) error {
	if !ProposerIndexes[index] {
		return nil
	}
	var rows [][]any
	for i := range cs {
		if r := proposerRow(index, &cs[i]); r != nil {
			rows = append(rows, r)
		}
	}
	return tx.Append(ctx, "block_proposers", proposerColumns, rows, onConflictDoNothing)
}

// proposerParts are the parts of the block_proposers backfill: the rows
// of the containers stored before the table existed, index by index.
func proposerParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	var parts []BackfillPart
	for _, index := range slices.Sorted(maps.Keys(ProposerIndexes)) {
		p, err := rangePart(ctx, db, index, "SELECT MIN(idx), MAX(idx) FROM containers WHERE index_name = ?", []any{index},
			func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
				return hi, backfillProposers(ctx, tx, index, lo, hi)
			})
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// backfillProposers writes the rows of the containers lo to hi (excluded)
// of index.
func backfillProposers(ctx context.Context, tx *database.DB, index string, lo, hi int64) error {
	var cs []Container
	err := tx.RunQuery(ctx, "SELECT idx, bytes FROM containers WHERE index_name = ? AND idx >= ? AND idx < ? ORDER BY idx",
		func(r *sql.Rows) error {
			var (
				c   Container
				idx int64
			)
			if err := r.Scan(&idx, &c.Bytes); err != nil {
				return err
			}
			c.Index = uint64(idx)
			cs = append(cs, c)
			return nil
		}, index, lo, hi)
	if err != nil || len(cs) == 0 {
		return err
	}
	if err := writeProposers(ctx, tx, index, cs); err != nil {
		return fmt.Errorf("%s: %w", index, err)
	}
	return nil
}

func (s *sqlStore) ProposedBlocks(ctx context.Context, index string, nodeID ids.NodeID, q ProposedQuery) (_ []*ProposedBlock, err error) {
	defer derrors.Wrap(&err, "store.ProposedBlocks(%s, %s)", index, nodeID)
	if !ProposerIndexes[index] {
		return nil, derrors.Invalid("no proposers are kept of index %q", index)
	}
	if q.Limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", q.Limit)
	}
	query := `SELECT idx, block_id, proposer_id, parent_id, p_chain_height, timestamp FROM block_proposers
		WHERE index_name = ? AND node_id = ?`
	args := []any{index, nodeID[:]}
	if q.Before != nil {
		query += " AND idx < ?"
		args = append(args, u64(*q.Before))
	}
	if q.Start != nil {
		query += " AND timestamp >= ?"
		args = append(args, *q.Start)
	}
	if q.End != nil {
		query += " AND timestamp <= ?"
		args = append(args, *q.End)
	}
	query += " ORDER BY idx DESC LIMIT ?"
	args = append(args, q.Limit)
	var out []*ProposedBlock
	err = s.db.RunQuery(ctx, query, func(r *sql.Rows) error {
		var (
			idx, ph, ts         int64
			block, prop, parent []byte
			b                   = ProposedBlock{NodeID: nodeID}
		)
		if err := r.Scan(&idx, &block, &prop, &parent, &ph, &ts); err != nil {
			return err
		}
		b.Index, b.PChainHeight, b.Timestamp = uint64(idx), uint64(ph), time.Unix(ts, 0).UTC()
		if err := toIDs(map[*ids.ID][]byte{&b.BlockID: block, &b.ProposerID: prop, &b.ParentID: parent}); err != nil {
			return err
		}
		out = append(out, &b)
		return nil
	}, args...)
	return out, err
}

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

// XStore keeps X-chain blocks and transactions.
type XStore interface {
	// ApplyXBlocks is ApplyPBlocks for the X-chain: it writes the blocks
	// and their txs, runs derive (what the blocks' txs, and on block 0 the
	// genesis, do to the X-chain's UTXOs and what follows from that), and
	// moves the cursor, in one transaction.
	ApplyXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive XDerivation) error
	// XBlockByHeight returns a stored X-chain block with its transactions.
	XBlockByHeight(ctx context.Context, height uint64) (*internal.XBlock, error)
}

// XDerivation writes, through tx, the state an X-chain batch derives
// (derive/xstate). It runs in the batch's transaction, after the blocks
// and their txs are written, and must be idempotent.
type XDerivation func(ctx context.Context, tx *XTx, blocks []*internal.XBlockData) error

// XTx is an X-chain batch's transaction as ApplyXBlocks and
// RederiveXBlocks hand it to the derivation. It is valid only during that
// call.
type XTx struct{ *batchTx }

// runXDerivation runs derive on an X-chain batch in tx, keeping the spent
// UTXOs' owners, which the metrics and the address webhooks read.
func runXDerivation(ctx context.Context, tx *database.DB, derive XDerivation, blocks []*internal.XBlockData) error {
	b := newBatchTx(tx, true)
	return b.run(ctx, func() error { return derive(ctx, &XTx{b}, blocks) })
}

func (s *sqlStore) ApplyXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive XDerivation) (err error) {
	if len(blocks) == 0 {
		return nil
	}
	defer derrors.Wrap(&err, "store.ApplyXBlocks(%d..%d)", blocks[0].Height, blocks[len(blocks)-1].Height)
	rows := make([]blockRow, len(blocks))
	for i, b := range blocks {
		if b == nil {
			return fmt.Errorf("block %d of the batch is nil: %w", i, derrors.InvalidArgument)
		}
		rows[i] = blockRow{height: b.Height, id: b.ID, parent: b.ParentID, typ: "StandardBlock", ts: b.Timestamp, bytes: b.Bytes}
		for _, t := range b.Txs {
			rows[i].txs = append(rows[i].txs, txRow{id: t.ID, typ: t.Type, bytes: t.Bytes})
		}
	}
	return s.applyBlocks(ctx, xTables, rows, func(ctx context.Context, tx *database.DB) error {
		if err := refuseWhileRederiving(ctx, tx, internal.XChain); err != nil {
			return err
		}
		return runXDerivation(ctx, tx, derive, blocks)
	})
}

func (s *sqlStore) XBlockByHeight(ctx context.Context, height uint64) (_ *internal.XBlock, err error) {
	defer derrors.Wrap(&err, "store.XBlockByHeight(%d)", height)
	if height > math.MaxInt64 {
		return nil, derrors.NotFound
	}
	var (
		id, parent, data []byte
		typ              string
		ts               int64
	)
	err = s.db.QueryRow(ctx, "SELECT id, parent_id, type, timestamp, bytes FROM x_blocks WHERE height = ?", int64(height)).
		Scan(&id, &parent, &typ, &ts, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	b := &internal.XBlock{Height: height, Timestamp: fromUnixSeconds(ts), Bytes: nonNil(data)}
	if b.ID, err = ids.ToID(id); err != nil {
		return nil, err
	}
	if b.ParentID, err = ids.ToID(parent); err != nil {
		return nil, err
	}
	err = s.db.RunQuery(ctx, "SELECT id, type, bytes FROM x_txs WHERE block_height = ? ORDER BY idx", func(rows *sql.Rows) error {
		var t internal.XTx
		var tid []byte
		if err := rows.Scan(&tid, &t.Type, &t.Bytes); err != nil {
			return err
		}
		var err error
		if t.ID, err = ids.ToID(tid); err != nil {
			return err
		}
		t.Bytes = nonNil(t.Bytes)
		b.Txs = append(b.Txs, t)
		return nil
	}, int64(height))
	if err != nil {
		return nil, err
	}
	return b, nil
}

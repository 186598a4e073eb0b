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

// XTxIndex is the node's index of the X-chain's DAG txs: each container is
// one signed avm tx, in acceptance order. Only the DAG engine feeds it, so
// it holds the txs before Cortina's linearization and nothing after.
const XTxIndex = "X/tx"

// XDAGStore keeps the X-chain's pre-Cortina (DAG) transactions, decoded
// from the mirrored X/tx index (see ContainerStore).
type XDAGStore interface {
	// XDAGContainers returns up to max of the X/tx containers mirrored
	// beyond XDAGCursor, in index order: the next DAG txs to decode. None
	// when the DAG txs are caught up with the mirror.
	XDAGContainers(ctx context.Context, max int) ([]Container, error)
	// ApplyXDAGTxs stores txs (consecutive X/tx indices, ascending) as DAG
	// txs with what they do to the X-chain's UTXOs (the genesis UTXOs
	// first, on a tx that carries them) and moves XDAGCursor to the last,
	// in one transaction. A batch that would leave a gap after the cursor
	// fails with derrors.InvalidArgument. Re-applying changes nothing; the
	// cursor never moves back. An empty batch does nothing.
	ApplyXDAGTxs(ctx context.Context, txs []*internal.XDAGTxData) error
}

// XDAGTx is one pre-Cortina X-chain tx.
type XDAGTx struct {
	internal.XTx
	// Index is its position in the node's X/tx index.
	Index uint64
	// Timestamp is when the node accepted it, to the second.
	Timestamp time.Time
}

var xDAGTxColumns = []string{"idx", "id", "type", "timestamp"}

func (s *sqlStore) XDAGContainers(ctx context.Context, max int) (_ []Container, err error) {
	defer derrors.Wrap(&err, "store.XDAGContainers(%d)", max)
	if max <= 0 {
		return nil, derrors.Invalid("max must be positive")
	}
	return containersBeyond(ctx, s.db, XDAGCursor, XTxIndex, max)
}

func (s *sqlStore) ApplyXDAGTxs(ctx context.Context, dtxs []*internal.XDAGTxData) (err error) {
	if len(dtxs) == 0 {
		return nil
	}
	first, last := dtxs[0], dtxs[len(dtxs)-1]
	if first == nil || last == nil {
		return fmt.Errorf("store.ApplyXDAGTxs: nil tx: %w", derrors.InvalidArgument)
	}
	defer derrors.Wrap(&err, "store.ApplyXDAGTxs(%d..%d)", first.Index, last.Index)
	write, err := xDAGWriter(dtxs)
	if err != nil {
		return err
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		if err := refuseWhileRederiving(ctx, tx, internal.XChain); err != nil {
			return err
		}
		cur, ok, err := cursor(ctx, tx, XDAGCursor)
		if err != nil {
			return err
		}
		if next := cur + 1; (ok && first.Index > next) || (!ok && first.Index > 0) {
			return fmt.Errorf("batch starts at X/tx container %d, beyond the DAG cursor: %w", first.Index, derrors.InvalidArgument)
		}
		if err := write(ctx, tx); err != nil {
			return err
		}
		return moveCursor(ctx, tx, XDAGCursor, last.Index, last.ID)
	})
}

// xDAGWriter checks dtxs (non-nil, consecutive indices) and returns what
// writes them as DAG txs with their UTXO changes in a transaction.
func xDAGWriter(dtxs []*internal.XDAGTxData) (func(ctx context.Context, tx *database.DB) error, error) {
	var (
		u    xUTXOBatch
		rows [][]any
	)
	for i, t := range dtxs {
		if t == nil {
			return nil, fmt.Errorf("tx %d of the batch is nil: %w", i, derrors.InvalidArgument)
		}
		if i > 0 && t.Index != dtxs[i-1].Index+1 {
			return nil, fmt.Errorf("indices not consecutive: %d follows %d: %w", t.Index, dtxs[i-1].Index, derrors.InvalidArgument)
		}
		if t.Index > math.MaxInt32 {
			return nil, fmt.Errorf("X/tx container %d: index beyond the positions x_utxos holds: %w", t.Index, derrors.InvalidArgument)
		}
		if t.Genesis != nil {
			u.genesis(t.Genesis, int64(t.Genesis.Timestamp))
		}
		ts := t.Timestamp.Unix()
		u.tx(t.UTXOs, position{txID: t.ID, height: 0, idx: int(t.Index), time: ts})
		rows = append(rows, []any{int64(t.Index), t.ID[:], t.Type, ts})
	}
	return func(ctx context.Context, tx *database.DB) error {
		b := newBatchTx(tx, false)
		if _, err := tx.BulkInsert(ctx, "x_dag_txs", xDAGTxColumns, rows, onConflictDoNothing); err != nil {
			return err
		}
		if err := u.write(ctx, b); err != nil {
			return err
		}
		if err := applyXDAGBurned(ctx, tx, dtxs); err != nil {
			return err
		}
		if err := writeDAGAddressTxs(ctx, tx, dtxs[0].Index, dtxs[len(dtxs)-1].Index); err != nil {
			return err
		}
		return b.sums.write(ctx, tx)
	}, nil
}

func (s *sqlStore) XDAGTx(ctx context.Context, id ids.ID) (_ *XDAGTx, err error) {
	defer derrors.Wrap(&err, "store.XDAGTx(%s)", id)
	var (
		t     XDAGTx
		i, ts int64
	)
	err = s.db.QueryRow(ctx, `SELECT d.idx, d.type, d.timestamp, c.bytes FROM x_dag_txs d
		JOIN containers c ON c.index_name = ? AND c.idx = d.idx WHERE d.id = ?`, XTxIndex, id[:]).
		Scan(&i, &t.Type, &ts, &t.Bytes)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	t.ID, t.Index, t.Timestamp = id, uint64(i), fromUnixSeconds(ts)
	t.Bytes = nonNil(t.Bytes)
	return &t, nil
}

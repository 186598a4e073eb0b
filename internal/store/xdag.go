package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
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
	// txs, runs derive (what they do to the X-chain's UTXOs, burned sums,
	// address history) and moves XDAGCursor to the last, in one
	// transaction. A batch that would leave a gap after the cursor fails
	// with derrors.InvalidArgument. Re-applying changes nothing; the
	// cursor never moves back. An empty batch does nothing.
	ApplyXDAGTxs(ctx context.Context, txs []*internal.XDAGTxData, derive XDAGDerivation) error
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

// XDAGDerivation writes, through tx, the state a batch of DAG txs derives
// (derive/xstate.ApplyDAG). It runs in the batch's transaction, after the
// txs are written, and must be idempotent.
type XDAGDerivation func(ctx context.Context, tx *DAGTx, txs []*internal.XDAGTxData) error

// DAGTx is a batch of DAG txs' transaction as ApplyXDAGTxs and
// RederiveXDAGTxs hand it to the derivation; valid only during that call.
type DAGTx struct{ *batchTx }

// WriteUTXOChanges is XTx.WriteUTXOChanges for the DAG txs, each at its
// X/tx index.
func (t *DAGTx) WriteUTXOChanges(ctx context.Context, txs []internal.UTXOTx) error {
	return writeXUTXOChanges(ctx, t.batchTx, txs)
}

// AVAXAssetID is XTx.AVAXAssetID.
func (t *DAGTx) AVAXAssetID(ctx context.Context) (ids.ID, bool, error) {
	return t.avaxAssetID(ctx)
}

// AddBurned adds amounts[i], burned by the DAG tx at X/tx index idx[i]
// (ascending), to the DAG's burned sum, skipping the txs it holds
// already.
func (t *DAGTx) AddBurned(ctx context.Context, idx []uint64, amounts []*big.Int) error {
	return addBurned(ctx, t.db, BurnedXDAG, idx, func(i int) *big.Int { return amounts[i] })
}

// WriteAddressTxRange writes the history rows of the DAG txs first..last
// from the UTXOs stored, with the parts asked for.
func (t *DAGTx) WriteAddressTxRange(ctx context.Context, first, last uint64, parts internal.AddressTxParts) error {
	return deriveAddressTxs(ctx, t.db, internal.XChain, xDAGRange, u64(first), u64(last), parts)
}

func (s *sqlStore) ApplyXDAGTxs(ctx context.Context, dtxs []*internal.XDAGTxData, derive XDAGDerivation) (err error) {
	if len(dtxs) == 0 {
		return nil
	}
	first, last := dtxs[0], dtxs[len(dtxs)-1]
	if first == nil || last == nil {
		return fmt.Errorf("store.ApplyXDAGTxs: nil tx: %w", derrors.InvalidArgument)
	}
	defer derrors.Wrap(&err, "store.ApplyXDAGTxs(%d..%d)", first.Index, last.Index)
	write, err := xDAGWriter(dtxs, derive)
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
// writes them as DAG txs, with what derive derives of them, in a
// transaction.
func xDAGWriter(dtxs []*internal.XDAGTxData, derive XDAGDerivation) (func(ctx context.Context, tx *database.DB) error, error) {
	rows := make([][]any, len(dtxs))
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
		rows[i] = []any{int64(t.Index), t.ID[:], t.Type, t.Timestamp.Unix()}
	}
	return func(ctx context.Context, tx *database.DB) error {
		if err := tx.Append(ctx, "x_dag_txs", xDAGTxColumns, rows, onConflictDoNothing); err != nil {
			return err
		}
		b := newBatchTx(tx, false)
		return b.run(ctx, func() error { return derive(ctx, &DAGTx{b}, dtxs) })
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

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/xchain"
)

// XTxIndex is the node's index of the X-chain's DAG txs: each container is
// one signed avm tx, in acceptance order. Only the DAG engine feeds it, so
// it holds the txs before Cortina's linearization and nothing after.
const XTxIndex = "X/tx"

// XDAGCursor is the cursors row of the DAG txs decoded: the index of the
// last X/tx container applied by ApplyXDAG.
const XDAGCursor internal.Chain = "X/dag"

// XDAGStore keeps the X-chain's pre-Cortina (DAG) transactions, decoded
// from the mirrored X/tx index (see ContainerStore).
type XDAGStore interface {
	// ApplyXDAG decodes up to max of the X/tx containers mirrored beyond
	// XDAGCursor, stores them as DAG txs with what they do to the X-chain's
	// UTXOs (the genesis UTXOs first, with container 0, on a chain that ran
	// as a DAG), and moves the cursor to the last, in one transaction. It
	// returns how many it applied: 0 when it is caught up with the mirror.
	// A container whose bytes do not hash to its id is not an avm tx and is
	// skipped. Re-applying changes nothing.
	ApplyXDAG(ctx context.Context, max int) (int, error)
	// XDAGTx returns a stored DAG tx.
	XDAGTx(ctx context.Context, id ids.ID) (*XDAGTx, error)
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

func (s *sqlStore) ApplyXDAG(ctx context.Context, max int) (n int, err error) {
	defer derrors.Wrap(&err, "store.ApplyXDAG(%d)", max)
	if max <= 0 {
		return 0, derrors.Invalid("max must be positive")
	}
	// Read first, so that a caught-up call takes no write lock.
	var done, mirrored sql.NullInt64
	err = s.db.QueryRow(ctx, "SELECT (SELECT height FROM cursors WHERE chain = ?), (SELECT height FROM cursors WHERE chain = ?)",
		string(XDAGCursor), IndexCursor(XTxIndex)).Scan(&done, &mirrored)
	if err != nil || !mirrored.Valid || done.Valid && done.Int64 >= mirrored.Int64 {
		return 0, err
	}
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		n = 0
		next := int64(0)
		cur, ok, err := cursor(ctx, tx, XDAGCursor)
		if err != nil {
			return err
		}
		if ok {
			next = int64(cur) + 1
		}
		var cs []Container
		err = tx.RunQuery(ctx, `SELECT idx, id, timestamp, bytes FROM containers WHERE index_name = ? AND idx >= ?
			ORDER BY idx LIMIT ?`, func(r *sql.Rows) error {
			var (
				c  Container
				i  int64
				id []byte
			)
			if err := r.Scan(&i, &id, &c.Timestamp, &c.Bytes); err != nil {
				return err
			}
			c.Index = uint64(i)
			var err error
			c.ID, err = ids.ToID(id)
			cs = append(cs, c)
			return err
		}, XTxIndex, next, max)
		if err != nil || len(cs) == 0 {
			return err
		}
		var (
			u    xUTXOBatch
			rows [][]any
		)
		for _, c := range cs {
			if c.Index == 0 {
				g, ok, err := storedXGenesis(ctx, tx)
				if err != nil {
					return err
				}
				if ok && g.DAG {
					u.genesis(g, int64(g.Timestamp))
				}
			}
			if hashing.ComputeHash256Array(c.Bytes) != c.ID {
				continue // not an avm tx's bytes (synthetic test containers)
			}
			if c.Index > math.MaxInt32 {
				return fmt.Errorf("X/tx container %d: index beyond the positions x_utxos holds", c.Index)
			}
			ts, err := time.Parse(time.RFC3339Nano, c.Timestamp)
			if err != nil {
				return fmt.Errorf("X/tx container %d: timestamp: %w", c.Index, err)
			}
			xtx, err := xchain.ParseTx(c.Bytes)
			if err != nil {
				return fmt.Errorf("X/tx container %d (%s): %w", c.Index, c.ID, err)
			}
			if err := u.tx(xtx, position{txID: c.ID, height: 0, idx: int(c.Index), time: ts.Unix()}); err != nil {
				return fmt.Errorf("X/tx container %d (%s): %w", c.Index, c.ID, err)
			}
			rows = append(rows, []any{int64(c.Index), c.ID[:], xchain.TxType(xtx), ts.Unix()})
		}
		if _, err := tx.BulkInsert(ctx, "x_dag_txs", xDAGTxColumns, rows, onConflictDoNothing); err != nil {
			return err
		}
		if err := u.write(ctx, tx); err != nil {
			return err
		}
		last := cs[len(cs)-1]
		n = len(cs)
		return moveCursor(ctx, tx, XDAGCursor, last.Index, last.ID)
	})
	return n, err
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

package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The L1 validator-fee state's history (migration 0038): the accrued fee
// total at each UTC day's start and end, and every change of an L1
// validator's balance, written by the fee replay (WriteL1Fees) with the
// state, so a rederive of the P-chain writes it again from the stored
// blocks.

const daySeconds = 86400

var pL1BalanceChangeColumns = []string{"validation_id", "height", "idx", "time", "kind", "accrued", "end_fee", "amount"}

// saveL1FeeHistory writes what a replay recorded.
func saveL1FeeHistory(ctx context.Context, tx *database.DB, h *internal.L1FeeHistory) error {
	for i := 0; i < len(h.Blocks); {
		day := int64(h.Blocks[i].Time) / daySeconds * daySeconds
		j := i
		for j+1 < len(h.Blocks) && int64(h.Blocks[j+1].Time)/daySeconds*daySeconds == day {
			j++
		}
		first, last := h.Blocks[i], h.Blocks[j]
		if _, err := tx.Exec(ctx, `INSERT INTO p_l1_fee_days (day, accrued_start, accrued_end, last_height) VALUES (?, ?, ?, ?)
			ON CONFLICT (day) DO UPDATE SET accrued_end = excluded.accrued_end, last_height = excluded.last_height`,
			day, u64(first.Before), u64(last.After), u64(last.Height)); err != nil {
			return fmt.Errorf("fee day %d: %w", day, err)
		}
		i = j + 1
	}
	rows := make([][]any, len(h.Changes))
	for i, c := range h.Changes {
		rows[i] = []any{c.ValidationID[:], u64(c.Height), int64(c.Index), u64(c.Time), string(c.Kind),
			u64(c.Accrued), u64(c.End), u64(c.Amount)}
	}
	return tx.Append(ctx, "p_l1_balance_changes", pL1BalanceChangeColumns, rows, onConflictDoNothing)
}

// backfillL1FeeHistory gives a store that held P-chain blocks before
// migration 0038 the fee history: the P-chain's rederive replays the fee
// state from the stored blocks, writing it (and what it wrote before, to
// the same values). A rederive under way starts again from the genesis.
func backfillL1FeeHistory(ctx context.Context, tx *database.DB) error {
	var n int64
	if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM p_blocks LIMIT 1) AS t").Scan(&n); err != nil || n == 0 {
		return err
	}
	_, err := tx.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		RederiveKey(internal.PChain), []byte(rederiveRequested))
	return err
}

// L1ValidatorFilter selects L1 validators by any of validation id, node id
// and subnet id; the zero filter selects all.
type L1ValidatorFilter struct {
	ValidationID *ids.ID
	NodeID       *ids.NodeID
	SubnetID     *ids.ID
}

// L1FeeHistoryStore reads the L1 validator-fee state's history.
type L1FeeHistoryStore interface {
	// L1FeeDays returns the days of the history in [from, to] and the
	// last one before from, ascending.
	L1FeeDays(ctx context.Context, from, to int64) ([]chainmetrics.L1FeeDay, error)
	// L1BalanceChanges returns the balance changes of the L1 validators f
	// selects, by validation id then in chain order.
	L1BalanceChanges(ctx context.Context, f L1ValidatorFilter) ([]internal.L1BalanceChange, error)
}

func (s *sqlStore) L1FeeDays(ctx context.Context, from, to int64) (_ []chainmetrics.L1FeeDay, err error) {
	defer derrors.Wrap(&err, "store.L1FeeDays(%d, %d)", from, to)
	var out []chainmetrics.L1FeeDay
	scan := func(rows *sql.Rows) error {
		var d chainmetrics.L1FeeDay
		var start, end int64
		if err := rows.Scan(&d.Day, &start, &end); err != nil {
			return err
		}
		d.Start, d.End = uint64(start), uint64(end)
		out = append(out, d)
		return nil
	}
	if err := s.db.RunQuery(ctx, "SELECT day, accrued_start, accrued_end FROM p_l1_fee_days WHERE day < ? ORDER BY day DESC LIMIT 1",
		scan, from); err != nil {
		return nil, err
	}
	if err := s.db.RunQuery(ctx, "SELECT day, accrued_start, accrued_end FROM p_l1_fee_days WHERE day >= ? AND day <= ? ORDER BY day",
		scan, from, to); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *sqlStore) L1BalanceChanges(ctx context.Context, f L1ValidatorFilter) (_ []internal.L1BalanceChange, err error) {
	defer derrors.Wrap(&err, "store.L1BalanceChanges")
	q := "SELECT c.validation_id, c.height, c.idx, c.time, c.kind, c.accrued, c.end_fee, c.amount FROM p_l1_balance_changes c"
	var where []string
	var args []any
	if f.NodeID != nil || f.SubnetID != nil {
		q += " JOIN p_l1_validators v ON v.validation_id = c.validation_id"
	}
	if f.ValidationID != nil {
		where, args = append(where, "c.validation_id = ?"), append(args, f.ValidationID[:])
	}
	if f.NodeID != nil {
		where, args = append(where, "v.node_id = ?"), append(args, f.NodeID[:])
	}
	if f.SubnetID != nil {
		where, args = append(where, "v.subnet_id = ?"), append(args, f.SubnetID[:])
	}
	for i, w := range where {
		if i == 0 {
			q += " WHERE " + w
		} else {
			q += " AND " + w
		}
	}
	q += " ORDER BY c.validation_id, c.height, c.idx"
	var out []internal.L1BalanceChange
	err = s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var (
			id                         []byte
			h, t, accrued, end, amount int64
			idx                        int64
			kind                       string
		)
		if err := rows.Scan(&id, &h, &idx, &t, &kind, &accrued, &end, &amount); err != nil {
			return err
		}
		vid, err := ids.ToID(id)
		if err != nil {
			return err
		}
		out = append(out, internal.L1BalanceChange{ValidationID: vid, Height: uint64(h), Index: int(idx), Time: uint64(t),
			Kind: internal.L1BalanceKind(kind), Accrued: uint64(accrued), End: uint64(end), Amount: uint64(amount)})
		return nil
	}, args...)
	return out, err
}

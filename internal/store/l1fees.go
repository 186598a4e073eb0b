package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/gas"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// L1Fees returns the replayed L1 validator-fee state (staking.Writer).
func (t *PTx) L1Fees(ctx context.Context) (*internal.L1Fees, error) { return loadL1Fees(ctx, t.db) }

// WriteL1Fees writes the fee state s, its validators that differ from
// before, and the replay's history (l1feehistory.go), and keeps before and
// the history for the batch's webhook events.
func (t *PTx) WriteL1Fees(ctx context.Context, s *internal.L1Fees, before map[ids.ID]internal.L1FeeValidator) error {
	if err := saveL1Fees(ctx, t.db, s, before); err != nil {
		return err
	}
	if err := saveL1FeeHistory(ctx, t.db, s.History); err != nil {
		return err
	}
	t.fees = l1FeeReplay{before: before, history: s.History}
	return nil
}

// WriteL1Refunds writes the refund UTXOs of the validators the fee replay
// disabled or removed over blocks, and counts them in the refunded sums.
func (t *PTx) WriteL1Refunds(ctx context.Context, blocks []*internal.PBlockData, refunds []internal.L1Refund) error {
	if err := addL1Refunds(ctx, t.db, blocks, refunds); err != nil {
		return err
	}
	if len(refunds) == 0 {
		return nil
	}
	times := map[uint64]int64{}
	for _, b := range blocks {
		times[b.Height] = unixSeconds(b.Timestamp)
	}
	var u utxoBatch
	for _, r := range refunds {
		spendable := r.Height
		u.produce(r.UTXO, position{txID: r.TxID, height: r.Height, idx: r.Index, time: times[r.Height]}, false, &spendable)
	}
	return u.write(ctx, t.batchTx)
}

// l1FeeReplay is what the batch's fee replay changed, for the steps
// after it (the fee webhook events need each block's accrued total, which
// the store keeps by day only): the validators' state before the batch
// and the replay's history. Empty when the replay ran on no block.
type l1FeeReplay struct {
	before  map[ids.ID]internal.L1FeeValidator
	history *internal.L1FeeHistory
}

func loadL1Fees(ctx context.Context, tx *database.DB) (*internal.L1Fees, error) {
	s := &internal.L1Fees{Validators: map[ids.ID]*internal.L1FeeValidator{}}
	var next, t, accrued, excess int64
	err := tx.QueryRow(ctx, "SELECT next_height, time, accrued, excess FROM p_l1_fees WHERE id = 1").Scan(&next, &t, &accrued, &excess)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, nil
	case err != nil:
		return nil, err
	}
	s.Next, s.Time, s.Accrued, s.Excess = uint64(next), uint64(t), uint64(accrued), gas.Gas(uint64(excess))
	err = tx.RunQuery(ctx, "SELECT validation_id, end_fee, owner_locktime, owner_threshold, owner_addrs FROM p_l1_fee_validators",
		func(rows *sql.Rows) error {
			var (
				id, addrs         []byte
				end, lock, thresh int64
			)
			if err := rows.Scan(&id, &end, &lock, &thresh, &addrs); err != nil {
				return err
			}
			vid, err := ids.ToID(id)
			if err != nil {
				return err
			}
			a, err := unpackAddrs(addrs)
			if err != nil {
				return err
			}
			s.Validators[vid] = &internal.L1FeeValidator{End: uint64(end),
				Owner: internal.StakerOwner{Locktime: uint64(lock), Threshold: uint32(thresh), Addresses: a}}
			return nil
		})
	return s, err
}

// saveL1Fees writes the state and the validators that changed since before.
func saveL1Fees(ctx context.Context, tx *database.DB, s *internal.L1Fees, before map[ids.ID]internal.L1FeeValidator) error {
	if _, err := tx.Exec(ctx, `INSERT INTO p_l1_fees (id, next_height, time, accrued, excess) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET next_height = excluded.next_height, time = excluded.time,
			accrued = excluded.accrued, excess = excluded.excess`,
		u64(s.Next), u64(s.Time), u64(s.Accrued), u64(uint64(s.Excess))); err != nil {
		return err
	}
	for id, v := range s.Validators {
		if old, ok := before[id]; ok && old.End == v.End && old.Owner.Locktime == v.Owner.Locktime &&
			old.Owner.Threshold == v.Owner.Threshold && slices.Equal(old.Owner.Addresses, v.Owner.Addresses) {
			continue
		}
		if _, err := tx.Exec(ctx, `INSERT INTO p_l1_fee_validators (validation_id, end_fee, owner_locktime, owner_threshold, owner_addrs)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (validation_id) DO UPDATE SET end_fee = excluded.end_fee,
			owner_locktime = excluded.owner_locktime, owner_threshold = excluded.owner_threshold, owner_addrs = excluded.owner_addrs`,
			id[:], u64(v.End), u64(v.Owner.Locktime), int64(v.Owner.Threshold), packAddrs(v.Owner.Addresses)); err != nil {
			return err
		}
	}
	for id := range before {
		if _, ok := s.Validators[id]; !ok {
			if _, err := tx.Exec(ctx, "DELETE FROM p_l1_fee_validators WHERE validation_id = ?", id[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// L1FeeStore reads the replayed L1 validator-fee state.
type L1FeeStore interface {
	// L1Balances returns the current balance of each of the L1 validators
	// vids that the fee state knows: what remains of their deposits after
	// the fees accrued up to the last indexed block (0 while inactive), as
	// the node computes it.
	L1Balances(ctx context.Context, vids []ids.ID) (map[ids.ID]uint64, error)
}

func (s *sqlStore) L1Balances(ctx context.Context, vids []ids.ID) (_ map[ids.ID]uint64, err error) {
	defer derrors.Wrap(&err, "store.L1Balances(%d validators)", len(vids))
	out := map[ids.ID]uint64{}
	if len(vids) == 0 {
		return out, nil
	}
	var accrued int64
	err = s.db.QueryRow(ctx, "SELECT accrued FROM p_l1_fees WHERE id = 1").Scan(&accrued)
	if errors.Is(err, sql.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	err = idChunks(vids, func(args []any, in string) error {
		return s.db.RunQuery(ctx, "SELECT validation_id, end_fee FROM p_l1_fee_validators WHERE validation_id IN "+in, func(rows *sql.Rows) error {
			var (
				id  []byte
				end int64
			)
			if err := rows.Scan(&id, &end); err != nil {
				return err
			}
			vid, err := ids.ToID(id)
			if err != nil {
				return err
			}
			out[vid] = 0
			if uint64(end) > uint64(accrued) {
				out[vid] = uint64(end) - uint64(accrued)
			}
			return nil
		}, args...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// ActiveStakerStore lists the stakers that are current at the last indexed
// block, for the Data API's list of active staking txs.
type ActiveStakerStore interface {
	// ActiveStakers returns up to q.Limit current validators, delegators
	// and permissioned subnet validators (of any subnet), ordered by start
	// time and then tx id, descending when q.Desc.
	ActiveStakers(ctx context.Context, q ActiveStakerQuery) ([]*StakerRecord, error)
}

// ActiveStakerQuery selects the stakers of ActiveStakers.
type ActiveStakerQuery struct {
	// Addresses keeps only stakers with any of them among the addresses of
	// their reward owners (validation and delegation reward owners of a
	// validator, the reward owner of a delegator); all when empty.
	Addresses []ids.ShortID
	// TxTypes keeps only stakers added by txs of these types; all when
	// empty.
	TxTypes []string
	// Start and End keep only stakers whose start time (unix seconds) is in
	// [*Start, *End]; nil leaves that side open.
	Start, End *uint64
	// After keeps only the stakers after it in the list's order (the keyset
	// of the previous page's last staker); nil starts at the first.
	After *StakerKey
	Desc  bool
	Limit int
}

// StakerKey is a staker's place in ActiveStakers' order.
type StakerKey struct {
	StartTime uint64
	TxID      ids.ID
}

func (s *sqlStore) ActiveStakers(ctx context.Context, q ActiveStakerQuery) (_ []*StakerRecord, err error) {
	defer derrors.Wrap(&err, "store.ActiveStakers(%d addresses)", len(q.Addresses))
	if q.Limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", q.Limit)
	}
	var ts int64
	err = s.db.QueryRow(ctx, "SELECT timestamp FROM p_blocks ORDER BY height DESC LIMIT 1").Scan(&ts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var txIDs []any
	if len(q.Addresses) > 0 {
		txIDs, err = s.activeStakersOf(ctx, q, ts)
	} else {
		txIDs, err = s.allActiveStakers(ctx, q, ts)
	}
	if err != nil || len(txIDs) == 0 {
		return nil, err
	}
	recs, err := s.queryStakers(ctx, stakerSelect+" WHERE s.tx_id IN (?"+strings.Repeat(", ?", len(txIDs)-1)+")", txIDs...)
	if err != nil {
		return nil, err
	}
	out := recs
	slices.SortFunc(out, func(a, b *StakerRecord) int {
		c := cmpUint(a.StartTime, b.StartTime)
		if c == 0 {
			c = a.TxID.Compare(b.TxID)
		}
		if q.Desc {
			c = -c
		}
		return c
	})
	return out, nil
}

// allActiveStakers returns the ids of q's page of all current stakers (q
// has no addresses), current at ts, the last block's time.
func (s *sqlStore) allActiveStakers(ctx context.Context, q ActiveStakerQuery, ts int64) ([]any, error) {
	query := "SELECT s.tx_id FROM p_stakers s WHERE s.removed_tx_id IS NULL"
	var args []any
	if ts != 0 {
		// As CurrentStakers: pending stakers are not current yet, and PoA
		// validators leave when the chain time reaches their end.
		query += " AND s.start_time <= ? AND (s.kind <> ? OR s.end_time > ?)"
		args = append(args, ts, string(internal.StakerSubnetValidator), ts)
	}
	if len(q.TxTypes) > 0 {
		query += " AND s.tx_type IN (?" + strings.Repeat(", ?", len(q.TxTypes)-1) + ")"
		for _, t := range q.TxTypes {
			args = append(args, t)
		}
	}
	if q.Start != nil {
		query += " AND s.start_time >= ?"
		args = append(args, u64(*q.Start))
	}
	if q.End != nil {
		query += " AND s.start_time <= ?"
		args = append(args, u64(*q.End))
	}
	dir, cmp := "ASC", ">"
	if q.Desc {
		dir, cmp = "DESC", "<"
	}
	if q.After != nil {
		// The first condition bounds the index range (PostgreSQL reads an
		// OR as a filter only); the second skips the ties already seen.
		query += " AND s.start_time " + cmp + "= ? AND (s.start_time " + cmp + " ? OR s.tx_id " + cmp + " ?)"
		args = append(args, u64(q.After.StartTime), u64(q.After.StartTime), q.After.TxID[:])
	}
	query += " ORDER BY s.start_time " + dir + ", s.tx_id " + dir + " LIMIT ?"
	args = append(args, q.Limit)
	var txIDs []any
	err := s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return err
		}
		txIDs = append(txIDs, id)
		return nil
	}, args...)
	return txIDs, err
}

// activeStakersOf returns the ids of q's page of the current stakers of
// q's addresses, current at ts: one merged scan of the addresses' ranges
// of p_staker_addresses (stakeraddresses.go). A staker several of the
// addresses own comes once.
func (s *sqlStore) activeStakersOf(ctx context.Context, q ActiveStakerQuery, ts int64) ([]any, error) {
	scan := &mergeScan{table: "p_staker_addresses", key: "start_time", id: "tx_id", extra: "0", desc: q.Desc,
		armCols: []string{"address", "removed"}, armTypes: []string{"BYTEA", "INTEGER"}}
	for _, a := range sortedAddresses(q.Addresses) {
		scan.arms = append(scan.arms, []any{a[:], int64(0)})
	}
	if ts != 0 {
		// Pending stakers are not current yet. Stakers with reward owners
		// leave with their RewardValidatorTx, never by time.
		scan.filter = append(scan.filter, "start_time <= ?")
		scan.filterArgs = append(scan.filterArgs, ts)
	}
	if len(q.TxTypes) > 0 {
		scan.filter = append(scan.filter, "tx_type IN (?"+strings.Repeat(", ?", len(q.TxTypes)-1)+")")
		for _, t := range q.TxTypes {
			scan.filterArgs = append(scan.filterArgs, t)
		}
	}
	if q.Start != nil {
		scan.filter = append(scan.filter, "start_time >= ?")
		scan.filterArgs = append(scan.filterArgs, u64(*q.Start))
	}
	if q.End != nil {
		scan.filter = append(scan.filter, "start_time <= ?")
		scan.filterArgs = append(scan.filterArgs, u64(*q.End))
	}
	var after *mergeKey
	if q.After != nil {
		after = &mergeKey{key: u64(q.After.StartTime), id: q.After.TxID[:]}
	}
	var txIDs []any
	err := s.db.ReadTx(ctx, func(tx *database.DB) error {
		keys, err := scan.run(ctx, tx, after, q.Limit, func(mergedRow) bool { return true })
		for _, k := range keys {
			txIDs = append(txIDs, k.id)
		}
		return err
	})
	return txIDs, err
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

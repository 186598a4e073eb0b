package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
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
	query := "SELECT s.tx_id FROM p_stakers s WHERE s.removed_tx_id IS NULL"
	var args []any
	if ts != 0 {
		// As CurrentStakers: pending stakers are not current yet, and PoA
		// validators leave when the chain time reaches their end.
		query += " AND s.start_time <= ? AND (s.kind <> ? OR s.end_time > ?)"
		args = append(args, ts, string(pchain.KindSubnetValidator), ts)
	}
	if len(q.Addresses) > 0 {
		// Owners keep their addresses concatenated: a byte search finds
		// each, and the match is checked on whole addresses below.
		find := s.db.BytesContain("o.addresses")
		query += " AND EXISTS (SELECT 1 FROM p_staker_owners o WHERE o.tx_id = s.tx_id AND (" +
			find + strings.Repeat(" OR "+find, len(q.Addresses)-1) + "))"
		for _, a := range q.Addresses {
			args = append(args, a[:])
		}
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
		query += " AND (s.start_time " + cmp + " ? OR (s.start_time = ? AND s.tx_id " + cmp + " ?))"
		args = append(args, u64(q.After.StartTime), u64(q.After.StartTime), q.After.TxID[:])
	}
	query += " ORDER BY s.start_time " + dir + ", s.tx_id " + dir + " LIMIT ?"
	args = append(args, q.Limit)
	var txIDs []any
	err = s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return err
		}
		txIDs = append(txIDs, id)
		return nil
	}, args...)
	if err != nil || len(txIDs) == 0 {
		return nil, err
	}
	recs, err := s.queryStakers(ctx, stakerSelect+" WHERE s.tx_id IN (?"+strings.Repeat(", ?", len(txIDs)-1)+")", txIDs...)
	if err != nil {
		return nil, err
	}
	out := recs[:0]
	for _, r := range recs {
		if len(q.Addresses) == 0 || ownedByAny(r, q.Addresses) {
			out = append(out, r)
		}
	}
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

// ownedByAny reports whether any of addrs is among r's reward owners'
// addresses.
func ownedByAny(r *StakerRecord, addrs []ids.ShortID) bool {
	for _, o := range []*pchain.StakerOwner{r.ValidationRewardOwner, r.DelegationRewardOwner, r.RewardOwner} {
		if o == nil {
			continue
		}
		for _, a := range o.Addresses {
			if slices.Contains(addrs, a) {
				return true
			}
		}
	}
	return false
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

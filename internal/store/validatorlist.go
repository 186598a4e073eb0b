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

// ValidatorListStore reads what the Data API's validator and delegator
// lists are made from: every staker at once, slim, for a list that filters
// and sorts on values computed across stakers (a validator's delegated
// weight and capacity); the full records of one page; and the L1
// validators by page.
type ValidatorListStore interface {
	// PChainTip returns the last indexed P-chain block's height and
	// timestamp (unix s, 0 before Banff); ok is false before any block.
	PChainTip(ctx context.Context) (height uint64, chainTime int64, ok bool, err error)
	// StakersChangedSince reports whether a staker was added or removed
	// by a block above height.
	StakersChangedSince(ctx context.Context, height uint64) (bool, error)
	// StakerTable returns every staker ever added, slim, with the tip it
	// was read at.
	StakerTable(ctx context.Context) (*StakerTable, error)
	// StakersByTxID returns the full records of the stakers added by
	// txIDs; unknown ids are absent from the map.
	StakersByTxID(ctx context.Context, txIDs []ids.ID) (map[ids.ID]*StakerRecord, error)
	// L1ValidatorPage returns up to limit L1 validators of q in creation
	// order (the block that added them, then validation id), after *after.
	L1ValidatorPage(ctx context.Context, q L1ValidatorQuery, after *L1ValidatorKey, limit int) ([]*internal.L1Validator, error)
}

// StakerRow is a staker as the validator lists filter and sort it.
type StakerRow struct {
	TxID             ids.ID
	Kind             internal.StakerKind
	SubnetID         ids.ID
	NodeID           ids.NodeID
	Weight           uint64
	StartTime        uint64
	EndTime          uint64
	DelegationShares uint32
	AddedHeight      uint64
	AddedIndex       int
	// Removed is set once a RewardValidatorTx or RemoveSubnetValidatorTx
	// removed it, at RemovedHeight.
	Removed       bool
	RemovedHeight uint64
	// RewardCommitted is set when its RewardValidatorTx committed.
	RewardCommitted bool
	// PotentialReward is nil while not known (see StakerRecord).
	PotentialReward *uint64
	DelegateeReward uint64
	// RewardAddresses are a delegator's reward owner's addresses.
	RewardAddresses []ids.ShortID
}

// StakerTable is every staker, read at one tip.
type StakerTable struct {
	Height    uint64
	ChainTime int64
	Rows      []StakerRow
}

// L1ValidatorQuery selects the L1 validators of L1ValidatorPage; zero
// fields select all.
type L1ValidatorQuery struct {
	ValidationID *ids.ID
	SubnetID     *ids.ID
	NodeID       *ids.NodeID
	// Inactive includes validators that are disabled or removed (weight 0).
	Inactive bool
}

// L1ValidatorKey is an L1 validator's place in L1ValidatorPage's order.
type L1ValidatorKey struct {
	Height       uint64
	ValidationID ids.ID
}

func (s *sqlStore) PChainTip(ctx context.Context) (_ uint64, _ int64, _ bool, err error) {
	defer derrors.Wrap(&err, "store.PChainTip")
	var h, ts int64
	err = s.db.QueryRow(ctx, "SELECT height, timestamp FROM p_blocks ORDER BY height DESC LIMIT 1").Scan(&h, &ts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, 0, false, nil
	case err != nil:
		return 0, 0, false, err
	}
	return uint64(h), ts, true, nil
}

func (s *sqlStore) StakersChangedSince(ctx context.Context, height uint64) (_ bool, err error) {
	defer derrors.Wrap(&err, "store.StakersChangedSince(%d)", height)
	var n int64
	err = s.db.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM p_stakers WHERE added_height > ? LIMIT 1) a)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM p_stakers WHERE removed_height > ? LIMIT 1) r)`, u64(height), u64(height)).Scan(&n)
	return n > 0, err
}

func (s *sqlStore) StakerTable(ctx context.Context) (_ *StakerTable, err error) {
	defer derrors.Wrap(&err, "store.StakerTable")
	out := &StakerTable{}
	// One read transaction: the tip and the rows agree.
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		var h, ts int64
		switch err := tx.QueryRow(ctx, "SELECT height, timestamp FROM p_blocks ORDER BY height DESC LIMIT 1").Scan(&h, &ts); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		}
		out.Height, out.ChainTime = uint64(h), ts
		rewardAddrs := map[ids.ID][]ids.ShortID{}
		err := tx.RunQuery(ctx, "SELECT tx_id, addresses FROM p_staker_owners WHERE role = ?", func(rows *sql.Rows) error {
			var id, addrs []byte
			if err := rows.Scan(&id, &addrs); err != nil {
				return err
			}
			txID, err := ids.ToID(id)
			if err != nil {
				return err
			}
			if rewardAddrs[txID], err = unpackAddrs(addrs); err != nil {
				return err
			}
			return nil
		}, roleReward)
		if err != nil {
			return err
		}
		return tx.RunQuery(ctx, `SELECT tx_id, kind, subnet_id, node_id, weight, start_time, end_time, delegation_shares,
			added_height, added_idx, removed_tx_id IS NOT NULL, COALESCE(removed_height, 0), COALESCE(reward_committed, 0),
			potential_reward, delegatee_reward FROM p_stakers`, func(rows *sql.Rows) error {
			var (
				r                                 StakerRow
				id, subnet, node                  []byte
				kind                              string
				w, start, end, shares, h, idx, rh int64
				removed, committed                bool
				potential                         sql.NullInt64
				delegatee                         int64
			)
			if err := rows.Scan(&id, &kind, &subnet, &node, &w, &start, &end, &shares, &h, &idx, &removed, &rh,
				&committed, &potential, &delegatee); err != nil {
				return err
			}
			var err error
			if r.TxID, err = ids.ToID(id); err != nil {
				return err
			}
			if r.SubnetID, err = ids.ToID(subnet); err != nil {
				return err
			}
			if r.NodeID, err = ids.ToNodeID(node); err != nil {
				return err
			}
			r.Kind = internal.StakerKind(kind)
			r.Weight, r.StartTime, r.EndTime = uint64(w), uint64(start), uint64(end)
			r.DelegationShares = uint32(shares)
			r.AddedHeight, r.AddedIndex = uint64(h), int(idx)
			r.Removed, r.RemovedHeight, r.RewardCommitted = removed, uint64(rh), committed
			if potential.Valid {
				p := uint64(potential.Int64)
				r.PotentialReward = &p
			}
			r.DelegateeReward = uint64(delegatee)
			r.RewardAddresses = rewardAddrs[r.TxID]
			out.Rows = append(out.Rows, r)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *sqlStore) StakersByTxID(ctx context.Context, txIDs []ids.ID) (_ map[ids.ID]*StakerRecord, err error) {
	defer derrors.Wrap(&err, "store.StakersByTxID(%d)", len(txIDs))
	out := map[ids.ID]*StakerRecord{}
	err = idChunks(txIDs, func(args []any, in string) error {
		recs, err := s.queryStakers(ctx, stakerSelect+" WHERE s.tx_id IN "+in, args...)
		for _, r := range recs {
			out[r.TxID] = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *sqlStore) L1ValidatorPage(ctx context.Context, q L1ValidatorQuery, after *L1ValidatorKey, limit int) (_ []*internal.L1Validator, err error) {
	defer derrors.Wrap(&err, "store.L1ValidatorPage")
	if limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", limit)
	}
	var (
		where []string
		args  []any
	)
	if q.ValidationID != nil {
		where, args = append(where, "validation_id = ?"), append(args, q.ValidationID[:])
	}
	if q.SubnetID != nil {
		where, args = append(where, "subnet_id = ?"), append(args, q.SubnetID[:])
	}
	if q.NodeID != nil {
		where, args = append(where, "node_id = ?"), append(args, q.NodeID.Bytes())
	}
	if !q.Inactive {
		where = append(where, "active = 1 AND removed_tx_id IS NULL")
	}
	if after != nil {
		where = append(where, "added_height >= ? AND (added_height > ? OR validation_id > ?)")
		args = append(args, u64(after.Height), u64(after.Height), after.ValidationID[:])
	}
	query := "SELECT validation_id FROM p_l1_validators"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY added_height, validation_id LIMIT ?"
	args = append(args, limit)
	var vids []any
	if err := s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return err
		}
		vids = append(vids, id)
		return nil
	}, args...); err != nil {
		return nil, err
	}
	if len(vids) == 0 {
		return nil, nil
	}
	vs, err := s.queryL1(ctx, " WHERE v.validation_id IN (?"+strings.Repeat(", ?", len(vids)-1)+")", vids...)
	if err != nil {
		return nil, err
	}
	// queryL1 keeps no order.
	sortL1ByCreation(vs)
	return vs, nil
}

func sortL1ByCreation(vs []*internal.L1Validator) {
	slices.SortFunc(vs, func(a, b *internal.L1Validator) int {
		if c := cmpUint(a.AddedHeight, b.AddedHeight); c != 0 {
			return c
		}
		return a.ValidationID.Compare(b.ValidationID)
	})
}

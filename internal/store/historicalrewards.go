package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// HistoricalRewardStore reads the staking rewards paid on the P-chain
// (tables p_historical_rewards and p_historical_reward_owners, migration
// 0013).
type HistoricalRewardStore interface {
	// HistoricalRewards returns up to limit rewards of q, one per reward
	// UTXO, ordered by the staker's end time, ties by UTXO id, in q's
	// direction, starting after the reward whose key is after (nil: at the
	// first). The queries of one call see one snapshot.
	HistoricalRewards(ctx context.Context, q RewardQuery, after *RewardKey, limit int) ([]*HistoricalReward, error)
	// RewardTypes returns the type (internal.RewardValidator,
	// RewardDelegator or RewardValidatorFee) of each of the reward UTXOs
	// utxoIDs whose staker is stored, as HistoricalRewards names it; other
	// ids are left out.
	RewardTypes(ctx context.Context, utxoIDs []ids.ID) (map[ids.ID]string, error)
}

// RewardQuery selects rewards: those owned by any of Addresses, or paid to
// stakers of any of NodeIDs; both given, those that are both.
type RewardQuery struct {
	Addresses []ids.ShortID
	NodeIDs   []ids.NodeID
	Desc      bool
}

// RewardKey is a reward's position: its staker's end time and its UTXO id.
type RewardKey struct {
	EndTime uint64
	UTXOID  ids.ID
}

// HistoricalReward is one reward UTXO and the staker it paid.
type HistoricalReward struct {
	UTXOID      ids.ID
	OutputIndex uint32
	// Type is internal.RewardValidator, RewardDelegator or
	// RewardValidatorFee.
	Type    string
	AssetID ids.ID
	Amount  uint64
	// Owners are the reward UTXO's owners, in byte order.
	Owners []ids.ShortID
	// RewardTxID is the RewardValidatorTx that paid it, Time its block's
	// time (unix seconds; 0 before Banff).
	RewardTxID ids.ID
	Time       int64
	// The staker: the tx that added it, its node, stake and period.
	StakerTxID         ids.ID
	NodeID             ids.NodeID
	Weight             uint64
	StartTime, EndTime uint64
}

// Key returns the reward's position.
func (r *HistoricalReward) Key() RewardKey { return RewardKey{EndTime: r.EndTime, UTXOID: r.UTXOID} }

// StakerPeriods returns the node and end time of those of stakers that are
// stored (p_stakers).
func (t *PTx) StakerPeriods(ctx context.Context, stakers []ids.ID) (map[ids.ID]internal.StakerPeriod, error) {
	known := map[ids.ID]internal.StakerPeriod{}
	err := idChunksOf(stakers, readInList, func(args []any, in string) error {
		return t.db.RunQuery(ctx, "SELECT tx_id, node_id, end_time FROM p_stakers WHERE tx_id IN "+in, func(r *sql.Rows) error {
			var (
				id, node []byte
				end      int64
			)
			if err := r.Scan(&id, &node, &end); err != nil {
				return err
			}
			txID, err := ids.ToID(id)
			if err != nil {
				return err
			}
			nodeID, err := ids.ToNodeID(node)
			if err != nil {
				return fmt.Errorf("staker %s's node id: %w", txID, err)
			}
			known[txID] = internal.StakerPeriod{NodeID: nodeID, EndTime: uint64(end)}
			return nil
		}, args...)
	})
	return known, err
}

// WriteRewardHistory writes the historical rewards (p_historical_rewards)
// and their owners, keyed by their stakers' end time.
func (t *PTx) WriteRewardHistory(ctx context.Context, rewards []internal.PaidReward) error {
	var rows, owners [][]any
	for _, r := range rewards {
		id := r.UTXO.ID()
		end := u64(r.EndTime)
		rows = append(rows, []any{id[:], r.Staker[:], r.NodeID.Bytes(), end})
		for _, a := range r.UTXO.Owners.Addrs {
			owners = append(owners, []any{a[:], end, id[:]})
		}
	}
	if err := t.db.Append(ctx, "p_historical_rewards", []string{"utxo_id", "staker_tx_id", "node_id", "end_time"},
		rows, onConflictDoNothing); err != nil {
		return err
	}
	return t.db.Append(ctx, "p_historical_reward_owners", []string{"address", "end_time", "utxo_id"}, owners, onConflictDoNothing)
}

func (s *sqlStore) HistoricalRewards(ctx context.Context, q RewardQuery, after *RewardKey, limit int) (_ []*HistoricalReward, err error) {
	defer derrors.Wrap(&err, "store.HistoricalRewards(%d addresses, %d nodes)", len(q.Addresses), len(q.NodeIDs))
	if len(q.Addresses)+len(q.NodeIDs) == 0 || limit <= 0 {
		return nil, derrors.Invalid("historical rewards need addresses or node ids and a positive limit")
	}
	scan := q.scan()
	var from *mergeKey
	if after != nil {
		if after.EndTime > math.MaxInt64 {
			return nil, derrors.Invalid("reward key %d out of range", after.EndTime)
		}
		from = &mergeKey{key: int64(after.EndTime), id: after.UTXOID[:]}
	}
	var out []*HistoricalReward
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		keys, err := scan.run(ctx, tx, from, limit, acceptAll)
		if err != nil || len(keys) == 0 {
			return err
		}
		out, err = historicalRewards(ctx, tx, keys)
		return err
	})
	return out, err
}

// scan is q's merged scan: one arm per address over the owners' index,
// or else one per node over the nodes'.
func (q RewardQuery) scan() *mergeScan {
	nodes := slices.Clone(q.NodeIDs)
	slices.SortFunc(nodes, func(a, b ids.NodeID) int { return a.Compare(b) })
	nodes = slices.Compact(nodes)
	if len(q.Addresses) == 0 {
		scan := &mergeScan{table: "p_historical_rewards", key: "end_time", id: "utxo_id", extra: "0", desc: q.Desc,
			armCols: []string{"node_id"}, armTypes: []string{"BYTEA"}}
		for _, n := range nodes {
			scan.arms = append(scan.arms, []any{n[:]})
		}
		return scan
	}
	scan := &mergeScan{table: "p_historical_reward_owners", key: "end_time", id: "utxo_id", extra: "0", desc: q.Desc,
		armCols: []string{"address"}, armTypes: []string{"BYTEA"}}
	for _, a := range sortedAddresses(q.Addresses) {
		scan.arms = append(scan.arms, []any{a[:]})
	}
	if len(nodes) > 0 {
		scan.filter = []string{`EXISTS (SELECT 1 FROM p_historical_rewards r WHERE r.utxo_id = p_historical_reward_owners.utxo_id
			AND r.node_id IN (?` + strings.Repeat(", ?", len(nodes)-1) + `))`}
		for _, n := range nodes {
			scan.filterArgs = append(scan.filterArgs, n[:])
		}
	}
	return scan
}

// rewardStaker is what a reward's type and record need of its staker.
type rewardStaker struct {
	kind                      internal.StakerKind
	subnet, node              []byte
	weight, start, end, added int64
	committed, potential      sql.NullInt64
	// siblings are the staker's reward UTXOs, in output index order.
	siblings []ids.ID
	shares   *uint32
}

// historicalRewards reads the rewards of keys, in keys' order.
func historicalRewards(ctx context.Context, tx *database.DB, keys []mergedRow) ([]*HistoricalReward, error) {
	want := make([]ids.ID, len(keys))
	for i, k := range keys {
		id, err := ids.ToID(k.id)
		if err != nil {
			return nil, err
		}
		want[i] = id
	}
	byID := make(map[ids.ID]*HistoricalReward, len(keys))
	stakers := map[ids.ID]*rewardStaker{}
	// The reward UTXOs, then their stakers: a join would do, but
	// PostgreSQL may hash it over every staker.
	err := idChunksOf(want, readInList, func(args []any, in string) error {
		return tx.RunPrepared(ctx, `SELECT id, tx_id, output_index, asset_id, amount, created_tx_id, created_time
			FROM p_utxos WHERE id IN `+in, func(r *sql.Rows) error {
			var (
				id, txID, asset, created []byte
				oi, amount               int64
				h                        HistoricalReward
			)
			if err := r.Scan(&id, &txID, &oi, &asset, &amount, &created, &h.Time); err != nil {
				return err
			}
			var err error
			for _, f := range []struct {
				dst *ids.ID
				src []byte
			}{{&h.UTXOID, id}, {&h.StakerTxID, txID}, {&h.AssetID, asset}, {&h.RewardTxID, created}} {
				if *f.dst, err = ids.ToID(f.src); err != nil {
					return err
				}
			}
			h.OutputIndex, h.Amount = uint32(oi), uint64(amount)
			byID[h.UTXOID] = &h
			stakers[h.StakerTxID] = nil
			return nil
		}, args...)
	})
	if err != nil {
		return nil, err
	}
	txIDs := make([]ids.ID, 0, len(stakers))
	for id := range stakers {
		txIDs = append(txIDs, id)
	}
	if stakers, err = rewardStakers(ctx, tx, txIDs); err != nil {
		return nil, err
	}
	for _, h := range byID {
		st := stakers[h.StakerTxID]
		if st == nil {
			return nil, fmt.Errorf("reward UTXO %s: its staker %s is not stored", h.UTXOID, h.StakerTxID)
		}
		var err error
		if h.NodeID, err = ids.ToNodeID(st.node); err != nil {
			return nil, err
		}
		h.Weight, h.StartTime, h.EndTime = uint64(st.weight), uint64(st.start), uint64(st.end)
	}
	err = listedOwners(ctx, tx, internal.PChain, want, func(id ids.ID, a ids.ShortID) {
		if h := byID[id]; h != nil {
			h.Owners = append(h.Owners, a)
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]*HistoricalReward, len(want))
	for i, id := range want {
		h := byID[id]
		if h == nil {
			return nil, fmt.Errorf("historical reward %s has no reward UTXO or staker", id)
		}
		h.Type = stakers[h.StakerTxID].rewardType(id)
		slices.SortFunc(h.Owners, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
		out[i] = h
	}
	return out, nil
}

// rewardStakers reads the stakers txIDs (those stored) with what their
// reward UTXOs' types depend on.
func rewardStakers(ctx context.Context, tx *database.DB, txIDs []ids.ID) (map[ids.ID]*rewardStaker, error) {
	stakers := map[ids.ID]*rewardStaker{}
	err := idChunksOf(txIDs, readInList, func(args []any, in string) error {
		return tx.RunPrepared(ctx, `SELECT tx_id, kind, subnet_id, node_id, weight, start_time, end_time, added_height,
				reward_committed, potential_reward FROM p_stakers WHERE tx_id IN `+in, func(r *sql.Rows) error {
			var (
				id   []byte
				kind string
				st   rewardStaker
			)
			if err := r.Scan(&id, &kind, &st.subnet, &st.node, &st.weight, &st.start, &st.end, &st.added,
				&st.committed, &st.potential); err != nil {
				return err
			}
			txID, err := ids.ToID(id)
			if err != nil {
				return err
			}
			st.kind = internal.StakerKind(kind)
			stakers[txID] = &st
			return nil
		}, args...)
	})
	if err != nil {
		return nil, err
	}
	if err := rewardSiblings(ctx, tx, stakers); err != nil {
		return nil, err
	}
	if err := delegationShares(ctx, tx, stakers); err != nil {
		return nil, err
	}
	return stakers, nil
}

// rewardType is the type of st's reward UTXO id, one of st.siblings.
func (st *rewardStaker) rewardType(id ids.ID) string {
	f := internal.RewardFacts{
		Kind: st.kind,
		// Not decided yet in the store (its option block is in the next
		// batch): the node paid what it reported, committed.
		Committed: !st.committed.Valid || st.committed.Int64 == 1,
		N:         len(st.siblings),
		Shares:    st.shares,
	}
	if st.potential.Valid {
		p := uint64(st.potential.Int64)
		f.PotentialReward = &p
	}
	if pos := slices.Index(st.siblings, id); pos >= 0 {
		return internal.RewardTypes(f)[pos]
	}
	return ""
}

func (s *sqlStore) RewardTypes(ctx context.Context, utxoIDs []ids.ID) (_ map[ids.ID]string, err error) {
	defer derrors.Wrap(&err, "store.RewardTypes(%d UTXOs)", len(utxoIDs))
	out := map[ids.ID]string{}
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		staker := map[ids.ID]ids.ID{}
		var txIDs []ids.ID
		err := idChunksOf(utxoIDs, readInList, func(args []any, in string) error {
			return tx.RunPrepared(ctx, "SELECT id, tx_id FROM p_utxos WHERE id IN "+in+" AND kind = 'reward'", func(r *sql.Rows) error {
				var id, txID []byte
				if err := r.Scan(&id, &txID); err != nil {
					return err
				}
				uid, err := ids.ToID(id)
				if err != nil {
					return err
				}
				if staker[uid], err = ids.ToID(txID); err != nil {
					return err
				}
				txIDs = append(txIDs, staker[uid])
				return nil
			}, args...)
		})
		if err != nil || len(txIDs) == 0 {
			return err
		}
		slices.SortFunc(txIDs, ids.ID.Compare)
		stakers, err := rewardStakers(ctx, tx, slices.Compact(txIDs))
		if err != nil {
			return err
		}
		for uid, sid := range staker {
			if st := stakers[sid]; st != nil {
				if t := st.rewardType(uid); t != "" {
					out[uid] = t
				}
			}
		}
		return nil
	})
	return out, err
}

// rewardSiblings sets each staker's reward UTXOs.
func rewardSiblings(ctx context.Context, tx *database.DB, stakers map[ids.ID]*rewardStaker) error {
	txIDs := make([]ids.ID, 0, len(stakers))
	for id := range stakers {
		txIDs = append(txIDs, id)
	}
	return idChunksOf(txIDs, readInList, func(args []any, in string) error {
		return tx.RunPrepared(ctx, "SELECT tx_id, id FROM p_utxos WHERE tx_id IN "+in+" AND kind = 'reward' ORDER BY tx_id, output_index",
			func(r *sql.Rows) error {
				var txID, id []byte
				if err := r.Scan(&txID, &id); err != nil {
					return err
				}
				st, err := ids.ToID(txID)
				if err != nil {
					return err
				}
				u, err := ids.ToID(id)
				if err != nil {
					return err
				}
				stakers[st].siblings = append(stakers[st].siblings, u)
				return nil
			}, args...)
	})
}

// delegationShares sets, for delegators with a single reward UTXO (the
// only ones whose type depends on it), their validator's delegation
// shares: those of the last validator of their subnet and node added
// before them.
func delegationShares(ctx context.Context, tx *database.DB, stakers map[ids.ID]*rewardStaker) error {
	var (
		nodes []any
		seen  = map[string]bool{}
	)
	for _, st := range stakers {
		if st.kind == internal.StakerDelegator && len(st.siblings) == 1 && !seen[string(st.node)] {
			seen[string(st.node)] = true
			nodes = append(nodes, st.node)
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	type validator struct {
		subnet, node []byte
		added        int64
		shares       uint32
	}
	var vs []validator
	for start := 0; start < len(nodes); start += maxInList {
		chunk := nodes[start:min(len(nodes), start+maxInList)]
		err := tx.RunPrepared(ctx, `SELECT subnet_id, node_id, added_height, delegation_shares FROM p_stakers
			WHERE kind = ? AND node_id IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`, func(r *sql.Rows) error {
			var v validator
			if err := r.Scan(&v.subnet, &v.node, &v.added, &v.shares); err != nil {
				return err
			}
			vs = append(vs, v)
			return nil
		}, append([]any{string(internal.StakerValidator)}, chunk...)...)
		if err != nil {
			return err
		}
	}
	for _, st := range stakers {
		if st.kind != internal.StakerDelegator || len(st.siblings) != 1 {
			continue
		}
		best := int64(-1)
		for _, v := range vs {
			if bytes.Equal(v.subnet, st.subnet) && bytes.Equal(v.node, st.node) && v.added <= st.added && v.added > best {
				best = v.added
				sh := v.shares
				st.shares = &sh
			}
		}
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// RewardState returns the reward replay's state (staking.Writer).
func (t *PTx) RewardState(ctx context.Context) (*internal.RewardState, error) {
	return loadRewards(ctx, t.db)
}

// RewardBook is the staking records as the reward replay reads and
// records them, in the batch's transaction.
func (t *PTx) RewardBook(ctx context.Context) internal.RewardBook {
	return &rewardBook{ctx: ctx, tx: t.db}
}

// WriteRewards writes the reward state s, the subnets whose supply
// changes changed, and the supply history.
func (t *PTx) WriteRewards(ctx context.Context, s *internal.RewardState, changes []internal.SupplyChange) error {
	if err := saveRewards(ctx, t.db, s, changes); err != nil {
		return err
	}
	rows := make([][]any, len(changes))
	for i, c := range changes {
		rows[i] = []any{c.SubnetID[:], u64(c.Height), u64(c.Supply)}
	}
	return t.db.Append(ctx, "p_supply_history", []string{"subnet_id", "height", "supply"}, rows, onConflictDoNothing)
}

func loadRewards(ctx context.Context, tx *database.DB) (*internal.RewardState, error) {
	s := internal.NewRewardState()
	var complete, next, t, pending int64
	err := tx.QueryRow(ctx, "SELECT complete, next_height, chain_time, next_pending FROM p_reward_state WHERE id = 1").
		Scan(&complete, &next, &t, &pending)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, nil
	case err != nil:
		return nil, err
	}
	s.Complete, s.Next, s.Time, s.NextPending = complete == 1, uint64(next), uint64(t), uint64(pending)
	err = tx.RunQuery(ctx, `SELECT subnet_id, supply, max_consumption_rate, min_consumption_rate, minting_period, supply_cap
		FROM p_reward_subnets`, func(rows *sql.Rows) error {
		var (
			id                                  []byte
			supply, maxRate, minRate, period, c int64
		)
		if err := rows.Scan(&id, &supply, &maxRate, &minRate, &period, &c); err != nil {
			return err
		}
		subnet, err := ids.ToID(id)
		if err != nil {
			return err
		}
		s.Subnets[subnet] = &internal.SubnetRewards{Supply: uint64(supply), Config: reward.Config{
			MaxConsumptionRate: uint64(maxRate), MinConsumptionRate: uint64(minRate),
			MintingPeriod: time.Duration(period) * time.Second, SupplyCap: uint64(c),
		}}
		return nil
	})
	return s, err
}

// saveRewards writes the state and the subnets whose supply changed.
func saveRewards(ctx context.Context, tx *database.DB, s *internal.RewardState, changes []internal.SupplyChange) error {
	complete := int64(0)
	if s.Complete {
		complete = 1
	}
	if _, err := tx.Exec(ctx, `INSERT INTO p_reward_state (id, complete, next_height, chain_time, next_pending)
		VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET complete = excluded.complete,
			next_height = excluded.next_height, chain_time = excluded.chain_time, next_pending = excluded.next_pending`,
		complete, u64(s.Next), u64(s.Time), u64(s.NextPending)); err != nil {
		return err
	}
	done := map[ids.ID]bool{}
	for _, c := range changes {
		if done[c.SubnetID] {
			continue
		}
		done[c.SubnetID] = true
		sub := s.Subnets[c.SubnetID]
		if _, err := tx.Exec(ctx, `INSERT INTO p_reward_subnets (subnet_id, supply, max_consumption_rate,
				min_consumption_rate, minting_period, supply_cap) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (subnet_id) DO UPDATE SET supply = excluded.supply,
				max_consumption_rate = excluded.max_consumption_rate, min_consumption_rate = excluded.min_consumption_rate,
				minting_period = excluded.minting_period, supply_cap = excluded.supply_cap`,
			c.SubnetID[:], u64(sub.Supply), u64(sub.Config.MaxConsumptionRate), u64(sub.Config.MinConsumptionRate),
			int64(sub.Config.MintingPeriod/time.Second), u64(sub.Config.SupplyCap)); err != nil {
			return err
		}
	}
	return nil
}

// rewardBook is internal.RewardBook over the staking records, inside the
// batch's transaction.
type rewardBook struct {
	ctx context.Context
	tx  *database.DB
}

// rewardedKinds are the staker kinds that earn rewards.
const rewardedKinds = "('" + string(internal.StakerValidator) + "', '" + string(internal.StakerDelegator) + "')"

func (b *rewardBook) Pending(t, height uint64) ([]internal.Staker, error) {
	var out []internal.Staker
	err := b.tx.RunQuery(b.ctx, `SELECT tx_id, tx_type, kind, subnet_id, node_id, weight, start_time, end_time, added_height
		FROM p_stakers WHERE potential_reward IS NULL AND kind IN `+rewardedKinds+` AND start_time <= ? AND added_height < ?`,
		func(rows *sql.Rows) error {
			var (
				st                   internal.Staker
				id, subnet, node     []byte
				kind                 string
				w, start, end, added int64
			)
			if err := rows.Scan(&id, &st.TxType, &kind, &subnet, &node, &w, &start, &end, &added); err != nil {
				return err
			}
			var err error
			if st.TxID, err = ids.ToID(id); err != nil {
				return err
			}
			if st.SubnetID, err = ids.ToID(subnet); err != nil {
				return err
			}
			if st.NodeID, err = ids.ToNodeID(node); err != nil {
				return err
			}
			st.Kind, st.Weight, st.StartTime, st.TxStartTime = internal.StakerKind(kind), uint64(w), uint64(start), uint64(start)
			st.EndTime, st.Height = uint64(end), uint64(added)
			out = append(out, st)
			return nil
		}, u64(t), u64(height))
	return out, err
}

func (b *rewardBook) NextPendingStart(height uint64) (uint64, error) {
	var t sql.NullInt64
	err := b.tx.QueryRow(b.ctx, `SELECT MIN(start_time) FROM p_stakers
		WHERE potential_reward IS NULL AND kind IN `+rewardedKinds+` AND added_height < ?`, u64(height)).Scan(&t)
	return uint64(t.Int64), err
}

func (b *rewardBook) Staker(txID ids.ID) (*internal.RewardedStaker, error) {
	var (
		st               internal.RewardedStaker
		subnet, node     []byte
		kind             string
		potential        sql.NullInt64
		start, shares, w int64
	)
	err := b.tx.QueryRow(b.ctx, `SELECT kind, subnet_id, node_id, weight, start_time, delegation_shares, potential_reward
		FROM p_stakers WHERE tx_id = ?`, txID[:]).Scan(&kind, &subnet, &node, &w, &start, &shares, &potential)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, derrors.NotFound
	case err != nil:
		return nil, err
	case !potential.Valid:
		return nil, fmt.Errorf("staker %s was never current", txID)
	}
	st.TxID, st.Kind, st.Weight, st.StartTime = txID, internal.StakerKind(kind), uint64(w), uint64(start)
	st.DelegationShares, st.PotentialReward = uint32(shares), uint64(potential.Int64)
	if st.SubnetID, err = ids.ToID(subnet); err != nil {
		return nil, err
	}
	if st.NodeID, err = ids.ToNodeID(node); err != nil {
		return nil, err
	}
	return &st, nil
}

func (b *rewardBook) Validator(subnetID ids.ID, nodeID ids.NodeID, height uint64) (*internal.Staker, error) {
	var (
		id            []byte
		start, shares int64
	)
	err := b.tx.QueryRow(b.ctx, `SELECT tx_id, start_time, delegation_shares FROM p_stakers
		WHERE subnet_id = ? AND node_id = ? AND kind = ? AND added_height < ?
		  AND (removed_height IS NULL OR removed_height > ?)
		ORDER BY added_height DESC LIMIT 1`,
		subnetID[:], nodeID[:], string(internal.StakerValidator), u64(height), u64(height)).Scan(&id, &start, &shares)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, derrors.NotFound
	case err != nil:
		return nil, err
	}
	st := &internal.Staker{SubnetID: subnetID, NodeID: nodeID, StartTime: uint64(start), DelegationShares: uint32(shares)}
	if st.TxID, err = ids.ToID(id); err != nil {
		return nil, err
	}
	return st, nil
}

func (b *rewardBook) SetPotentialReward(txID ids.ID, r uint64) error {
	_, err := b.tx.Exec(b.ctx, "UPDATE p_stakers SET potential_reward = ? WHERE tx_id = ?", u64(r), txID[:])
	return err
}

func (b *rewardBook) AddDelegateeReward(txID ids.ID, r uint64) error {
	_, err := b.tx.Exec(b.ctx, "UPDATE p_stakers SET delegatee_reward = delegatee_reward + ? WHERE tx_id = ?", u64(r), txID[:])
	return err
}

// replayedSupply returns the replayed supply of subnetID after the last
// indexed block; ok is false when the replay is not complete or the
// subnet mints no rewards.
func replayedSupply(ctx context.Context, db *database.DB, subnetID ids.ID) (supply uint64, ok bool, err error) {
	var complete int64
	err = db.QueryRow(ctx, "SELECT complete FROM p_reward_state WHERE id = 1").Scan(&complete)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case complete != 1:
		return 0, false, nil
	}
	var v int64
	err = db.QueryRow(ctx, "SELECT supply FROM p_reward_subnets WHERE subnet_id = ?", subnetID[:]).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return uint64(v), true, nil
}

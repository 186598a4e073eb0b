package store

import (
	"context"
	"database/sql"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// StakingInterval is a staker's time on a subnet's validator set, for the
// staking metrics (getStakingMetrics).
type StakingInterval struct {
	// Start and End bound it (unix seconds): from its start to its end
	// time, or, for a permissioned validator a RemoveSubnetValidatorTx
	// removed before its end, to that tx's block.
	Start, End int64
	Weight     uint64
	Delegator  bool
}

// stakingIntervalsQuery reads the stakers of a subnet (p_stakers, whose
// subnet index it uses) on its set at some time of [from, to].
const stakingIntervalsQuery = `SELECT s.start_time,
	CASE WHEN s.kind = 'subnet_validator' AND b.timestamp > 0 AND b.timestamp < s.end_time THEN b.timestamp ELSE s.end_time END AS until,
	s.weight, s.kind
	FROM p_stakers s LEFT JOIN p_blocks b ON b.height = s.removed_height
	WHERE s.subnet_id = ? AND s.start_time <= ? AND s.end_time > ?`

// StakingIntervals returns the subnet's stakers on its set at some time of
// [from, to], and the first start of any of its stakers (0 when it has
// none). The L1 validators of a converted subnet are not stakers.
func (s *sqlStore) StakingIntervals(ctx context.Context, subnetID ids.ID, from, to int64) (_ []StakingInterval, first int64, err error) {
	defer derrors.Wrap(&err, "store.StakingIntervals(%s, %d, %d)", subnetID, from, to)
	var out []StakingInterval
	err = s.db.RunPrepared(ctx, stakingIntervalsQuery, func(rows *sql.Rows) error {
		var (
			iv     StakingInterval
			weight int64
			kind   string
		)
		if err := rows.Scan(&iv.Start, &iv.End, &weight, &kind); err != nil {
			return err
		}
		if iv.End <= from {
			return nil // removed before the range
		}
		iv.Weight, iv.Delegator = uint64(weight), kind == "delegator"
		out = append(out, iv)
		return nil
	}, subnetID[:], to, from)
	if err != nil {
		return nil, 0, err
	}
	var min sql.NullInt64
	err = s.db.RunPrepared(ctx, "SELECT MIN(start_time) FROM p_stakers WHERE subnet_id = ?", func(rows *sql.Rows) error {
		return rows.Scan(&min)
	}, subnetID[:])
	return out, min.Int64, err
}

// ValidatorRewardAddresses is a primary-network or permissionless
// validator and the addresses its validation reward goes to
// (getValidatorsByDateRange).
type ValidatorRewardAddresses struct {
	// Start is when it was added: the AddValidatorTx's acceptance since
	// Durango, its start time before.
	Start     int64
	Addresses []ids.ShortID
}

// ValidatorRewardOwners returns the subnet's validators with a reward
// owner whose validation period meets [from, to], by start then tx id,
// from the offset-th on, at most limit.
func (s *sqlStore) ValidatorRewardOwners(ctx context.Context, subnetID ids.ID, from, to int64, offset, limit int) (_ []ValidatorRewardAddresses, err error) {
	defer derrors.Wrap(&err, "store.ValidatorRewardOwners(%s, %d, %d)", subnetID, from, to)
	var out []ValidatorRewardAddresses
	err = s.db.RunPrepared(ctx, `SELECT s.start_time, o.addresses FROM p_stakers s
		JOIN p_staker_owners o ON o.tx_id = s.tx_id AND o.role IN ('`+roleValidationReward+`', '`+roleReward+`')
		WHERE s.subnet_id = ? AND s.kind = 'validator' AND s.start_time <= ? AND s.end_time >= ?
		ORDER BY s.start_time, s.tx_id LIMIT ? OFFSET ?`, func(rows *sql.Rows) error {
		var (
			v     ValidatorRewardAddresses
			addrs []byte
		)
		if err := rows.Scan(&v.Start, &addrs); err != nil {
			return err
		}
		if v.Addresses, err = unpackAddrs(addrs); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, subnetID[:], to, from, limit, offset)
	return out, err
}

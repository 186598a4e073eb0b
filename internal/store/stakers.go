package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// StakerStore keeps the staking records derived from P-chain transactions
// and the genesis: every validator and delegator of the primary network
// and of subnets, and every L1 validator, with the whole of their lives.
type StakerStore interface {
	// CurrentStakers returns the validators and delegators of subnetID that
	// are current at the last indexed block, in the node's order, and, if
	// the subnet is an L1, its current L1 validators.
	CurrentStakers(ctx context.Context, subnetID ids.ID) (*CurrentStakers, error)
	// Staker returns the staker added by txID, current or not.
	Staker(ctx context.Context, txID ids.ID) (*StakerRecord, error)
	// L1Validator returns the L1 validator validationID, current or not.
	L1Validator(ctx context.Context, validationID ids.ID) (*internal.L1Validator, error)
	// StakersAt returns the validators and delegators of subnetID that
	// were current after the block at height was accepted (not L1
	// validators), in no particular order. As on the node, a proposal
	// block's changes show from the option block after it.
	StakersAt(ctx context.Context, subnetID ids.ID, height uint64) ([]*StakerRecord, error)
	// L1ValidatorsAt returns the L1 validators of subnetID after the block
	// at height was accepted (a proposal block's changes from the option
	// block after it), those removed left out, by validation id.
	// complete is false when the L1 fee history (which tells when a
	// balance ran out) lacks one of them: the store cannot tell which are
	// active.
	L1ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) (vdrs []*L1ValidatorAt, complete bool, err error)
}

// L1ValidatorAt is an L1 validator as a validator set at a height holds
// it.
type L1ValidatorAt struct {
	ValidationID ids.ID
	NodeID       ids.NodeID
	PublicKey    []byte // compressed
	Weight       uint64
	// Active is false while it is disabled or its balance has run out.
	Active bool
}

// StakerRecord is a staker and how it ended.
type StakerRecord struct {
	internal.Staker
	// RemovedTxID is the RewardValidatorTx or RemoveSubnetValidatorTx that
	// removed it, ids.Empty while it has not been removed by a tx.
	RemovedTxID   ids.ID
	RemovedHeight uint64
	// RewardCommitted is set for stakers a RewardValidatorTx removed: true
	// when the reward was committed.
	RewardCommitted *bool
	// PotentialReward is the reward the staker was promised when it became
	// current, nil while it is not known (pending, a permissioned
	// validator, or a store whose reward replay is not complete).
	PotentialReward *uint64
	// DelegateeReward is the delegation fee a validator has accrued from
	// its delegators' rewards.
	DelegateeReward uint64
}

// CurrentStakers is a subnet's current validator set as the store knows it.
type CurrentStakers struct {
	// Height is the last indexed block; ChainTime its timestamp (zero for
	// a pre-Banff block).
	Height    uint64
	ChainTime time.Time
	// L1 is true when the subnet was converted to an L1.
	L1 bool
	// Stakers are the current validators and delegators, ordered as the
	// node's current-staker set: by end time, then priority, then tx id.
	Stakers []*StakerRecord
	// L1Validators are the L1 validators not removed, ordered by node id.
	L1Validators []*internal.L1Validator
}

var (
	pStakerColumns = []string{"tx_id", "tx_type", "kind", "priority", "subnet_id", "node_id", "weight",
		"start_time", "tx_start_time", "end_time", "delegation_shares", "bls_public_key", "bls_pop",
		"added_height", "added_idx"}
	pStakerOwnerColumns = []string{"tx_id", "role", "locktime", "threshold", "addresses"}
	pL1EventColumns     = []string{"tx_id", "validation_id", "height", "idx", "kind", "chain_time",
		"subnet_id", "node_id", "public_key", "weight", "nonce", "balance"}
	pL1OwnerColumns = []string{"validation_id", "role", "threshold", "addresses"}
)

// Owner roles in p_staker_owners and p_l1_validator_owners.
const (
	roleValidationReward = "validation_reward"
	roleDelegationReward = "delegation_reward"
	roleReward           = "reward"
	roleRemainingBalance = "remaining_balance"
	roleDeactivation     = "deactivation"
)

// Network returns the stored network (staking.Writer); ok is false in a
// store that holds none.
func (t *PTx) Network(ctx context.Context) (*internal.Network, bool, error) {
	return t.network(ctx)
}

// WriteStakers writes the staking records of ch: the stakers with their
// reward owners and address lists, the ends of those it removes, and the
// L1 validators' events with their owners (the derivation folds them:
// WriteL1Validator). It is idempotent: rows are inserted with ON
// CONFLICT DO NOTHING and removals set the same values again.
func (t *PTx) WriteStakers(ctx context.Context, ch *internal.StakingChanges) error {
	tx := t.db
	var stakerRows, ownerRows [][]any
	for i := range ch.Stakers {
		s := &ch.Stakers[i]
		stakerRows = append(stakerRows, []any{
			s.TxID[:], s.TxType, string(s.Kind), int64(s.Priority), s.SubnetID[:], s.NodeID[:], u64(s.Weight),
			u64(s.StartTime), u64(s.TxStartTime), u64(s.EndTime), int64(s.DelegationShares),
			nullBytes(s.PublicKey), nullBytes(s.ProofOfPossession), u64(s.Height), int64(s.Index),
		})
		for _, o := range []struct {
			role  string
			owner *internal.StakerOwner
		}{
			{roleValidationReward, s.ValidationRewardOwner},
			{roleDelegationReward, s.DelegationRewardOwner},
			{roleReward, s.RewardOwner},
		} {
			if o.owner != nil {
				ownerRows = append(ownerRows, []any{s.TxID[:], o.role, u64(o.owner.Locktime), int64(o.owner.Threshold), packAddrs(o.owner.Addresses)})
			}
		}
	}
	if err := tx.Append(ctx, "p_stakers", pStakerColumns, stakerRows, onConflictDoNothing); err != nil {
		return err
	}
	if err := tx.Append(ctx, "p_staker_owners", pStakerOwnerColumns, ownerRows, onConflictDoNothing); err != nil {
		return err
	}

	for _, e := range ch.Ends {
		committed := int64(0)
		if e.Committed {
			committed = 1
		}
		// A staker of an unknown genesis is not stored: nothing to update.
		if _, err := tx.Exec(ctx, `UPDATE p_stakers SET removed_tx_id = ?, removed_height = ?, reward_committed = ?
			WHERE tx_id = ?`, e.TxID[:], u64(e.Height), committed, e.StakerTxID[:]); err != nil {
			return err
		}
	}

	for _, r := range ch.SubnetRemovals {
		var n int64
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM p_stakers WHERE removed_tx_id = ?", r.TxID[:]).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue // applied already
		}
		// The validator it removes is the last one of the pair added before it.
		if _, err := tx.Exec(ctx, `UPDATE p_stakers SET removed_tx_id = ?, removed_height = ?
			WHERE tx_id = (SELECT tx_id FROM p_stakers
				WHERE subnet_id = ? AND node_id = ? AND kind = ? AND removed_tx_id IS NULL
				  AND (added_height < ? OR (added_height = ? AND added_idx < ?))
				ORDER BY added_height DESC, added_idx DESC LIMIT 1)`,
			r.TxID[:], u64(r.Height), r.SubnetID[:], r.NodeID[:], string(internal.StakerSubnetValidator),
			u64(r.Height), u64(r.Height), int64(r.Index)); err != nil {
			return err
		}
	}

	if err := writeL1Events(ctx, tx, ch.L1Events); err != nil {
		return err
	}
	if h := t.history; h != nil {
		h.stakers = append(h.stakers, ch.Stakers...)
	}
	return writeStakerAddresses(ctx, tx, ch)
}

// writeL1Events writes the L1 validators' events with their owners.
func writeL1Events(ctx context.Context, tx *database.DB, events []internal.L1Event) error {
	var eventRows, l1OwnerRows [][]any
	for i := range events {
		e := &events[i]
		var subnet, node []byte
		if e.Kind == internal.L1Convert || e.Kind == internal.L1Register {
			subnet, node = e.SubnetID[:], e.NodeID[:]
			for _, o := range []struct {
				role  string
				owner *internal.StakerOwner
			}{{roleRemainingBalance, e.RemainingBalanceOwner}, {roleDeactivation, e.DeactivationOwner}} {
				if o.owner != nil {
					l1OwnerRows = append(l1OwnerRows, []any{e.ValidationID[:], o.role, int64(o.owner.Threshold), packAddrs(o.owner.Addresses)})
				}
			}
		}
		eventRows = append(eventRows, []any{
			e.TxID[:], e.ValidationID[:], u64(e.Height), int64(e.Index), string(e.Kind), u64(e.Time),
			subnet, node, nullBytes(e.PublicKey), u64(e.Weight), u64(e.Nonce), u64(e.Balance),
		})
	}
	if err := tx.Append(ctx, "p_l1_validator_events", pL1EventColumns, eventRows, onConflictDoNothing); err != nil {
		return err
	}
	return tx.Append(ctx, "p_l1_validator_owners", pL1OwnerColumns, l1OwnerRows, onConflictDoNothing)
}

// L1Events returns the stored events of the L1 validator vid, in chain
// order.
func (t *PTx) L1Events(ctx context.Context, vid ids.ID) ([]internal.L1Event, error) {
	return l1Events(ctx, t.db, vid)
}

// WriteL1Validator writes v's state, replacing the one stored.
func (t *PTx) WriteL1Validator(ctx context.Context, v *internal.L1Validator) error {
	active := int64(0)
	if v.Active {
		active = 1
	}
	_, err := t.db.Exec(ctx, `INSERT INTO p_l1_validators (validation_id, subnet_id, node_id, public_key,
			start_time, weight, min_nonce, deposited_balance, active, added_tx_id, added_height,
			removed_tx_id, removed_height, disabled_tx_id, updated_height)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (validation_id) DO UPDATE SET weight = excluded.weight, min_nonce = excluded.min_nonce,
			deposited_balance = excluded.deposited_balance, active = excluded.active,
			removed_tx_id = excluded.removed_tx_id, removed_height = excluded.removed_height,
			disabled_tx_id = excluded.disabled_tx_id, updated_height = excluded.updated_height`,
		v.ValidationID[:], v.SubnetID[:], v.NodeID[:], nonNil(v.PublicKey),
		u64(v.StartTime), u64(v.Weight), u64(v.MinNonce), u64(v.DepositedBalance), active,
		v.AddedTxID[:], u64(v.AddedHeight), nullID(v.RemovedTxID), nullHeight(v.RemovedTxID, v.RemovedHeight),
		nullID(v.DisabledTxID), u64(v.UpdatedHeight))
	return err
}

func l1Events(ctx context.Context, db *database.DB, vid ids.ID) ([]internal.L1Event, error) {
	var out []internal.L1Event
	err := db.RunQuery(ctx, `SELECT tx_id, height, idx, kind, chain_time, subnet_id, node_id, public_key, weight, nonce, balance
		FROM p_l1_validator_events WHERE validation_id = ? ORDER BY height, idx`, func(rows *sql.Rows) error {
		var (
			e                          internal.L1Event
			txID, subnet, node, pubKey []byte
			h, idx, t, w, nonce, bal   int64
			kind                       string
		)
		if err := rows.Scan(&txID, &h, &idx, &kind, &t, &subnet, &node, &pubKey, &w, &nonce, &bal); err != nil {
			return err
		}
		e.ValidationID, e.Height, e.Index, e.Kind, e.Time = vid, uint64(h), int(idx), internal.L1EventKind(kind), uint64(t)
		e.Weight, e.Nonce, e.Balance, e.PublicKey = uint64(w), uint64(nonce), uint64(bal), pubKey
		var err error
		if e.TxID, err = ids.ToID(txID); err != nil {
			return err
		}
		if subnet != nil {
			if e.SubnetID, err = ids.ToID(subnet); err != nil {
				return err
			}
		}
		if node != nil {
			if e.NodeID, err = ids.ToNodeID(node); err != nil {
				return err
			}
		}
		out = append(out, e)
		return nil
	}, vid[:])
	return out, err
}

func (s *sqlStore) CurrentStakers(ctx context.Context, subnetID ids.ID) (_ *CurrentStakers, err error) {
	defer derrors.Wrap(&err, "store.CurrentStakers(%s)", subnetID)
	out := &CurrentStakers{}
	var h, ts int64
	err = s.db.QueryRow(ctx, "SELECT height, timestamp FROM p_blocks ORDER BY height DESC LIMIT 1").Scan(&h, &ts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return out, nil
	case err != nil:
		return nil, err
	}
	out.Height = uint64(h)
	if ts != 0 {
		out.ChainTime = time.Unix(ts, 0).UTC()
	}

	q := stakerSelect + " WHERE s.subnet_id = ? AND s.removed_tx_id IS NULL"
	args := []any{subnetID[:]}
	if ts != 0 {
		// Pending (pre-Durango) stakers are not current yet; PoA validators
		// leave the set when the chain time reaches their end time.
		q += " AND s.start_time <= ? AND (s.kind <> ? OR s.end_time > ?)"
		args = append(args, ts, string(internal.StakerSubnetValidator), ts)
	}
	if out.Stakers, err = s.queryStakers(ctx, q, args...); err != nil {
		return nil, err
	}
	sort.Slice(out.Stakers, func(i, j int) bool {
		a, b := out.Stakers[i], out.Stakers[j]
		if a.EndTime != b.EndTime {
			return a.EndTime < b.EndTime
		}
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		return bytes.Compare(a.TxID[:], b.TxID[:]) < 0
	})

	var n int64
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM p_l1_validator_events WHERE subnet_id = ? AND kind = ?",
		subnetID[:], string(internal.L1Convert)).Scan(&n); err != nil {
		return nil, err
	}
	out.L1 = n > 0
	if out.L1 {
		if out.L1Validators, err = s.queryL1(ctx, " WHERE v.subnet_id = ? AND v.removed_tx_id IS NULL", subnetID[:]); err != nil {
			return nil, err
		}
		sort.Slice(out.L1Validators, func(i, j int) bool {
			return bytes.Compare(out.L1Validators[i].NodeID[:], out.L1Validators[j].NodeID[:]) < 0
		})
	}
	return out, nil
}

func (s *sqlStore) StakersAt(ctx context.Context, subnetID ids.ID, height uint64) (_ []*StakerRecord, err error) {
	defer derrors.Wrap(&err, "store.StakersAt(%s, %d)", subnetID, height)
	height, ts, err := s.validatorStateAt(ctx, height)
	if err != nil {
		return nil, err
	}
	q := stakerSelect + ` WHERE s.subnet_id = ? AND s.added_height <= ?
		AND (s.removed_height IS NULL OR s.removed_height > ?)`
	args := []any{subnetID[:], u64(height), u64(height)}
	if ts != 0 {
		// As CurrentStakers, at the chain time of the block at height.
		q += " AND s.start_time <= ? AND (s.kind <> ? OR s.end_time > ?)"
		args = append(args, ts, string(internal.StakerSubnetValidator), ts)
	}
	return s.queryStakers(ctx, q, args...)
}

// validatorStateAt returns the height whose state the node's validator
// sets show at height, and that block's time (unix seconds; 0 for a block
// without one or not stored). The node writes what a proposal block changes
// (its time advance, its decision txs) with the option block deciding it,
// at the next height (platformvm's acceptor): at a proposal block's height
// its sets are the block before's.
func (s *sqlStore) validatorStateAt(ctx context.Context, height uint64) (uint64, int64, error) {
	var (
		typ string
		ts  int64
	)
	err := s.db.QueryRow(ctx, "SELECT type, timestamp FROM p_blocks WHERE height = ?", u64(height)).Scan(&typ, &ts)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return height, 0, nil
	case err != nil:
		return 0, 0, err
	case height == 0 || (typ != "BanffProposalBlock" && typ != "ApricotProposalBlock"):
		return height, ts, nil
	}
	return s.validatorStateAt(ctx, height-1)
}

func (s *sqlStore) L1ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) (_ []*L1ValidatorAt, _ bool, err error) {
	defer derrors.Wrap(&err, "store.L1ValidatorsAt(%s, %d)", subnetID, height)
	if height, _, err = s.validatorStateAt(ctx, height); err != nil {
		return nil, false, err
	}
	// The events give each validator's node, key and weight; the balance
	// changes, which the fee replay writes with the deactivations no tx
	// makes, whether it is active (a non-zero end point).
	var out []*L1ValidatorAt
	byID := map[ids.ID]*L1ValidatorAt{}
	err = s.db.RunQuery(ctx, `SELECT e.validation_id, e.kind, e.node_id, e.public_key, e.weight
		FROM p_l1_validator_events e JOIN p_l1_validators v ON v.validation_id = e.validation_id
		WHERE v.subnet_id = ? AND e.height <= ? ORDER BY e.validation_id, e.height, e.idx`, func(rows *sql.Rows) error {
		var (
			vidB, node, pk []byte
			kind           string
			w              int64
		)
		if err := rows.Scan(&vidB, &kind, &node, &pk, &w); err != nil {
			return err
		}
		vid, err := ids.ToID(vidB)
		if err != nil {
			return err
		}
		v := byID[vid]
		switch internal.L1EventKind(kind) {
		case internal.L1Convert, internal.L1Register:
			v = &L1ValidatorAt{ValidationID: vid, PublicKey: pk, Weight: uint64(w)}
			if v.NodeID, err = ids.ToNodeID(node); err != nil {
				return err
			}
			byID[vid] = v
			out = append(out, v)
		case internal.L1SetWeight:
			if v != nil {
				v.Weight = uint64(w)
			}
		}
		return nil
	}, subnetID[:], u64(height))
	if err != nil {
		return nil, false, err
	}
	seen := map[ids.ID]bool{}
	err = s.db.RunQuery(ctx, `SELECT c.validation_id, c.end_fee
		FROM p_l1_balance_changes c JOIN p_l1_validators v ON v.validation_id = c.validation_id
		WHERE v.subnet_id = ? AND c.height <= ? ORDER BY c.validation_id, c.height, c.idx`, func(rows *sql.Rows) error {
		var (
			vidB []byte
			end  int64
		)
		if err := rows.Scan(&vidB, &end); err != nil {
			return err
		}
		vid, err := ids.ToID(vidB)
		if err != nil {
			return err
		}
		if v := byID[vid]; v != nil {
			v.Active, seen[vid] = end != 0, true
		}
		return nil
	}, subnetID[:], u64(height))
	if err != nil {
		return nil, false, err
	}
	complete := true
	kept := out[:0]
	for _, v := range out {
		if !seen[v.ValidationID] {
			complete = false
		}
		if v.Weight != 0 {
			kept = append(kept, v)
		}
	}
	return kept, complete, nil
}

func (s *sqlStore) Staker(ctx context.Context, txID ids.ID) (_ *StakerRecord, err error) {
	defer derrors.Wrap(&err, "store.Staker(%s)", txID)
	rs, err := s.queryStakers(ctx, stakerSelect+" WHERE s.tx_id = ?", txID[:])
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, derrors.NotFound
	}
	return rs[0], nil
}

func (s *sqlStore) L1Validator(ctx context.Context, validationID ids.ID) (_ *internal.L1Validator, err error) {
	defer derrors.Wrap(&err, "store.L1Validator(%s)", validationID)
	vs, err := s.queryL1(ctx, " WHERE v.validation_id = ?", validationID[:])
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, derrors.NotFound
	}
	return vs[0], nil
}

const stakerSelect = `SELECT s.tx_id, s.tx_type, s.kind, s.priority, s.subnet_id, s.node_id, s.weight,
	s.start_time, s.tx_start_time, s.end_time, s.delegation_shares, s.bls_public_key, s.bls_pop,
	s.added_height, s.added_idx, s.removed_tx_id, s.removed_height, s.reward_committed,
	s.potential_reward, s.delegatee_reward, o.role, o.locktime, o.threshold, o.addresses
	FROM p_stakers s LEFT JOIN p_staker_owners o ON o.tx_id = s.tx_id`

// queryStakers runs a stakerSelect query; each staker's rows (one per
// owner) are merged.
func (s *sqlStore) queryStakers(ctx context.Context, q string, args ...any) ([]*StakerRecord, error) {
	var out []*StakerRecord
	byID := map[ids.ID]*StakerRecord{}
	err := s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var (
			txID, subnet, node, pk, pop, removed, addrs []byte
			txType, kind                                string
			role                                        sql.NullString
			prio, w, start, txStart, end, shares        int64
			h, idx                                      int64
			removedH, committed, locktime, threshold    sql.NullInt64
			potential                                   sql.NullInt64
			delegatee                                   int64
		)
		if err := rows.Scan(&txID, &txType, &kind, &prio, &subnet, &node, &w, &start, &txStart, &end, &shares,
			&pk, &pop, &h, &idx, &removed, &removedH, &committed, &potential, &delegatee,
			&role, &locktime, &threshold, &addrs); err != nil {
			return err
		}
		id, err := ids.ToID(txID)
		if err != nil {
			return err
		}
		r := byID[id]
		if r == nil {
			r = &StakerRecord{}
			r.TxID, r.TxType, r.Kind, r.Priority = id, txType, internal.StakerKind(kind), txs.Priority(prio)
			if r.SubnetID, err = ids.ToID(subnet); err != nil {
				return err
			}
			if r.NodeID, err = ids.ToNodeID(node); err != nil {
				return err
			}
			r.Weight, r.StartTime, r.TxStartTime, r.EndTime = uint64(w), uint64(start), uint64(txStart), uint64(end)
			r.DelegationShares = uint32(shares)
			r.PublicKey, r.ProofOfPossession = pk, pop
			r.Height, r.Index = uint64(h), int(idx)
			if removed != nil {
				if r.RemovedTxID, err = ids.ToID(removed); err != nil {
					return err
				}
				r.RemovedHeight = uint64(removedH.Int64)
			}
			if committed.Valid {
				c := committed.Int64 == 1
				r.RewardCommitted = &c
			}
			if potential.Valid {
				p := uint64(potential.Int64)
				r.PotentialReward = &p
			}
			r.DelegateeReward = uint64(delegatee)
			byID[id] = r
			out = append(out, r)
		}
		if role.Valid {
			o := &internal.StakerOwner{Locktime: uint64(locktime.Int64), Threshold: uint32(threshold.Int64)}
			if o.Addresses, err = unpackAddrs(addrs); err != nil {
				return err
			}
			switch role.String {
			case roleValidationReward:
				r.ValidationRewardOwner = o
			case roleDelegationReward:
				r.DelegationRewardOwner = o
			case roleReward:
				r.RewardOwner = o
			}
		}
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) queryL1(ctx context.Context, where string, args ...any) ([]*internal.L1Validator, error) {
	var out []*internal.L1Validator
	byID := map[ids.ID]*internal.L1Validator{}
	err := s.db.RunQuery(ctx, `SELECT v.validation_id, v.subnet_id, v.node_id, v.public_key, v.start_time, v.weight,
		v.min_nonce, v.deposited_balance, v.active, v.added_tx_id, v.added_height, v.removed_tx_id, v.removed_height,
		v.disabled_tx_id, v.updated_height, o.role, o.threshold, o.addresses
		FROM p_l1_validators v LEFT JOIN p_l1_validator_owners o ON o.validation_id = v.validation_id`+where,
		func(rows *sql.Rows) error {
			var (
				vid, subnet, node, pk, added, removed, disabled, addrs []byte
				start, w, nonce, bal, active, addedH, updatedH         int64
				removedH, threshold                                    sql.NullInt64
				role                                                   sql.NullString
			)
			if err := rows.Scan(&vid, &subnet, &node, &pk, &start, &w, &nonce, &bal, &active, &added, &addedH,
				&removed, &removedH, &disabled, &updatedH, &role, &threshold, &addrs); err != nil {
				return err
			}
			id, err := ids.ToID(vid)
			if err != nil {
				return err
			}
			v := byID[id]
			if v == nil {
				v = &internal.L1Validator{ValidationID: id, PublicKey: pk}
				if v.SubnetID, err = ids.ToID(subnet); err != nil {
					return err
				}
				if v.NodeID, err = ids.ToNodeID(node); err != nil {
					return err
				}
				v.StartTime, v.Weight, v.MinNonce, v.DepositedBalance = uint64(start), uint64(w), uint64(nonce), uint64(bal)
				v.Active = active == 1
				if v.AddedTxID, err = ids.ToID(added); err != nil {
					return err
				}
				v.AddedHeight, v.UpdatedHeight = uint64(addedH), uint64(updatedH)
				if removed != nil {
					if v.RemovedTxID, err = ids.ToID(removed); err != nil {
						return err
					}
					v.RemovedHeight = uint64(removedH.Int64)
				}
				if disabled != nil {
					if v.DisabledTxID, err = ids.ToID(disabled); err != nil {
						return err
					}
				}
				byID[id] = v
				out = append(out, v)
			}
			if role.Valid {
				o := &internal.StakerOwner{Threshold: uint32(threshold.Int64)}
				if o.Addresses, err = unpackAddrs(addrs); err != nil {
					return err
				}
				switch role.String {
				case roleRemainingBalance:
					v.RemainingBalanceOwner = o
				case roleDeactivation:
					v.DeactivationOwner = o
				}
			}
			return nil
		}, args...)
	return out, err
}

// u64 stores a uint64 as the int64 with the same bits.
func u64(v uint64) int64 { return int64(v) }

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func nullID(id ids.ID) any {
	if id == ids.Empty {
		return nil
	}
	return id[:]
}

func nullHeight(id ids.ID, h uint64) any {
	if id == ids.Empty {
		return nil
	}
	return u64(h)
}

func packAddrs(addrs []ids.ShortID) []byte {
	b := make([]byte, 0, len(addrs)*ids.ShortIDLen)
	for _, a := range addrs {
		b = append(b, a[:]...)
	}
	return b
}

func unpackAddrs(b []byte) ([]ids.ShortID, error) {
	if len(b)%ids.ShortIDLen != 0 {
		return nil, fmt.Errorf("owner addresses of %d bytes", len(b))
	}
	out := make([]ids.ShortID, 0, len(b)/ids.ShortIDLen)
	for i := 0; i < len(b); i += ids.ShortIDLen {
		var a ids.ShortID
		copy(a[:], b[i:])
		out = append(out, a)
	}
	return out, nil
}

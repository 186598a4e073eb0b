package store

import (
	"context"
	"database/sql"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The per-address staker lists (table p_staker_addresses, migration
// 0020): one row per staker and address among its reward owners', read by
// ActiveStakers with addresses as one merged keyset scan (keyset.go) in
// (start time, tx id) order, like the UTXO lists.

var stakerAddressColumns = []string{"tx_id", "address", "start_time", "tx_type", "removed"}

// stakerOwners are s's reward owners, those it has.
func stakerOwners(s *internal.Staker) []*internal.StakerOwner {
	var out []*internal.StakerOwner
	for _, o := range []*internal.StakerOwner{s.ValidationRewardOwner, s.DelegationRewardOwner, s.RewardOwner} {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// stakerAddressRows returns the rows of a staker: one per distinct address
// of its reward owners, removed as given.
func stakerAddressRows(txID ids.ID, txType string, start int64, removed int64, owners ...*internal.StakerOwner) [][]any {
	var rows [][]any
	seen := map[ids.ShortID]bool{}
	for _, o := range owners {
		for _, a := range o.Addresses {
			if !seen[a] {
				seen[a] = true
				rows = append(rows, []any{txID[:], a[:], start, txType, removed})
			}
		}
	}
	return rows
}

// writeStakerAddresses writes the list rows of ch's stakers and marks
// removed those of the stakers ch's RewardValidatorTxs remove. It is
// idempotent, as WriteStakers is.
func writeStakerAddresses(ctx context.Context, tx *database.DB, ch *internal.StakingChanges) error {
	var rows [][]any
	for i := range ch.Stakers {
		s := &ch.Stakers[i]
		rows = append(rows, stakerAddressRows(s.TxID, s.TxType, u64(s.StartTime), 0, stakerOwners(s)...)...)
	}
	if err := tx.Append(ctx, "p_staker_addresses", stakerAddressColumns, rows, onConflictDoNothing); err != nil {
		return err
	}
	// A staker added and removed in the same batch is inserted current,
	// then marked here.
	var ended []ids.ID
	for _, e := range ch.Ends {
		ended = append(ended, e.StakerTxID)
	}
	// Permissioned subnet validators, which RemoveSubnetValidatorTx
	// removes, have no reward owner and no row.
	return idChunks(ended, func(args []any, in string) error {
		_, err := tx.Exec(ctx, "UPDATE p_staker_addresses SET removed = 1 WHERE removed = 0 AND tx_id IN "+in, args...)
		return err
	})
}

// stakerAddressParts are the parts of the p_staker_addresses backfill:
// the list rows of every stored staker, by the height that added it; rows
// already there are kept.
func stakerAddressParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	p, err := rangePart(ctx, db, "the stakers", "SELECT MIN(added_height), MAX(added_height) FROM p_stakers", nil,
		inclusive(backfillStakerAddresses))
	return []BackfillPart{p}, err
}

// backfillStakerAddresses writes the list rows of the stakers added at
// heights lo..hi.
func backfillStakerAddresses(ctx context.Context, tx *database.DB, lo, hi int64) error {
	type staker struct {
		txID    ids.ID
		txType  string
		start   int64
		removed int64
		owners  []*internal.StakerOwner
	}
	var (
		stakers []*staker
		byID    = map[ids.ID]*staker{}
	)
	err := tx.RunQuery(ctx, `SELECT s.tx_id, s.tx_type, s.start_time, CASE WHEN s.removed_tx_id IS NULL THEN 0 ELSE 1 END,
		o.addresses FROM p_stakers s JOIN p_staker_owners o ON o.tx_id = s.tx_id
		WHERE s.added_height BETWEEN ? AND ?`, func(r *sql.Rows) error {
		var (
			id, addrs []byte
			s         staker
		)
		if err := r.Scan(&id, &s.txType, &s.start, &s.removed, &addrs); err != nil {
			return err
		}
		var err error
		if s.txID, err = ids.ToID(id); err != nil {
			return err
		}
		o := &internal.StakerOwner{}
		if o.Addresses, err = unpackAddrs(addrs); err != nil {
			return err
		}
		if byID[s.txID] == nil {
			byID[s.txID] = &s
			stakers = append(stakers, &s)
		}
		byID[s.txID].owners = append(byID[s.txID].owners, o)
		return nil
	}, lo, hi)
	if err != nil {
		return err
	}
	var rows [][]any
	for _, s := range stakers {
		rows = append(rows, stakerAddressRows(s.txID, s.txType, s.start, s.removed, s.owners...)...)
	}
	return tx.Append(ctx, "p_staker_addresses", stakerAddressColumns, rows, onConflictDoNothing)
}

package store

import (
	"context"
	"fmt"
	"math"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// LockedStore reads what time-locked UTXOs hold.
type LockedStore interface {
	// LockedAVAX returns the AVAX (asset avax) of the UTXOs in the P- and
	// X-chains' UTXO sets that cannot be spent before a time after at
	// (unix seconds): their owners' locktime, or on the P-chain a
	// stakeable.LockOut's locktime, is after it. Staked outputs are not in
	// the P-chain's set until their staking ends; exported ones are in
	// neither.
	LockedAVAX(ctx context.Context, avax ids.ID, at uint64) (p, x uint64, err error)
}

// lockedAfter is a locktime column's condition "after ?": locktimes above
// 2^63 are stored as negative int64 bits.
func lockedAfter(col string) string {
	return fmt.Sprintf("(%[1]s > ? OR %[1]s < 0)", col)
}

func (s *sqlStore) LockedAVAX(ctx context.Context, avax ids.ID, at uint64) (p, x uint64, err error) {
	defer derrors.Wrap(&err, "store.LockedAVAX(%d)", at)
	if at > math.MaxInt64 {
		return 0, 0, derrors.Invalid("time %d out of range", at)
	}
	t := int64(at)
	pSet := "asset_id = ? AND consumed_tx_id IS NULL AND spendable_height IS NOT NULL AND kind <> 'exported'"
	owners := "locktime <> 0 AND " + lockedAfter("locktime")
	var a, b, c int64
	// Two reads, each on its partial index: the owners' locktime, then the
	// stakeable locktime of those the first did not count.
	if err := s.db.QueryRow(ctx, "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM p_utxos WHERE "+pSet+" AND "+owners,
		avax[:], t).Scan(&a); err != nil {
		return 0, 0, err
	}
	if err := s.db.QueryRow(ctx, "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM p_utxos WHERE "+pSet+
		" AND stakeable_locktime IS NOT NULL AND "+lockedAfter("stakeable_locktime")+" AND NOT ("+owners+")",
		avax[:], t, t).Scan(&b); err != nil {
		return 0, 0, err
	}
	if err := s.db.QueryRow(ctx, "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM x_utxos WHERE asset_id = ? AND consumed_tx_id IS NULL AND kind = 'regular' AND "+owners,
		avax[:], t).Scan(&c); err != nil {
		return 0, 0, err
	}
	if a < 0 || b < 0 || c < 0 {
		return 0, 0, fmt.Errorf("negative locked sums %d, %d, %d", a, b, c)
	}
	return uint64(a + b), uint64(c), nil
}

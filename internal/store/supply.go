package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// SupplyStore keeps the supply of the subnets that mint staking rewards.
type SupplyStore interface {
	// PutSupply records supply as the supply of subnetID at P-chain
	// height, unless a later height is recorded already. height must be
	// indexed (at most the P-chain cursor): the supply is an observation
	// of the node's state at a height avaindex serves.
	PutSupply(ctx context.Context, subnetID ids.ID, height, supply uint64) error
	// Supply returns the supply of subnetID: replayed from the genesis
	// (see internal.RewardState) after the last indexed block when the
	// replay is complete, or else the latest supply recorded by PutSupply.
	Supply(ctx context.Context, subnetID ids.ID) (*Supply, error)
}

// Supply is a subnet's supply at a P-chain height.
type Supply struct {
	Supply, Height uint64
	// Replayed is true when avaindex computed it, false when it was the
	// node's answer recorded by PutSupply.
	Replayed bool
}

func (s *sqlStore) PutSupply(ctx context.Context, subnetID ids.ID, height, supply uint64) (err error) {
	defer derrors.Wrap(&err, "store.PutSupply(%s, %d)", subnetID, height)
	if height > math.MaxInt64 {
		return fmt.Errorf("height out of range: %w", derrors.InvalidArgument)
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		cur, ok, err := cursor(ctx, tx, ChainCursor(internal.PChain))
		if err != nil {
			return err
		}
		if !ok || height > cur {
			return fmt.Errorf("height %d is not indexed: %w", height, derrors.InvalidArgument)
		}
		_, err = tx.Exec(ctx, `INSERT INTO p_supply (subnet_id, height, supply) VALUES (?, ?, ?)
			ON CONFLICT (subnet_id) DO UPDATE SET height = excluded.height, supply = excluded.supply
			WHERE excluded.height > p_supply.height`,
			subnetID[:], int64(height), strconv.FormatUint(supply, 10))
		return err
	})
}

func (s *sqlStore) Supply(ctx context.Context, subnetID ids.ID) (_ *Supply, err error) {
	defer derrors.Wrap(&err, "store.Supply(%s)", subnetID)
	v, ok, err := replayedSupply(ctx, s.db, subnetID)
	if err != nil {
		return nil, err
	}
	if ok {
		h, _, err := cursor(ctx, s.db, ChainCursor(internal.PChain))
		if err != nil {
			return nil, err
		}
		return &Supply{Supply: v, Height: h, Replayed: true}, nil
	}
	var (
		h   int64
		sup string
	)
	err = s.db.QueryRow(ctx, "SELECT height, supply FROM p_supply WHERE subnet_id = ?", subnetID[:]).Scan(&h, &sup)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	observed, err := strconv.ParseUint(sup, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("stored supply %q: %w", sup, err)
	}
	return &Supply{Supply: observed, Height: uint64(h)}, nil
}

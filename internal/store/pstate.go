package store

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// PStateStore keeps P-chain state derived from transactions: subnets,
// blockchains and stakers.
type PStateStore interface{}

// applyPState derives subnets, blockchains and stakers from a batch of
// P-chain blocks.
func applyPState(ctx context.Context, tx *database.DB, blocks []*internal.PBlock) error {
	return nil
}

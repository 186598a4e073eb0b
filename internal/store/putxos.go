package store

import (
	"context"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// PUTXOStore keeps the P-chain UTXO set and its history.
type PUTXOStore interface{}

// applyPUTXOs derives UTXO changes from a batch of P-chain blocks.
func applyPUTXOs(ctx context.Context, tx *database.DB, blocks []*internal.PBlock) error {
	return nil
}

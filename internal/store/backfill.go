package store

import (
	"context"
	"fmt"

	"github.com/avaindex/avaindex/internal/database"
)

// Backfills write derived rows, for what was stored before a migration
// created their table, that SQL alone cannot write. The migration inserts
// the backfill's settings key; Open runs the backfill and deletes the key
// in one transaction, so a crash in between runs it again (it keeps the
// rows already written).
var backfills = []struct {
	key string
	run func(ctx context.Context, tx *database.DB) error
}{
	{"backfill:address_utxos", backfillAddressUTXOs},
	{"backfill:p_staker_addresses", backfillStakerAddresses},
	{"backfill:address_txs", backfillAddressTxs},
	{"backfill:block_proposers", backfillProposers},
	{"backfill:evm_erc20_balances", backfillERC20Balances},
	{"backfill:burned", backfillBurned},
	{"backfill:l1_fee_history", backfillL1FeeHistory},
}

// runBackfills runs the backfills the migrations asked for.
func runBackfills(ctx context.Context, db *database.DB) error {
	for _, b := range backfills {
		err := db.Transact(ctx, func(tx *database.DB) error {
			n, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = ?", b.key)
			if err != nil || n == 0 {
				return err // not asked for, or done by another process
			}
			return b.run(ctx, tx)
		})
		if err != nil {
			return fmt.Errorf("store: %s: %w", b.key, err)
		}
	}
	return nil
}

package store

import (
	"context"

	"github.com/avaindex/avaindex/internal/database"
)

// batchTx is the transaction of one batch's derivation (a chain's
// Apply*Blocks, its rederive, the X-chain DAG's batches) with what the
// batch's steps hand on to the steps after them. PTx, XTx and CTx are
// views of it; it lives for that one call.
type batchTx struct {
	db *database.DB
	// spent are the owners of the UTXOs the batch marked spent, by list
	// (chain) and UTXO, nil where no step reads them: the metrics'
	// senders and the webhook events' sent amounts, which would
	// otherwise read again the rows the UPDATE just returned.
	spent spentOwners
	// sums are the batch's changes to address_balances, written once after
	// its derivation (run), the last rows its transaction locks, all at
	// once and in key order: the concurrent batches of two chains (a
	// P-chain export, the X-chain's import of an earlier one, to one
	// address) then cannot wait on each other's sums while one of them
	// waits for the atomic lock.
	sums balanceDeltas
	// fees is what the P-chain batch's L1 fee replay changed, for the
	// webhook events; empty elsewhere.
	fees l1FeeReplay
}

// newBatchTx returns a batch's transaction over db, keeping the owners of
// the UTXOs it spends when spent is true.
func newBatchTx(db *database.DB, spent bool) *batchTx {
	b := &batchTx{db: db, sums: balanceDeltas{}}
	if spent {
		b.spent = spentOwners{}
	}
	return b
}

// run runs derive, then writes the batch's sums.
func (b *batchTx) run(ctx context.Context, derive func() error) error {
	if err := derive(); err != nil {
		return err
	}
	return b.sums.write(ctx, b.db)
}

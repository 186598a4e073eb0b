package store

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
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
	// history is what a P-chain batch of new blocks wrote that its
	// address history derives from; nil elsewhere.
	history *batchHistory
	// fees is what the P-chain batch's L1 fee replay changed, for the
	// webhook events; empty elsewhere.
	fees l1FeeReplay
	// net is the stored network, read once per batch (network): the
	// staking, the list rows, the burned sums and the webhook events
	// each need it.
	net struct {
		read bool
		n    *internal.Network
		ok   bool
	}
}

// network returns the stored network (storedNetwork), read at most once
// in the batch; ok is false in a store that holds none.
func (b *batchTx) network(ctx context.Context) (*internal.Network, bool, error) {
	if !b.net.read {
		n, ok, err := storedNetwork(ctx, b.db)
		if err != nil {
			return nil, false, err
		}
		b.net.read, b.net.n, b.net.ok = true, n, ok
	}
	return b.net.n, b.net.ok, nil
}

// avaxAssetID is the stored network's AVAX, for the burned sums; false in
// store tests that hold no network, which keep none.
func (b *batchTx) avaxAssetID(ctx context.Context) (ids.ID, bool, error) {
	n, ok, err := b.network(ctx)
	if err != nil || !ok {
		return ids.Empty, false, err
	}
	return n.AVAXAssetID, true, nil
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

package tests

import (
	"context"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// storeReads are the store's reads that only tests make: the store
// implements them, but no interface of the store carries them.
type storeReads interface {
	XUTXOsOf(ctx context.Context, addrs []ids.ShortID) ([]*store.ListedUTXO, error)
	XUTXO(ctx context.Context, id ids.ID) (*store.ListedUTXO, error)
	AtomicUTXOs(ctx context.Context, destination ids.ID, addrs []ids.ShortID) ([]*store.ListedUTXO, error)
	ExportedUTXO(ctx context.Context, id ids.ID) (*store.ListedUTXO, error)
	CAtomicTxs(ctx context.Context, from, to uint64) ([]internal.CAtomicTx, []uint64, error)
}

// readsOf returns st's test-only reads.
func readsOf(t testing.TB, st store.Store) storeReads {
	t.Helper()
	r, ok := st.(storeReads)
	if !ok {
		t.Fatalf("the store (%T) has not the tests' reads", st)
	}
	return r
}

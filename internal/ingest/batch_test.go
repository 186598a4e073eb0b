package ingest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// batchCounter is a store that records the records (txs; on an EVM
// chain also logs and internal txs) and blocks of each P-chain or EVM
// batch applied.
type batchCounter struct {
	store.Store
	records, blocks []int
}

func (s *batchCounter) ApplyPBlocks(ctx context.Context, batch *internal.PBatch, derive store.PDerivation) error {
	n := 0
	for _, b := range batch.Blocks {
		n += len(b.Txs)
	}
	s.records, s.blocks = append(s.records, n), append(s.blocks, len(batch.Blocks))
	return s.Store.ApplyPBlocks(ctx, batch, derive)
}

func (s *batchCounter) ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData, derive store.EVMDerivation) error {
	n := 0
	for _, b := range blocks {
		n += len(b.Txs) + len(b.Logs) + len(b.InternalTxs)
	}
	s.records, s.blocks = append(s.records, n), append(s.blocks, len(blocks))
	return s.Store.ApplyEVMBlocks(ctx, chainID, blocks, derive)
}

// TestEVMBatchBoundedByRecords follows a fake chain of heavy blocks (220
// records each: genEVMBlock's 100 txs, 100 logs, 20 internal txs) and
// checks that each batch ends at whichever comes first of BatchSize
// blocks and BatchRecords records: with the block that reaches the
// bound, and those still in flight then (Fetchers-1 at most).
func TestEVMBatchBoundedByRecords(t *testing.T) {
	const chainID, tip, perBlock = 43114, 30, 220
	chain := newFakeEVMChain(t, chainID, tip, nil)
	srv := httptest.NewServer(chain)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name                         string
		batchSize, records, fetchers int
		wantBatches                  int
	}{
		// Blocks 0 (no txs) to 5, then 5 blocks a batch.
		{"records", 256, 1_000, 1, 6},
		// As many batches as the fetches in flight make it (0: not
		// checked).
		{"records with fetchers", 256, 1_000, 3, 0},
		{"blocks", 4, 1 << 30, 8, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &batchCounter{Store: openLocalStore(t, dbtest.SQLite(t))}
			c := internal.EVMChain{ChainID: chainID, RPCURL: srv.URL}
			ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)),
				Options{EVMChains: []internal.EVMChain{c}, BatchSize: tc.batchSize, Fetchers: tc.fetchers,
					BatchRecords: tc.records})
			followEVM(t, context.Background(), ix.newEVMFollower(c))
			if h, _, err := st.Cursor(context.Background(), store.EVMCursor(chainID)); err != nil || h != tip {
				t.Fatalf("the EVM cursor is at %d (%v), want %d", h, err, tip)
			}
			t.Logf("batches: %d, records %v, blocks %v", len(st.blocks), st.records, st.blocks)
			if tc.wantBatches != 0 && len(st.blocks) != tc.wantBatches {
				t.Errorf("%d batches, want %d", len(st.blocks), tc.wantBatches)
			}
			most := tc.records - 1 + tc.fetchers*perBlock
			for i, n := range st.records {
				last := i == len(st.records)-1
				switch {
				case st.blocks[i] > tc.batchSize:
					t.Errorf("batch %d holds %d blocks, more than BatchSize %d", i, st.blocks[i], tc.batchSize)
				case n > most:
					t.Errorf("batch %d holds %d records, more than %d", i, n, most)
				case !last && st.blocks[i] < tc.batchSize && n < tc.records:
					t.Errorf("batch %d ended at %d blocks and %d records, before either bound", i, st.blocks[i], n)
				}
			}
		})
	}
}

// TestPBatchBoundedByRecords: the P-chain follower's batches end at
// BatchRecords txs too, so that a run of heavy blocks does not make a
// batch of BatchSize blocks. pChainFrom's blocks hold one tx each.
func TestPBatchBoundedByRecords(t *testing.T) {
	ctx := context.Background()
	st := &batchCounter{Store: openLocalStore(t, dbtest.SQLite(t))}
	if err := applyLocalGenesis(ctx, st); err != nil {
		t.Fatal(err)
	}
	g, err := localGenesisBlock()
	if err != nil {
		t.Fatal(err)
	}
	st.records, st.blocks = nil, nil
	const tip = 25
	srv := httptest.NewServer(pBlockServer(pChainFrom(t, g.ID, tip)))
	t.Cleanup(srv.Close)
	ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{Fetchers: 1, BatchRecords: 10})
	for caughtUp := false; !caughtUp; {
		if caughtUp, err = follow(ctx, ix, ix.pFollower()); err != nil {
			t.Fatal(err)
		}
	}
	if h, _, err := st.Cursor(ctx, store.ChainCursor(internal.PChain)); err != nil || h != tip {
		t.Fatalf("the P-chain cursor is at %d (%v), want %d", h, err, tip)
	}
	if want := []int{10, 10, 5}; !slices.Equal(st.blocks, want) || !slices.Equal(st.records, want) {
		t.Errorf("batches of %v blocks holding %v txs, want %v of one tx each", st.blocks, st.records, want)
	}
}

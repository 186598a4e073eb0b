package derive

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// fakePStore holds stored P-chain blocks for a rederive and records the
// heights of each batch it is given to apply.
type fakePStore struct {
	RederiveSource          // only the methods below are called
	blocks         [][]byte // height i+1
	batches        [][2]uint64
}

func (f *fakePStore) StartRederive(context.Context, internal.Chain) (store.Rederive, error) {
	return store.Rederive{Chain: internal.PChain, Started: true, Phase: store.RederiveBlocks, Next: 1,
		Target: uint64(len(f.blocks))}, nil
}

func (f *fakePStore) StoredPBlocks(_ context.Context, from uint64, n int) ([]store.StoredBlock, error) {
	var out []store.StoredBlock
	for h := from; h <= uint64(len(f.blocks)) && len(out) < n; h++ {
		out = append(out, store.StoredBlock{Height: h, Bytes: f.blocks[h-1]})
	}
	return out, nil
}

func (f *fakePStore) RederivePBlocks(_ context.Context, b *internal.PBatch, _ store.PDerivation) (store.Rederive, error) {
	first, last := b.Blocks[0].Height, b.Blocks[len(b.Blocks)-1].Height
	f.batches = append(f.batches, [2]uint64{first, last})
	target := uint64(len(f.blocks))
	return store.Rederive{Chain: internal.PChain, Started: true, Phase: store.RederiveBlocks, Next: last + 1,
		Target: target, Done: last == target}, nil
}

// pBlocksOfTxs builds consecutive BanffStandardBlocks from height 1
// holding the given numbers of (unsigned) BaseTxs.
func pBlocksOfTxs(t *testing.T, counts ...int) [][]byte {
	t.Helper()
	parent := ids.GenerateTestID()
	var out [][]byte
	for i, n := range counts {
		var bts []*txs.Tx
		for range n {
			memo := ids.GenerateTestID() // a tx id of its own
			tx, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID,
				BlockchainID: constants.PlatformChainID, Memo: memo[:]}}, txs.Codec, nil)
			if err != nil {
				t.Fatal(err)
			}
			bts = append(bts, tx)
		}
		blk, err := block.NewBanffStandardBlock(time.Unix(1_700_000_000+int64(i), 0), parent, uint64(i+1), bts)
		if err != nil {
			t.Fatal(err)
		}
		out, parent = append(out, blk.Bytes()), blk.ID()
	}
	return out
}

// TestRederiveBatchBoundedByRecords: a batch ends at BatchSize blocks or
// once its blocks hold BatchRecords txs, whichever comes first, as the
// indexer's do.
func TestRederiveBatchBoundedByRecords(t *testing.T) {
	for _, tc := range []struct {
		name          string
		counts        []int
		size, records int
		want          [][2]uint64
	}{
		// 4+4+4 reach 10 at the third block.
		{"records", []int{4, 4, 4, 4, 4, 4, 4}, 1024, 10, [][2]uint64{{1, 3}, {4, 6}, {7, 7}}},
		// One block over the bound is a batch of its own.
		{"heavy block", []int{1, 30, 1, 1}, 1024, 10, [][2]uint64{{1, 2}, {3, 4}}},
		{"size", []int{1, 1, 1, 1, 1}, 2, 10, [][2]uint64{{1, 2}, {3, 4}, {5, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakePStore{blocks: pBlocksOfTxs(t, tc.counts...)}
			err := Rederive(context.Background(), f, internal.PChain, slog.New(slog.NewTextHandler(io.Discard, nil)),
				RederiveOptions{BatchSize: tc.size, BatchRecords: tc.records})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.batches, tc.want) {
				t.Errorf("batches %v, want %v", f.batches, tc.want)
			}
		})
	}
}

// fakeCStore holds stored C-chain atomic txs (by height) for a rederive
// and records the height range of each batch it is given to apply.
type fakeCStore struct {
	RederiveSource // only the methods below are called
	txs            map[uint64]int
	target         uint64
	ranges         [][2]uint64
	tx             []byte
}

func (f *fakeCStore) StartRederive(context.Context, internal.Chain) (store.Rederive, error) {
	return store.Rederive{Chain: internal.CChain, Started: true, Phase: store.RederiveBlocks, Next: 1, Target: f.target}, nil
}

func (f *fakeCStore) StoredCAtomicBlocks(_ context.Context, from uint64, n int) ([]store.StoredCBlock, error) {
	var out []store.StoredCBlock
	for h := from; h <= f.target && len(out) < n; h++ {
		if k := f.txs[h]; k > 0 {
			b := store.StoredCBlock{Height: h}
			for range k {
				b.Txs = append(b.Txs, f.tx)
			}
			out = append(out, b)
		}
	}
	return out, nil
}

func (f *fakeCStore) RederiveCBlocks(_ context.Context, first, last uint64, _ []*internal.CBlockData, _ store.CDerivation) (store.Rederive, error) {
	f.ranges = append(f.ranges, [2]uint64{first, last})
	return store.Rederive{Chain: internal.CChain, Started: true, Phase: store.RederiveBlocks, Next: last + 1,
		Target: f.target, Done: last == f.target}, nil
}

// TestCRederiveBoundedByRecords: a C-chain batch ends at the block whose
// atomic txs reach BatchRecords, and the next starts after it.
func TestCRederiveBoundedByRecords(t *testing.T) {
	export := &atomic.Tx{UnsignedAtomicTx: &atomic.UnsignedExportTx{NetworkID: constants.LocalID, DestinationChain: ids.ID{0xd},
		ExportedOutputs: []*avax.TransferableOutput{{Asset: avax.Asset{ID: ids.ID{0xa}},
			Out: &secp256k1fx.TransferOutput{Amt: 5, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{{7}}}}}}}}
	if err := export.Sign(atomic.Codec, nil); err != nil {
		t.Fatal(err)
	}
	f := &fakeCStore{txs: map[uint64]int{2: 3, 5: 8, 6: 1, 9: 2}, target: 10, tx: export.SignedBytes()}
	err := Rederive(context.Background(), f, internal.CChain, slog.New(slog.NewTextHandler(io.Discard, nil)),
		RederiveOptions{BatchRecords: 10})
	if err != nil {
		t.Fatal(err)
	}
	// 3 + 8 reach 10 at height 5; 1 + 2 do not, so the rest runs to the target.
	if want := [][2]uint64{{1, 5}, {6, 10}}; !reflect.DeepEqual(f.ranges, want) {
		t.Errorf("ranges %v, want %v", f.ranges, want)
	}
}

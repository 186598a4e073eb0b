package ingest

import (
	"context"
	"encoding/json"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/utils/units"
	avmblock "github.com/ava-labs/avalanchego/vms/avm/block"
	avmtxs "github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/derive/xstate"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// pChain builds n consecutive BanffStandardBlocks from height 1, each with
// one signed BaseTx that spends the previous tx's output: real platformvm
// bytes, made with avalanchego's own constructors and codec.
func pChain(tb testing.TB, n int) [][]byte {
	return pChainFrom(tb, ids.GenerateTestID(), n)
}

// pChainFrom is pChain with the first block's parent given.
func pChainFrom(tb testing.TB, parent ids.ID, n int) [][]byte {
	tb.Helper()
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		tb.Fatal(err)
	}
	owner := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	avaxID := ids.GenerateTestID()
	prevOut := avax.UTXOID{TxID: ids.GenerateTestID()}
	amount := uint64(1_000_000 * units.Avax)
	start := time.Unix(1_700_000_000, 0)
	out := make([][]byte, n)
	for i := range n {
		amount -= units.MilliAvax
		utx := &txs.BaseTx{BaseTx: avax.BaseTx{
			NetworkID:    constants.LocalID,
			BlockchainID: constants.PlatformChainID,
			Ins: []*avax.TransferableInput{{
				UTXOID: prevOut,
				Asset:  avax.Asset{ID: avaxID},
				In:     &secp256k1fx.TransferInput{Amt: amount + units.MilliAvax, Input: secp256k1fx.Input{SigIndices: []uint32{0}}},
			}},
			Outs: []*avax.TransferableOutput{{
				Asset: avax.Asset{ID: avaxID},
				Out:   &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: owner},
			}},
		}}
		tx, err := txs.NewSigned(utx, txs.Codec, [][]*secp256k1.PrivateKey{{key}})
		if err != nil {
			tb.Fatal(err)
		}
		blk, err := block.NewBanffStandardBlock(start.Add(time.Duration(i)*time.Second), parent, uint64(i+1), []*txs.Tx{tx})
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = blk.Bytes()
		parent = blk.ID()
		prevOut = avax.UTXOID{TxID: tx.ID(), OutputIndex: 0}
	}
	return out
}

// benchIngest measures what the indexer does per block once the bytes are
// fetched: decode with avalanchego's codec and write (blocks, txs, derived
// state and cursor) in batches made as the follower makes them
// (decodedBatches: the next batch is decoded while one is written), one
// transaction each. gen makes the chain's raw blocks from height 1;
// decode decodes one; txs is a block's tx count (the follower's records);
// setup, when not nil, prepares the store before the clock starts.
func benchIngest[B any](b *testing.B, gen func(testing.TB, int) [][]byte,
	decode func(height uint64, raw []byte) (B, error), txs func(B) int,
	apply func(context.Context, store.Store, []B) error,
	setup func(context.Context, store.Store) error,
) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		raw := gen(b, b.N)
		bufs := make([]*[]byte, len(raw))
		for i := range raw {
			bufs[i] = &raw[i]
		}
		offHeap(b, bufs...)
		st := openLocalStore(b, dsn)
		if setup != nil {
			if err := setup(ctx, st); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		batches := decodedBatches(ctx, len(raw), func(i int) (B, error) { return decode(uint64(i+1), raw[i]) }, txs)
		txCount := 0
		for r := range batches {
			if r.err != nil {
				b.Fatal(r.err)
			}
			for _, blk := range r.blocks {
				txCount += txs(blk)
			}
			if err := apply(ctx, st, r.blocks); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		secs := b.Elapsed().Seconds()
		b.ReportMetric(float64(b.N)/secs, "blocks/s")
		b.ReportMetric(float64(txCount)/secs, "txs/s")
	})
}

// offHeap moves a benchmark's inputs out of the Go heap, into memory
// mapped for the benchmark, and collects the garbage: the collector then
// paces the measured run by the indexer's own working set, as in the
// follower, which reads the node's replies a batch at a time. Held on the
// heap, BenchmarkIngestEVM's 440 MB of inputs set the collector's goal
// near 1 GB, and the run spent a sixth of its CPU faulting in the
// 400 MB of fresh pages it allocated into (2026-12-06).
func offHeap(tb testing.TB, bufs ...*[]byte) {
	tb.Helper()
	size := 0
	for _, p := range bufs {
		size += len(*p)
	}
	if size == 0 {
		return
	}
	arena, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Fatalf("mapping %d bytes for the inputs: %v", size, err)
	}
	tb.Cleanup(func() { _ = syscall.Munmap(arena) })
	for _, p := range bufs {
		n := copy(arena, *p)
		*p, arena = arena[:n:n], arena[n:]
	}
	runtime.GC()
}

// decoded is a batch of blocks decodedBatches made, or why it could not.
type decoded[B any] struct {
	blocks []B
	err    error
}

// decodedBatches makes the batches of blocks 0..n-1 as the follower
// (follow) makes them with its default options: fetchRange decodes a
// batch's blocks with DefaultFetchers workers, up to DefaultBatchSize
// blocks and DefaultBatchRecords records (records counts a block's), and
// the next batch is decoded while the caller writes one. The channel
// closes after the last batch or the first error.
func decodedBatches[B any](ctx context.Context, n int, decode func(i int) (B, error), records func(B) int) <-chan decoded[B] {
	out := make(chan decoded[B], 1)
	go func() {
		defer close(out)
		for from := 0; from < n; {
			to := min(n, from+DefaultBatchSize) - 1
			blocks, err := fetchRange(ctx, DefaultFetchers, uint64(from), uint64(to),
				func(_ context.Context, i uint64) (B, error) { return decode(int(i)) }, records, DefaultBatchRecords)
			out <- decoded[B]{blocks, err}
			if err != nil {
				return
			}
			from += len(blocks)
		}
	}()
	return out
}

func BenchmarkIngestP(b *testing.B) {
	benchIngest(b, pChain, pchain.Decode, func(blk *pchain.Block) int { return len(blk.Txs) },
		func(ctx context.Context, st store.Store, bs []*pchain.Block) error {
			return applyP(ctx, st, bs)
		},
		applyLocalGenesis)
}

// openLocalStore opens the store at dsn holding the local network, as the
// service records it: appliers that need the network read it.
func openLocalStore(tb testing.TB, dsn string) store.Store {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	network, err := json.Marshal(internal.Network{ID: constants.LocalID, Name: "local"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.PutSettingIfAbsent(ctx, store.NetworkSetting, network); err != nil {
		tb.Fatal(err)
	}
	return st
}

// applyLocalGenesis applies the local network's P-chain genesis block, so
// that what follows runs with every replay on: genesis UTXOs, validators,
// and the reward and fee replays, which need the genesis.
func applyLocalGenesis(ctx context.Context, st store.Store) error {
	pb, err := localGenesisBlock()
	if err != nil {
		return err
	}
	return applyP(ctx, st, []*pchain.Block{pb})
}

// localGenesisBlock is the local network's P-chain block at height 0, as
// the node serves it.
func localGenesisBlock() (*pchain.Block, error) {
	gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		return nil, err
	}
	blk, err := block.NewApricotCommitBlock(hashing.ComputeHash256Array(gb), 0)
	if err != nil {
		return nil, err
	}
	return pchain.Decode(0, blk.Bytes())
}

func BenchmarkIngestX(b *testing.B) {
	benchIngest(b, xChain,
		func(h uint64, raw []byte) (*xchain.Block, error) { return xchain.Decode(h, raw, nil) },
		func(blk *xchain.Block) int { return len(blk.Txs) },
		func(ctx context.Context, st store.Store, bs []*xchain.Block) error {
			return st.ApplyXBlocks(ctx, xchain.BlocksData(bs), xstate.Apply[*store.XTx])
		}, nil)
}

// TestPChainFixture checks the benchmark's blocks decode as a chain.
func TestPChainFixture(t *testing.T) {
	raw := pChain(t, 3)
	var parent ids.ID
	for i, b := range raw {
		pb, err := pchain.Decode(uint64(i+1), b)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && pb.ParentID != parent {
			t.Errorf("block %d parent %s, want %s", i+1, pb.ParentID, parent)
		}
		if pb.Type != "BanffStandardBlock" || len(pb.Txs) != 1 || pb.Txs[0].Type != "BaseTx" {
			t.Errorf("block %d = %s with %d txs", i+1, pb.Type, len(pb.Txs))
		}
		parent = pb.ID
	}
}

// xChain builds n consecutive X-chain StandardBlocks from height 1, each
// with one signed BaseTx spending the previous tx's output, with
// avalanchego's avm types and codec.
func xChain(tb testing.TB, n int) [][]byte {
	tb.Helper()
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		tb.Fatal(err)
	}
	owner := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	avaxID := ids.GenerateTestID()
	prevOut := avax.UTXOID{TxID: ids.GenerateTestID()}
	amount := uint64(1_000_000 * units.Avax)
	parent := ids.GenerateTestID()
	start := time.Unix(1_700_000_000, 0)
	codec := builder.Parser.Codec()
	out := make([][]byte, n)
	for i := range n {
		amount -= units.MilliAvax
		tx := &avmtxs.Tx{Unsigned: &avmtxs.BaseTx{BaseTx: avax.BaseTx{
			NetworkID:    constants.LocalID,
			BlockchainID: ids.GenerateTestID(),
			Ins: []*avax.TransferableInput{{
				UTXOID: prevOut,
				Asset:  avax.Asset{ID: avaxID},
				In:     &secp256k1fx.TransferInput{Amt: amount + units.MilliAvax, Input: secp256k1fx.Input{SigIndices: []uint32{0}}},
			}},
			Outs: []*avax.TransferableOutput{{
				Asset: avax.Asset{ID: avaxID},
				Out:   &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: owner},
			}},
		}}}
		if err := tx.SignSECP256K1Fx(codec, [][]*secp256k1.PrivateKey{{key}}); err != nil {
			tb.Fatal(err)
		}
		blk, err := avmblock.NewStandardBlock(parent, uint64(i+1), start.Add(time.Duration(i)*time.Second), []*avmtxs.Tx{tx}, codec)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = blk.Bytes()
		parent = blk.ID()
		prevOut = avax.UTXOID{TxID: tx.ID(), OutputIndex: 0}
	}
	return out
}

// TestXChainFixture checks the X benchmark's blocks decode as a chain.
func TestXChainFixture(t *testing.T) {
	raw := xChain(t, 3)
	var parent ids.ID
	for i, b := range raw {
		xb, err := xchain.Decode(uint64(i+1), b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && xb.ParentID != parent {
			t.Errorf("block %d parent %s, want %s", i+1, xb.ParentID, parent)
		}
		if len(xb.Txs) != 1 || xb.Txs[0].Type != "BaseTx" {
			t.Errorf("block %d has txs %+v", i+1, xb.Txs)
		}
		parent = xb.ID
	}
}

// TestPBenchReplays checks that BenchmarkIngestP measures the complete
// reward replay: after the genesis its blocks leave a replayed supply.
func TestPBenchReplays(t *testing.T) {
	ctx := context.Background()
	st := openLocalStore(t, dbtest.SQLite(t))
	if err := applyLocalGenesis(ctx, st); err != nil {
		t.Fatal(err)
	}
	var blocks []*pchain.Block
	for i, raw := range pChain(t, 3) {
		pb, err := pchain.Decode(uint64(i+1), raw)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, pb)
	}
	if err := applyP(ctx, st, blocks); err != nil {
		t.Fatal(err)
	}
	sup, err := st.Supply(ctx, constants.PrimaryNetworkID)
	if err != nil || !sup.Replayed || sup.Height != 3 {
		t.Fatalf("Supply = %+v, %v; want replayed at 3", sup, err)
	}
}

// applyP applies blocks as the indexer does (xc.go): as pchain.Batch
// makes them a batch.
func applyP(ctx context.Context, st store.Store, blocks []*pchain.Block) error {
	batch, err := pchain.Batch(blocks)
	if err != nil {
		return err
	}
	return st.ApplyPBlocks(ctx, batch, pstate.Apply[*store.PTx])
}

package ingest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkCatchUpMemoryEVM is BenchmarkCatchUpMemory for the EVM
// follower the service runs for the C-chain and EVM L1s: it catches up on
// b.N transactions (run it with -benchtime=100000x for #27's 100,000), in
// blocks of benchTxsPerBlock ERC-20 transfers (genEVMBlock), from an
// in-process fake of the JSON-RPC the follower calls: eth_chainId,
// eth_blockNumber, and per block one batch of eth_getBlockByNumber (full
// txs), eth_getBlockReceipts and debug_traceBlockByNumber; eth_call for
// the tokens' description and ERC-20 checks; eth_getBalance. The follower
// is the service's: its step (probe, then follow), default batch size and
// fetchers, contract descriptions and ERC-20 checks.
//
// The fake's answers are built before the baseline is taken and held
// outside the Go heap (an anonymous mapping): they count in the baseline's
// resident set, but do not raise the garbage collector's target as a heap
// of the same size would, which would let the follower's garbage grow
// with them. The follower's own share is peak less baseline.
//
// AVAINDEX_BENCH_EVM_BATCH_RECORDS sets Options.BatchRecords (a huge
// one leaves batches bounded by blocks alone, as before it was), so that
// one binary measures both; AVAINDEX_BENCH_HEAPPROFILE names a file for a
// heap profile taken once caught up.
func BenchmarkCatchUpMemoryEVM(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc/self/status for the resident set")
	}
	batchRecords := 0 // the default
	if v := os.Getenv("AVAINDEX_BENCH_EVM_BATCH_RECORDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("AVAINDEX_BENCH_EVM_BATCH_RECORDS=%q: want a positive integer", v)
		}
		batchRecords = n
	}
	const chainID = 43114
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st := openLocalStore(b, dsn)
		blocks := (b.N + benchTxsPerBlock - 1) / benchTxsPerBlock
		chain := newFakeEVMChain(b, chainID, blocks, mmapAnon(b))
		srv := httptest.NewServer(chain)
		b.Cleanup(srv.Close)
		c := internal.EVMChain{ChainID: chainID, RPCURL: srv.URL}
		ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)),
			Options{EVMChains: []internal.EVMChain{c}, BatchRecords: batchRecords})
		f := ix.newEVMFollower(c)

		base, peakRSS := sampleRSS(b)
		b.ResetTimer()
		for caughtUp := false; !caughtUp; {
			var err error
			if caughtUp, err = f.step(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		peak := peakRSS()
		if path := os.Getenv("AVAINDEX_BENCH_HEAPPROFILE"); path != "" {
			writeHeapProfile(b, path+"."+strings.ReplaceAll(b.Name(), "/", "_"))
		}
		if h, _, err := st.Cursor(ctx, store.EVMCursor(chainID)); err != nil || h != uint64(blocks) {
			b.Fatalf("the EVM cursor is at %d (%v), want %d", h, err, blocks)
		}
		token := benchAddr("token", 1)
		if types, err := st.EVMContractTypes(ctx, chainID, []common.Address{token}); err != nil || types[token] != internal.ERC20 {
			b.Fatalf("token %s is stored as %v (%v), want ERC-20", token, types, err)
		}
		secs := b.Elapsed().Seconds()
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(base)/(1<<20), "base-RSS-MiB")
		b.ReportMetric(float64(chain.size)/(1<<20), "fake-MiB")
		b.ReportMetric(float64(blocks)/secs, "blocks/s")
		b.ReportMetric(float64(blocks*benchTxsPerBlock)/secs, "txs/s")
	})
}

// writeHeapProfile writes the heap's profile (allocations by the last
// collection's live objects, and totals) to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatalf("writing the heap profile %s: %v", path, err)
	}
}

// mmapAnon returns an allocator of anonymous mappings, unmapped when b
// ends: memory outside the Go heap.
func mmapAnon(b *testing.B) func(size int) []byte {
	return func(size int) []byte {
		mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			b.Fatalf("mapping %d bytes for the fake chain: %v", size, err)
		}
		b.Cleanup(func() { _ = syscall.Munmap(mem) })
		return mem
	}
}

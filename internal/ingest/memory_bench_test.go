package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/formatting"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkCatchUpMemory measures the process's resident memory while the
// P-chain follower catches up on b.N blocks (run it with
// -benchtime=100000x for #27's 100,000) from a node that serves them:
// the real fetchers, decoding, linking and batched applies, over HTTP
// from an in-process fake of platform.getHeight and getBlockByHeight.
// It reports the peak resident set (VmRSS sampled every 20 ms) and the
// baseline before the follower starts, which holds the fake node's
// blocks, the store's connections and the test binary: the follower's
// own share is the difference.
func BenchmarkCatchUpMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc/self/status for the resident set")
	}
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st := openLocalStore(b, dsn)
		if err := applyLocalGenesis(ctx, st); err != nil {
			b.Fatal(err)
		}
		g, err := localGenesisBlock()
		if err != nil {
			b.Fatal(err)
		}
		raw := pChainFrom(b, g.ID, b.N)
		srv := httptest.NewServer(pBlockServer(raw))
		b.Cleanup(srv.Close)
		ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})

		base, peakRSS := sampleRSS(b)
		b.ResetTimer()
		for caughtUp := false; !caughtUp; {
			if caughtUp, err = follow(ctx, ix, ix.pFollower()); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		peak := peakRSS()
		if h, _, err := st.Cursor(ctx, store.ChainCursor(internal.PChain)); err != nil || h != uint64(b.N) {
			b.Fatalf("the P-chain cursor is at %d (%v), want %d", h, err, b.N)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(base)/(1<<20), "base-RSS-MiB")
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
	})
}

// pBlockServer answers platform.getHeight with the last of raw's heights
// (raw[i] is height i+1) and platform.getBlockByHeight with the block.
func pBlockServer(raw [][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Height json.Number `json:"height"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var result any
		switch req.Method {
		case "platform.getHeight":
			result = map[string]string{"height": strconv.Itoa(len(raw))}
		case "platform.getBlockByHeight":
			h, err := strconv.Atoi(req.Params.Height.String())
			if err != nil || h < 1 || h > len(raw) {
				http.Error(w, "no such height", http.StatusBadRequest)
				return
			}
			s, err := formatting.Encode(formatting.HexNC, raw[h-1])
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			result = map[string]string{"block": s, "encoding": "hexnc"}
		default:
			http.Error(w, "unexpected method "+req.Method, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	})
}

// sampleRSS collects garbage, hands freed memory back to the OS, and
// returns the resident set then (the baseline) and a function that stops
// sampling it every 20 ms and returns the peak seen.
func sampleRSS(b *testing.B) (base int64, peak func() int64) {
	debug.FreeOSMemory()
	base = residentBytes(b)
	var max atomic.Int64
	max.Store(base)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if r := residentBytes(b); r > max.Load() {
					max.Store(r)
				}
			}
		}
	}()
	return base, func() int64 {
		close(stop)
		<-sampled
		if r := residentBytes(b); r > max.Load() {
			max.Store(r)
		}
		return max.Load()
	}
}

// residentBytes is the process's resident set size now.
func residentBytes(tb testing.TB) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Error(err)
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Error(err)
			}
			return kb << 10
		}
	}
	tb.Error("no VmRSS in /proc/self/status")
	return 0
}

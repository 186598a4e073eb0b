package nftmeta

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestProcessRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/slow-down":
			w.Header().Set("Retry-After", "600")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = fmt.Fprint(w, `{"name":"ok"}`)
		}
	}))
	defer srv.Close()
	now := time.Unix(1_800_000_000, 0)
	w := NewWorker(nil, Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, MaxAttempts: 3,
		RetryBase: 10 * time.Second}, quiet)
	w.now = func() time.Time { return now }
	work := func(path string, attempts int) store.NFTWork {
		u := srv.URL + path
		return store.NFTWork{ChainID: 1, Token: common.Address{1}, TokenID: big.NewInt(1), Type: internal.ERC721, URI: &u, Attempts: attempts}
	}
	for _, tc := range []struct {
		path     string
		attempts int
		status   internal.NFTStatus
		retryIn  time.Duration // 0: final
	}{
		{"/ok", 0, internal.NFTIndexed, 0},
		{"/down", 0, internal.NFTUnreachableTokenURI, 10 * time.Second},
		{"/down", 1, internal.NFTUnreachableTokenURI, 20 * time.Second},
		{"/down", 2, internal.NFTUnreachableTokenURI, 0}, // the third attempt is the last
		{"/slow-down", 0, internal.NFTThrottledTokenURI, 600 * time.Second},
	} {
		r := w.Process(context.Background(), work(tc.path, tc.attempts))
		if r.Metadata.Status != tc.status || !r.Metadata.UpdatedAt.Equal(now) {
			t.Errorf("%s after %d attempts: %+v, want %s", tc.path, tc.attempts, r.Metadata, tc.status)
		}
		var in time.Duration
		if !r.RetryAt.IsZero() {
			in = r.RetryAt.Sub(now)
		}
		if in != tc.retryIn {
			t.Errorf("%s after %d attempts: retry in %s, want %s", tc.path, tc.attempts, in, tc.retryIn)
		}
	}
	if r := w.Process(context.Background(), store.NFTWork{Token: common.Address{1}, TokenID: big.NewInt(2)}); r.Metadata.Status != internal.NFTMissingToken {
		t.Errorf("no URI: %+v", r.Metadata)
	}
}

// memStore is a queue in memory, for the worker's concurrency test.
type memStore struct {
	mu      sync.Mutex
	queue   []store.NFTWork
	results []store.NFTResult
}

func (m *memStore) ClaimNFTWork(_ context.Context, _ time.Time, _ time.Duration, limit int) ([]store.NFTWork, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := min(limit, len(m.queue))
	out := m.queue[:n]
	m.queue = m.queue[n:]
	return out, nil
}

func (m *memStore) SaveNFTMetadata(_ context.Context, rs []store.NFTResult) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.results = append(m.results, rs...)
	return nil
}

// saved is how many results the worker has saved.
func (m *memStore) saved() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.results)
}

func (m *memStore) NFTQueueLength(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.queue)), nil
}

// TestWorkerBoundsHosts runs the worker over 60 tokens of two hosts that
// answer slowly: at most PerHost requests reach a host at once, and every
// token is saved.
func TestWorkerBoundsHosts(t *testing.T) {
	const perHost = 3
	var maxSeen atomic.Int32
	slow := func() *httptest.Server {
		var inFlight atomic.Int32
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				m := maxSeen.Load()
				if n <= m || maxSeen.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			_, _ = fmt.Fprint(w, `{"name":"x"}`)
		}))
	}
	a, b := slow(), slow()
	defer a.Close()
	defer b.Close()
	st := &memStore{}
	for i := range 60 {
		u := fmt.Sprintf("%s/%d", a.URL, i)
		if i%2 == 1 {
			u = fmt.Sprintf("%s/%d", b.URL, i)
		}
		st.queue = append(st.queue, store.NFTWork{ChainID: 1, Token: common.Address{1}, TokenID: big.NewInt(int64(i)), Type: internal.ERC721, URI: &u})
	}
	w := NewWorker(st, Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Concurrency: 32, PerHost: perHost,
		PollInterval: 10 * time.Millisecond}, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for st.saved() < 60 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if len(st.results) != 60 {
		t.Fatalf("saved %d results, want 60", len(st.results))
	}
	for _, r := range st.results {
		if r.Metadata.Status != internal.NFTIndexed {
			t.Errorf("token %s: %s", r.Work.TokenID, r.Metadata.Status)
		}
	}
	// Each server is one host (127.0.0.1:port): its own bound.
	if m := maxSeen.Load(); m > perHost || m < 2 {
		t.Errorf("at most %d requests at once to a host, want 2..%d", m, perHost)
	}
	var status progress.Status
	w.Report(&status)
	if n, ok := status.Queues[QueueName]; !ok || n < 0 {
		t.Errorf("the queue's length reported = %d, %t; want it reported", n, ok)
	}
	// The counter is served at /metrics (instrument's registry).
	mfs, err := instrument.Registerer().(prometheus.Gatherer).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == "avaindex_nft_metadata_fetches_total" {
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "status" && l.GetValue() == string(internal.NFTIndexed) {
						n = m.GetCounter().GetValue()
					}
				}
			}
		}
	}
	if n < 60 {
		t.Errorf("avaindex_nft_metadata_fetches_total{status=INDEXED} = %v, want at least 60", n)
	}
}

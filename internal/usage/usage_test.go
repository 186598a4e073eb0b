package usage

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

var quiet = slog.New(slog.DiscardHandler)

func TestRecorderWritesAndPrunes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		now := time.Now().UTC().Truncate(time.Millisecond)
		// One old request, there before the worker starts: past the retention.
		old := internal.APIRequest{ID: "old", Time: now.Add(-48 * time.Hour), Type: internal.RequestTypeData, Route: "GET /v1/x", Method: "GET", Status: 200}
		if err := st.InsertAPIRequests(ctx, []internal.APIRequest{old}); err != nil {
			t.Fatal(err)
		}
		rec := New(st, Config{BatchSize: 4, FlushInterval: 10 * time.Millisecond, Retention: 24 * time.Hour}, quiet)
		const n = 10
		for i := range n {
			rec.Record(internal.APIRequest{Time: now.Add(time.Duration(i) * time.Millisecond), KeyID: "k", KeyName: "key",
				Type: internal.RequestTypeRPC, Route: "/ext/bc/C/rpc", Method: "POST", Status: 200, ChainID: "C", RPCMethod: "eth_chainId"})
		}
		var s progress.Status
		rec.Report(&s)
		if s.Queues["usage"] != n {
			t.Errorf("queued %d, want %d", s.Queues["usage"], n)
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- rec.Run(rctx) }()
		deadline := time.Now().Add(10 * time.Second)
		for rec.Written() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got, err := st.APIRequests(ctx, store.APIRequestFilter{}, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d requests stored, want %d (the old one pruned)", len(got), n)
		}
		seen := map[string]bool{}
		for _, r := range got {
			if r.ID == "" || seen[r.ID] || r.KeyID != "k" || r.RPCMethod != "eth_chainId" || r.ChainID != "C" {
				t.Errorf("stored %+v", r)
			}
			seen[r.ID] = true
		}
	})
}

// A full buffer drops and counts, and Record never blocks.
func TestRecorderDropsWhenFull(t *testing.T) {
	rec := New(nil, Config{Buffer: 3}, quiet)
	for range 5 {
		rec.Record(internal.APIRequest{})
	}
	if rec.Dropped() != 2 {
		t.Errorf("dropped %d, want 2", rec.Dropped())
	}
	var s progress.Status
	rec.Report(&s)
	if s.Queues["usage"] != 3 || s.Queues["usage-dropped"] != 2 {
		t.Errorf("queues %v, want usage 3 and usage-dropped 2", s.Queues)
	}
}

// Run writes what is queued when ctx ends.
func TestRecorderDrainsOnStop(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rec := New(st, Config{FlushInterval: time.Hour}, quiet)
	for i := range 3 {
		rec.Record(internal.APIRequest{Time: time.Unix(int64(1_700_000_000+i), 0), Type: internal.RequestTypeData, Status: 200})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rec.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.APIRequests(context.Background(), store.APIRequestFilter{}, nil, 10)
	if err != nil || len(got) != 3 {
		t.Errorf("stored %d (%v), want 3", len(got), err)
	}
}

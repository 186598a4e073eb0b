package node

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/avaindex/avaindex/internal/instrument"
)

// metric returns the value of the sample name{method="method"} served at
// /metrics, 0 when it is absent.
func metric(t *testing.T, name, method string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	instrument.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	prefix := fmt.Sprintf("%s{method=%q} ", name, method)
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", sc.Text(), err)
			}
			return f
		}
	}
	return 0
}

// fakeIndexNode answers every JSON-RPC call with the error message reply
// currently holds, as a node does; an empty message answers HTTP 404, as
// a node without the index does.
type fakeIndexNode struct {
	mu    sync.Mutex
	reply string
}

func (f *fakeIndexNode) set(msg string) {
	f.mu.Lock()
	f.reply = msg
	f.mu.Unlock()
}

func (f *fakeIndexNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	msg := f.reply
	f.mu.Unlock()
	if msg == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": 1,
		"error": map[string]any{"code": -32000, "message": msg, "data": nil},
	})
}

// TestEmptyIndexIsNotAnUpstreamError: the node's answers for an index with
// no container yet, a range past its end and an index it does not serve
// are counted as calls, not as errors; a real failure of the same methods
// is an error.
func TestEmptyIndexIsNotAnUpstreamError(t *testing.T) {
	fake := &fakeIndexNode{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := New(srv.URL)
	ctx := context.Background()

	const calls, errs = "avaindex_upstream_rpc_calls_total", "avaindex_upstream_rpc_errors_total"
	const last, rng = "index.getLastAccepted", "index.getContainerRange"
	check := func(what, method string, wantCalls, wantErrs float64, call func() error) {
		t.Helper()
		c0, e0 := metric(t, calls, method), metric(t, errs, method)
		if err := call(); err != nil {
			t.Logf("%s: %v", what, err)
		}
		if got := metric(t, calls, method) - c0; got != wantCalls {
			t.Errorf("%s: %s{method=%q} grew by %v, want %v", what, calls, method, got, wantCalls)
		}
		if got := metric(t, errs, method) - e0; got != wantErrs {
			t.Errorf("%s: %s{method=%q} grew by %v, want %v", what, errs, method, got, wantErrs)
		}
	}

	fake.set("no containers have been accepted")
	check("empty index, getLastAccepted", last, 1, 0, func() error {
		_, ok, err := c.IndexLast(ctx, "X/block")
		if err == nil && ok {
			return fmt.Errorf("IndexLast of an empty index reported a container")
		}
		return err
	})
	check("empty index, getContainerRange", rng, 1, 0, func() error {
		_, err := c.IndexRange(ctx, "X/block", 0, 10)
		return err
	})
	fake.set("start index (5) > last accepted index (4)")
	check("range past the end", rng, 1, 0, func() error {
		_, err := c.IndexRange(ctx, "X/block", 5, 10)
		return err
	})
	fake.set("")
	check("no such index", last, 1, 0, func() error {
		_, _, err := c.IndexLast(ctx, "X/block")
		return err
	})

	fake.set("couldn't get last accepted: database closed")
	check("a real failure, getLastAccepted", last, 1, 1, func() error {
		_, _, err := c.IndexLast(ctx, "X/block")
		return err
	})
	check("a real failure, getContainerRange", rng, 1, 1, func() error {
		_, err := c.IndexRange(ctx, "X/block", 0, 10)
		return err
	})
	// The same words from another method are no index answer.
	fake.set("no containers have been accepted")
	check("not an index method", "platform.getHeight", 1, 1, func() error {
		_, err := c.PHeight(ctx)
		return err
	})
}

package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// fakeIndexNode answers index.getLastAccepted and index.getContainerRange
// for the indexes it holds as the node does, and 404 for the others.
type fakeIndexNode struct {
	mu      sync.Mutex
	indexes map[string][]store.Container
	calls   int
}

func (f *fakeIndexNode) add(name string, cs ...store.Container) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.indexes[name] = append(f.indexes[name], cs...)
}

func (f *fakeIndexNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/ext/index/")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	cs, has := f.indexes[name]
	if !ok || !has {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			StartIndex json.Number `json:"startIndex"`
			NumToFetch json.Number `json:"numToFetch"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	format := func(c store.Container) map[string]any {
		b, _ := formatting.Encode(formatting.Hex, c.Bytes)
		return map[string]any{"id": c.ID.String(), "bytes": b, "timestamp": c.Timestamp,
			"encoding": "hex", "index": fmt.Sprint(c.Index)}
	}
	var result any
	var rpcErr string
	switch req.Method {
	case "index.getLastAccepted":
		if len(cs) == 0 {
			rpcErr = "no containers have been accepted"
		} else {
			result = format(cs[len(cs)-1])
		}
	case "index.getContainerRange":
		start, _ := req.Params.StartIndex.Int64()
		n, _ := req.Params.NumToFetch.Int64()
		switch {
		case n < 1 || n > 1024:
			rpcErr = fmt.Sprintf("numToFetch must be in [1,1024] but is %d", n)
		case len(cs) == 0:
			rpcErr = "no containers have been accepted"
		case start > int64(len(cs)-1):
			rpcErr = fmt.Sprintf("start index (%d) > last accepted index (%d)", start, len(cs)-1)
		default:
			var out []map[string]any
			for _, c := range cs[start:min(int64(len(cs)), start+n)] {
				out = append(out, format(c))
			}
			result = map[string]any{"containers": out}
		}
	default:
		rpcErr = "method not found"
	}
	env := map[string]any{"jsonrpc": "2.0", "id": 1}
	if rpcErr != "" {
		env["error"] = map[string]any{"code": -32000, "message": rpcErr, "data": nil}
	} else {
		env["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(env)
}

func testContainers(salt string, from, to uint64) []store.Container {
	var cs []store.Container
	for i := from; i < to; i++ {
		cs = append(cs, store.Container{
			Index:     i,
			ID:        ids.ID(hashOf(salt, i)),
			Bytes:     []byte(fmt.Sprintf("%s %d", salt, i)),
			Timestamp: time.Unix(1_700_000_000, int64(i)*1000).In(time.FixedZone("", 3600)).Format(time.RFC3339Nano),
		})
	}
	return cs
}

func hashOf(parts ...any) [32]byte {
	var id [32]byte
	copy(id[:], fmt.Sprint(parts...))
	return id
}

func TestMirrorIndexes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		fake := &fakeIndexNode{indexes: map[string][]store.Container{}}
		fake.add("X/tx", testContainers("tx", 0, 2100)...)
		fake.add("X/vtx") // served, empty
		srv := httptest.NewServer(fake)
		defer srv.Close()
		ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})

		for _, name := range store.IndexNames {
			src := store.SourceUnknown
			_, err := ix.stepIndex(ctx, name, &src)
			switch name {
			case "X/tx", "X/vtx":
				if err != nil || src != store.SourceNode {
					t.Fatalf("%s: src %q, err %v", name, src, err)
				}
			default:
				if !errors.Is(err, node.ErrNoIndex) || src != store.SourceNone {
					t.Fatalf("%s: src %q, err %v; want ErrNoIndex", name, src, err)
				}
			}
			state, err := st.IndexState(ctx, name)
			if err != nil || state.Source != src {
				t.Fatalf("%s: stored state %+v, %v", name, state, err)
			}
		}
		check := func(n uint64) {
			t.Helper()
			state, err := st.IndexState(ctx, "X/tx")
			if err != nil || !state.HasLast || state.Last != n-1 {
				t.Fatalf("X/tx state %+v, %v; want last %d", state, err, n-1)
			}
			got, err := st.ContainerRange(ctx, "X/tx", 0, n+10)
			if err != nil {
				t.Fatal(err)
			}
			if want := testContainers("tx", 0, n); !reflect.DeepEqual(got, want) {
				t.Fatalf("mirrored containers differ (%d vs %d)", len(got), len(want))
			}
		}
		check(2100)
		if s := ix.Status(); s.Heights["index:X/tx"] != 2099 || s.Tips["index:X/tx"] != 2099 {
			t.Errorf("status %+v", s)
		}

		// Caught up: one call, nothing written.
		src := store.SourceNode
		fake.mu.Lock()
		fake.calls = 0
		fake.mu.Unlock()
		caughtUp, err := ix.stepIndex(ctx, "X/tx", &src)
		fake.mu.Lock()
		calls := fake.calls
		fake.mu.Unlock()
		if err != nil || !caughtUp || calls != 1 {
			t.Fatalf("caught up step: %t, %v, %d calls", caughtUp, err, calls)
		}
		// New containers are followed.
		fake.add("X/tx", testContainers("tx", 2100, 2105)...)
		if _, err := ix.stepIndex(ctx, "X/tx", &src); err != nil {
			t.Fatal(err)
		}
		check(2105)
		if state, _ := st.IndexState(ctx, "X/vtx"); state.HasLast {
			t.Errorf("X/vtx has containers: %+v", state)
		}
	})
}

// Run follows the indexes until stopped.
func TestRunFollowsIndexes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fake := &fakeIndexNode{indexes: map[string][]store.Container{}}
	fake.add("C/block", testContainers("c", 0, 3)...)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ix := New(node.New(srv.URL), &internal.Network{}, st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{PollInterval: 10 * time.Millisecond})
	done := make(chan error)
	go func() { done <- ix.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, ok, _ := st.Cursor(ctx, store.IndexCursor("C/block")); ok && c == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("C/block not mirrored within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	fake.add("C/block", testContainers("c", 3, 4)...)
	for {
		if c, _, _ := st.Cursor(ctx, store.IndexCursor("C/block")); c == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("new C/block container not mirrored within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// blockPages is a DataSource of P-chain blocks whose Generation moves
// when a block is added, as the store's does on a commit.
type blockPages struct {
	DataSource
	mu     sync.Mutex
	blocks []*store.BlockSummary // ascending heights
	gen    atomic.Uint64
	reads  atomic.Int64
	// gens counts Generation's calls; a read waits for gate when it is
	// not nil.
	gens atomic.Int64
	gate chan struct{}
	// failFirst fails the first read.
	failFirst bool
}

func (s *blockPages) Generation() uint64 {
	s.gens.Add(1)
	return s.gen.Load()
}

func (s *blockPages) add() {
	s.mu.Lock()
	h := uint64(len(s.blocks))
	s.blocks = append(s.blocks, &store.BlockSummary{Height: h, ID: ids.ID{byte(h), 1}, ParentID: ids.ID{byte(h - 1), 1},
		Type: "BanffStandardBlock", Timestamp: time.Unix(1_700_000_000+int64(h), 0)})
	s.mu.Unlock()
	s.gen.Add(1)
}

func (s *blockPages) BlockSummaries(_ context.Context, _ store.BlockQuery, after *uint64, limit int) ([]*store.BlockSummary, error) {
	n := s.reads.Add(1)
	if s.gate != nil {
		<-s.gate
	}
	if s.failFirst && n == 1 {
		return nil, errors.New("the first read fails")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*store.BlockSummary
	for i := len(s.blocks) - 1; i >= 0 && len(out) < limit; i-- {
		if after == nil || s.blocks[i].Height < *after {
			out = append(out, s.blocks[i])
		}
	}
	return out, nil
}

// TestLatestBlocksKept: the page of the latest blocks is read from the
// store once per store generation and answered the same meanwhile; a new
// block (a new generation) is on the next answer; refused requests are
// not kept; concurrent readers get whole, equal bodies.
func TestLatestBlocksKept(t *testing.T) {
	src := &blockPages{}
	get := latestBlocks(t, src)
	_, first := get("?pageSize=10")
	if !strings.Contains(first, `"blockNumber":"11"`) || strings.Contains(first, `"blockNumber":"1"`) {
		t.Fatalf("first page: %s", first)
	}
	reads := src.reads.Load()
	if _, again := get("?pageSize=10"); again != first {
		t.Errorf("same generation, another answer:\n%s\nwant\n%s", again, first)
	}
	if src.reads.Load() != reads {
		t.Error("the store was read again at the same generation")
	}
	if _, other := get("?pageSize=3"); strings.Count(other, `"blockNumber"`) != 3 {
		t.Errorf("pageSize=3 answered the kept pageSize=10 page: %s", other)
	}

	src.add()
	if _, after := get("?pageSize=10"); !strings.Contains(after, `"blockNumber":"12"`) {
		t.Errorf("the page after a new block lacks it: %s", after)
	}

	// A refusal is not kept, and does not hide the good answer.
	for range 2 {
		if code, _ := get("?pageSize=abc"); code != http.StatusBadRequest {
			t.Errorf("pageSize=abc: HTTP %d", code)
		}
	}

	// Concurrent readers while blocks are added: every body is one
	// whole page (the kept bytes are shared, never written to).
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if i == 0 {
					src.add()
				}
				if code, body := get("?pageSize=10"); code != 200 || strings.Count(body, `"blockNumber"`) != 10 || !strings.HasSuffix(body, "}\n") {
					t.Errorf("HTTP %d %q", code, body)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestLatestBlocksReadOnce: requests that miss the kept page together
// read the store once, and all get the page; when that read fails, the
// others read for themselves.
func TestLatestBlocksReadOnce(t *testing.T) {
	for _, fail := range []bool{false, true} {
		src := &blockPages{gate: make(chan struct{}), failFirst: fail}
		get := latestBlocks(t, src)
		const clients = 8
		bodies := make(chan string, clients)
		for range clients {
			go func() {
				code, body := get("?pageSize=10")
				bodies <- fmt.Sprint(code, " ", body)
			}()
		}
		// Every request has read the generation (and missed); the first
		// read of the store is held until they all wait on it.
		for src.gens.Load() < clients || src.reads.Load() < 1 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		close(src.gate)
		pages := 0
		for range clients {
			if body := <-bodies; strings.HasPrefix(body, "200 ") && strings.Count(body, `"blockNumber"`) == 10 {
				pages++
			} else if !fail {
				t.Errorf("answer %q, want the page of 10", body)
			}
		}
		switch n := src.reads.Load(); {
		case !fail && n != 1:
			t.Errorf("%d concurrent misses read the store %d times, want once", clients, n)
		case fail && pages != clients-1:
			t.Errorf("the first read failed: %d of %d requests got the page, want all but its own", pages, clients)
		}
	}
}

// latestBlocks adds 12 blocks to src and returns a get of the P-chain's
// latest blocks with query, served by an API over src: the status and
// the body (or the error).
func latestBlocks(t *testing.T, src *blockPages) func(query string) (int, string) {
	t.Helper()
	for range 12 {
		src.add()
	}
	a, err := New(Deps{TokenKey: bytes.Repeat([]byte{7}, 32), Store: src,
		Network: &internal.Network{ID: 12345, Name: "local", HRP: "local"}})
	if err != nil {
		t.Fatal(err)
	}
	return func(query string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/networks/local/blockchains/p-chain/blocks"+query, nil)
		r.SetPathValue("network", "local")
		r.SetPathValue("blockchainId", "p-chain")
		w := httptest.NewRecorder()
		if err := a.listBlocks(w, r); err != nil {
			return errorStatus(err), err.Error()
		}
		return w.Code, w.Body.String()
	}
}

// errorStatus is the HTTP status WriteError gives err.
func errorStatus(err error) int {
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), err)
	return w.Code
}

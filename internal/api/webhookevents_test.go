package api

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// streamStore is the store with an outbox of its own: the events the
// test puts there.
type streamStore struct {
	store.Store
	mu     sync.Mutex
	events []store.WebhookEvent
}

func (s *streamStore) put(id string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := len(s.events)
	s.events = append(s.events, store.WebhookEvent{WebhookID: id, BlockNumber: uint64(10 + k), Position: 1,
		MessageID: fmt.Sprintf("m%d", k), Payload: []byte(fmt.Sprintf(`{"n":%d}`, k))})
	if n > 1 {
		s.mu.Unlock()
		s.put(id, n-1)
		s.mu.Lock()
	}
}

func (s *streamStore) WebhookStream(_ context.Context, id string, after *store.WebhookEventPos, limit int) ([]store.WebhookEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.WebhookEvent
	for _, e := range s.events {
		if e.WebhookID == id && (after == nil || e.BlockNumber > after.BlockNumber) && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *streamStore) WebhookEventPosition(_ context.Context, id, msg string) (*store.WebhookEventPos, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e.WebhookID == id && e.MessageID == msg {
			return &store.WebhookEventPos{BlockNumber: e.BlockNumber, Position: e.Position}, nil
		}
	}
	return nil, nil
}

// sse is an open event stream.
type sse struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openSSE(t *testing.T, url, key, lastID string) (*sse, int) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set(HeaderDataAPIKey, key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, resp.StatusCode
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	return &sse{resp: resp, sc: bufio.NewScanner(resp.Body)}, resp.StatusCode
}

// next reads the next event: "id event data".
func (s *sse) next(t *testing.T) string {
	t.Helper()
	var fields []string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "" && len(fields) > 0:
			return strings.Join(fields, " ")
		case strings.HasPrefix(line, ":"), line == "":
		default:
			_, v, _ := strings.Cut(line, ": ")
			fields = append(fields, v)
		}
	}
	t.Fatalf("the stream ended: %v", s.sc.Err())
	return ""
}

// TestWebhookEventStream reads a webhook's events as server-sent events
// over a real HTTP server: in order with their messageIds, new ones as
// they come, resumed after a Last-Event-ID or ?after=, refused for an
// unknown id, another key's webhook, or a key's fifth stream.
func TestWebhookEventStream(t *testing.T) {
	dsn := dbtest.SQLite(t)
	ss := &streamStore{}
	h, st := newWebhookAPI(t, dsn, store.WebhookLimits{Webhooks: 10, Addresses: 10}, func(d *Deps) {
		d.Webhooks = ss
	})
	ss.Store = st
	var hook testHook
	callOK(t, h, "alice", "POST", "/v1/webhooks", fmt.Sprintf(`{"eventType":"address_activity","url":"https://example.org/h","chainId":"%d","metadata":{"addresses":[]}}`, evmTestChain), &hook)
	srv := httptest.NewServer(h)
	// Last: Close waits for the streams, which the cleanups after close.
	t.Cleanup(srv.Close)
	url := srv.URL + "/v1/webhooks/" + hook.ID + "/events"
	ss.put(hook.ID, 3)
	ss.put("another", 1)

	s, code := openSSE(t, url, "alice", "")
	if code != http.StatusOK {
		t.Fatalf("open: %d", code)
	}
	var got []string
	for range 3 {
		got = append(got, s.next(t))
	}
	want := []string{`m0 address_activity {"n":0}`, `m1 address_activity {"n":1}`, `m2 address_activity {"n":2}`}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// A new event comes on the open stream.
	ss.put(hook.ID, 1)
	if e := s.next(t); e != `m4 address_activity {"n":4}` {
		t.Errorf("live event %q", e)
	}
	// Resumed after m1, by header or by ?after=.
	r, _ := openSSE(t, url, "alice", "m1")
	if a, b := r.next(t), r.next(t); a != want[2] || b != `m4 address_activity {"n":4}` {
		t.Errorf("resumed after m1: %q %q", a, b)
	}
	r2, _ := openSSE(t, url+"?after=m2", "alice", "")
	if e := r2.next(t); e != `m4 address_activity {"n":4}` {
		t.Errorf("?after=m2: %q", e)
	}
	for _, c := range []struct {
		url, key, last string
		code           int
	}{
		{url + "?after=m99", "alice", "", http.StatusBadRequest},
		{url, "alice", "m3", http.StatusBadRequest}, // another webhook's
		{url, "bob", "", http.StatusNotFound},
		{url, "", "", http.StatusUnauthorized},
	} {
		if _, code := openSSE(t, c.url, c.key, c.last); code != c.code {
			t.Errorf("%s as %q after %q: %d, want %d", c.url, c.key, c.last, code, c.code)
		}
	}
	// Three open: a fourth is allowed, a fifth refused.
	if _, code := openSSE(t, url, "alice", ""); code != http.StatusOK {
		t.Errorf("fourth stream: %d", code)
	}
	if _, code := openSSE(t, url, "alice", ""); code != http.StatusTooManyRequests {
		t.Errorf("fifth stream: %d", code)
	}
	// A closed stream frees its place.
	s.resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, code := openSSE(t, url, "alice", ""); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed stream's place was not freed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

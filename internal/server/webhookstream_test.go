package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestWebhookEventStreamThroughServer reads a webhook's event stream
// (GET /v1/webhooks/{id}/events) through the whole server, on both
// stores: New's handler with the access middleware (the key resolved
// from the store, the rate limit counted), an http.Server whose write
// timeout is shorter than the stream lives, and a real client keeping
// its connections alive. The outbox's events come in order (a block's
// advance events, at negative positions, before its txs'), a new one
// comes on the open stream after the write timeout has passed, a
// reconnect with Last-Event-ID resumes after that event, and the
// refusals are the Data API's errors.
func TestWebhookEventStreamThroughServer(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		db, err := database.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		known := func(string) bool { return true }
		alice, err := apikeys.Create(ctx, st, "alice", ratelimit.Standard, known, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		bob, err := apikeys.Create(ctx, st, "bob", ratelimit.Standard, known, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		dataAPI, err := api.New(api.Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, param.MinTokenKeyLen), Webhooks: st})
		if err != nil {
			t.Fatal(err)
		}
		var routes []Route
		for _, r := range dataAPI.Routes() {
			routes = append(routes, Route{Pattern: r.Pattern, Handler: r.Handler, Surface: DataAPI, Write: r.Write})
		}
		tiers := testTiers()
		srv := httptest.NewUnstartedServer(New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes,
			Access: newAccess(t, AccessConfig{Keys: apikeys.NewCache(st, 0, nil), Tiers: tiers})}))
		// Shorter than the stream: each of its writes sets its own deadline,
		// through the middleware's response writers.
		const writeTimeout = time.Second
		srv.Config.WriteTimeout = writeTimeout
		srv.Start()
		// Last: Close waits for the open streams, which the cleanups after
		// it close.
		t.Cleanup(srv.Close)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		t.Cleanup(client.CloseIdleConnections)

		// do makes a request as key; reused tells whether it went over a
		// kept-alive connection.
		do := func(method, path, key, body string, hdr ...string) (resp *http.Response, reused bool) {
			t.Helper()
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if key != "" {
				req.Header.Set(api.HeaderDataAPIKey, key)
			}
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
				GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
			}))
			resp, err = client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp, reused
		}
		read := func(resp *http.Response) string {
			t.Helper()
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}

		resp, _ := do("POST", "/v1/webhooks", alice, `{"eventType":"validator_activity","url":"https://example.org/v","network":"local",
			"metadata":{"keyType":"nodeId","keys":["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"],
			"subEvents":{"validatorActivitySubEvents":["l1_validator_disabled"]}}}`)
		body := read(resp)
		var hook struct{ ID string }
		if resp.StatusCode != http.StatusCreated || json.Unmarshal([]byte(body), &hook) != nil || hook.ID == "" {
			t.Fatalf("createWebhook: %d %s", resp.StatusCode, body)
		}
		if resp, reused := do("GET", "/v1/webhooks/"+hook.ID, alice, ""); resp.StatusCode != http.StatusOK || !reused {
			t.Errorf("getWebhook: %d, connection reused %t; want 200 on the kept-alive connection (%s)", resp.StatusCode, reused, read(resp))
		} else {
			read(resp)
		}

		put := func(block, position int64, msg string) {
			t.Helper()
			if _, err := db.Exec(ctx, `INSERT INTO webhook_outbox (webhook_id, block_number, position, message_id, payload, created_at)
				VALUES (?, ?, ?, ?, ?, ?)`, hook.ID, block, position, msg, fmt.Sprintf(`{"m":%q}`, msg), time.Now().UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		put(12, 4, "m3")
		put(10, 20, "m1")
		put(12, -1<<31+1, "m2") // block 12's advance, before its txs
		ev := func(msg string) string { return msg + ` validator_activity {"m":"` + msg + `"}` }

		path := "/v1/webhooks/" + hook.ID + "/events"
		resp, _ = do("GET", path, alice, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("open: %d %s", resp.StatusCode, read(resp))
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		if p := resp.Header.Get("RateLimit-Policy"); !strings.Contains(p, `name="`+ratelimit.Standard+`"`) {
			t.Errorf("the stream is not counted in the key's tier: RateLimit-Policy %q", p)
		}
		s := &serverSSE{sc: bufio.NewScanner(resp.Body), body: resp.Body}
		var got []string
		for range 3 {
			got = append(got, s.next(t))
		}
		if want := []string{ev("m1"), ev("m2"), ev("m3")}; !slices.Equal(got, want) {
			t.Errorf("events %q, want %q", got, want)
		}
		// Past the server's write timeout, the stream still takes a new event.
		time.Sleep(writeTimeout + writeTimeout/2)
		put(13, 0, "m4")
		if e := s.next(t); e != ev("m4") {
			t.Errorf("live event %q, want %q", e, ev("m4"))
		}
		s.body.Close()

		// Reconnected after m2: the rest.
		resp, _ = do("GET", path, alice, "", "Last-Event-ID", "m2")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("resume: %d %s", resp.StatusCode, read(resp))
		}
		r := &serverSSE{sc: bufio.NewScanner(resp.Body), body: resp.Body}
		if a, b := r.next(t), r.next(t); a != ev("m3") || b != ev("m4") {
			t.Errorf("resumed after m2: %q %q", a, b)
		}
		r.body.Close()

		for _, c := range []struct {
			key, last string
			status    int
			msg       string
		}{
			{alice, "m9", http.StatusBadRequest, "Last-Event-ID"},
			{bob, "", http.StatusNotFound, ""},
			{"", "", http.StatusUnauthorized, ""},
			{alice + "x", "", http.StatusUnauthorized, "API key is not valid"},
		} {
			resp, _ := do("GET", path, c.key, "", "Last-Event-ID", c.last)
			a := answer{resp.StatusCode, resp.Header, read(resp)}
			var eb api.ErrorBody
			if a.status != c.status || json.Unmarshal([]byte(a.body), &eb) != nil || eb.StatusCode != c.status || !strings.Contains(eb.Message, c.msg) {
				t.Errorf("key %q after %q: %d %s, want %d naming %q", c.key, c.last, a.status, a.body, c.status, c.msg)
			}
		}
		// The connections stay usable: a call after the streams.
		if resp, _ := do("GET", "/v1/webhooks/"+hook.ID, alice, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("getWebhook after the streams: %d %s", resp.StatusCode, read(resp))
		} else {
			read(resp)
		}
	})
}

// serverSSE is an open event stream.
type serverSSE struct {
	sc   *bufio.Scanner
	body io.Closer
}

// next reads the next event: "id event data".
func (s *serverSSE) next(t *testing.T) string {
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

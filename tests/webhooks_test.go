package tests

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
	"github.com/avaindex/avaindex/internal/webhooks"
)

// hookReceiver is a webhook receiver on loopback: it can be down (503) or
// hang, and records what it took.
type hookReceiver struct {
	t      *testing.T
	srv    *httptest.Server
	secret atomic.Value // string
	down   atomic.Bool
	posts  atomic.Int64

	mu       sync.Mutex
	hang     chan struct{} // non-nil: requests wait for it (or their end)
	inFlight chan struct{} // signalled when a request hangs
	got      []string      // the txs taken, in order, repeats included
	payloads []string      // their bodies
	bad      []string      // what should not have come
	// platform receivers keep the bodies (raw) and check no EVM schema.
	platform bool
	raw      [][]byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{t: t, inFlight: make(chan struct{}, 100)}
	r.secret.Store("")
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	r.posts.Add(1)
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	hang := r.hang
	r.mu.Unlock()
	if hang != nil {
		r.inFlight <- struct{}{}
		select {
		case <-hang:
		case <-req.Context().Done():
			return
		}
	}
	if r.down.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	var ev struct {
		Event struct{ Transaction struct{ TxHash, To string } }
	}
	_ = json.Unmarshal(body, &ev)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !webhooks.Verify(r.secret.Load().(string), body, req.Header.Get("x-signature")) {
		r.bad = append(r.bad, "unverified signature on "+string(body))
	}
	if r.platform {
		r.raw = append(r.raw, body)
	} else if len(r.got) == 0 {
		if err := openapitest.Default(r.t).CheckSchema("WebhookAddressActivityResponse", body); err != nil {
			r.bad = append(r.bad, err.Error())
		}
	}
	r.got = append(r.got, ev.Event.Transaction.TxHash+" to "+ev.Event.Transaction.To)
	r.payloads = append(r.payloads, string(body))
}

func (r *hookReceiver) setHang(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.hang = make(chan struct{})
	} else if r.hang != nil {
		close(r.hang)
		r.hang = nil
	}
}

// distinct is what was taken, repeats dropped, in order of first arrival.
func (r *hookReceiver) distinct() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, g := range r.got {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// TestWebhooksDelivery runs avaindex as processes of their own with a
// webhook watching one address and a real receiver on loopback, on both
// stores: the receiver is down and comes back; avaindex is SIGKILLed with
// a delivery in flight and restarted; on PostgreSQL a second instance
// takes over from a killed one. Every event is delivered, in order, each
// signature verifies, and no tx of an unwatched address is sent.
func TestWebhooksDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		key, err := apikeys.Create(ctx, st, "hooks", "standard", func(string) bool { return true }, time.Now())
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		rcv := newHookReceiver(t)
		// Short waits between attempts, and attempts enough that the
		// webhook stays active while the receiver is down: with the
		// default 12 it could turn inactive (internal/webhooks tests that)
		// before /readyz's backlog, sampled every 2 s, showed it.
		flags := []string{"--webhook-allow-private-network", "127.0.0.1/32", "--webhook-timeout", "2s", "--webhook-max-backoff", "200ms",
			"--webhook-max-attempts", "100000"}
		a := childService(t, n.URL, dsn, flags...)

		var watched, stranger common.Address
		_, _ = rand.Read(watched[:])
		_, _ = rand.Read(stranger[:])
		api := func(base, method, path, body string, v any) {
			t.Helper()
			req, _ := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
			req.Header.Set("x-data-api-key", key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode/100 != 2 {
				t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
			}
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatal(err)
			}
		}
		var hook struct{ ID, Status string }
		api(a.base, "POST", "/v1/webhooks", `{"eventType":"address_activity","url":"`+rcv.srv.URL+`/hook","chainId":"43112",
			"metadata":{"addresses":["`+watched.Hex()+`"]}}`, &hook)
		var secret struct{ Secret string }
		api(a.base, "GET", "/v1/webhooks:getSharedSecret", "", &secret)
		rcv.secret.Store(secret.Secret)

		var want []string
		send := func(k int) {
			t.Helper()
			for i := range k {
				h, err := n.SendEVM(ctx, watched, big.NewInt(int64(1000+i)))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, h.Hex()+" to "+watched.Hex())
				if _, err := n.SendEVM(ctx, stranger, big.NewInt(1)); err != nil {
					t.Fatal(err)
				}
			}
		}
		waitAll := func(what string) {
			t.Helper()
			for len(rcv.distinct()) < len(want) {
				if ctx.Err() != nil {
					t.Fatalf("%s: %d of %d events delivered: %v", what, len(rcv.distinct()), len(want), rcv.distinct())
				}
				time.Sleep(20 * time.Millisecond)
			}
		}

		// The receiver is down: attempts fail, then it comes back.
		rcv.down.Store(true)
		send(2)
		for rcv.posts.Load() < 3 {
			if ctx.Err() != nil {
				t.Fatalf("%d attempts while the receiver was down", rcv.posts.Load())
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The backlog shows in /readyz and /metrics.
		for {
			var r struct {
				Indexer struct {
					Queues map[string]int64 `json:"queues"`
				} `json:"indexer"`
			}
			resp, err := http.Get(a.base + "/readyz")
			if err == nil {
				_ = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
			}
			if r.Indexer.Queues["webhooks"] >= 1 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("no webhooks backlog in /readyz: %v", r.Indexer.Queues)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if resp, err := http.Get(a.base + "/metrics"); err != nil {
			t.Error(err)
		} else {
			m, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(m), "\navaindex_webhook_backlog ") {
				t.Error("/metrics has no avaindex_webhook_backlog")
			}
		}
		rcv.down.Store(false)
		waitAll("the receiver back")

		// SIGKILLed with a delivery in flight, then restarted.
		rcv.setHang(true)
		send(2)
		select {
		case <-rcv.inFlight:
		case <-ctx.Done():
			t.Fatal("no delivery in flight")
		}
		a.kill()
		rcv.setHang(false)
		b := childService(t, n.URL, dsn, flags...)
		waitAll("after the restart")

		if strings.HasPrefix(dsn, "postgres") {
			// A second instance takes over from a killed one.
			c := childService(t, n.URL, dsn, flags...)
			b.kill()
			send(2)
			waitAll("after the takeover")
			var got struct{ Status string }
			api(c.base, "GET", "/v1/webhooks/"+hook.ID, "", &got)
			if got.Status != "active" {
				t.Errorf("the webhook is %s", got.Status)
			}
		}

		if got := rcv.distinct(); !slices.Equal(got, want) {
			t.Errorf("delivered, in order of first arrival:\n%v\nwant\n%v", got, want)
		}
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		for _, b := range rcv.bad {
			t.Error(b)
		}
		t.Logf("%d events, %d deliveries (%d repeats), %d requests", len(want), len(rcv.got), len(rcv.got)-len(want), rcv.posts.Load())
	})
}

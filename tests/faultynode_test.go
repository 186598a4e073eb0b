package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// faultProxy stands between avaindex and the real node and misbehaves as
// its mode says: "" passes every call, "latency" delays each, "reset"
// drops the connection unanswered, "truncate" cuts each answer in half,
// and "wrong-block" answers platform.getBlockByHeight for height h with
// the block at h-1 (a real block: its height and parent give the lie
// away).
type faultProxy struct {
	rp      *httputil.ReverseProxy
	mode    atomic.Value
	faulted atomic.Int64
}

func newFaultProxy(t *testing.T, nodeURL string) (*faultProxy, string) {
	t.Helper()
	target, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{rp: httputil.NewSingleHostReverseProxy(target)}
	p.rp.ErrorLog = log.New(io.Discard, "", 0)
	p.mode.Store("")
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func (p *faultProxy) set(mode string) { p.mode.Store(mode) }

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p.mode.Load().(string) {
	case "latency":
		time.Sleep(150 * time.Millisecond)
	case "reset":
		p.faulted.Add(1)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // a reset, not a clean close
			}
			conn.Close()
		}
		return
	case "truncate":
		rec := httptest.NewRecorder()
		p.rp.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		p.faulted.Add(1)
		panic(http.ErrAbortHandler) // the connection ends mid-body
	case "wrong-block":
		if r.URL.Path == "/ext/bc/P" {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Params  struct {
					Height   json.Number `json:"height"`
					Encoding string      `json:"encoding"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "platform.getBlockByHeight" {
				if h, err := strconv.ParseUint(req.Params.Height.String(), 10, 64); err == nil && h >= 2 {
					req.Params.Height = json.Number(strconv.FormatUint(h-1, 10))
					body, _ = json.Marshal(req)
					p.faulted.Add(1)
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
	}
	p.rp.ServeHTTP(w, r)
}

// TestFaultyNode indexes the real local network through a proxy that
// makes the node slow, drop connections, cut answers short and answer
// another block than the one asked for, while P-chain blocks keep coming:
// each fault shows in /readyz (the lying node as a block that does not
// link where it should) and
// stores nothing wrong, every loop recovers by itself once the node
// behaves, and the store ends with every block the node's, on both stores.
func TestFaultyNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		proxy, proxyURL := newFaultProxy(t, n.URL)
		base := startService(t, proxyURL, dsn)
		pc, served := platformvm.NewClient(n.URL), platformvm.NewClient(base)
		caughtUp := func(what string) uint64 {
			t.Helper()
			tip, err := pc.GetHeight(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for {
				h, err := served.GetHeight(ctx)
				if err == nil && h >= tip {
					return tip
				}
				if ctx.Err() != nil {
					t.Fatalf("%s: avaindex at P-chain height %d (%v), node at %d", what, h, err, tip)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		issue := func(k int) {
			t.Helper()
			for range k {
				if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
					t.Fatal(err)
				}
			}
		}
		// waitError waits for /readyz to tell the P-chain's loop failing
		// with want in its error.
		waitError := func(want string) string {
			t.Helper()
			for {
				r := readyz(t, base)
				if strings.Contains(r.Indexer.LastError, "P-chain") && strings.Contains(r.Indexer.LastError, want) {
					return r.Indexer.LastError
				}
				if ctx.Err() != nil {
					t.Fatalf("no P-chain error with %q in /readyz: %q", want, r.Indexer.LastError)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		caughtUp("at start")

		proxy.set("latency")
		issue(2)
		caughtUp("with a slow node")

		for _, fault := range []struct{ mode, shows string }{
			{"reset", "unavailable"},
			{"truncate", "unavailable"},
			{"wrong-block", "claims height"},
		} {
			before, err := served.GetHeight(ctx)
			if err != nil {
				t.Fatal(err)
			}
			proxy.set(fault.mode)
			issue(3)
			shown := waitError(fault.shows)
			if h, err := served.GetHeight(ctx); err != nil || h != before {
				t.Errorf("%s: avaindex moved from P-chain height %d to %d (%v) while the node misbehaved", fault.mode, before, h, err)
			}
			t.Logf("%s: /readyz says %.160s", fault.mode, shown)
			proxy.set("")
			caughtUp("after " + fault.mode)
			for {
				if r := readyz(t, base); r.Indexer.LastError == "" {
					break
				}
				if ctx.Err() != nil {
					t.Fatal("the error stayed in /readyz after the node behaved")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		if proxy.faulted.Load() == 0 {
			t.Fatal("the proxy injected no fault")
		}

		tip := caughtUp("at the end")
		for h := range tip + 1 {
			want, err := pc.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			got, err := served.GetBlockByHeight(ctx, h)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("block %d after the faults: %v, or not the node's", h, err)
			}
		}
	})
}

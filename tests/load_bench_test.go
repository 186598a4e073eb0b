package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// loadClients is the load generator's concurrency.
const loadClients = 64

// loadPBlocks is how many P-chain blocks the load benchmark's network has
// at least: platform.getBlockByHeight is spread over all of them.
const loadPBlocks = 1100

// growPChain grows the P-chain to at least want blocks (see
// testnet.Network.GrowPChain) and returns its tip.
func growPChain(tb testing.TB, n *testnet.Network, want uint64) uint64 {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	tip, added, err := n.GrowPChain(ctx, want)
	if err != nil {
		tb.Fatal(err)
	}
	if added > 0 {
		tb.Logf("grew the P-chain by %d blocks to height %d in %s", added, tip, time.Since(start).Round(time.Millisecond))
	}
	return tip
}

// routeClass is one kind of request the load generator sends; req makes
// the i-th.
type routeClass struct {
	name string
	req  func(base string, i uint64) (*http.Request, error)
}

func getClass(name, path string) routeClass {
	return routeClass{name, func(base string, _ uint64) (*http.Request, error) {
		return http.NewRequest(http.MethodGet, base+path, nil)
	}}
}

// getBlockByHeightClass spreads platform.getBlockByHeight (hex, the
// default encoding) over heights 0..tip.
func getBlockByHeightClass(tip uint64) routeClass {
	return routeClass{"getBlockByHeight", func(base string, i uint64) (*http.Request, error) {
		body := `{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":` +
			strconv.FormatUint(i%(tip+1), 10) + `,"encoding":"hex"}}`
		r, err := http.NewRequest(http.MethodPost, base+"/ext/bc/P", strings.NewReader(body))
		if r != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		return r, err
	}}
}

// loadClient is the load generator's HTTP client: keep-alive connections
// enough for every client.
func loadClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 2 * loadClients, MaxIdleConnsPerHost: 2 * loadClients,
		DisableCompression: true, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}}
}

// runLoad sends b.N requests of class to base from loadClients concurrent
// clients and reports requests/s, p50 and p99 latency and the share of
// 429 answers; any other status than 200 and 429 fails.
func runLoad(b *testing.B, base string, class routeClass) {
	client := loadClient()
	defer client.CloseIdleConnections()
	do := func(i uint64) (int, error) {
		req, err := class.req(base, i)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, err
	}
	if code, err := do(0); err != nil || code != http.StatusOK {
		b.Fatalf("%s: HTTP %d, %v", class.name, code, err)
	}
	var (
		next      atomic.Uint64
		throttled atomic.Int64
		mu        sync.Mutex
		lats      []time.Duration
		failure   atomic.Value
	)
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((loadClients + procs - 1) / procs)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		mine := make([]time.Duration, 0, 1024)
		for pb.Next() {
			t0 := time.Now()
			code, err := do(next.Add(1))
			mine = append(mine, time.Since(t0))
			switch {
			case err != nil:
				failure.CompareAndSwap(nil, err.Error())
			case code == http.StatusTooManyRequests:
				throttled.Add(1)
			case code != http.StatusOK:
				failure.CompareAndSwap(nil, fmt.Sprintf("HTTP %d", code))
			}
		}
		mu.Lock()
		lats = append(lats, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failure.Load(); f != nil {
		b.Fatalf("%s: %v", class.name, f)
	}
	slices.Sort(lats)
	q := func(p float64) float64 { return float64(lats[int(p*float64(len(lats)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "req/s")
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(100*float64(throttled.Load())/float64(len(lats)), "429-%")
}

// bareServer serves the Data API's routes (with their own api.Middleware)
// and the P-chain node API from st without the server's chain (no key
// headers, instrumentation, usage recording nor rate limits): the
// baseline the chain's cost is measured against.
func bareServer(b *testing.B, nodeURL, dsn string) string {
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	client := node.New(nodeURL)
	network, err := client.Discover(ctx)
	if err != nil {
		b.Fatal(err)
	}
	dataAPI, err := api.New(api.Deps{Store: st, Network: network, TokenKey: make([]byte, param.MinTokenKeyLen)})
	if err != nil {
		b.Fatal(err)
	}
	formatter, err := pchain.NewFormatter(network.ID)
	if err != nil {
		b.Fatal(err)
	}
	platform, err := nodeapi.NewPlatformHandler(st, formatter, network, client)
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range dataAPI.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	mux.Handle("/ext/bc/P", platform)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// BenchmarkLoad is the load test: 64 concurrent clients on loopback against
// avaindex serving a store of the local network (at least 1,100 P-chain
// blocks), per route class, on SQLite and PostgreSQL, and the node itself
// answering platform.getBlockByHeight over the same blocks in the same run.
// Each route class runs three ways:
//   - mw=off: the Data API's routes (api.Middleware's recovery, query
//     check and body bound) behind a plain mux, without the server's chain;
//   - mw=on: the production chain (routing, instrumentation, recovery, key
//     headers, body limits) with the rate limiter off (unlimited tiers);
//   - mw=limited: the same with the in-memory rate limiter on, at tiers no
//     client exceeds, so that every request is checked and admitted.
//
// limited429 sends one API key past its tier (600 units a minute, all 64
// clients on the one key) and reports the share of 429s. Each
// sub-benchmark sends b.N requests (-benchtime), bounded by the clients'
// 10 s timeout each; run it as
//
//	go test -run '^$' -bench BenchmarkLoad -benchtime 20000x ./tests/
func BenchmarkLoad(b *testing.B) {
	n := testnet.Get(b)
	tip := growPChain(b, n, loadPBlocks)
	addr := n.PAddress()
	classes := []routeClass{
		getClass("pblocks-page", "/v1/networks/local/blockchains/p-chain/blocks?pageSize=10"),
		getClass("pblock", "/v1/networks/local/blockchains/p-chain/blocks/"+strconv.FormatUint(tip/2, 10)),
		getClass("utxos-page", "/v1/networks/local/blockchains/p-chain/utxos?pageSize=10&addresses="+addr),
		getBlockByHeightClass(tip),
	}
	// The tiers of each way: unlimited (no limiter in the path), or far
	// above what 64 clients send in a run (every request checked).
	unlimited := []string{"--rate-limit-tier", "anonymous:unlimited", "--rate-limit-tier", "node:unlimited"}
	roomy := []string{"--rate-limit-tier", "anonymous:1000000000/1m", "--rate-limit-tier", "node:1000000000/1m",
		"--rate-limit-tier", "tight:600/1m"}
	b.Run("backend=node/mw=node/route=getBlockByHeight", func(b *testing.B) { runLoad(b, n.URL, getBlockByHeightClass(tip)) })
	keys := 0
	for _, be := range dbtest.Backends() {
		dsn := be.DSN(b)
		on, _ := runService(b, 2*time.Minute, n.URL, dsn, unlimited...)
		waitIndexedB(b, on, tip)
		limited, _ := runService(b, 2*time.Minute, n.URL, dsn, roomy...)
		waitIndexedB(b, limited, tip)
		bare := bareServer(b, n.URL, dsn)
		for _, c := range classes {
			for _, mw := range []struct{ name, base string }{{"on", on}, {"limited", limited}, {"off", bare}} {
				b.Run(fmt.Sprintf("backend=%s/mw=%s/route=%s", be.Name, mw.name, c.name), func(b *testing.B) {
					runLoad(b, mw.base, c)
				})
			}
		}
		b.Run(fmt.Sprintf("backend=%s/limited429", be.Name), func(b *testing.B) {
			// A new key each run, its quota whole: its first 600 calls
			// pass and the bucket then refills at 10 a second, so past
			// that about every call is a 429.
			keys++
			key := createKey(b, dsn, fmt.Sprintf("load-%s-%d", be.Name, keys), "tight")
			time.Sleep(2500 * time.Millisecond) // the instances read the keys every 2 s
			keyed := getClass("pblocks-page", "/v1/networks/local/blockchains/p-chain/blocks?pageSize=10")
			keyed.req = withKey(keyed.req, key)
			runLoad(b, limited, keyed)
		})
	}
}

// withKey sends req's requests with the API key key.
func withKey(req func(string, uint64) (*http.Request, error), key string) func(string, uint64) (*http.Request, error) {
	return func(base string, i uint64) (*http.Request, error) {
		r, err := req(base, i)
		if r != nil {
			r.Header.Set(api.HeaderGlacierAPIKey, key)
		}
		return r, err
	}
}

// waitIndexedB waits until avaindex at base has indexed the P-chain up to
// height.
func waitIndexedB(b *testing.B, base string, height uint64) {
	c := platformvm.NewClient(base)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		h, err := c.GetHeight(context.Background())
		if err == nil && h >= height {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("avaindex did not index P-chain height %d within 3m (at %d, %v)", height, h, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

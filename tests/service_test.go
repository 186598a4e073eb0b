package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/service"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) {
	if os.Getenv(childServeEnv) != "" {
		os.Exit(serveChild()) // this binary re-executed as an avaindex process (childService)
	}
	os.Exit(testnet.Main(m))
}

// scenario is a local network on which every transaction type the helpers
// cover was issued once, shared by the tests of this package.
var scenario struct {
	once   sync.Once
	net    *testnet.Network
	issued *testnet.Issued
	err    error
}

func issuedNetwork(t *testing.T) (*testnet.Network, *testnet.Issued) {
	t.Helper()
	n := testnet.Get(t)
	scenario.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		scenario.net = n
		scenario.issued, scenario.err = n.IssueAll(ctx)
	})
	if scenario.err != nil {
		t.Fatalf("issuing every transaction type: %v", scenario.err)
	}
	return scenario.net, scenario.issued
}

// startService runs avaindex in-process against nodeURL on dsn and returns
// its base URL; it stops when the test ends.
func startService(t *testing.T, nodeURL, dsn string, extra ...string) string {
	t.Helper()
	base, _ := runService(t, 2*time.Minute, nodeURL, dsn, extra...)
	return base
}

// runService runs avaindex in-process against nodeURL on dsn, with the
// test's fast polling and extra flags, and returns its base URL once it
// listens, failing unless it does within listenWithin. stop ends it and
// returns service.Run's result; the test's end stops it too, and reports a
// failure of Run then.
func runService(tb testing.TB, listenWithin time.Duration, nodeURL, dsn string, extra ...string) (base string, stop func() error) {
	tb.Helper()
	args := append([]string{"--node-url", nodeURL, "--db", dsn, "--listen", "127.0.0.1:0", "--poll-interval", "50ms"}, extra...)
	cfg, err := config.Load("test", args, func(string) string { return "" }, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	go func() { done <- service.Run(ctx, cfg, log, func(a string) { addr <- a }) }()
	var stopped bool
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			tb.Error("service.Run did not return within 30s of its context's end")
			return nil
		}
	}
	tb.Cleanup(func() {
		if err := stop(); err != nil {
			tb.Errorf("service.Run: %v", err)
		}
	})
	select {
	case a := <-addr:
		return "http://" + a, stop
	case err := <-done:
		stopped = true
		tb.Fatalf("service.Run returned before listening: %v", err)
	case <-time.After(listenWithin):
		tb.Fatalf("avaindex did not listen within %s", listenWithin)
	}
	return "", nil
}

// rpc posts a JSON-RPC request and returns the raw result and error members.
func rpc(t testing.TB, url, method string, params any) (result, rpcErr json.RawMessage) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s %s: %v", url, method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d: %s", url, method, resp.StatusCode, raw)
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s %s: %v in %s", url, method, err, raw)
	}
	if env.JSONRPC != "2.0" || string(env.ID) != "7" {
		t.Fatalf("%s %s: bad envelope %s", url, method, raw)
	}
	return env.Result, env.Error
}

// waitIndexed waits until avaindex's P-chain height reaches height.
func waitIndexed(t *testing.T, baseURL string, height uint64, within time.Duration) time.Duration {
	t.Helper()
	c := platformvm.NewClient(baseURL)
	start := time.Now()
	for {
		h, err := c.GetHeight(context.Background())
		if err == nil && h >= height {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("avaindex did not index P-chain height %d within %s (at %d, err %v)", height, within, h, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPChainBlocksMatchNode compares platform.getBlockByHeight and
// platform.getBlock, for every height and every encoding, on avaindex and
// on the node, on a network where every transaction type was issued.
func TestPChainBlocksMatchNode(t *testing.T) {
	n, _ := issuedNetwork(t)
	ctx := context.Background()
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The comparison must cover every P-chain transaction type issued.
	txTypes := map[string]bool{}
	for h := uint64(0); h <= tip; h++ {
		b, err := platformvm.NewClient(n.URL).GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pchain.Decode(h, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs {
			txTypes[tx.Type] = true
		}
	}
	for _, want := range []string{"BaseTx", "CreateSubnetTx", "CreateChainTx", "ConvertSubnetToL1Tx",
		"AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx", "RewardValidatorTx", "ImportTx", "ExportTx"} {
		if !txTypes[want] {
			t.Errorf("no %s on the network; the comparison would not cover it (have %v)", want, txTypes)
		}
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		same := sameAsNode(t, n.URL+"/ext/bc/P", base+"/ext/bc/P", t.Fatalf)
		for h := uint64(0); h <= tip; h++ {
			var blockID ids.ID
			for _, enc := range []string{"hex", "hexnc", "hexc", "json", "JSON", ""} {
				params := map[string]any{"height": h}
				if enc != "" {
					params["encoding"] = enc
				}
				res := same("platform.getBlockByHeight", params)
				if enc == "json" {
					var out struct {
						Block struct {
							ID ids.ID `json:"id"`
						} `json:"block"`
					}
					if err := json.Unmarshal(res, &out); err != nil {
						t.Fatal(err)
					}
					blockID = out.Block.ID
				}
			}
			// Heights as strings are accepted by both.
			same("platform.getBlockByHeight", map[string]any{"height": fmt.Sprint(h), "encoding": "hex"})
			for _, enc := range []string{"hex", "hexnc", "hexc", "json"} {
				same("platform.getBlock", map[string]any{"blockID": blockID.String(), "encoding": enc})
			}
		}
		// Errors are the node's, word for word.
		for _, bad := range []struct {
			method string
			params any
		}{
			{"platform.getBlockByHeight", map[string]any{"height": tip + 1000}},
			{"platform.getBlockByHeight", map[string]any{"height": "x"}},
			{"platform.getBlockByHeight", map[string]any{"height": -1}},
			{"platform.getBlockByHeight", map[string]any{"height": 1, "encoding": "cb58"}},
			{"platform.getBlock", map[string]any{"blockID": ids.GenerateTestID().String()}},
			{"platform.getBlock", map[string]any{"blockID": "nope"}},
			{"platform.getBlock", []int{1}},
		} {
			same(bad.method, bad.params)
		}
		// avalanchego's own client works against avaindex unmodified.
		ours, theirs := platformvm.NewClient(base), platformvm.NewClient(n.URL)
		for _, h := range []uint64{0, tip / 2, tip} {
			a, err := ours.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			b, err := theirs.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("platformvm.Client.GetBlockByHeight(%d) differs", h)
			}
		}
		t.Logf("compared %d P-chain blocks in 6 encodings and getBlock in 4", tip+1)
	})
}

// TestFreshBlocksServedQuickly issues a P-chain transaction and measures
// how long avaindex takes to serve the block that accepted it.
func TestFreshBlocksServedQuickly(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	base := startService(t, n.URL, dbtest.SQLite(t))
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, base, tip, time.Minute)
	for i := 0; i < 3; i++ {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		accepted := time.Now()
		h, err := pc.GetHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lag := waitIndexed(t, base, h, 10*time.Second)
		t.Logf("block %d served by avaindex %s after the node reported it", h, lag.Round(time.Millisecond))
		if lag > 3*time.Second {
			t.Errorf("block %d took %s to be served (accepted at %s)", h, lag, accepted.Format(time.RFC3339Nano))
		}
	}
}

// sameAsNode returns a function that calls method with params on the node's
// endpoint and on avaindex's, reports (with report) any difference in the
// result or error JSON, and returns the node's result.
func sameAsNode(t *testing.T, nodeEP, ourEP string, report func(format string, args ...any)) func(method string, params any) json.RawMessage {
	return func(method string, params any) json.RawMessage {
		t.Helper()
		wantRes, wantErr := rpc(t, nodeEP, method, params)
		gotRes, gotErr := rpc(t, ourEP, method, params)
		if !jsonEqual(wantRes, gotRes) || !jsonEqual(wantErr, gotErr) {
			report("%s %s %v:\n node:     result=%s error=%s\n avaindex: result=%s error=%s",
				ourEP, method, params, clip(wantRes), wantErr, clip(gotRes), gotErr)
		}
		return wantRes
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func clip(b []byte) string {
	s := string(b)
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return strings.TrimSpace(s)
}

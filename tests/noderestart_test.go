package tests

import (
	"bytes"
	"context"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// switchProxy stands between avaindex and a real node, which the test may
// replace by another (use) while avaindex runs, and may slow down (delay
// before each call): what a load balancer in front of nodes does.
type switchProxy struct {
	upstream atomic.Pointer[url.URL]
	delay    atomic.Int64 // nanoseconds
}

func newSwitchProxy(t *testing.T, nodeURL string) (*switchProxy, string) {
	t.Helper()
	p := &switchProxy{}
	p.use(t, nodeURL)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(p.upstream.Load())
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration(p.delay.Load()))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// use points the proxy at the node at nodeURL.
func (p *switchProxy) use(t *testing.T, nodeURL string) {
	t.Helper()
	u, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	p.upstream.Store(u)
}

// ingestWatch is what the tests of a node that restarts, is replaced or
// changes its network ask of avaindex at base, indexing into st.
type ingestWatch struct {
	t      *testing.T
	ctx    context.Context
	base   string
	served *platformvm.Client
	st     store.Store
}

func newIngestWatch(t *testing.T, ctx context.Context, base, dsn string) *ingestWatch {
	t.Helper()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &ingestWatch{t: t, ctx: ctx, base: base, served: platformvm.NewClient(base), st: st}
}

// pHeight is the P-chain height avaindex serves.
func (w *ingestWatch) pHeight() uint64 {
	w.t.Helper()
	h, err := w.served.GetHeight(w.ctx)
	if err != nil {
		w.t.Fatalf("avaindex's P-chain height: %v", err)
	}
	return h
}

// waitFor waits until cond holds of /readyz, failing with what after the
// test's deadline.
func (w *ingestWatch) waitFor(what string, cond func(r readyzBody) bool) readyzBody {
	w.t.Helper()
	for {
		r := readyz(w.t, w.base)
		if cond(r) {
			return r
		}
		if w.ctx.Err() != nil {
			w.t.Fatalf("%s: not seen in /readyz; it says %+v", what, r.Indexer)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitError waits for every word of want in /readyz's lastError.
func (w *ingestWatch) waitError(want ...string) string {
	w.t.Helper()
	return w.waitFor("an error with "+strings.Join(want, ", "), func(r readyzBody) bool {
		for _, s := range want {
			if !strings.Contains(r.Indexer.LastError, s) {
				return false
			}
		}
		return true
	}).Indexer.LastError
}

// caughtUp waits until avaindex has indexed n's P-chain and C-chain tips
// of now, with no error left in /readyz.
func (w *ingestWatch) caughtUp(what string, n *testnet.Network) (pTip, cTip uint64) {
	w.t.Helper()
	var err error
	if pTip, err = n.PClient().GetHeight(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	ec, err := n.EthClient(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	defer ec.Close()
	if cTip, err = ec.BlockNumber(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	evmKey := string(store.EVMCursor(testnet.CChainEVMID))
	w.waitFor(what+": caught up", func(r readyzBody) bool {
		return r.Indexer.LastError == "" && r.Indexer.Heights["P"] >= pTip && r.Indexer.Heights[evmKey] >= cTip &&
			r.Indexer.Heights["index:P/block"]+1 >= pTip
	})
	return pTip, cTip
}

// sameBlocks requires every P-chain block and C-chain EVM block avaindex
// holds up to the tips to be n's, each height once.
func (w *ingestWatch) sameBlocks(n *testnet.Network, pTip, cTip uint64) {
	w.t.Helper()
	pc := n.PClient()
	for h := range pTip + 1 {
		want, err := pc.GetBlockByHeight(w.ctx, h)
		if err != nil {
			w.t.Fatal(err)
		}
		got, err := w.served.GetBlockByHeight(w.ctx, h)
		if err != nil || !bytes.Equal(got, want) {
			w.t.Fatalf("P-chain block %d: %v, or not the node's", h, err)
		}
	}
	sums, err := w.st.BlockSummaries(w.ctx, store.BlockQuery{Chain: internal.PChain, Desc: false}, nil, int(pTip)+10)
	if err != nil {
		w.t.Fatal(err)
	}
	for i, s := range sums {
		if s.Height != uint64(i) {
			w.t.Fatalf("the store's P-chain blocks are not each height once: the %dth is at height %d", i, s.Height)
		}
	}
	if uint64(len(sums)) < pTip+1 {
		w.t.Fatalf("the store holds %d P-chain blocks, the node %d", len(sums), pTip+1)
	}
	// The mirrored container indexes: each stored container the node's.
	nc := node.New(n.URL)
	for _, name := range store.IndexNames {
		last, ok, err := w.st.Cursor(w.ctx, store.IndexCursor(name))
		if err != nil {
			w.t.Fatal(err)
		}
		if !ok {
			continue
		}
		stored, err := w.st.ContainerRange(w.ctx, name, 0, last)
		if err != nil {
			w.t.Fatal(err)
		}
		for start := uint64(0); start <= last; start += node.MaxContainersPerCall {
			cs, err := nc.IndexRange(w.ctx, name, start, node.MaxContainersPerCall)
			if err != nil {
				w.t.Fatal(err)
			}
			for _, c := range cs {
				if c.Index <= last && (c.Index >= uint64(len(stored)) || stored[c.Index].ID != c.ID) {
					w.t.Fatalf("index %s: the stored container %d is not the node's %s", name, c.Index, c.ID)
				}
			}
		}
	}
	for h := uint64(1); h <= cTip; h++ {
		var b struct {
			Hash common.Hash `json:"hash"`
		}
		if err := n.Call(w.ctx, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{"0x" + big.NewInt(int64(h)).Text(16), false}, &b); err != nil {
			w.t.Fatal(err)
		}
		got, err := w.st.EVMBlockHash(w.ctx, testnet.CChainEVMID, h)
		if err != nil || got != b.Hash {
			w.t.Fatalf("C-chain EVM block %d: %s (%v), the node's is %s", h, got, err, b.Hash)
		}
	}
}

// TestNodeRestartAndReplacement indexes a node of the test's own through a
// proxy, with one block per batch and a slow node, and:
//
//   - stops the node in the middle of ingestion: every loop's failure
//     shows in /readyz while it is down, nothing moves, and every loop
//     recovers by itself once the same node is started again;
//   - replaces it by another node of the same network (the shared local
//     network: the same network id and chain ids, another history): the
//     blocks do not link, so the P-chain stops with an error naming both
//     and no block of the other history is stored; pointed back, it goes on;
//
// and requires, on both stores, every block avaindex holds to be the own
// node's, each height once.
func TestNodeRestartAndReplacement(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	own := testnet.StartOwn(t)
	other := testnet.Get(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// Blocks to index: P-chain blocks, and C-chain blocks.
		for range 16 {
			if _, err := own.PBaseTx(ctx, own.Addr, 1000); err != nil {
				t.Fatal(err)
			}
		}
		for range 4 {
			if _, err := own.SendEVM(ctx, common.HexToAddress("0x00000000000000000000000000000000000a11ce"), big.NewInt(1)); err != nil {
				t.Fatal(err)
			}
		}
		pTip, err := own.PClient().GetHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}

		proxy, proxyURL := newSwitchProxy(t, own.URL)
		proxy.delay.Store(int64(100 * time.Millisecond))
		base := startService(t, proxyURL, dsn, "--ingest-batch-size", "1")
		w := newIngestWatch(t, ctx, base, dsn)

		// The restart, in the middle of ingestion.
		w.waitFor("some P-chain blocks indexed", func(r readyzBody) bool { return r.Indexer.Heights["P"] >= 2 })
		if err := own.Stop(); err != nil {
			t.Fatal(err)
		}
		// Every loop that reads the node fails, and says so. The height is
		// read after that: a block fetched before the node stopped may
		// still be committed until the P-chain loop has failed.
		shown := w.waitError("P-chain: ", "X-chain: ", "C-chain: ", "EVM chain 43112: ",
			"index P/block: ", "index C/block: ", "index X/block: ", "index X/tx: ")
		at := readyz(t, base).Indexer.Heights["P"]
		if at >= pTip {
			t.Fatalf("avaindex had indexed the whole P-chain (%d) before the node stopped: not a restart mid-ingestion", pTip)
		}
		t.Logf("the node down at P-chain height %d of %d: /readyz says %.300s", at, pTip, shown)
		if h := readyz(t, base).Indexer.Heights["P"]; h != at {
			t.Errorf("avaindex moved from P-chain height %d to %d while the node was down", at, h)
		}
		if h := w.pHeight(); h != at {
			t.Errorf("avaindex serves P-chain height %d while the node is down, indexed %d", h, at)
		}
		time.Sleep(time.Second) // a few failed steps, with back-off
		if err := own.Start(); err != nil {
			t.Fatal(err)
		}
		proxy.delay.Store(0)
		if _, err := own.PBaseTx(ctx, own.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		pTip, cTip := w.caughtUp("after the restart", own.Network)
		w.sameBlocks(own.Network, pTip, cTip)

		// The replacement: another node of the same network, whose
		// P-chain is longer than what avaindex holds, so that it has a
		// next block to offer, of another history.
		for {
			h, err := other.PClient().GetHeight(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if h > pTip {
				break
			}
			if _, err := other.PBaseTx(ctx, other.Addr, 1000); err != nil {
				t.Fatal(err)
			}
		}
		proxy.use(t, other.URL)
		shown = w.waitError("P-chain block", "has parent")
		t.Logf("replaced by another local node: /readyz says %.400s", shown)
		time.Sleep(time.Second)
		if h := w.pHeight(); h != pTip {
			t.Fatalf("avaindex moved from P-chain height %d to %d on a node of another history", pTip, h)
		}
		if r := readyz(t, base); r.Indexer.Heights["index:P/block"] != pTip-1 {
			t.Errorf("the mirror of the P/block index is at %d on a node of another history; it was at %d", r.Indexer.Heights["index:P/block"], pTip-1)
		}
		if r := readyz(t, base); strings.Contains(r.Indexer.LastError, "refusing") {
			t.Errorf("a node of the same network was refused as of another network: %s", r.Indexer.LastError)
		}
		proxy.use(t, own.URL)
		if _, err := own.PBaseTx(ctx, own.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		pTip, cTip = w.caughtUp("pointed back", own.Network)
		w.sameBlocks(own.Network, pTip, cTip)
	})
}

// TestNodeChangesNetwork points avaindex, indexing the local network,
// at a node of another network (the custom one) while it runs: it refuses
// it, with one error in /readyz naming both networks, indexes nothing of
// it, serves what it holds, and resumes once the local node answers
// again, on both stores.
func TestNodeChangesNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local and custom networks")
	}
	local := testnet.Get(t)
	custom := testnet.GetCustom(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		if _, err := local.PBaseTx(ctx, local.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		proxy, proxyURL := newSwitchProxy(t, local.URL)
		base := startService(t, proxyURL, dsn)
		w := newIngestWatch(t, ctx, base, dsn)
		pTip, _ := w.caughtUp("at start", local)

		proxy.use(t, custom.URL)
		// Blocks on the custom network while it is refused.
		if _, err := custom.PBaseTx(ctx, custom.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		shown := w.waitError("node: the node at " + proxyURL + " is now on network network-88888 (88888), the store holds local (12345); refusing")
		t.Logf("/readyz says %s", shown)
		r := readyz(t, base)
		if h := r.Indexer.Heights["P"]; h != pTip {
			t.Errorf("avaindex moved from P-chain height %d to %d on another network's node", pTip, h)
		}
		// What is stored is still served.
		if h := w.pHeight(); h != pTip {
			t.Errorf("avaindex serves P-chain height %d while refusing, indexed %d", h, pTip)
		}

		proxy.use(t, local.URL)
		if _, err := local.PBaseTx(ctx, local.Addr, 1000); err != nil {
			t.Fatal(err)
		}
		pTip, cTip := w.caughtUp("the local node back", local)
		w.sameBlocks(local, pTip, cTip)
	})
}

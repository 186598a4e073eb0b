package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// followEVM runs f until it has caught up with the node's tip.
func followEVM(t *testing.T, ctx context.Context, f *evmFollower) {
	t.Helper()
	for range 100 {
		caughtUp, err := f.step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if caughtUp {
			return
		}
	}
	t.Fatal("never caught up")
}

// TestFollowCChain indexes the real local network's C-chain after the
// evmcode scenario, in small batches, and compares what the store holds
// with the node: every block's hash, every tx's receipt, and the native
// balance of every address the scenario touched after every block.
func TestFollowCChain(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	s, err := evmcode.Run(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	network, err := node.New(n.URL).Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chain := internal.EVMChain{ChainID: n.EVMChainID, BlockchainID: n.CChainID, RPCURL: n.EthRPCURL(), IsCChain: true}
	client := node.NewEVM(n.EthRPCURL())
	blackhole := common.HexToAddress("0x0100000000000000000000000000000000000000")
	touched := []common.Address{n.EthAddr, s.Recipient, s.Emitter, s.Forwarder, s.Factory, s.Child, s.Destructor,
		s.SelfDestructor, blackhole, {}}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		st := openLocalStore(t, dsn)
		log := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
		ix := New(node.New(n.URL), network, st, log, Options{BatchSize: 4, Fetchers: 3, EVMChains: []internal.EVMChain{chain},
			Teleporter: s.Emitter})
		f := ix.newEVMFollower(chain)
		followEVM(t, ctx, f)
		tip, ok, err := st.Cursor(ctx, store.EVMCursor(chain.ChainID))
		if err != nil || !ok {
			t.Fatalf("cursor: %t, %v", ok, err)
		}
		status := ix.Status()
		if !status.Tracers["evm:43112"] || status.Heights["evm:43112"] != tip {
			t.Errorf("status tracers %v heights %v; want evm:43112 traced at %d", status.Tracers, status.Heights, tip)
		}

		for h := uint64(0); h <= tip; h++ {
			r, err := client.Block(ctx, h, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := evm.Decode(&evm.Config{}, evm.Input{Block: r.Block, Receipts: r.Receipts})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := st.EVMBlockHash(ctx, chain.ChainID, h); err != nil || got != want.Hash {
				t.Errorf("block %d: stored %s, %v; the node has %s", h, got, err, want.Hash)
			}
			for _, tx := range want.Txs {
				d, err := st.EVMTxDetails(ctx, chain.ChainID, tx.Hash)
				if err != nil {
					t.Fatalf("tx %s: %v", tx.Hash, err)
				}
				if d.Tx.BlockNumber != h || d.Tx.Status != tx.Status || d.Tx.GasUsed != tx.GasUsed || d.Tx.GasPrice.Cmp(tx.GasPrice) != 0 {
					t.Errorf("tx %s: stored %+v, the node has %+v", tx.Hash, d.Tx, tx)
				}
			}
			bal, err := client.Balances(ctx, touched, h)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range touched {
				got, ok, err := st.EVMNativeBalance(ctx, chain.ChainID, a, h)
				if err != nil || !ok || got.Cmp(bal[a]) != 0 {
					t.Errorf("block %d: balance of %s = %v, %t, %v; the node says %s", h, a, got, ok, err, bal[a])
				}
			}
		}

		// What the scenario did, as the Data API reads it.
		if c, err := st.EVMContract(ctx, chain.ChainID, s.Child); err != nil || c.DeployerContract == nil ||
			*c.DeployerContract != s.Factory || c.Deployer != n.EthAddr || c.CreateType != "CREATE2" || c.TxHash != s.Txs["create2"] {
			t.Errorf("the factory's child: %+v, %v", c, err)
		}
		deployed, err := st.EVMContractsByDeployer(ctx, chain.ChainID, s.Factory, nil, 10)
		if err != nil || len(deployed) != 1 || deployed[0].Address != s.Child {
			t.Errorf("the factory's deployments: %+v, %v", deployed, err)
		}
		if deployed, err = st.EVMContractsByDeployer(ctx, chain.ChainID, n.EthAddr, nil, 100); err != nil || len(deployed) != 6 {
			t.Errorf("the key's deployments: %d, %v; want 6", len(deployed), err)
		}
		for typ, want := range map[internal.ERCType][]int64{internal.ERC20: {5, 1000}, internal.ERC721: {1}, internal.ERC1155: {4, 3, 10}} {
			got, err := st.EVMAddressTransfers(ctx, chain.ChainID, s.Recipient, typ, store.BlockRange{}, nil, 100)
			if err != nil || len(got) != len(want) {
				t.Errorf("%s transfers to the recipient: %+v, %v", typ, got, err)
				continue
			}
			for i, w := range want {
				if got[i].Value.Cmp(big.NewInt(w)) != 0 || got[i].To != s.Recipient || got[i].Token != s.Emitter {
					t.Errorf("%s transfer %d: %+v, want value %d", typ, i, got[i], w)
				}
			}
		}
		d, err := st.EVMTxDetails(ctx, chain.ChainID, s.Txs["teleporter"])
		if err != nil || d.Teleporter == nil || d.Teleporter.MessageID != s.MessageID || d.Teleporter.SourceBlockchainID != n.CChainID {
			t.Errorf("the Teleporter tx: %+v, %v", d, err)
		}
		d, err = st.EVMTxDetails(ctx, chain.ChainID, s.Txs["forward value"])
		if err != nil || len(d.InternalTxs) != 1 || d.InternalTxs[0].To != s.Recipient {
			t.Errorf("the forwarded value: %+v, %v", d, err)
		}
	})
}

// TestFollowEVMParentCheck starts the C-chain's follower on a store whose
// block 0 is not the node's: the next block's parent does not match, and
// the follower stops there.
func TestFollowEVMParentCheck(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	if _, err := n.SendEVM(ctx, common.HexToAddress("0x00000000000000000000000000000000000000aa"), big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	network, err := node.New(n.URL).Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chain := internal.EVMChain{ChainID: n.EVMChainID, BlockchainID: n.CChainID, RPCURL: n.EthRPCURL(), IsCChain: true}
	st := openLocalStore(t, dbtest.SQLite(t))
	forged := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: 0, Hash: common.Hash{0xf0}}, Traced: true}
	if err := st.ApplyEVMBlocks(ctx, chain.ChainID, []*internal.EVMBlockData{forged}, evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
	ix := New(node.New(n.URL), network, st, slog.New(slog.NewTextHandler(testLog{t}, nil)), Options{EVMChains: []internal.EVMChain{chain}})
	_, err = ix.newEVMFollower(chain).step(ctx)
	if err == nil || !strings.Contains(err.Error(), "has parent") {
		t.Fatalf("step over a forged block 0: %v; want a parent mismatch", err)
	}
	if h, _, _ := st.Cursor(ctx, store.EVMCursor(chain.ChainID)); h != 0 {
		t.Errorf("the cursor moved to %d", h)
	}
}

// noTracer serves the node's EVM JSON-RPC at rpc, except the debug
// methods, which it answers as a node without the debug API does: the
// local network always traces, and a node that does not is the case.
func noTracer(t *testing.T, rpc string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var reqs []map[string]any
		batch := json.Unmarshal(body, &reqs) == nil
		if !batch {
			var one map[string]any
			if err := json.Unmarshal(body, &one); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			reqs = []map[string]any{one}
		}
		var forward []map[string]any
		var replies []any
		for _, q := range reqs {
			if m, _ := q["method"].(string); strings.HasPrefix(m, "debug_") {
				replies = append(replies, map[string]any{"jsonrpc": "2.0", "id": q["id"],
					"error": map[string]any{"code": -32601, "message": "the method " + m + " does not exist/is not available"}})
			} else {
				forward = append(forward, q)
			}
		}
		if len(forward) > 0 {
			b, _ := json.Marshal(forward)
			resp, err := http.Post(rpc, "application/json", bytes.NewReader(b))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			var got []any
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			replies = append(replies, got...)
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			json.NewEncoder(w).Encode(replies)
		} else {
			json.NewEncoder(w).Encode(replies[0])
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFollowEVMWithoutTracer follows the C-chain through a node without
// the debug API: blocks and txs are indexed, the tracer is reported off
// with one log line, and balances are not indexed (the node answers them).
func TestFollowEVMWithoutTracer(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	if _, _, err := n.DeployContract(ctx); err != nil {
		t.Fatal(err)
	}
	network, err := node.New(n.URL).Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	proxy := noTracer(t, n.EthRPCURL())
	chain := internal.EVMChain{ChainID: n.EVMChainID, BlockchainID: n.CChainID, RPCURL: proxy.URL, IsCChain: true}
	st := openLocalStore(t, dbtest.SQLite(t))
	var logged bytes.Buffer
	ix := New(node.New(n.URL), network, st, slog.New(slog.NewTextHandler(&logged, nil)), Options{EVMChains: []internal.EVMChain{chain}})
	followEVM(t, ctx, ix.newEVMFollower(chain))
	tip, err := node.NewEVM(n.EthRPCURL()).BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok, err := st.Cursor(ctx, store.EVMCursor(chain.ChainID)); err != nil || !ok || h < tip {
		t.Fatalf("cursor %d, %t, %v; want %d", h, ok, err, tip)
	}
	if on, ok := ix.Status().Tracers["evm:43112"]; !ok || on {
		t.Errorf("tracer reported %t, %t; want off", on, ok)
	}
	if strings.Count(logged.String(), "does not trace") != 1 {
		t.Errorf("log:\n%s\nwant one line saying the node does not trace", logged.String())
	}
	if _, ok, err := st.EVMNativeBalance(ctx, chain.ChainID, n.EthAddr, tip); err != nil || ok {
		t.Errorf("balances: ok %t, %v; want not indexed", ok, err)
	}
	h, err := st.EVMHead(ctx, chain.ChainID)
	if err != nil || h.Number != tip {
		t.Errorf("head %+v, %v", h, err)
	}
}

// TestFollowsEVMChainsAddedLater runs the indexer with no EVM chain and a
// MoreEVMChains that names the C-chain only after a while: the indexer
// follows it from then on, without a restart, and only once however often
// it is named.
func TestFollowsEVMChainsAddedLater(t *testing.T) {
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := n.SendEVM(ctx, common.HexToAddress("0x00000000000000000000000000000000000000ab"), big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	head, err := node.NewEVM(n.EthRPCURL()).BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	network, err := node.New(n.URL).Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chain := internal.EVMChain{ChainID: n.EVMChainID, BlockchainID: n.CChainID, RPCURL: n.EthRPCURL(), IsCChain: true}
	st := openLocalStore(t, dbtest.SQLite(t))
	var named atomic.Bool
	asked := make(chan struct{}, 1)
	more := func() []internal.EVMChain {
		select {
		case asked <- struct{}{}:
		default:
		}
		if named.Load() {
			return []internal.EVMChain{chain, chain}
		}
		return nil
	}
	log := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ix := New(node.New(n.URL), network, st, log, Options{MoreEVMChains: more, EVMChainsEvery: 20 * time.Millisecond})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ix.Run(runCtx)
	}()
	defer func() { stop(); <-done }()

	<-asked
	<-asked // asked at least twice while not named: nothing followed yet
	if _, ok, _ := st.Cursor(ctx, store.EVMCursor(chain.ChainID)); ok {
		t.Fatal("an EVM chain was followed before it was named")
	}
	named.Store(true)
	for {
		h, ok, err := st.Cursor(ctx, store.EVMCursor(chain.ChainID))
		if err != nil {
			t.Fatal(err)
		}
		if ok && h >= head {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the EVM chain named later was not followed up to %d (at %d, %t)", head, h, ok)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if got := ix.followedEVMChains(); len(got) != 1 || got[0] != chain {
		t.Errorf("followed EVM chains %+v, want the C-chain once", got)
	}
}

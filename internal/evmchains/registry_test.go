package evmchains_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// l1RPC stands in for the RPC of an L1 whose VM the local network cannot
// run (it runs no subnet-evm): it answers eth_chainId and eth_blockNumber,
// alone or in a batch, as subnet-evm does, and counts the requests.
type l1RPC struct {
	*httptest.Server
	chainID uint64
	head    atomic.Uint64
	calls   atomic.Int64
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (l *l1RPC) answer(req rpcRequest) map[string]any {
	reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	switch req.Method {
	case "eth_chainId":
		reply["result"] = "0x" + strconv.FormatUint(l.chainID, 16)
	case "eth_blockNumber":
		reply["result"] = "0x" + strconv.FormatUint(l.head.Load(), 16)
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "the method " + req.Method + " does not exist/is not available"}
	}
	return reply
}

func newL1RPC(t *testing.T, chainID uint64) *l1RPC {
	l := &l1RPC{chainID: chainID}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.calls.Add(1)
		var raw json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
			var reqs []rpcRequest
			if err := json.Unmarshal(raw, &reqs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			replies := make([]map[string]any, len(reqs))
			for i, req := range reqs {
				replies[i] = l.answer(req)
			}
			_ = json.NewEncoder(w).Encode(replies)
			return
		}
		var req rpcRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(l.answer(req))
	}))
	t.Cleanup(l.Close)
	return l
}

// indexP indexes the local network into st until its P-chain is indexed
// up to the node's current height.
func indexP(t *testing.T, ctx context.Context, client *node.Client, network *internal.Network, st store.Store) {
	t.Helper()
	b, err := json.Marshal(network)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSettingIfAbsent(ctx, store.NetworkSetting, b); err != nil {
		t.Fatal(err)
	}
	want, err := client.PHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ingest.New(client, network, st, quiet, ingest.Options{PollInterval: 50 * time.Millisecond, BatchSize: 256}).Run(runCtx)
	}()
	defer func() { cancel(); <-done }()
	for {
		h, ok, err := st.Cursor(ctx, store.ChainCursor(internal.PChain))
		if err != nil {
			t.Fatal(err)
		}
		if ok && h >= want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the P-chain was not indexed up to %d: %v", want, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestRegistry(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 5*time.Minute)
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// An L1 on the P-chain whose genesis names EVM chain id 99999, the id
	// its RPC answers.
	subnetID, err := n.CreateSubnet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blockchainID, err := n.CreateChain(ctx, subnetID, "Registry Test")
	if err != nil {
		t.Fatal(err)
	}
	indexP(t, ctx, client, network, st)
	l1 := newL1RPC(t, 99999)
	down := testnet.ClosedURL(t) + "/ext/bc/x/rpc"

	seven := uint8(7)
	opts := evmchains.Options{
		Network: network, Node: client, PChain: st, Cursors: st, Settings: st, Log: quiet, MaxLag: 10,
		CChain: config.EVMChain{ExplorerURL: "https://explorer.example.org"},
		Chains: []config.EVMChain{
			{RPCURL: l1.URL + "/rpc", Name: "Test L1", NetworkToken: config.NetworkToken{Symbol: "TST", Decimals: &seven}, Private: true},
			{RPCURL: down},
		},
	}
	reg, err := evmchains.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	chains := reg.List()
	if len(chains) != 2 {
		t.Fatalf("List() = %+v, want the C-chain and the L1 (the RPC that does not answer is pending)", chains)
	}
	c := chains[0]
	if c.ChainID != testnet.CChainEVMID || c.BlockchainID != n.CChainID || c.SubnetID != constants.PrimaryNetworkID ||
		c.VMID != constants.EVMID || !c.IsCChain || c.RPCURL != n.URL+"/ext/bc/C/rpc" || !strings.HasPrefix(c.WSURL, "ws://") ||
		!strings.HasSuffix(c.WSURL, "/ext/bc/C/ws") {
		t.Errorf("C-chain identity = %+v", c.EVMChain)
	}
	if c.Name != "Avalanche C-Chain (local)" || c.Description == "" || c.NetworkToken.Symbol != "AVAX" || c.NetworkToken.Decimals != 18 ||
		!c.IsTestnet || c.Private || c.Multicall != nil || c.ExplorerURL != "https://explorer.example.org" ||
		!slices.Equal(c.EnabledFeatures, evmchains.DefaultFeatures) || c.Status != evmchains.Unavailable {
		t.Errorf("C-chain metadata = %+v", c)
	}
	l := chains[1]
	if l.ChainID != 99999 || l.BlockchainID != blockchainID || l.SubnetID != subnetID || l.VMID != testnet.SubnetEVMID || l.IsCChain {
		t.Errorf("L1 identity = %+v; want blockchain %s of subnet %s", l.EVMChain, blockchainID, subnetID)
	}
	if l.Name != "Test L1" || l.NetworkToken.Symbol != "TST" || l.NetworkToken.Decimals != 7 || l.NetworkToken.Name == "" || !l.Private || !l.IsTestnet {
		t.Errorf("L1 metadata = %+v", l)
	}
	if got, ok := reg.ByChainID(99999); !ok || got.BlockchainID != blockchainID {
		t.Errorf("ByChainID(99999) = %+v, %t", got, ok)
	}
	if got, ok := reg.ByBlockchainID(n.CChainID); !ok || got.ChainID != testnet.CChainEVMID {
		t.Errorf("ByBlockchainID(C) = %+v, %t", got, ok)
	}
	if _, ok := reg.ByBlockchainID(ids.Empty); ok {
		t.Error("ByBlockchainID(empty) found a chain")
	}
	if got := reg.Chains(); len(got) != 2 || got[0] != c.EVMChain || got[1] != l.EVMChain {
		t.Errorf("Chains() = %+v", got)
	}

	// Nothing of either chain is indexed: both are unavailable. The L1's
	// RPC answers; the C-chain's too.
	l1.head.Store(5)
	reg.Refresh(ctx)
	for _, c := range reg.List() {
		if c.Status != evmchains.Unavailable {
			t.Errorf("chain %d is %s with nothing indexed", c.ChainID, c.Status)
		}
	}

	// The native balance comes from the chain's RPC.
	bal, err := reg.NativeBalance(ctx, testnet.CChainEVMID, n.EthAddr, nil)
	if err != nil || bal.Sign() <= 0 {
		t.Errorf("NativeBalance of the funded key = %v, %v", bal, err)
	}
	if _, err := reg.NativeBalance(ctx, 1, n.EthAddr, nil); err == nil {
		t.Error("NativeBalance of an unknown chain answered")
	}

	// Restarted with neither the node nor the L1 answering, the chains
	// resolved before are served from what the store remembers.
	l1.Close()
	calls := l1.calls.Load()
	opts.Node = node.New(testnet.ClosedURL(t))
	again, err := evmchains.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Chains(); len(got) != 2 || got[0].ChainID != c.ChainID || got[1] != l.EVMChain {
		t.Errorf("remembered chains = %+v", got)
	}
	if l1.calls.Load() != calls {
		t.Error("a remembered chain's RPC was asked at start")
	}
}

func TestRegistryRefusesTwoChainsWithOneID(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, time.Minute)
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The C-chain by its alias and by its id: the node tells the alias.
	for _, u := range []string{n.URL + "/ext/bc/C/rpc", n.URL + "/ext/bc/" + n.CChainID.String() + "/rpc"} {
		_, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: client, Log: quiet,
			Chains: []config.EVMChain{{RPCURL: u}}})
		if err == nil || !strings.Contains(err.Error(), "as the C-chain does") {
			t.Errorf("%s: error = %v, want one saying it is the C-chain", u, err)
		}
	}
}

func TestRegistryResolvesLater(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, time.Minute)
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An RPC that does not answer at start is resolved once it does.
	l1 := newL1RPC(t, 77777)
	handler := l1.Config.Handler
	var up atomic.Bool
	l1.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		handler.ServeHTTP(w, r)
	})
	reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: client, Log: quiet,
		Chains: []config.EVMChain{{RPCURL: l1.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.ByChainID(77777); ok {
		t.Fatal("an RPC that did not answer was resolved")
	}
	up.Store(true)
	reg.Refresh(ctx)
	got, ok := reg.ByChainID(77777)
	if !ok {
		t.Fatal("the RPC was not resolved once it answered")
	}
	// No blockchain on the P-chain has that chain id: an EVM that is no
	// Avalanche chain.
	if got.BlockchainID != ids.Empty || got.Name != "EVM chain 77777" || got.Status != evmchains.Unavailable {
		t.Errorf("late chain = %+v", got)
	}
}

// TestRegistryStatus follows the C-chain with the indexer: the chain is OK
// once the index is within MaxLag blocks of the node's head, and
// UNAVAILABLE when it falls further behind.
func TestRegistryStatus(t *testing.T) {
	n := testnet.Get(t)
	ctx := testCtx(t, 5*time.Minute)
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: client, PChain: st, Cursors: st, Settings: st, Log: quiet, MaxLag: 1})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A block of the C-chain's own, so that there is one to index.
	if _, err := n.SendEVM(ctx, common.Address{0xaa}, big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ingest.New(client, network, st, quiet, ingest.Options{PollInterval: 50 * time.Millisecond, EVMChains: reg.Chains()}).Run(runCtx)
	}()
	for {
		h, ok, err := st.Cursor(ctx, store.EVMCursor(testnet.CChainEVMID))
		if err != nil {
			t.Fatal(err)
		}
		if ok && h >= head {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the C-chain was not indexed up to %d", head)
		case <-time.After(100 * time.Millisecond):
		}
	}
	cancel()
	<-done
	reg.Refresh(ctx)
	if c, _ := reg.ByChainID(testnet.CChainEVMID); c.Status != evmchains.OK {
		t.Errorf("caught up: status %s", c.Status)
	}

	// Two blocks more than MaxLag allows, not indexed.
	for range 2 {
		if _, err := n.SendEVM(ctx, common.Address{0xaa}, big.NewInt(1)); err != nil {
			t.Fatal(err)
		}
	}
	reg.Refresh(ctx)
	if c, _ := reg.ByChainID(testnet.CChainEVMID); c.Status != evmchains.Unavailable {
		t.Errorf("2 blocks behind with MaxLag 1: status %s", c.Status)
	}
}

package evmchains_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
)

// fakePChain is the indexed P-chain's blockchains.
type fakePChain struct {
	mu     sync.Mutex
	chains []*pchain.Blockchain
}

func (f *fakePChain) add(bc *pchain.Blockchain) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chains = append(f.chains, bc)
}

func (f *fakePChain) Blockchains(context.Context) ([]*pchain.Blockchain, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*pchain.Blockchain(nil), f.chains...), nil
}

func (f *fakePChain) Blockchain(_ context.Context, id ids.ID) (*pchain.Blockchain, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, bc := range f.chains {
		if bc.ID == id {
			return bc, nil
		}
	}
	return nil, derrors.NotFound
}

// fakeNode serves eth_chainId at /ext/bc/C/rpc (43112) and at
// /ext/bc/<id>/rpc for the chains it serves, as avalanchego does for the
// chains it runs; any other chain's path is a 404.
type fakeNode struct {
	*httptest.Server
	mu     sync.Mutex
	served map[string]uint64
	asked  map[string]int // requests by chain alias
}

func newFakeNode(t *testing.T) *fakeNode {
	f := &fakeNode{served: map[string]uint64{"C": 43112}, asked: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/ext/bc/")
		alias, isRPC := strings.CutSuffix(rest, "/rpc")
		f.mu.Lock()
		chainID, served := f.served[alias]
		f.asked[alias]++
		f.mu.Unlock()
		if !ok || !isRPC || !served {
			http.NotFound(w, r)
			return
		}
		// avaindex's EVM client sends every call as a batch.
		var reqs []rpcRequest
		if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil || len(reqs) != 1 || reqs[0].Method != "eth_chainId" {
			http.Error(w, "want a batch of one eth_chainId", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode([]map[string]any{{"jsonrpc": "2.0", "id": reqs[0].ID, "result": "0x" + strconv.FormatUint(chainID, 16)}})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeNode) serve(id ids.ID, chainID uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.served[id.String()] = chainID
}

func evmGenesis(chainID uint64) []byte {
	return fmt.Appendf(nil, `{"config":{"chainId":%d,"feeConfig":{"gasLimit":8000000}},"alloc":{},"gasLimit":"0x7A1200"}`, chainID)
}

func TestDiscover(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fn := newFakeNode(t)
	network := &internal.Network{ID: constants.LocalID, Name: "local", CChainID: ids.GenerateTestID()}
	subnet := ids.GenerateTestID()
	otherVM := ids.GenerateTestID()
	served := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "my l1", SubnetID: subnet, VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(555)}
	notServed := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "elsewhere", SubnetID: subnet, VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(556)}
	otherVMChain := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "other vm", SubnetID: subnet, VMID: otherVM, Genesis: evmGenesis(557)}
	wrongID := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "lies", SubnetID: subnet, VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(558)}
	configured := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "configured", SubnetID: subnet, VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(559)}
	pc := &fakePChain{chains: []*pchain.Blockchain{served, notServed, otherVMChain, wrongID, configured}}
	fn.serve(served.ID, 555)
	fn.serve(otherVMChain.ID, 557)
	fn.serve(wrongID.ID, 9999) // not its genesis's chain id
	fn.serve(configured.ID, 559)
	configuredURL := fn.URL + "/ext/bc/" + configured.ID.String() + "/rpc"

	// A short Refresh: a chain not served is asked again soon.
	reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: node.New(fn.URL), PChain: pc, Log: quiet,
		Chains: []config.EVMChain{{RPCURL: configuredURL, Name: "Configured Name"}}, Refresh: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := reg.ByBlockchainID(served.ID)
	if !ok {
		t.Fatalf("the served subnet-evm chain was not discovered; chains %+v", reg.Chains())
	}
	wantRPC := fn.URL + "/ext/bc/" + served.ID.String() + "/rpc"
	wantWS := "ws://" + strings.TrimPrefix(fn.URL, "http://") + "/ext/bc/" + served.ID.String() + "/ws"
	if got.ChainID != 555 || got.SubnetID != subnet || got.VMID != evmchains.SubnetEVMID || got.RPCURL != wantRPC || got.WSURL != wantWS ||
		got.IsCChain || got.Name != "my l1" || !strings.Contains(got.Description, subnet.String()) ||
		got.NetworkToken.Decimals != 18 || !got.IsTestnet || got.Status != evmchains.Unavailable {
		t.Errorf("discovered chain = %+v", got)
	}
	if c, ok := reg.ByChainID(555); !ok || c.BlockchainID != served.ID {
		t.Errorf("ByChainID(555) = %+v, %v", c, ok)
	}
	for what, bc := range map[string]*pchain.Blockchain{"not served": notServed, "another VM": otherVMChain, "a wrong chain id": wrongID} {
		if c, ok := reg.ByBlockchainID(bc.ID); ok {
			t.Errorf("a chain of %s was served: %+v", what, c)
		}
	}
	// The configured chain is served once, with the configuration's name.
	n := 0
	for _, c := range reg.List() {
		if c.BlockchainID == configured.ID {
			n++
			if c.Name != "Configured Name" || c.RPCURL != configuredURL {
				t.Errorf("configured chain = %+v", c)
			}
		}
	}
	if n != 1 {
		t.Errorf("the configured chain is served %d times, want once", n)
	}

	// A chain the node starts serving later, and one created later, are
	// discovered by the next refresh.
	fn.serve(notServed.ID, 556)
	late := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "late", SubnetID: ids.GenerateTestID(), VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(560)}
	pc.add(late)
	fn.serve(late.ID, 560)
	time.Sleep(10 * time.Millisecond)
	reg.Refresh(ctx)
	for _, bc := range []*pchain.Blockchain{notServed, late} {
		if c, ok := reg.ByBlockchainID(bc.ID); !ok || c.Name != bc.Name {
			t.Errorf("%s after a refresh = %+v, %v", bc.Name, c, ok)
		}
	}
	if len(reg.Chains()) != 5 { // C, configured, served, notServed, late
		t.Errorf("chains %+v, want 5", reg.Chains())
	}
}

func TestDiscoverVMIDs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fn := newFakeNode(t)
	network := &internal.Network{ID: constants.LocalID, Name: "local", CChainID: ids.GenerateTestID()}
	otherVM := ids.GenerateTestID()
	subnetEVM := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "a", SubnetID: ids.GenerateTestID(), VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(601)}
	other := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "b", SubnetID: ids.GenerateTestID(), VMID: otherVM, Genesis: evmGenesis(602)}
	pc := &fakePChain{chains: []*pchain.Blockchain{subnetEVM, other}}
	fn.serve(subnetEVM.ID, 601)
	fn.serve(other.ID, 602)
	for _, tc := range []struct {
		vms  []ids.ID
		want map[uint64]bool
	}{
		{nil, map[uint64]bool{601: true}},
		{[]ids.ID{}, map[uint64]bool{}},
		{[]ids.ID{otherVM}, map[uint64]bool{602: true}},
		{[]ids.ID{otherVM, evmchains.SubnetEVMID}, map[uint64]bool{601: true, 602: true}},
	} {
		reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: node.New(fn.URL), PChain: pc, Log: quiet, DiscoverVMIDs: tc.vms})
		if err != nil {
			t.Fatal(err)
		}
		got := map[uint64]bool{}
		for _, c := range reg.Chains() {
			if !c.IsCChain {
				got[c.ChainID] = true
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("DiscoverVMIDs %v: chains %v, want %v", tc.vms, got, tc.want)
		}
	}
}

// TestDiscoverAsksUnservedChainsLess: a chain the node does not serve is
// asked again only after a wait (from Refresh, doubling), not at every
// refresh; a chain new on the P-chain is asked at once.
func TestDiscoverAsksUnservedChainsLess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fn := newFakeNode(t)
	network := &internal.Network{ID: constants.LocalID, Name: "local", CChainID: ids.GenerateTestID()}
	elsewhere := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "elsewhere", SubnetID: ids.GenerateTestID(), VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(701)}
	pc := &fakePChain{chains: []*pchain.Blockchain{elsewhere}}
	reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: node.New(fn.URL), PChain: pc, Log: quiet, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		reg.Refresh(ctx)
	}
	late := &pchain.Blockchain{ID: ids.GenerateTestID(), Name: "late", SubnetID: ids.GenerateTestID(), VMID: evmchains.SubnetEVMID, Genesis: evmGenesis(702)}
	pc.add(late)
	fn.serve(late.ID, 702)
	reg.Refresh(ctx)
	fn.mu.Lock()
	asked := fn.asked[elsewhere.ID.String()]
	fn.mu.Unlock()
	if asked != 1 {
		t.Errorf("the unserved chain was asked %d times in 4 refreshes within its wait, want once", asked)
	}
	if _, ok := reg.ByChainID(702); !ok {
		t.Error("a chain new on the P-chain was not asked at once")
	}
}

package evm

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

// recordDir holds a real C-chain's answers, recorded by TestRecordCChain.
const recordDir = "testdata/cchain"

// recordedBlock is one block as the node answered it.
type recordedBlock struct {
	Block    json.RawMessage `json:"block"`
	Receipts json.RawMessage `json:"receipts"`
	Traces   json.RawMessage `json:"traces,omitempty"`
}

// recording is what TestRecordCChain saves besides the blocks: the
// scenario, the network, and the node's eth_getBalance of every address
// the blocks touch, after every block.
type recording struct {
	Scenario *evmcode.Scenario `json:"scenario"`
	Network  struct {
		ID          uint32 `json:"id"`
		CChainID    string `json:"cChainId"`
		AVAXAssetID string `json:"avaxAssetId"`
	} `json:"network"`
	Tip      uint64                        `json:"tip"`
	Balances []map[common.Address]*big.Int `json:"balances"`
}

// TestRecordCChain runs the evmcode scenario on the real local network
// and records the C-chain's blocks, receipts and traces (as the indexer
// asks them), and the balances after each block, into testdata/cchain.
// It runs only with AVAINDEX_RECORD_EVM=1; the decoding tests read what it
// wrote.
func TestRecordCChain(t *testing.T) {
	if os.Getenv("AVAINDEX_RECORD_EVM") != "1" {
		t.Skip("records testdata/cchain from the real network with AVAINDEX_RECORD_EVM=1")
	}
	n := testnet.Get(t)
	ctx := context.Background()
	s, err := evmcode.Run(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	c := node.NewEVM(n.EthRPCURL())
	tip, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(recordDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(recordDir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := recording{Scenario: s, Tip: tip}
	rec.Network.ID, rec.Network.CChainID, rec.Network.AVAXAssetID = n.NetworkID, n.CChainID.String(), n.AVAXAssetID.String()
	cfg := &Config{BlockchainID: n.CChainID, Teleporter: s.Emitter, IsCChain: true, NetworkID: n.NetworkID, AVAXAssetID: n.AVAXAssetID}
	touched := map[common.Address]bool{}
	g, _, err := NetworkGenesisData(n.CChainID)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := GenesisAlloc(g)
	if err != nil {
		t.Fatal(err)
	}
	for a := range alloc {
		touched[a] = true
	}
	for h := uint64(0); h <= tip; h++ {
		r, err := c.Block(ctx, h, TraceConfig, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.TraceErr != nil {
			t.Fatal(r.TraceErr)
		}
		rb := recordedBlock{Block: r.Block, Receipts: r.Receipts, Traces: r.Traces}
		b, err := json.MarshalIndent(rb, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(recordDir, blockFile(h)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		dec, err := Decode(cfg, Input{Block: r.Block, Receipts: r.Receipts, Traces: r.Traces})
		if err != nil {
			t.Fatal(err)
		}
		touched[dec.Miner] = true
		for _, tx := range dec.Txs {
			touched[tx.From] = true
			if tx.To != nil {
				touched[*tx.To] = true
			}
		}
		for _, it := range dec.InternalTxs {
			touched[it.From], touched[it.To] = true, true
		}
		for _, bc := range dec.Balances {
			touched[bc.Address] = true
		}
	}
	addrs := make([]common.Address, 0, len(touched))
	for a := range touched {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, func(x, y common.Address) int { return x.Cmp(y) })
	for h := uint64(0); h <= tip; h++ {
		bal, err := c.Balances(ctx, addrs, h)
		if err != nil {
			t.Fatal(err)
		}
		rec.Balances = append(rec.Balances, bal)
	}
	b, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(recordDir, "recording.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded blocks 0..%d and the balances of %d addresses", tip, len(addrs))
}

func blockFile(h uint64) string { return "block-" + big.NewInt(int64(h)).String() + ".json" }

package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// sdkFacts is what the SDK tests (tests/sdk) compare the SDK's answers
// with, read off the node: the source of truth.
type sdkFacts struct {
	Network string `json:"network"`
	PChain  struct {
		Height uint64      `json:"height"`
		Blocks []sdkPBlock `json:"blocks"`
	} `json:"pChain"`
	// Txs are transactions the test network issued, with the type the
	// Data API names them by.
	Txs []sdkTx `json:"txs"`
	// AssetID is the X-chain asset the test network created.
	AssetID string `json:"assetId"`
	// Stakers are the tx ids of the node's current primary-network
	// validators and delegators.
	Stakers []string `json:"stakers"`
}

type sdkTx struct {
	Chain string `json:"chain"` // "p-chain", "x-chain" or "c-chain"
	ID    string `json:"id"`
	Type  string `json:"type"`
}

type sdkPBlock struct {
	Height    uint64   `json:"height"`
	ID        string   `json:"id"`
	ParentID  string   `json:"parentId"`
	Timestamp int64    `json:"timestamp"`
	TxIDs     []string `json:"txIds"`
}

// TestSDK runs the real @avalanche-sdk/chainkit client (tests/sdk, its
// version pinned by the committed lockfile and installed with npm ci)
// against avaindex serving a local network on which every transaction type
// was issued. The local network answers to "testnet", the SDK's network
// enum being closed.
func TestSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	npm, node := lookTool(t, "npm"), lookTool(t, "node")
	dir, err := filepath.Abs("sdk")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in tests/sdk: %v\n%s", err, out)
	}

	n, issued := issuedNetwork(t)
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var facts sdkFacts
	facts.Network = "testnet"
	facts.PChain.Height = tip
	for h := uint64(0); h <= tip; h++ {
		b, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pchain.Decode(h, b)
		if err != nil {
			t.Fatal(err)
		}
		fb := sdkPBlock{Height: h, ID: blk.ID.String(), ParentID: blk.ParentID.String(), TxIDs: []string{}}
		if !blk.Timestamp.IsZero() {
			fb.Timestamp = blk.Timestamp.Unix()
		}
		for _, tx := range blk.Txs {
			fb.TxIDs = append(fb.TxIDs, tx.ID.String())
		}
		facts.PChain.Blocks = append(facts.PChain.Blocks, fb)
	}
	for _, tx := range []struct {
		chain string
		id    ids.ID
		typ   string
	}{
		{"p-chain", issued.PBaseTx, "BaseTx"},
		{"p-chain", issued.CreateSubnetTx, "CreateSubnetTx"},
		{"p-chain", issued.CreateChainTx, "CreateChainTx"},
		{"p-chain", issued.ConvertSubnetToL1.TxID, "ConvertSubnetToL1Tx"},
		{"p-chain", issued.AddValidatorTx, "AddPermissionlessValidatorTx"},
		{"p-chain", issued.AddDelegatorTx, "AddPermissionlessDelegatorTx"},
		{"p-chain", issued.RewardValidatorTx, "RewardValidatorTx"},
		{"p-chain", issued.PExportToX, "ExportTx"},
		{"p-chain", issued.PImportFromX, "ImportTx"},
		{"x-chain", issued.XBaseTx, "BaseTx"},
		{"x-chain", issued.CreateAssetTx, "CreateAssetTx"},
		{"x-chain", issued.XImportFromP, "ImportTx"},
		{"x-chain", issued.XExportToP, "ExportTx"},
		{"c-chain", issued.CExportToP, "ExportTx"},
		{"c-chain", issued.CImportFromP, "ImportTx"},
	} {
		facts.Txs = append(facts.Txs, sdkTx{Chain: tx.chain, ID: tx.id.String(), Type: tx.typ})
	}
	facts.AssetID = issued.AssetID.String()
	validators, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range validators {
		facts.Stakers = append(facts.Stakers, v.TxID.String())
		// The node lists delegators only when asked about one validator.
		one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range one {
			for _, d := range w.Delegators {
				facts.Stakers = append(facts.Stakers, d.TxID.String())
			}
		}
	}
	factsFile := filepath.Join(t.TempDir(), "facts.json")
	b, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(factsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}

	base := startService(t, n.URL, dbtest.SQLite(t), "--network-alias", "testnet")
	waitIndexed(t, base, tip, time.Minute)

	run := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec")
	run.Dir = dir
	run.Env = append(os.Environ(), "AVAINDEX_URL="+base, "AVAINDEX_FACTS="+factsFile)
	out, err := run.CombinedOutput()
	t.Logf("node --test (tests/sdk):\n%s", out)
	if err != nil {
		t.Fatalf("the SDK tests failed: %v", err)
	}
}

// lookTool finds a command the test needs: missing, it skips the test
// locally and fails it under CI, where the machine must have it.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed: %v", name, err)
	}
	t.Skipf("SKIP: %s is not installed (%v); CI fails here", name, err)
	return ""
}

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// quickstart is the chainkit example of docs/clients.md, which shows it
// whole.
const (
	quickstart    = "../docs/examples/chainkit-quickstart.mjs"
	quickstartDoc = "../docs/clients.md"
)

// TestSDKQuickstartIsDocumented: docs/clients.md shows the example's exact
// text, so what CI runs is what a reader copies.
func TestSDKQuickstartIsDocumented(t *testing.T) {
	script, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(quickstartDoc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, append(append([]byte("```js\n"), script...), "```\n"...)) {
		t.Errorf("%s does not show %s as it is, in a js code block: copy the file into it", quickstartDoc, quickstart)
	}
}

// TestSDKQuickstart runs the chainkit example of the docs, as committed,
// against avaindex indexing the local network (with the SDK tests' npm
// ci), and checks what it read with the node's own answers: the Data
// API's latest P-chain block is the node's block at that height, and the
// Metrics API's count of the day's txs is the node's.
func TestSDKQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	n, _ := issuedNetwork(t)
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := startService(t, n.URL, dbtest.SQLite(t), "--network-alias", "testnet")
	waitIndexed(t, base, tip, time.Minute)

	// Bare imports resolve from the script's directory: run a copy beside
	// tests/sdk's node_modules.
	script, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join("sdk", "quickstart-"+strconv.Itoa(os.Getpid())+".test-copy.mjs")
	if err := os.WriteFile(copied, script, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(copied) })
	run := exec.CommandContext(ctx, lookTool(t, "node"), filepath.Base(copied))
	run.Dir = "sdk"
	run.Env = append(os.Environ(), "AVAINDEX_URL="+base)
	out, err := run.CombinedOutput()
	t.Logf("node %s:\n%s", quickstart, out)
	if err != nil {
		t.Fatalf("the quickstart failed: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Height     string `json:"height"`
		BlockID    string `json:"blockId"`
		Day        int64  `json:"day"`
		DayTxCount int    `json:"dayTxCount"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the quickstart's last line: %v", err)
	}
	height, err := strconv.ParseUint(got.Height, 10, 64)
	if err != nil || height < tip {
		t.Fatalf("the quickstart read P-chain block %q, want at least the indexed tip %d", got.Height, tip)
	}
	now, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The day's txs in the node's blocks up to the one read, and up to now
	// (blocks accepted meanwhile may count).
	var upToRead, upToNow int
	for h := uint64(1); h <= now; h++ {
		b, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pchain.Decode(h, b)
		if err != nil {
			t.Fatal(err)
		}
		if h == height && blk.ID.String() != got.BlockID {
			t.Errorf("the quickstart's block %d is %s, the node's %s", h, got.BlockID, blk.ID)
		}
		if blk.Timestamp.IsZero() || blk.Timestamp.Unix()/86400*86400 != got.Day {
			continue
		}
		upToNow += len(blk.Txs)
		if h <= height {
			upToRead += len(blk.Txs)
		}
	}
	if got.DayTxCount < upToRead || got.DayTxCount > upToNow || upToNow == 0 {
		t.Errorf("the quickstart's P-chain txs of day %d: %d, the node's %d (%d by now)", got.Day, got.DayTxCount, upToRead, upToNow)
	}
}

package tests

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/service"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestServesWhenNodeIsDown indexes a real node, then restarts avaindex on
// the same store pointed at a node that does not answer: everything
// indexed is still served, and /readyz reports the indexer's failure.
func TestServesWhenNodeIsDown(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	dsn := dbtest.SQLite(t)
	nodeClient := platformvm.NewClient(n.URL)
	// The node's supply and rewards at tip (nothing issues P-chain txs
	// meanwhile: the service tests run one at a time).
	wantSupply, tip, err := nodeClient.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
	if err != nil {
		t.Fatal(err)
	}
	wantVdrs, err := nodeClient.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := nodeClient.GetBlockByHeight(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}

	// The first avaindex stops when this subtest ends.
	t.Run("index", func(t *testing.T) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
	})

	// Rewards replayed with one reward configuration are not mixed with
	// another's.
	cfg, err := config.Load("test", []string{"--node-url", n.URL, "--db", dsn, "--listen", "127.0.0.1:0",
		"--stake-supply-cap", "1000"}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = service.Run(runCtx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) {})
	if err == nil || !strings.Contains(err.Error(), "--stake-") {
		t.Errorf("restarted with another --stake-supply-cap: %v, want a refusal naming the flags", err)
	}

	base := startService(t, testnet.ClosedURL(t), dsn)
	got, err := platformvm.NewClient(base).GetBlockByHeight(ctx, tip)
	if err != nil {
		t.Fatalf("with the node down, getBlockByHeight(%d): %v", tip, err)
	}
	if string(got) != string(want) {
		t.Errorf("with the node down, block %d differs from the node's", tip)
	}
	// Supply and rewards are replayed by avaindex: no node needed.
	ours := platformvm.NewClient(base)
	gotSupply, gotHeight, err := ours.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
	if err != nil || gotSupply != wantSupply || gotHeight != tip {
		t.Errorf("with the node down, getCurrentSupply = %d at %d, %v; the node said %d at %d", gotSupply, gotHeight, err, wantSupply, tip)
	}
	gotVdrs, err := ours.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil || len(gotVdrs) != len(wantVdrs) {
		t.Fatalf("with the node down, getCurrentValidators: %d validators, %v; the node listed %d", len(gotVdrs), err, len(wantVdrs))
	}
	for i, w := range wantVdrs {
		g := gotVdrs[i]
		if g.TxID != w.TxID || g.PotentialReward == nil || w.PotentialReward == nil || *g.PotentialReward != *w.PotentialReward ||
			g.AccruedDelegateeReward == nil || *g.AccruedDelegateeReward != *w.AccruedDelegateeReward {
			t.Errorf("with the node down, validator %d: %s potential %v accrued %v; node %s potential %v accrued %v", i,
				g.TxID, g.PotentialReward, g.AccruedDelegateeReward, w.TxID, w.PotentialReward, w.AccruedDelegateeReward)
		}
	}
	status, body, _ := get(t, base+"/v1/networks/local/blockchains/p-chain/blocks?pageSize=1")
	if status != 200 {
		t.Errorf("Data API with the node down: %d %s", status, body)
	}
	// The indexer keeps retrying and says why it is behind.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body, _ = get(t, base+"/readyz")
		var ready struct {
			Indexer struct {
				Running   bool   `json:"running"`
				LastError string `json:"lastError"`
			} `json:"indexer"`
		}
		if err := json.Unmarshal(body, &ready); err != nil {
			t.Fatal(err)
		}
		if ready.Indexer.Running && ready.Indexer.LastError != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never reported the unreachable node: %s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

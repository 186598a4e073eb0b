package testnet_test

import (
	"context"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestOwnNodeRestart starts a node of the test's own, issues a P-chain tx,
// restarts the node, and requires the same node at the same URL with the
// same blocks, then a new block on top of them.
func TestOwnNodeRestart(t *testing.T) {
	o := testnet.StartOwn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if o.NetworkID != testnet.LocalNetworkID {
		t.Fatalf("network %d, want %d", o.NetworkID, testnet.LocalNetworkID)
	}
	if _, err := o.PBaseTx(ctx, o.Addr, 1000); err != nil {
		t.Fatal(err)
	}
	pc := o.PClient()
	height, err := pc.GetHeight(ctx)
	if err != nil || height == 0 {
		t.Fatalf("P-chain height %d (%v) after a tx", height, err)
	}
	block, err := pc.GetBlockByHeight(ctx, height)
	if err != nil {
		t.Fatal(err)
	}
	url, nodeID := o.URL, o.NodeID

	start := time.Now()
	if err := o.Stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	if _, err := pc.GetHeight(ctx); err == nil {
		t.Fatal("the node still answers after Stop")
	}
	stopped := time.Since(start)
	if err := o.Start(); err != nil {
		t.Fatalf("restarting: %v", err)
	}
	t.Logf("stopped in %s, restarted in %s", stopped.Round(time.Millisecond), (time.Since(start) - stopped).Round(time.Millisecond))
	if o.URL != url || o.NodeID != nodeID {
		t.Fatalf("restarted as %s at %s, was %s at %s", o.NodeID, o.URL, nodeID, url)
	}
	if h, err := pc.GetHeight(ctx); err != nil || h != height {
		t.Fatalf("P-chain height %d (%v) after the restart, was %d", h, err, height)
	}
	if got, err := pc.GetBlockByHeight(ctx, height); err != nil || string(got) != string(block) {
		t.Fatalf("block %d after the restart: %v, or another block", height, err)
	}
	if _, err := o.PBaseTx(ctx, o.Addr, 1000); err != nil {
		t.Fatalf("a tx after the restart: %v", err)
	}
	if h, err := pc.GetHeight(ctx); err != nil || h != height+1 {
		t.Fatalf("P-chain height %d (%v) after a tx on the restarted node, want %d", h, err, height+1)
	}
}

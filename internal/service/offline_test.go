package service

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// closedURL returns the URL of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestServesWhenNodeIsDown indexes a real node, then restarts avaindex on
// the same store pointed at a node that does not answer: everything
// indexed is still served, and /readyz reports the indexer's failure.
func TestServesWhenNodeIsDown(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	dsn := dbtest.SQLite(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := platformvm.NewClient(n.URL).GetBlockByHeight(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}

	// The first avaindex stops when this subtest ends.
	t.Run("index", func(t *testing.T) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
	})

	base := startService(t, closedURL(t), dsn)
	got, err := platformvm.NewClient(base).GetBlockByHeight(ctx, tip)
	if err != nil {
		t.Fatalf("with the node down, getBlockByHeight(%d): %v", tip, err)
	}
	if string(got) != string(want) {
		t.Errorf("with the node down, block %d differs from the node's", tip)
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

package tests

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestDiskFull runs avaindex on a SQLite store in a small tmpfs the test
// mounts, fills that file system while the node makes new blocks, and
// requires that ingestion pauses with the error in /readyz while reads go
// on, and that it resumes by itself, every block then the node's, once
// space returns.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64m"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mounting a tmpfs (needs root, as CI runs): %v", err)
		}
		t.Skipf("SKIP: cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })

	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pc := platformvm.NewClient(n.URL)
	base := startService(t, n.URL, "sqlite:"+filepath.Join(dir, "avaindex.db"))
	served := platformvm.NewClient(base)
	waitP := func(what string, height uint64) {
		t.Helper()
		for {
			h, err := served.GetHeight(ctx)
			if err == nil && h >= height {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: avaindex at P-chain height %d (%v), want %d", what, h, err, height)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
		t.Fatal(err)
	}
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitP("caught up", tip)

	// Fill the file system to the last byte.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v, want ENOSPC", err)
	}
	for range 3 {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
	}
	want, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Ingestion stops at the full disk and says why; reads go on.
	var r readyzBody
	for {
		r = readyz(t, base)
		if strings.Contains(r.Indexer.LastError, "full") {
			break
		}
		if r.Indexer.Heights["P"] >= want {
			t.Fatalf("avaindex indexed P-chain height %d with its disk full", want)
		}
		if ctx.Err() != nil {
			t.Fatalf("no disk-full error in /readyz: %q", r.Indexer.LastError)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("/readyz while the disk is full: P at %d of %d, %q", r.Indexer.Heights["P"], want, r.Indexer.LastError)
	resp, err := http.Get(base + "/v1/networks/local/blockchains/p-chain/blocks?pageSize=5")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a read with the disk full: %d %s", resp.StatusCode, body)
	}
	if h, err := served.GetHeight(ctx); err != nil || h >= want {
		t.Errorf("platform.getHeight with the disk full: %d, %v", h, err)
	}

	// Space returns: ingestion resumes by itself and the error clears.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitP("after space returned", want)
	for {
		if r = readyz(t, base); r.Indexer.LastError == "" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the error stays in /readyz after ingestion resumed: %q", r.Indexer.LastError)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for height := range want + 1 {
		nb, err := pc.GetBlockByHeight(ctx, height)
		if err != nil {
			t.Fatal(err)
		}
		ab, err := served.GetBlockByHeight(ctx, height)
		if err != nil {
			t.Fatalf("height %d: %v", height, err)
		}
		if string(nb) != string(ab) {
			t.Fatalf("block %d differs from the node's after the disk-full pause", height)
		}
	}
}

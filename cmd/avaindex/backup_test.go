package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

var backedUpRE = regexp.MustCompile(`^backed up sqlite:\S+ to (\S+) \((\d+) bytes\) in \S+\n$`)

// TestBackupRestore backs up the SQLite store of a running avaindex while
// it indexes the local network's P-chain block by block, then serves the
// copy with the node out of reach: every P-chain block up to the copy's
// height is the node's, byte for byte, and the copy holds at least what was
// indexed before the backup began. A PostgreSQL store is referred to
// pg_dump.
func TestBackupRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pc := platformvm.NewClient(n.URL)
	for range 10 {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
	}
	dsn := dbtest.SQLite(t)
	base := serveProcess(t, "--node-url", n.URL, "--db", dsn, "--listen", "127.0.0.1:0",
		"--ingest-batch-size", "1", "--poll-interval", "20ms", "--data-dir", filepath.Join(t.TempDir(), "data"))
	served := platformvm.NewClient(base)
	var before uint64
	for before == 0 {
		h, err := served.GetHeight(ctx)
		if err == nil && h > 0 {
			before = h
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// More blocks arrive while the copy is made.
	issued := make(chan error, 1)
	go func() {
		var err error
		for range 5 {
			if _, err = n.PBaseTx(ctx, n.Addr, 1000); err != nil {
				break
			}
		}
		issued <- err
	}()
	path := filepath.Join(t.TempDir(), "copy.db")
	cmd := exec.CommandContext(ctx, os.Args[0], "backup", "--db", dsn, path)
	cmd.Env = append(os.Environ(), asMain+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("avaindex backup: %v\n%s", err, stderr.String())
	}
	if m := backedUpRE.FindStringSubmatch(string(out)); m == nil || m[1] != path {
		t.Errorf("avaindex backup printed %q", out)
	}
	if err := <-issued; err != nil {
		t.Fatal(err)
	}

	restored := platformvm.NewClient(serveProcess(t, "--node-url", testnet.ClosedURL(t), "--db", "sqlite:"+path,
		"--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data2")))
	h, err := restored.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h < before {
		t.Fatalf("the copy is at P-chain height %d, below the %d indexed before the backup", h, before)
	}
	for height := range h + 1 {
		want, err := pc.GetBlockByHeight(ctx, height)
		if err != nil {
			t.Fatal(err)
		}
		got, err := restored.GetBlockByHeight(ctx, height)
		if err != nil {
			t.Fatalf("the copy at height %d: %v", height, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("the copy's block at height %d differs from the node's", height)
		}
	}
	t.Logf("backed up at P-chain height %d (indexed before the backup: %d)", h, before)

	t.Run("postgres", func(t *testing.T) {
		cmd := exec.CommandContext(ctx, os.Args[0], "backup", "--db", dbtest.Postgres(t), filepath.Join(t.TempDir(), "pg.db"))
		cmd.Env = append(os.Environ(), asMain+"=1")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "pg_dump") {
			t.Errorf("backup of a PostgreSQL store: %v %s, want a pointer to pg_dump", err, out)
		}
	})
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "avaindex")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestKillDuringIngestion SIGKILLs `avaindex serve` at several points while
// it indexes the P-chain, one block per transaction, restarts it each time,
// and checks that the store ends with every block exactly as the node has
// it: nothing lost, nothing doubled.
func TestKillDuringIngestion(t *testing.T) {
	n := testnet.Get(t)
	ctx := context.Background()
	bin := buildBinary(t)
	pc := platformvm.NewClient(n.URL)
	// Grow the P-chain so that indexing it takes a while.
	for i := 0; i < 40; i++ {
		if _, err := n.PBaseTx(ctx, n.Addr, 1000); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		start := func() *exec.Cmd {
			cmd := exec.Command(bin, "serve", "--node-url", n.URL, "--db", dsn, "--listen", "127.0.0.1:0",
				"--ingest-batch-size", "1", "--poll-interval", "20ms", "--log-level", "warn")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
				if t.Failed() {
					t.Logf("avaindex stderr:\n%s", stderr.String())
				}
			})
			return cmd
		}
		cursor := func() (uint64, bool) {
			h, ok, err := st.Cursor(ctx, internal.PChain)
			if err != nil {
				t.Fatal(err)
			}
			return h, ok
		}

		midway := 0
		for round := 1; round <= 4; round++ {
			target := tip * uint64(round) / 5
			cmd := start()
			deadline := time.Now().Add(time.Minute)
			for {
				if h, ok := cursor(); ok && h >= target {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: cursor did not reach %d", round, target)
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			h, _ := cursor()
			t.Logf("round %d: killed at cursor %d of %d", round, h, tip)
			if h < tip {
				midway++
			}
		}
		if midway == 0 {
			t.Fatal("no kill landed during ingestion; the test proved nothing")
		}

		// A last run catches up and stops cleanly on SIGTERM.
		cmd := start()
		deadline := time.Now().Add(time.Minute)
		for {
			if h, ok := cursor(); ok && h >= tip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("final run did not catch up to %d", tip)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("avaindex did not stop cleanly on SIGTERM: %v", err)
		}

		// Every block is there, once, as the node has it.
		for h := uint64(0); h <= tip; h++ {
			b, err := st.PBlockByHeight(ctx, h)
			if err != nil {
				t.Fatalf("stored block at height %d: %v", h, err)
			}
			want, err := pc.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if b.Height != h || !bytes.Equal(b.Bytes, want) {
				t.Fatalf("stored block at position %d (height %d) differs from the node's", h, b.Height)
			}
			dec, err := pchain.Decode(h, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Txs) != len(dec.Txs) {
				t.Fatalf("height %d: %d stored txs, node has %d", h, len(b.Txs), len(dec.Txs))
			}
			for i := range dec.Txs {
				if b.Txs[i].ID != dec.Txs[i].ID {
					t.Fatalf("height %d tx %d: %s, node has %s", h, i, b.Txs[i].ID, dec.Txs[i].ID)
				}
			}
		}
		t.Logf("%d kills landed during ingestion; %d blocks intact", midway, tip+1)
	})
}

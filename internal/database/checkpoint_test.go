package database

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBackgroundCheckpoint writes well past walCheckpointBytes and checks
// that the WAL never grows near the writer's own backstop: the
// background checkpointer copied it back and the writer reset it.
func TestBackgroundCheckpoint(t *testing.T) {
	saved, savedGap := walCheckpointBytes, checkpointGap
	walCheckpointBytes, checkpointGap = 1<<20, 0
	t.Cleanup(func() { walCheckpointBytes, checkpointGap = saved, savedGap })

	path := filepath.Join(t.TempDir(), "ckpt.db")
	db := open(t, "sqlite:"+path)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
	var most int64
	blob := make([]byte, 64<<10)
	const txs = 200 // 12.5 MiB in all, three times the backstop
	for i := range txs {
		rand.Read(blob)
		if err := db.Transact(ctx, func(tx *DB) error {
			_, err := tx.Exec(ctx, "INSERT INTO blobs (id, b) VALUES (?, ?)", i, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			most = max(most, fi.Size())
		}
		// The checkpointer's turn: its pass, which has seen this commit.
		ck := db.shared.ckpt
		for deadline := time.Now().Add(10 * time.Second); ck.passed.Load() < ck.commits.Load(); {
			if time.Now().After(deadline) {
				t.Fatalf("commit %d: the checkpointer did not run within 10s", i)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	// The backstop would let it reach 4 MiB; the checkpointer runs from
	// 1 MiB on.
	if limit := int64(5 << 19); most > limit {
		t.Errorf("the WAL grew to %d bytes, want at most %d", most, limit)
	}
	if n := count(t, db, "blobs"); n != txs {
		t.Errorf("%d rows, want %d", n, txs)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 8<<20 {
		t.Errorf("the database file holds %d bytes: the WAL was not copied back", fi.Size())
	}
}

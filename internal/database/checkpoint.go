package database

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// SQLite's WAL goes back into the database file in checkpoints. Run by
// the committing connection (wal_autocheckpoint), a checkpoint holds up
// the commit that crossed the threshold while it copies the WAL's pages
// and syncs the file: a fifth of the P-chain's ingestion time. The
// writer's own checkpoints are therefore only a backstop, at four times
// walCheckpointBytes; a goroutine of its own checkpoints the WAL
// (PASSIVE: it waits for no reader or writer) once it has grown past
// walCheckpointBytes, on a reader connection, while the writer goes on.
//
// The WAL's size is read off its file: journal_size_limit = 0 truncates
// the file at the first commit after each reset, so that it holds what
// was written since.

// walCheckpointBytes is the WAL size past which the checkpointer runs.
var walCheckpointBytes int64 = 64 << 20

// walAutocheckpoint is the writer's backstop, in pages of pageSize bytes.
func walAutocheckpoint(pageSize int64) int64 { return 4 * walCheckpointBytes / pageSize }

// checkpointGap is the least time between two background checkpoints,
// so that a WAL that cannot be reset (a reader holds an old snapshot)
// is not checkpointed again at every commit.
var checkpointGap = 100 * time.Millisecond

// checkpointer runs the background checkpoints of one SQLite database.
type checkpointer struct {
	wal  string  // the WAL file's path
	conn *sql.DB // a pool to run the checkpoint on, not the writer
	kick chan struct{}
	done chan struct{}
	stop context.CancelFunc
	// commits counts the writer's commits; passed is the count as of the
	// start of the last finished pass, so that a pass has seen every
	// commit up to it (the tests wait on it).
	commits, passed atomic.Int64
}

func startCheckpointer(path string, conn *sql.DB) *checkpointer {
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{wal: path + "-wal", conn: conn, kick: make(chan struct{}, 1), done: make(chan struct{}), stop: stop}
	go c.run(ctx)
	return c
}

// committed tells the checkpointer that the writer committed; it never
// blocks.
func (c *checkpointer) committed() {
	c.commits.Add(1)
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		seen := c.commits.Load()
		ran := c.pass(ctx)
		c.passed.Store(seen)
		if !ran {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(checkpointGap):
		}
	}
}

// pass checkpoints the WAL if it has grown past walCheckpointBytes, and
// says whether it did.
func (c *checkpointer) pass(ctx context.Context) bool {
	fi, err := os.Stat(c.wal)
	if err != nil || fi.Size() < walCheckpointBytes {
		return false
	}
	if _, err := c.conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil && ctx.Err() == nil {
		slog.Warn("sqlite: background checkpoint", "err", err)
	}
	return true
}

// close stops the checkpointer and waits for it.
func (c *checkpointer) close() {
	c.stop()
	<-c.done
}

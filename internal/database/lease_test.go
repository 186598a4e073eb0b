package database

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestLease: one holder at a time among handles on one database; a taking
// fences the writes of the holdings before it; a released (or, on
// PostgreSQL, killed) holding frees the lease for another.
func TestLease(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a, b := open(t, dsn), open(t, dsn)
		mustExec(t, a, "CREATE TABLE w (v BIGINT)")

		la, ok, err := a.TryLease(ctx, "indexer", "instance-a")
		if err != nil || !ok {
			t.Fatalf("a: TryLease = %v, %v; want the free lease", ok, err)
		}
		if _, ok, err := b.TryLease(ctx, "indexer", "instance-b"); err != nil || ok {
			t.Fatalf("b: TryLease = %v, %v while a holds it; want refused", ok, err)
		}
		if _, ok, err := b.TryLease(ctx, "other", "instance-b"); err != nil || !ok {
			t.Fatalf("b: another lease = %v, %v; want it", ok, err)
		}
		if holder, _, err := b.LeaseHolder(ctx, "indexer"); err != nil || holder != "instance-a" {
			t.Errorf("LeaseHolder = %q, %v; want instance-a", holder, err)
		}
		write := func(db *DB, l *Lease, v int) error {
			return db.Transact(WithLease(ctx, l), func(tx *DB) error {
				_, err := tx.Exec(ctx, "INSERT INTO w VALUES (?)", v)
				return err
			})
		}
		if err := write(a, la, 1); err != nil {
			t.Fatalf("a's write under its lease: %v", err)
		}
		if err := la.Check(ctx); err != nil {
			t.Fatalf("Check of a held lease: %v", err)
		}

		// a loses the lease without releasing it (PostgreSQL: its session
		// is killed) or gives it up; b takes it, and a's writes stop.
		if a.Dialect() == Postgres {
			// Only the lease's own session: the server is shared with
			// other test processes.
			var pid int
			if err := la.conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			// The timeout form waits for the backend to exit, and so for its
			// advisory lock to go: without it, b could try before that.
			mustExec(t, b, "SELECT pg_terminate_backend(?, 10000)", pid)
			// Nobody took it: the error must not say so (it did, and the
			// indexer logged a takeover when PostgreSQL restarted).
			if err := la.Check(ctx); !errors.Is(err, ErrLeaseLost) || strings.Contains(err.Error(), "another") ||
				!strings.Contains(err.Error(), "session failed") {
				t.Errorf("Check after the lease's session was killed = %v, want ErrLeaseLost saying the session failed", err)
			}
		} else {
			la.Release()
		}
		lb, ok, err := b.TryLease(ctx, "indexer", "instance-b")
		if err != nil || !ok {
			t.Fatalf("b: TryLease after a lost it = %v, %v", ok, err)
		}
		defer lb.Release()
		if lb.Epoch() != la.Epoch()+1 {
			t.Errorf("epochs %d then %d, want consecutive", la.Epoch(), lb.Epoch())
		}
		if err := write(a, la, 2); !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), "taken over by another instance") {
			t.Errorf("a's write after b took the lease = %v, want ErrLeaseLost saying it was taken over", err)
		}
		if err := write(b, lb, 3); err != nil {
			t.Errorf("b's write under its lease: %v", err)
		}
		if n := count(t, a, "w"); n != 2 {
			t.Errorf("%d rows written, want 2 (a's first, b's)", n)
		}
		if holder, _, err := a.LeaseHolder(ctx, "indexer"); err != nil || holder != "instance-b" {
			t.Errorf("LeaseHolder = %q, %v; want instance-b", holder, err)
		}
	})
}

// TestLeaseNamespaced: on PostgreSQL the lease is keyed by schema as well
// as name, so deployments in two schemas of one database (or two test
// processes) each hold their own.
func TestLeaseNamespaced(t *testing.T) {
	ctx := context.Background()
	dsnA := dbtest.Postgres(t)
	a, b := open(t, dsnA), open(t, dbtest.Postgres(t))
	la, ok, err := a.TryLease(ctx, "indexer", "schema-a")
	if err != nil || !ok {
		t.Fatalf("a: TryLease = %v, %v; want the free lease", ok, err)
	}
	defer la.Release()
	lb, ok, err := b.TryLease(ctx, "indexer", "schema-b")
	if err != nil || !ok {
		t.Fatalf("b, in another schema: TryLease = %v, %v while a holds its own; want it", ok, err)
	}
	defer lb.Release()
	// Within one schema the lease is still one holder's.
	c := open(t, dsnA)
	if _, ok, err := c.TryLease(ctx, "indexer", "schema-a-again"); err != nil || ok {
		t.Fatalf("c, in a's schema: TryLease = %v, %v; want refused", ok, err)
	}
}

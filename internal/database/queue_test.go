package database

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestAppendQueued(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE q (a BIGINT PRIMARY KEY, b TEXT NOT NULL)")
		cols := []string{"a", "b"}
		rows := func(from, n int) [][]any {
			var r [][]any
			for i := from; i < from+n; i++ {
				r = append(r, []any{i, "x"})
			}
			return r
		}

		// Each read sees the rows appended before it; 300 rows take
		// PostgreSQL's COPY, 3 its INSERT.
		err := db.Transact(ctx, func(tx *DB) error {
			for i, n := range []int{300, 3} {
				if err := tx.Append(ctx, "q", cols, rows(1000*i, n), ""); err != nil {
					return err
				}
			}
			if tx.queue.jobs == nil {
				t.Error("Append in a transaction wrote at once; want it queued")
			}
			var n int
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM q").Scan(&n); err != nil {
				return err
			}
			if n != 303 {
				t.Errorf("a read after Append counted %d rows, want 303", n)
			}
			return tx.Append(ctx, "q", cols, rows(2000, 2), "")
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "q"); n != 305 {
			t.Errorf("committed %d rows, want 305", n)
		}

		// A queued write that fails is the transaction's error, whatever
		// the function met after it, and nothing of the transaction stays.
		err = db.Transact(ctx, func(tx *DB) error {
			if err := tx.Append(ctx, "q", cols, rows(3000, 5), ""); err != nil {
				return err
			}
			if err := tx.Append(ctx, "q", cols, rows(0, 1), ""); err != nil { // a duplicate key
				return err
			}
			if err := tx.Append(ctx, "q", cols, rows(4000, 5), ""); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM q").Scan(&n); err != nil {
				return err // PostgreSQL: the transaction is aborted
			}
			_, err := tx.Exec(ctx, "SELECT 1")
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "BulkInsert(q") {
			t.Errorf("error %v, want the failed write's, naming its table", err)
		}
		if n := count(t, db, "q"); n != 305 {
			t.Errorf("%d rows after the failed transaction, want 305", n)
		}

		// In a row callback the connection is busy with the rows: Append
		// writes at once. (PostgreSQL's connection takes no statement
		// while rows are open.)
		if db.Dialect() == Postgres {
			return
		}
		err = db.Transact(ctx, func(tx *DB) error {
			return tx.RunQuery(ctx, "SELECT a FROM q WHERE a >= 2000 AND a < 3000 ORDER BY a", func(r *sql.Rows) error {
				var a int
				if err := r.Scan(&a); err != nil {
					return err
				}
				if err := tx.Append(ctx, "q", cols, rows(a+5000, 1), ""); err != nil {
					return err
				}
				if tx.queue.jobs != nil {
					t.Error("Append in a row callback was queued")
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "q"); n != 307 {
			t.Errorf("%d rows after appending in callbacks, want 307", n)
		}
	})
}

// TestAppendWaitsForTheWriter checks the queue's bound: an Append that
// would queue more than maxQueuedRows rows waits for the writer, and one
// larger than the bound is taken once the queue is empty.
func TestAppendWaitsForTheWriter(t *testing.T) {
	defer func(n int) { maxQueuedRows = n }(maxQueuedRows)
	maxQueuedRows = 10
	db := open(t, dbtest.SQLite(t))
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE w (a BIGINT PRIMARY KEY)")
	rows := func(from, n int) [][]any {
		var r [][]any
		for i := from; i < from+n; i++ {
			r = append(r, []any{i})
		}
		return r
	}
	queued := func(q *writeQueue) int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.queued
	}
	err := db.Transact(ctx, func(tx *DB) error {
		release := make(chan struct{})
		tx.queue.add(func() error { <-release; return nil }, 6)
		done := make(chan error, 1)
		go func() { done <- tx.Append(ctx, "w", []string{"a"}, rows(0, 5), "") }()
		select {
		case err := <-done:
			close(release)
			t.Fatalf("Append of 5 rows behind 6 with a bound of 10 returned (%v) before the writer drained", err)
		case <-time.After(200 * time.Millisecond):
		}
		close(release)
		if err := <-done; err != nil {
			return err
		}
		if n := queued(tx.queue); n > maxQueuedRows {
			t.Errorf("%d rows queued, over the bound of %d", n, maxQueuedRows)
		}
		// More rows than the bound: taken alone.
		if err := tx.Append(ctx, "w", []string{"a"}, rows(100, 25), ""); err != nil {
			return err
		}
		return tx.Append(ctx, "w", []string{"a"}, rows(200, 3), "")
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "w"); n != 33 {
		t.Errorf("committed %d rows, want 33", n)
	}
}

// TestCommitted checks that a transaction's Committed handle reads what
// was committed, not the transaction's own writes, and that it reads
// beside the queued writes instead of waiting for them.
func TestCommitted(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE c (a BIGINT PRIMARY KEY)")
		mustExec(t, db, "INSERT INTO c (a) VALUES (1), (2)")
		if db.Committed() != db {
			t.Error("Committed outside a transaction is another handle; want db")
		}
		err := db.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO c (a) VALUES (3)"); err != nil {
				return err
			}
			if err := tx.Append(ctx, "c", []string{"a"}, [][]any{{4}}, ""); err != nil {
				return err
			}
			// A queued write that cannot end until the read below has.
			release := make(chan struct{})
			tx.queue.add(func() error { <-release; return nil }, 0)
			defer close(release)
			done := make(chan error, 1)
			var n int
			go func() { done <- tx.Committed().QueryRow(ctx, "SELECT COUNT(*) FROM c").Scan(&n) }()
			select {
			case err := <-done:
				if err != nil {
					return err
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a read through Committed waited for the queued writes")
			}
			if n != 2 {
				t.Errorf("Committed counted %d rows, want the 2 committed", n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "c"); n != 4 {
			t.Errorf("committed %d rows, want 4", n)
		}
	})

	// An in-memory SQLite database has one connection: the transaction's.
	db := open(t, "sqlite::memory:")
	err := db.Transact(context.Background(), func(tx *DB) error {
		if tx.Committed() != tx {
			t.Error("Committed of an in-memory database's transaction is another handle; want the transaction")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

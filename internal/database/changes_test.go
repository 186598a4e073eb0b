package database

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestGeneration: commits through the handle move Generation at once, a
// rollback and reads do not, and with WatchChanges running a commit by
// another handle on the same database moves it too.
func TestGeneration(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a, b := open(t, dsn), open(t, dsn)
		if _, err := a.Exec(ctx, "CREATE TABLE g (k INTEGER PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		g := a.Generation()
		if err := a.Transact(ctx, func(tx *DB) error {
			_, err := tx.Exec(ctx, "INSERT INTO g (k) VALUES (1)")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if a.Generation() <= g {
			t.Fatal("a commit did not move Generation")
		}
		g = a.Generation()
		boom := errors.New("boom")
		if err := a.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO g (k) VALUES (2)"); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		var n int
		if err := a.QueryRow(ctx, "SELECT COUNT(*) FROM g").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if a.Generation() != g {
			t.Fatal("a rollback or a read moved Generation")
		}
		if _, err := a.Exec(ctx, "INSERT INTO g (k) VALUES (3)"); err != nil {
			t.Fatal(err)
		}
		if a.Generation() <= g {
			t.Fatal("an Exec did not move Generation")
		}

		// Another handle's commit is seen only by a watching one.
		wctx, stop := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- a.WatchChanges(wctx, 5*time.Millisecond) }()
		defer func() {
			stop()
			if err := <-done; err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(50 * time.Millisecond) // the watcher's first look
		g = a.Generation()
		if a.Dialect() == SQLite {
			// PostgreSQL's log moves with any test's writes on the server.
			time.Sleep(50 * time.Millisecond)
			if a.Generation() != g {
				t.Fatal("Generation moved without a commit")
			}
		}
		if err := b.Transact(ctx, func(tx *DB) error {
			_, err := tx.Exec(ctx, "INSERT INTO g (k) VALUES (4)")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for a.Generation() == g {
			if time.Now().After(deadline) {
				t.Fatal("another handle's commit did not move the watching handle's Generation")
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestBeginBulkLoad checks that a bulk load drops the tables' secondary
// indexes, keeps primary keys and unique ones, and that ending it builds
// the dropped ones again over the loaded rows.
func TestBeginBulkLoad(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE l (a BIGINT PRIMARY KEY, b BIGINT NOT NULL, c BIGINT NOT NULL, d BIGINT NOT NULL)")
		mustExec(t, db, "CREATE INDEX l_b ON l (b, a)")
		mustExec(t, db, "CREATE INDEX l_c ON l (c) WHERE d = 0")
		mustExec(t, db, "CREATE UNIQUE INDEX l_d ON l (d)")
		mustExec(t, db, "CREATE TABLE other (a BIGINT PRIMARY KEY, b BIGINT NOT NULL)")
		mustExec(t, db, "CREATE INDEX other_b ON other (b)")
		indexes := func() []string {
			q := "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
			if db.Dialect() == Postgres {
				q = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%_pkey'"
			}
			var out []string
			if err := db.RunQuery(ctx, q, func(r *sql.Rows) error {
				var n string
				out = append(out, n)
				return r.Scan(&out[len(out)-1])
			}); err != nil {
				t.Fatal(err)
			}
			slices.Sort(out)
			return out
		}
		end, err := db.BeginBulkLoad(ctx, "l")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := indexes(), []string{"l_d", "other_b"}; !slices.Equal(got, want) {
			t.Fatalf("during the load, indexes %v, want %v", got, want)
		}
		var rows [][]any
		for i := range 1000 {
			rows = append(rows, []any{int64(i), int64(i % 7), int64(i % 5), int64(i)})
		}
		if _, err := db.BulkInsert(ctx, "l", []string{"a", "b", "c", "d"}, rows, ""); err != nil {
			t.Fatal(err)
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := indexes(), []string{"l_b", "l_c", "l_d", "other_b"}; !slices.Equal(got, want) {
			t.Fatalf("after the load, indexes %v, want %v", got, want)
		}
		// The rows are all there, read through the rebuilt index.
		var n int64
		if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM l WHERE b = 3").Scan(&n); err != nil || n != 143 {
			t.Fatalf("rows with b = 3: %d, %v; want 143", n, err)
		}
		if db.Dialect() == SQLite {
			var sync int64
			if err := db.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil || sync != 1 {
				t.Errorf("synchronous after the load = %d, %v; want 1 (NORMAL)", sync, err)
			}
		}
	})
}

// TestBulkInsertCopyInTransaction checks that rows BulkInsert sends with
// COPY (PostgreSQL, no conflict clause, enough rows) belong to the
// transaction: seen inside it, gone when it rolls back, kept when it
// commits.
func TestBulkInsertCopyInTransaction(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE c (a BIGINT PRIMARY KEY, b BYTEA, c TEXT NOT NULL)")
		var rows [][]any
		for i := range 2 * copyMinRows {
			rows = append(rows, []any{int64(i), []byte{byte(i)}, fmt.Sprint("row", i)})
		}
		rows[7][1] = nil
		fail := errors.New("roll back")
		err := db.Transact(ctx, func(tx *DB) error {
			if n, err := tx.BulkInsert(ctx, "c", []string{"a", "b", "c"}, rows, ""); err != nil || n != int64(len(rows)) {
				t.Fatalf("BulkInsert = %d, %v", n, err)
			}
			var n int64
			if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM c").Scan(&n); err != nil || n != int64(len(rows)) {
				t.Errorf("inside the transaction: %d rows, %v", n, err)
			}
			return fail
		})
		if !errors.Is(err, fail) {
			t.Fatal(err)
		}
		if n := count(t, db, "c"); n != 0 {
			t.Fatalf("after a rollback: %d rows", n)
		}
		if err := db.Transact(ctx, func(tx *DB) error {
			_, err := tx.BulkInsert(ctx, "c", []string{"a", "b", "c"}, rows, "")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var (
			b7, b8 []byte
			c8     string
		)
		if err := db.QueryRow(ctx, "SELECT (SELECT b FROM c WHERE a = 7), b, c FROM c WHERE a = 8").Scan(&b7, &b8, &c8); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "c"); n != len(rows) || b7 != nil || string(b8) != "\x08" || c8 != "row8" {
			t.Errorf("after a commit: %d rows, row 7 b %v, row 8 %v %q", n, b7, b8, c8)
		}
	})
}

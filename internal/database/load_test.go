package database

import (
	"context"
	"database/sql"
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

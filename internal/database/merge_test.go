package database

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

var mergeSpec = MergeSpec{
	From: "m", Select: "k AS k, i AS i", ArmCols: []string{"g", "s"}, ArmTypes: []string{"BYTEA", "INTEGER"},
	Where: "+k >= ?", Order: "k DESC, i DESC", Merged: "k DESC, i DESC",
}

// mergeTable makes table m: groups g of 1..n rows (the last one large),
// each row in state s 0 or 1, with many equal keys k.
func mergeTable(t *testing.T, db *DB, groups int) {
	t.Helper()
	mustExec(t, db, "CREATE TABLE m (g BYTEA NOT NULL, s INTEGER NOT NULL, k BIGINT NOT NULL, i BYTEA NOT NULL)")
	mustExec(t, db, "CREATE INDEX m_order ON m (g, s, k, i)")
	var rows [][]any
	for g := range groups {
		n := g + 1
		if g == groups-1 {
			n = 20_000
		}
		for r := range n {
			rows = append(rows, []any{[]byte{byte(g)}, r % 2, int64(r % 7), []byte(fmt.Sprintf("%d-%d", g, r))})
		}
	}
	if _, err := db.BulkInsert(context.Background(), "m", []string{"g", "s", "k", "i"}, rows, ""); err != nil {
		t.Fatal(err)
	}
	if db.Dialect() == Postgres {
		mustExec(t, db, "ANALYZE m")
	}
}

// TestMergeQuery reads merged ranges and compares them with the rows
// sorted in Go.
func TestMergeQuery(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		const groups = 10
		mergeTable(t, db, groups)
		var arms [][]any
		for g := range groups {
			arms = append(arms, []any{[]byte{byte(g)}, int64(1)})
		}
		for _, limit := range []int{1, 5, 100} {
			q, args, err := db.MergeQuery(mergeSpec, arms, []any{int64(2)}, limit)
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				k int64
				i []byte
			}
			var got []row
			err = db.RunPrepared(ctx, q, func(r *sql.Rows) error {
				var x row
				err := r.Scan(&x.k, &x.i)
				got = append(got, x)
				return err
			}, args...)
			if err != nil {
				t.Fatal(err)
			}
			var want []row
			err = db.RunQuery(ctx, "SELECT k, i FROM m WHERE s = 1 AND k >= 2", func(r *sql.Rows) error {
				var x row
				err := r.Scan(&x.k, &x.i)
				want = append(want, x)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, func(a, b row) int {
				if a.k != b.k {
					return int(b.k - a.k)
				}
				return -bytes.Compare(a.i, b.i)
			})
			want = want[:limit]
			if !slices.EqualFunc(got, want, func(a, b row) bool { return a.k == b.k && bytes.Equal(a.i, b.i) }) {
				t.Errorf("limit %d: got %v, want %v", limit, got, want)
			}
		}
		if _, _, err := db.MergeQuery(mergeSpec, nil, nil, 1); err == nil {
			t.Error("no arms: no error")
		}
	})
}

// TestMergeQueryPlan checks the plans the engines make of a merged scan:
// each range read in the index's order, no sort of a whole range, even
// with PostgreSQL's generic plan of a prepared statement.
func TestMergeQueryPlan(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		mergeTable(t, db, 3)
		arms := [][]any{{[]byte{0}, int64(0)}, {[]byte{2}, int64(0)}}
		q, args, err := db.MergeQuery(mergeSpec, arms, []any{int64(0)}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		collect := func(r *sql.Rows) error {
			cols, err := r.Columns()
			if err != nil {
				return err
			}
			vals := make([]any, len(cols))
			for i := range vals {
				vals[i] = new(sql.NullString)
			}
			if err := r.Scan(vals...); err != nil {
				return err
			}
			for _, v := range vals {
				plan = append(plan, v.(*sql.NullString).String)
			}
			return nil
		}
		if db.Dialect() == Postgres {
			err = db.Transact(ctx, func(tx *DB) error {
				if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
					return err
				}
				return tx.RunQuery(ctx, "EXPLAIN "+q, collect, args...)
			})
		} else {
			err = db.RunQuery(ctx, "EXPLAIN QUERY PLAN "+q, collect, args...)
		}
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		t.Logf("plan:\n%s", text)
		var want, not []string
		if db.Dialect() == Postgres {
			want = []string{"Nested Loop", "Limit", "Index Only Scan Backward using m_order"}
			not = []string{"Seq Scan", "Bitmap"}
		} else {
			want = []string{"MERGE (UNION ALL)", "USING COVERING INDEX m_order (g=? AND s=?)"}
			not = []string{"TEMP B-TREE", "SCAN m"}
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("the plan lacks %q", w)
			}
		}
		for _, n := range not {
			if strings.Contains(text, n) {
				t.Errorf("the plan has %q", n)
			}
		}
	})
}

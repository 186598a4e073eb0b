package database

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestInList matches a column against lists of one and many byte strings,
// with other arguments after the list's, on both backends.
func TestInList(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (k BYTEA NOT NULL, n BIGINT NOT NULL)")
		for i := range 10 {
			mustExec(t, db, "INSERT INTO t (k, n) VALUES (?, ?)", []byte{byte(i), 0xff}, i)
		}
		for _, c := range []struct {
			keys [][]byte
			min  int
			want []int64
		}{
			{[][]byte{{3, 0xff}}, 0, []int64{3}},
			{[][]byte{{1, 0xff}, {4, 0xff}, {7, 0xff}, {9}, {8, 0xff}}, 5, []int64{7, 8}},
			{[][]byte{{42}}, 0, nil},
		} {
			in, args := db.InList(c.keys)
			var got []int64
			err := db.RunQuery(ctx, "SELECT n FROM t WHERE k "+in+" AND n >= ? ORDER BY n", func(r *sql.Rows) error {
				var n int64
				err := r.Scan(&n)
				got = append(got, n)
				return err
			}, append(args, c.min)...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("keys %x, n >= %d: got %v, want %v", c.keys, c.min, got, c.want)
			}
		}
	})
}

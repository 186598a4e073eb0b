package database

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestBytesContain(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE b (name TEXT PRIMARY KEY, data BYTEA NOT NULL)")
		mustExec(t, db, "INSERT INTO b (name, data) VALUES (?, ?), (?, ?), (?, ?)",
			"abc", []byte{0, 'a', 'b', 'c', 0}, "ab", []byte{'a', 'b'}, "empty", []byte{})
		for _, tc := range []struct {
			needle []byte
			want   []string
		}{
			{[]byte("ab"), []string{"ab", "abc"}},
			{[]byte{'c', 0}, []string{"abc"}},
			{[]byte{0, 'a'}, []string{"abc"}},
			{[]byte("x"), nil},
		} {
			var got []string
			err := db.RunQuery(ctx, "SELECT name FROM b WHERE "+db.BytesContain("data")+" ORDER BY name", func(r *sql.Rows) error {
				var n string
				err := r.Scan(&n)
				got = append(got, n)
				return err
			}, tc.needle)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("contains %q: %v, want %v", tc.needle, got, tc.want)
			}
		}
	})
}

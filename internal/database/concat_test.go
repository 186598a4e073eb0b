package database

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestConcatAgg reads rows of blobs holding every byte value (0, commas,
// digits and invalid UTF-8 among them), prefixed by IntFields of their
// length and of a number, as one value, in the order of an ordered
// subquery, on both backends, and reads the fields back; and no rows as
// NULL.
func TestConcatAgg(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (k BIGINT NOT NULL, v BYTEA NOT NULL)")
		var want []byte
		type row struct {
			k int64
			v []byte
		}
		var rows []row
		for i := range 300 {
			v := make([]byte, i%40)
			for j := range v {
				v[j] = byte(i*7 + j*31)
			}
			v = append(v, 0, ',', '7', 0xff, 0xc3)
			k := int64(i)*1_000_003_007 - 5
			mustExec(t, db, "INSERT INTO t (k, v) VALUES (?, ?)", k, v)
			want = append(want, fmt.Sprintf("%d,%d,", len(v), k)...)
			want = append(want, v...)
			rows = append(rows, row{k, v})
		}
		var got []byte
		q := "SELECT " + db.ConcatAgg("r") + " FROM (SELECT " + db.IntField("length(v)") + " || " + db.IntField("k") +
			" || v AS r FROM t WHERE k >= ? ORDER BY k) AS s"
		if err := db.QueryRow(ctx, q, -10).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes read, want %d:\n%q\nwant\n%q", len(got), len(want), got[:min(len(got), 64)], want[:64])
		}
		for i, rest := 0, got; len(rest) > 0; i++ {
			n, r, err := CutIntField(rest)
			if err != nil {
				t.Fatal(err)
			}
			k, r, err := CutIntField(r)
			if err != nil {
				t.Fatal(err)
			}
			if k != rows[i].k || !bytes.Equal(r[:n], rows[i].v) {
				t.Fatalf("row %d: %d %q, want %d %q", i, k, r[:n], rows[i].k, rows[i].v)
			}
			rest = r[n:]
		}
		got = []byte{1}
		if err := db.QueryRow(ctx, q, int64(1)<<62).Scan(&got); err != nil || got != nil {
			t.Fatalf("no rows: %x, %v; want NULL", got, err)
		}
		for _, bad := range []string{"", "12", "x,", "99999999999999999999,", "123456789012345678901234,"} {
			if _, _, err := CutIntField([]byte(bad)); err == nil {
				t.Errorf("CutIntField(%q): no error", bad)
			}
		}
	})
}

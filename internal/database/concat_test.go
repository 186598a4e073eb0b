package database

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestConcatRows reads rows of blobs holding every byte value (0, commas,
// digits and invalid UTF-8 among them), prefixed by IntFields (each
// store's form) of their
// length and of a number, as one value, in the order of an ordered
// query, on both backends, and reads the fields back; and no rows as
// nothing.
func TestConcatRows(t *testing.T) {
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
			if db.Dialect() == Postgres {
				want = binary.BigEndian.AppendUint64(want, uint64(len(v)))
				want = binary.BigEndian.AppendUint64(want, uint64(k))
			} else {
				want = append(want, fmt.Sprintf("%d,%d,", len(v), k)...)
			}
			want = append(want, v...)
			rows = append(rows, row{k, v})
		}
		expr := db.IntField("length(v)") + " || " + db.IntField("k") + " || v"
		got, err := db.ConcatRows(ctx, expr, "FROM t WHERE k >= ? ORDER BY k", -10)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes read, want %d:\n%q\nwant\n%q", len(got), len(want), got[:min(len(got), 64)], want[:64])
		}
		for i, rest := 0, got; len(rest) > 0; i++ {
			n, r, err := db.CutIntField(rest)
			if err != nil {
				t.Fatal(err)
			}
			k, r, err := db.CutIntField(r)
			if err != nil {
				t.Fatal(err)
			}
			if k != rows[i].k || !bytes.Equal(r[:n], rows[i].v) {
				t.Fatalf("row %d: %d %q, want %d %q", i, k, r[:n], rows[i].k, rows[i].v)
			}
			rest = r[n:]
		}
		if got, err := db.ConcatRows(ctx, expr, "FROM t WHERE k >= ? ORDER BY k", int64(1)<<62); err != nil || len(got) != 0 {
			t.Fatalf("no rows: %x, %v; want nothing", got, err)
		}
		bads := []string{"", "12", "x,", "99999999999999999999,", "123456789012345678901234,"}
		if db.Dialect() == Postgres {
			bads = []string{"", "1234567"}
		}
		for _, bad := range bads {
			if _, _, err := db.CutIntField([]byte(bad)); err == nil {
				t.Errorf("CutIntField(%q): no error", bad)
			}
		}
	})
}

package database

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestEachRow reads rows of an integer, a fixed-size blob and a blob of
// any length holding every byte value (0, commas, digits and invalid
// UTF-8 among them, and none) through EachRow, in the query's order, on
// both backends; no rows as no call; f's error as the answer; and a
// field read with the wrong size, or a blob of any length before another,
// as an error.
func TestEachRow(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (k BIGINT NOT NULL, f BYTEA NOT NULL, v BYTEA NOT NULL)")
		type row struct {
			k    int64
			f, v []byte
		}
		var rows []row
		for i := range 300 {
			v := make([]byte, i%40)
			for j := range v {
				v[j] = byte(i*7 + j*31)
			}
			if i%3 != 0 {
				v = append(v, 0, ',', '7', 0xff, 0xc3)
			}
			r := row{int64(i)*1_000_003_007 - 5, []byte{byte(i), ',', 0, 9}, v}
			mustExec(t, db, "INSERT INTO t (k, f, v) VALUES (?, ?, ?)", r.k, r.f, r.v)
			rows = append(rows, r)
		}
		fields := []Field{{Expr: "k", Int: true}, {Expr: "f", Size: 4}, {Expr: "v"}}
		const rest = "FROM t WHERE k >= ? ORDER BY k"
		n := 0
		err := db.EachRow(ctx, fields, rest, func(r *Row) error {
			if w := rows[n]; r.Int(0) != w.k || !bytes.Equal(r.Bytes(1), w.f) || !bytes.Equal(r.Bytes(2), w.v) {
				t.Fatalf("row %d: %d %q %q, want %d %q %q", n, r.Int(0), r.Bytes(1), r.Bytes(2), w.k, w.f, w.v)
			}
			n++
			return nil
		}, -10)
		if err != nil || n != len(rows) {
			t.Fatalf("%d rows, %v; want %d", n, err, len(rows))
		}
		stop := errors.New("stop")
		if err := db.EachRow(ctx, fields, rest, func(*Row) error { return stop }, -10); err != stop {
			t.Fatalf("f's error: %v", err)
		}
		err = db.EachRow(ctx, fields, rest, func(*Row) error { t.Fatal("a row"); return nil }, int64(1)<<62)
		if err != nil {
			t.Fatal(err)
		}
		// A blob of any length before another.
		err = db.EachRow(ctx, []Field{{Expr: "v"}, {Expr: "f", Size: 4}}, rest, func(*Row) error { return nil }, -10)
		if err == nil {
			t.Fatal("a blob of any length before another: no error")
		}
		// Blobs of 4 bytes read as 9: SQLite's concatenation is cut
		// short at its end; PostgreSQL's rows are of the wrong size.
		err = db.EachRow(ctx, []Field{{Expr: "k", Int: true}, {Expr: "f", Size: 9}}, rest, func(*Row) error { return nil }, -10)
		if err == nil {
			t.Fatal("fields of 4 bytes read as 9: no error")
		}
	})
}

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
		fields := []Field{{Expr: "k", Int: true}, {Expr: "f", Size: 4}, {Expr: "v"}, {Expr: "CAST(k % 1000 AS INTEGER)", Int: true}}
		const rest = "FROM t WHERE k >= ? ORDER BY k"
		readAll := func(name string, db *DB) {
			t.Helper()
			n := 0
			err := db.EachRow(ctx, fields, rest, func(r *Row) error {
				w := rows[n]
				if r.Int(0) != w.k || !bytes.Equal(r.Bytes(1), w.f) || !bytes.Equal(r.Bytes(2), w.v) || r.Int(3) != w.k%1000 {
					t.Fatalf("%s: row %d: %d %q %q %d, want %d %q %q %d", name, n, r.Int(0), r.Bytes(1), r.Bytes(2), r.Int(3), w.k, w.f, w.v, w.k%1000)
				}
				n++
				return nil
			}, -10)
			if err != nil || n != len(rows) {
				t.Fatalf("%s: %d rows, %v; want %d", name, n, err, len(rows))
			}
		}
		readAll("the pool", db)
		// On PostgreSQL the rows are read on the transaction's
		// connection: a read-only one's, and a writing one's that sees
		// its own row.
		if err := db.ReadTx(ctx, func(tx *DB) error { readAll("a read transaction", tx); return nil }); err != nil {
			t.Fatal(err)
		}
		err := db.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO t (k, f, v) VALUES (?, ?, ?)", int64(1)<<61, []byte("last"), []byte{}); err != nil {
				return err
			}
			rows = append(rows, row{int64(1) << 61, []byte("last"), []byte{}})
			readAll("a write transaction", tx)
			rows = rows[:len(rows)-1]
			return errors.New("roll back")
		})
		if err == nil || err.Error() != "roll back" {
			t.Fatalf("the write transaction: %v", err)
		}
		readAll("after the rollback", db)
		if db.Dialect() == Postgres {
			// The simple protocol answers in text: bytea as hex, integers
			// as digits.
			readAll("the simple protocol", open(t, dsn+"&default_query_exec_mode=simple_protocol"))
		}
		stop := errors.New("stop")
		if err := db.EachRow(ctx, fields, rest, func(*Row) error { return stop }, -10); err != stop {
			t.Fatalf("f's error: %v", err)
		}
		if err := db.EachRow(ctx, fields, rest, func(*Row) error { t.Fatal("a row"); return nil }, int64(1)<<62); err != nil {
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

package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func open(t *testing.T, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(context.Background(), q, args...); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenRejectsBadDSN(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{
		"",
		"mysql://root@localhost/db",
		"/var/lib/avaindex.db",
		"sqlite:",
		"sqlite://foo.db",
		"sqlite:/tmp/a?b.db",
		"postgres://user@host:notaport/db",
	} {
		db, err := Open(ctx, dsn)
		if err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded, want an error", dsn)
			continue
		}
		t.Logf("Open(%q): %v", dsn, err)
	}
}

func TestOpenSQLiteMemory(t *testing.T) {
	db := open(t, "sqlite::memory:")
	mustExec(t, db, "CREATE TABLE t (a BIGINT)")
	mustExec(t, db, "INSERT INTO t VALUES (?)", 1)
	if n := count(t, db, "t"); n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
}

func TestSQLitePragmas(t *testing.T) {
	db := open(t, dbtest.SQLite(t))
	ctx := context.Background()
	for _, p := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
		{"busy_timeout", "10000"},
		{"page_size", "16384"},
		{"wal_autocheckpoint", "16384"}, // the backstop: 256 MiB
		{"journal_size_limit", "0"},
	} {
		var got string
		// PRAGMA is not a SELECT: this runs on the writer connection.
		if err := db.QueryRow(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != p.want {
			t.Errorf("PRAGMA %s = %q, want %q", p.pragma, got, p.want)
		}
	}
	// Readers are read-only.
	mustExec(t, db, "CREATE TABLE t (a BIGINT)")
	if _, err := db.r.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err == nil {
		t.Error("insert through a reader connection succeeded, want an error")
	}
	if db.MaxParams() < 999 {
		t.Errorf("MaxParams = %d", db.MaxParams())
	}
}

func TestExecQuery(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY, b TEXT NOT NULL, c BYTEA)")
		n, err := db.Exec(ctx, "INSERT INTO t (a, b, c) VALUES (?, ?, ?), (?, '?', ?)", 1, "one", []byte{1}, 2, []byte{2})
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("rows affected = %d, want 2", n)
		}
		// A query returning rows that writes goes to the writer.
		var a int64
		if err := db.QueryRow(ctx, "INSERT INTO t (a, b) VALUES (?, ?) RETURNING a", 3, "three").Scan(&a); err != nil || a != 3 {
			t.Fatalf("INSERT RETURNING: %d, %v", a, err)
		}
		var got []string
		err = db.RunQuery(ctx, "SELECT b FROM t WHERE a >= ? ORDER BY a", func(rows *sql.Rows) error {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			got = append(got, s)
			return nil
		}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != "one,?,three" {
			t.Errorf("got %q", got)
		}
		if _, err := db.Exec(ctx, "INSERT INTO nosuchtable VALUES (?)", 1); err == nil || !strings.Contains(err.Error(), "nosuchtable") {
			t.Errorf("error %v does not name the query", err)
		}
	})
}

func TestBulkInsert(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY, b TEXT NOT NULL, c BYTEA NOT NULL)")
		cols := []string{"a", "b", "c"}
		mkrows := func(from, to int) [][]any {
			var rows [][]any
			for i := from; i < to; i++ {
				rows = append(rows, []any{int64(i), fmt.Sprint("row", i), []byte{byte(i), byte(i >> 8)}})
			}
			return rows
		}

		// Far over the parameter limit of both backends: 3 * 25000 = 75000.
		n, err := db.BulkInsert(ctx, "t", cols, mkrows(0, 25000), "")
		if err != nil {
			t.Fatal(err)
		}
		if n != 25000 || count(t, db, "t") != 25000 {
			t.Fatalf("inserted %d, count %d; want 25000", n, count(t, db, "t"))
		}
		// Overlapping rows are skipped by the conflict clause and not counted.
		n, err = db.BulkInsert(ctx, "t", cols, mkrows(24990, 25013), "ON CONFLICT DO NOTHING")
		if err != nil {
			t.Fatal(err)
		}
		if n != 13 || count(t, db, "t") != 25013 {
			t.Fatalf("inserted %d, count %d; want 13, 25013", n, count(t, db, "t"))
		}
		// Without a conflict clause a duplicate fails the whole call.
		if _, err := db.BulkInsert(ctx, "t", cols, mkrows(25013, 26000), ""); err != nil {
			t.Fatal(err)
		}
		if _, err := db.BulkInsert(ctx, "t", cols, mkrows(26000, 27100), ""); err != nil {
			t.Fatal(err)
		}
		before := count(t, db, "t")
		if _, err := db.BulkInsert(ctx, "t", cols, mkrows(27100, 30000), ""); err != nil {
			t.Fatal(err)
		}
		// A duplicate says so (COPY on PostgreSQL; one row: an INSERT),
		// and no other failure does.
		for _, dup := range [][][]any{mkrows(29000, 31000), mkrows(29000, 29001)} {
			if _, err := db.BulkInsert(ctx, "t", cols, dup, ""); !Duplicate(err) {
				t.Fatalf("duplicate keys: err = %v, not Duplicate", err)
			}
		}
		if _, err := db.BulkInsert(ctx, "t", cols, [][]any{{int64(-1), nil, []byte{}}}, ""); err == nil || Duplicate(err) {
			t.Fatalf("a NULL in a NOT NULL column: err = %v, want an error other than Duplicate", err)
		}
		if got := count(t, db, "t"); got != before+2900 {
			t.Fatalf("after a failed bulk insert count = %d, want %d", got, before+2900)
		}
		// Spot-check values.
		var b string
		var c []byte
		if err := db.QueryRow(ctx, "SELECT b, c FROM t WHERE a = ?", 12345).Scan(&b, &c); err != nil {
			t.Fatal(err)
		}
		if b != "row12345" || string(c) != string([]byte{byte(12345 & 0xff), byte(12345 >> 8)}) {
			t.Errorf("row 12345 = %q, %v", b, c)
		}

		// Bad input.
		for _, tc := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"t; DROP TABLE t", cols, mkrows(0, 1)},
			{"t", []string{"a", "b c"}, [][]any{{1, 2}}},
			{"t", nil, [][]any{{}}},
			{"t", cols, [][]any{{1, "x"}}},
		} {
			if _, err := db.BulkInsert(ctx, tc.table, tc.cols, tc.rows, ""); err == nil {
				t.Errorf("BulkInsert(%q, %q, %v): no error", tc.table, tc.cols, tc.rows)
			}
		}
	})
}

// TestBulkInsertValues checks that each type of value the store writes
// arrives as it was, on both paths of PostgreSQL's BulkInsert (a VALUES
// list for a row, unnest's arrays for several) and on SQLite's.
func TestBulkInsertValues(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, `CREATE TABLE v (i BIGINT PRIMARY KEY, j BIGINT NOT NULL, k BIGINT NOT NULL, b BYTEA, n BIGINT,
			s TEXT NOT NULL, f DOUBLE PRECISION NOT NULL, ok BOOLEAN NOT NULL)`)
		cols := []string{"i", "j", "k", "b", "n", "s", "f", "ok"}
		type named int64 // not a driver value: database/sql converts it
		rows := [][]any{
			{1, int32(-7), int64(1) << 40, []byte{0, 1, 0xff}, nil, "one", 1.5, true},
			{2, int32(0), int64(-1), []byte{}, int64(5), "", -0.25, false},
			{3, named(9), int64(3), nil, 7, "three", 3, true},
		}
		if n, err := db.BulkInsert(ctx, "v", cols, rows, ""); err != nil || n != 3 {
			t.Fatalf("BulkInsert: %d rows, %v; want 3", n, err)
		}
		if n, err := db.BulkInsert(ctx, "v", cols, rows[:2], "ON CONFLICT DO NOTHING"); err != nil || n != 0 {
			t.Fatalf("BulkInsert of stored rows: %d rows, %v; want 0", n, err)
		}
		var got []string
		err := db.RunQuery(ctx, "SELECT i, j, k, b, n, s, f, ok FROM v ORDER BY i", func(r *sql.Rows) error {
			var (
				i, j, k int64
				b       []byte
				n       sql.NullInt64
				s       string
				f       float64
				ok      bool
			)
			if err := r.Scan(&i, &j, &k, &b, &n, &s, &f, &ok); err != nil {
				return err
			}
			got = append(got, fmt.Sprintf("%d %d %d %x/%t %v %q %g %t", i, j, k, b, b == nil, n, s, f, ok))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			`1 -7 1099511627776 0001ff/false {0 false} "one" 1.5 true`,
			`2 0 -1 /false {5 true} "" -0.25 false`,
			`3 9 3 /true {7 true} "three" 3 true`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestBulkInsertChunking lowers the parameter limit so that every chunk
// size shows up, and checks every row arrives exactly once.
func TestBulkInsertChunking(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY, b BIGINT NOT NULL, c BIGINT NOT NULL)")
		db.shared.maxParams = 50 // 16 rows of 3 per statement
		for _, total := range []int{1, 2, 3, 15, 16, 17, 31, 100, 257} {
			mustExec(t, db, "DELETE FROM t")
			var rows [][]any
			for i := range total {
				rows = append(rows, []any{i, i * 2, i * 3})
			}
			n, err := db.BulkInsert(ctx, "t", []string{"a", "b", "c"}, rows, "")
			if err != nil {
				t.Fatalf("%d rows: %v", total, err)
			}
			var cnt, sumA, sumC int64
			if err := db.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(a), 0), COALESCE(SUM(c), 0) FROM t").Scan(&cnt, &sumA, &sumC); err != nil {
				t.Fatal(err)
			}
			want := int64(total * (total - 1) / 2)
			if n != int64(total) || cnt != int64(total) || sumA != want || sumC != 3*want {
				t.Errorf("%d rows: inserted %d, count %d, sums %d %d", total, n, cnt, sumA, sumC)
			}
		}
		db.shared.maxParams = 2
		if _, err := db.BulkInsert(ctx, "t", []string{"a", "b", "c"}, [][]any{{1, 2, 3}}, ""); err == nil {
			t.Error("more columns than the parameter limit: no error")
		}
		// Statement texts are few: one per chunk size.
		db.shared.mu.Lock()
		nsql := len(db.shared.sqls)
		db.shared.mu.Unlock()
		if nsql > 5 { // 16, 8, 4, 2, 1
			t.Errorf("%d distinct bulk statements, want at most 5", nsql)
		}
	})
}

var errBoom = errors.New("boom")

func TestTransact(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY)")

		// Commit.
		err := db.Transact(ctx, func(tx *DB) error {
			if tx.tx == nil || db.tx != nil {
				t.Error("the transaction's handle is not the transaction's")
			}
			_, err := tx.Exec(ctx, "INSERT INTO t VALUES (?)", 1)
			return err
		})
		if err != nil || count(t, db, "t") != 1 {
			t.Fatalf("commit: %v, count %d", err, count(t, db, "t"))
		}

		// An error rolls back, and is returned.
		err = db.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (?)", 2); err != nil {
				return err
			}
			if _, err := tx.BulkInsert(ctx, "t", []string{"a"}, [][]any{{3}, {4}}, ""); err != nil {
				return err
			}
			if n := count(t, tx, "t"); n != 4 {
				t.Errorf("inside the transaction count = %d, want 4", n)
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("Transact returned %v, want errBoom", err)
		}
		if n := count(t, db, "t"); n != 1 {
			t.Fatalf("after rollback count = %d, want 1", n)
		}

		// A failing statement rolls back what came before it.
		err = db.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (?)", 5); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO t VALUES (?)", 1)
			return err
		})
		if err == nil {
			t.Fatal("duplicate key: no error")
		}
		if n := count(t, db, "t"); n != 1 {
			t.Fatalf("after failed statement count = %d, want 1", n)
		}

		// A panic rolls back and goes on.
		func() {
			defer func() {
				if p := recover(); p != errBoom {
					t.Errorf("recovered %v, want errBoom", p)
				}
			}()
			db.Transact(ctx, func(tx *DB) error {
				if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (?)", 6); err != nil {
					return err
				}
				panic(errBoom)
			})
		}()
		if n := count(t, db, "t"); n != 1 {
			t.Fatalf("after panic count = %d, want 1", n)
		}

		// No nesting.
		err = db.Transact(ctx, func(tx *DB) error {
			return tx.Transact(ctx, func(*DB) error { return nil })
		})
		if err == nil {
			t.Error("nested Transact: no error")
		}

		// The database still works after all that.
		if _, err := db.BulkInsert(ctx, "t", []string{"a"}, [][]any{{7}, {8}}, ""); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "t"); n != 3 {
			t.Fatalf("count = %d, want 3", n)
		}
	})
}

func TestMigrate(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		fsys := fstest.MapFS{
			"0001_first.sql":  {Data: []byte("-- a comment; with a semicolon?\nCREATE TABLE a (x BIGINT PRIMARY KEY);\nCREATE TABLE b (y TEXT);\n")},
			"0002_second.sql": {Data: []byte("INSERT INTO a (x) VALUES (1);\nINSERT INTO b (y) VALUES ('?');")},
			"README.md":       {Data: []byte("not a migration")},
		}
		applied, err := db.Migrate(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(applied) != "[1 2]" {
			t.Errorf("applied %v, want [1 2]", applied)
		}
		applied, err = db.Migrate(ctx, fsys)
		if err != nil || len(applied) != 0 {
			t.Fatalf("second Migrate: %v, %v", applied, err)
		}
		fsys["0010_third.sql"] = &fstest.MapFile{Data: []byte("INSERT INTO a (x) VALUES (10);")}
		applied, err = db.Migrate(ctx, fsys)
		if err != nil || fmt.Sprint(applied) != "[10]" {
			t.Fatalf("third Migrate: %v, %v", applied, err)
		}
		if n := count(t, db, "a"); n != 2 {
			t.Errorf("count(a) = %d, want 2", n)
		}
		if n := count(t, db, "schema_migrations"); n != 3 {
			t.Errorf("count(schema_migrations) = %d, want 3", n)
		}

		// A failing migration leaves nothing behind.
		fsys["0011_bad.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE c (z BIGINT); INSERT INTO nosuch VALUES (1);")}
		if _, err := db.Migrate(ctx, fsys); err == nil {
			t.Fatal("bad migration: no error")
		}
		delete(fsys, "0011_bad.sql")
		if _, err := db.Exec(ctx, "CREATE TABLE c (z BIGINT)"); err != nil {
			t.Errorf("table c of the failed migration exists: %v", err)
		}

		// A database migrated further than the files is refused.
		delete(fsys, "0010_third.sql")
		if _, err := db.Migrate(ctx, fsys); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("unknown applied version: %v", err)
		}

		// Bad file names.
		for _, bad := range []fstest.MapFS{
			{"first.sql": {}},
			{"0001_a.sql": {}, "1_b.sql": {}},
		} {
			if _, err := db.Migrate(ctx, bad); err == nil {
				t.Errorf("Migrate(%v): no error", bad)
			}
		}
	})
}

// TestMigrateDialects runs a version's file for the backend it names and
// not the other's, beside versions for both, and refuses two files of one
// version for the same backend.
func TestMigrateDialects(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		fsys := fstest.MapFS{
			"0001_a.sql":          {Data: []byte("CREATE TABLE a (x BIGINT PRIMARY KEY, d TEXT)")},
			"0002_b.sqlite.sql":   {Data: []byte("INSERT INTO a (x, d) VALUES (2, 'sqlite')")},
			"0002_b.postgres.sql": {Data: []byte("INSERT INTO a (x, d) VALUES (2, 'postgres')")},
			"0003_c.postgres.sql": {Data: []byte("INSERT INTO a (x, d) VALUES (3, 'postgres')")},
		}
		applied, err := db.Migrate(ctx, fsys)
		if err != nil {
			t.Fatal(err)
		}
		var ds []string
		err = db.RunQuery(ctx, "SELECT d FROM a ORDER BY x", func(r *sql.Rows) error {
			var d string
			err := r.Scan(&d)
			ds = append(ds, d)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want, wantApplied := "[sqlite]", "[1 2]"
		if db.Dialect() == Postgres {
			want, wantApplied = "[postgres postgres]", "[1 2 3]"
		}
		if fmt.Sprint(ds) != want || fmt.Sprint(applied) != wantApplied {
			t.Errorf("rows %v after applying %v; want %s after %s", ds, applied, want, wantApplied)
		}
		for _, bad := range []fstest.MapFS{
			{"0001_a.sqlite.sql": {}, "0001_b.sqlite.sql": {}},
			{"0001_a.sql": {}, "0001_b.postgres.sql": {}},
		} {
			if _, err := ReadMigrations(bad); err == nil {
				t.Errorf("ReadMigrations(%v): no error", bad)
			}
		}
	})
}

// TestMigrateConcurrent starts several processes' worth of Migrate on one
// new database at once: all succeed and each migration is applied once.
func TestMigrateConcurrent(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		fsys := fstest.MapFS{
			"0001_a.sql": {Data: []byte("CREATE TABLE a (x BIGINT PRIMARY KEY);")},
			"0002_b.sql": {Data: []byte("INSERT INTO a (x) VALUES (1);")},
		}
		const n = 4
		dbs := make([]*DB, n)
		for i := range dbs {
			dbs[i] = open(t, dsn)
		}
		var wg sync.WaitGroup
		results := make([][]int64, n)
		errs := make([]error, n)
		for i, db := range dbs {
			wg.Go(func() { results[i], errs[i] = db.Migrate(ctx, fsys) })
		}
		wg.Wait()
		total := 0
		for i := range n {
			if errs[i] != nil {
				t.Errorf("Migrate %d: %v", i, errs[i])
			}
			total += len(results[i])
		}
		if total != 2 {
			t.Errorf("migrations applied %d times in all, want 2: %v", total, results)
		}
		if c := count(t, dbs[0], "a"); c != 1 {
			t.Errorf("count(a) = %d, want 1", c)
		}
	})
}

// TestReadDuringWrite reads through the outer DB while a transaction is
// open: on SQLite the SELECT runs on a reader connection and sees the last
// commit, without waiting for the writer.
func TestReadDuringWrite(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY)")
		mustExec(t, db, "INSERT INTO t VALUES (1)")
		err := db.Transact(ctx, func(tx *DB) error {
			if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
				return err
			}
			done := make(chan int)
			go func() {
				var n int
				if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
					t.Error(err)
				}
				done <- n
			}()
			select {
			case n := <-done:
				if n != 1 {
					t.Errorf("outside the transaction count = %d, want 1", n)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a read waited for the open write transaction")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "t"); n != 2 {
			t.Errorf("after commit count = %d, want 2", n)
		}
	})
}

// TestReadTx checks that the queries of one ReadTx see one snapshot while
// another connection commits, and that it cannot write.
func TestReadTx(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		mustExec(t, db, "CREATE TABLE t (a BIGINT)")
		mustExec(t, db, "INSERT INTO t VALUES (1)")
		err := db.ReadTx(ctx, func(tx *DB) error {
			if n := count(t, tx, "t"); n != 1 {
				t.Errorf("first read: %d rows, want 1", n)
			}
			mustExec(t, db, "INSERT INTO t VALUES (2)") // committed by the writer
			if n := count(t, tx, "t"); n != 1 {
				t.Errorf("second read in the same ReadTx: %d rows, want the snapshot's 1", n)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (3)"); err == nil {
				t.Error("a write inside ReadTx succeeded")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "t"); n != 2 {
			t.Errorf("after ReadTx: %d rows, want 2", n)
		}
		want := errors.New("from fn")
		if err := db.ReadTx(ctx, func(*DB) error { return want }); !errors.Is(err, want) {
			t.Errorf("ReadTx returned %v, want fn's error", err)
		}
	})
}

// TestRunPrepared runs a query many times, in and out of transactions of
// both kinds: the same rows every time.
func TestRunPrepared(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		mustExec(t, db, "CREATE TABLE t (a BIGINT)")
		mustExec(t, db, "INSERT INTO t VALUES (1), (2), (3)")
		sum := func(d *DB) int64 {
			var s int64
			err := d.RunPrepared(ctx, "SELECT a FROM t WHERE a >= ?", func(r *sql.Rows) error {
				var a int64
				err := r.Scan(&a)
				s += a
				return err
			}, 2)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		for range 3 {
			if s := sum(db); s != 5 {
				t.Errorf("sum = %d, want 5", s)
			}
			if err := db.ReadTx(ctx, func(tx *DB) error {
				if s := sum(tx); s != 5 {
					t.Errorf("sum in ReadTx = %d, want 5", s)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.Transact(ctx, func(tx *DB) error {
				mustExec(t, tx, "INSERT INTO t VALUES (0)")
				if s := sum(tx); s != 5 {
					t.Errorf("sum in Transact = %d, want 5", s)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.RunPrepared(ctx, "SELECT nope FROM t", func(*sql.Rows) error { return nil }); err == nil {
			t.Error("a bad query succeeded")
		}
	})
}

// TestBackup: a SQLite backup is a consistent, openable copy made while a
// writer goes on committing (every transaction's two rows are in it or
// neither is), the writer is not held up, an existing file is refused,
// and PostgreSQL points to its own tools.
func TestBackup(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		if db.Dialect() == Postgres {
			if err := db.Backup(ctx, t.TempDir()+"/b.db"); !errors.Is(err, ErrNoOnlineBackup) {
				t.Fatalf("Backup on PostgreSQL = %v, want ErrNoOnlineBackup", err)
			}
			return
		}
		mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY, b BIGINT NOT NULL)")
		for i := range 2000 {
			mustExec(t, db, "INSERT INTO t VALUES (?, ?)", 2*i, 2*i+1)
		}
		// A writer commits pairs of rows while the backup is made.
		stop := make(chan struct{})
		wrote := make(chan int)
		go func() {
			n := 0
			defer func() { wrote <- n }()
			for i := 100000; ; i += 2 {
				select {
				case <-stop:
					return
				default:
				}
				err := db.Transact(ctx, func(tx *DB) error {
					if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (?, 0)", i); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "INSERT INTO t VALUES (?, 0)", i+1)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				n++
			}
		}()
		path := t.TempDir() + "/backup.db"
		err := db.Backup(ctx, path)
		close(stop)
		if n := <-wrote; n == 0 {
			t.Error("the writer committed nothing while the backup ran")
		}
		if err != nil {
			t.Fatal(err)
		}
		b := open(t, "sqlite:"+path)
		var rows, sum, odd int
		if err := b.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(b), 0), COALESCE(SUM(a % 2), 0) FROM t").Scan(&rows, &sum, &odd); err != nil {
			t.Fatal(err)
		}
		if want := 2000 * 2000; sum != want {
			t.Errorf("the backup's first 2000 rows sum to %d, want %d", sum, want)
		}
		// The writer's rows come in pairs (even, odd): a torn copy would
		// hold an unmatched one.
		if extra := rows - 2000; extra%2 != 0 || odd != extra/2 {
			t.Errorf("the backup holds %d of the writer's rows, %d odd: not whole transactions", extra, odd)
		}
		if err := db.Backup(ctx, path); err == nil || !strings.Contains(err.Error(), "exists already") {
			t.Errorf("a backup over an existing file = %v, want a refusal", err)
		}
	})
}

// TestBulkInsertAnalyzes checks that on PostgreSQL a table filled from
// empty by BulkInsert has statistics that count its rows once it received
// analyzeMinRows, and again once it doubled, without waiting for
// autovacuum; below the threshold it is left alone. The first statistics
// are the inserting transaction's own; the next are taken after it
// commits, by the analyzer.
func TestBulkInsertAnalyzes(t *testing.T) {
	db := open(t, dbtest.Postgres(t))
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (a BIGINT PRIMARY KEY)")
	reltuples := func() float64 {
		t.Helper()
		var n float64
		if err := db.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 't'::regclass").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	next := 0
	insert := func(n int) {
		t.Helper()
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(next)}
			next++
		}
		if _, err := db.BulkInsert(ctx, "t", []string{"a"}, rows, ""); err != nil {
			t.Fatal(err)
		}
	}
	insert(analyzeMinRows - 1)
	if n := reltuples(); n > 0 {
		t.Fatalf("after %d rows reltuples = %v, want the table not analyzed yet", analyzeMinRows-1, n)
	}
	// In one transaction, which sees its own statistics.
	err := db.Transact(ctx, func(tx *DB) error {
		if _, err := tx.BulkInsert(ctx, "t", []string{"a"}, [][]any{{int64(next)}}, ""); err != nil {
			return err
		}
		next++
		var n float64
		if err := tx.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 't'::regclass").Scan(&n); err != nil {
			return err
		}
		if n != analyzeMinRows {
			t.Errorf("in the transaction that inserted row %d, reltuples = %v, want %d", analyzeMinRows, n, analyzeMinRows)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	insert(analyzeMinRows - 1)
	db.shared.analyzer.queued.Wait()
	if n := reltuples(); n != analyzeMinRows {
		t.Fatalf("after %d rows reltuples = %v, want still %d", 2*analyzeMinRows-1, n, analyzeMinRows)
	}
	insert(1)
	db.shared.analyzer.queued.Wait()
	if n := reltuples(); n != 2*analyzeMinRows {
		t.Fatalf("after %d rows and the analyzer, reltuples = %v, want %d", 2*analyzeMinRows, n, 2*analyzeMinRows)
	}
}

// TestPostgresPoolKeepsConnections: many concurrent readers with gaps
// between their queries (a web server's shape) must not make the pool
// close and reopen PostgreSQL connections. Each new connection costs a
// backend process start on the server and the loss of pgx's prepared
// statements, on the cores that serve the queries.
func TestPostgresPoolKeepsConnections(t *testing.T) {
	db := open(t, dbtest.Postgres(t))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 30 {
				var n int
				if err := db.QueryRow(ctx, "SELECT ?::INTEGER", i*j).Scan(&n); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(time.Duration((i+j)%4) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if st := db.r.Stats(); st.MaxIdleClosed > 0 || st.OpenConnections > st.MaxOpenConnections {
		t.Fatalf("the pool closed %d connections past its idle bound (open %d of %d): it should keep what it opened",
			st.MaxIdleClosed, st.OpenConnections, st.MaxOpenConnections)
	}
}

// A SQLite database that exists keeps its page size (a new one's is in
// TestSQLitePragmas), the writer's checkpoint backstop is counted in its
// pages, and docs/operations.md's conversion gives it the new size.
func TestSQLiteExistingPageSize(t *testing.T) {
	ctx := context.Background()
	pragma := func(db *DB, name string) int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow(ctx, "PRAGMA "+name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// rawExec runs q on a connection of SQLite's own, as the sqlite3
	// shell would.
	rawExec := func(path, q string) {
		t.Helper()
		c, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// A database made by SQLite's defaults, as stores made before the
	// page size was set were.
	path := filepath.Join(t.TempDir(), "old.db")
	rawExec(path, "PRAGMA journal_mode = WAL; CREATE TABLE t (a INTEGER)")
	old := open(t, "sqlite:"+path)
	if got := pragma(old, "page_size"); got != 4096 {
		t.Errorf("existing database: page_size %d, want 4096 (kept)", got)
	}
	if got, want := pragma(old, "wal_autocheckpoint"), 4*walCheckpointBytes/4096; got != want {
		t.Errorf("existing database: wal_autocheckpoint %d pages, want %d", got, want)
	}
	old.Close()

	// The conversion docs/operations.md gives, then Open again.
	rawExec(path, "PRAGMA journal_mode = DELETE; PRAGMA page_size = 16384; VACUUM")
	converted := open(t, "sqlite:"+path)
	if got := pragma(converted, "page_size"); got != 16384 {
		t.Errorf("converted database: page_size %d, want 16384", got)
	}
	var mode string
	if err := converted.QueryRow(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("converted database: journal_mode %q (%v), want wal", mode, err)
	}
}

package database

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestBulkUpdate(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		mustExec(t, db, "CREATE TABLE u (id BYTEA PRIMARY KEY, kind TEXT NOT NULL, n BIGINT, tag TEXT, ok BOOLEAN)")
		// More rows than one statement holds, so that chunking is exercised.
		const rows = 3000
		var ins [][]any
		for i := range rows {
			kind := "keep"
			if i%3 == 0 {
				kind = "skip"
			}
			ins = append(ins, []any{[]byte(fmt.Sprintf("id-%05d", i)), kind})
		}
		if _, err := db.BulkInsert(ctx, "u", []string{"id", "kind"}, ins, ""); err != nil {
			t.Fatal(err)
		}
		var upd [][]any
		for i := range rows + 10 { // 10 keys that match no row
			upd = append(upd, []any{[]byte(fmt.Sprintf("id-%05d", i)), int64(i * 7), fmt.Sprintf("t%d", i), i%2 == 0})
		}
		var n int64
		err := db.Transact(ctx, func(tx *DB) error {
			var err error
			n, err = tx.BulkUpdate(ctx, "u", "id", []string{"n", "tag", "ok"}, "kind <> 'skip'", upd)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(rows - (rows+2)/3); n != want {
			t.Errorf("updated %d rows, want %d", n, want)
		}
		err = db.RunQuery(ctx, "SELECT id, kind, n, tag, ok FROM u", func(r *sql.Rows) error {
			var (
				id   []byte
				kind string
				num  sql.NullInt64
				tag  sql.NullString
				ok   sql.NullBool
			)
			if err := r.Scan(&id, &kind, &num, &tag, &ok); err != nil {
				return err
			}
			var i int
			fmt.Sscanf(string(bytes.TrimPrefix(id, []byte("id-"))), "%d", &i)
			if kind == "skip" {
				if num.Valid || tag.Valid || ok.Valid {
					t.Errorf("%s: a row cond excludes was updated", id)
				}
				return nil
			}
			if num.Int64 != int64(i*7) || tag.String != fmt.Sprintf("t%d", i) || ok.Bool != (i%2 == 0) {
				t.Errorf("%s = %v %v %v", id, num, tag, ok)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []struct {
			name string
			f    func() error
		}{
			{"bad table", func() error { _, err := db.BulkUpdate(ctx, "u;", "id", []string{"n"}, "", upd[:1]); return err }},
			{"no columns", func() error { _, err := db.BulkUpdate(ctx, "u", "id", nil, "", upd[:1]); return err }},
			{"short row", func() error {
				_, err := db.BulkUpdate(ctx, "u", "id", []string{"n", "tag"}, "", [][]any{{[]byte("x"), int64(1)}})
				return err
			}},
		} {
			if err := bad.f(); err == nil {
				t.Errorf("%s: no error", bad.name)
			}
		}
	})
}

// TestLockTx checks that two transactions taking the same lock run their
// locked parts one after the other.
func TestLockTx(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		ctx := context.Background()
		if err := db.LockTx(ctx, 1); err == nil || !strings.Contains(err.Error(), "not in a transaction") {
			t.Errorf("LockTx outside a transaction: %v", err)
		}
		mustExec(t, db, "CREATE TABLE l (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)")
		mustExec(t, db, "INSERT INTO l (k, v) VALUES (1, 0)")
		// Each transaction reads v, waits, and writes v+1 under the lock: a
		// lost update would leave v below the number of transactions.
		const n = 4
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := db.Transact(ctx, func(tx *DB) error {
					if err := tx.LockTx(ctx, 0x7465_7374); err != nil {
						return err
					}
					var v int64
					if err := tx.QueryRow(ctx, "SELECT v FROM l WHERE k = 1").Scan(&v); err != nil {
						return err
					}
					time.Sleep(20 * time.Millisecond)
					_, err := tx.Exec(ctx, "UPDATE l SET v = ? WHERE k = 1", v+1)
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		var v int64
		if err := db.QueryRow(ctx, "SELECT v FROM l WHERE k = 1").Scan(&v); err != nil || v != n {
			t.Errorf("v = %d, %v; want %d", v, err, n)
		}
	})
}

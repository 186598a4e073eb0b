package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// BulkUpdate sets columns set of the rows of table whose key column equals
// each row's first value; the row's other values are the new values of set,
// in order. cond, when not empty, further restricts the rows updated (SQL
// text over table's columns, never user input). It returns how many rows
// were updated.
//
// Each chunk of rows is one statement, a VALUES list joined on the key
// (UPDATE ... FROM, which SQLite has had since 3.33): on PostgreSQL every
// statement is a round trip, so one per row would cost a batch dearly.
// PostgreSQL types the VALUES list by casts inferred from the first row's
// Go values ([]byte, int64, int, string, bool); the values of a column must
// share a type and the first row's may not be nil.
func (db *DB) BulkUpdate(ctx context.Context, table, key string, set []string, cond string, rows [][]any) (updated int64, err error) {
	if len(rows) == 0 {
		return 0, nil
	}
	if err := db.flush(); err != nil {
		return 0, err
	}
	for _, name := range append([]string{table, key}, set...) {
		if !identRE.MatchString(name) {
			return 0, fmt.Errorf("database.BulkUpdate(%s): bad name %q", table, name)
		}
	}
	if len(set) == 0 {
		return 0, fmt.Errorf("database.BulkUpdate(%s): no columns to set", table)
	}
	width := len(set) + 1
	for i, r := range rows {
		if len(r) != width {
			return 0, fmt.Errorf("database.BulkUpdate(%s): row %d has %d values for %d columns", table, i, len(r), width)
		}
	}
	params := make([]string, width)
	for i, v := range rows[0] {
		params[i] = "?"
		if db.dialect == Postgres {
			c, err := pgCast(v)
			if err != nil {
				return 0, fmt.Errorf("database.BulkUpdate(%s): %w", table, err)
			}
			params[i] += "::" + c
		}
	}

	names := make([]string, width)
	names[0] = "k"
	assign := make([]string, len(set))
	for i, c := range set {
		names[i+1] = fmt.Sprintf("s%d", i)
		assign[i] = fmt.Sprintf("%s = v.s%d", c, i)
	}
	row := "(" + strings.Join(params, ", ") + ")"
	where := table + "." + key + " = v.k"
	if cond != "" {
		where += " AND (" + cond + ")"
	}
	perStmt := min(maxBulkRows, db.MaxParams()/width)
	for start := 0; start < len(rows); start += perStmt {
		chunk := rows[start:min(len(rows), start+perStmt)]
		args := make([]any, 0, len(chunk)*width)
		for _, r := range chunk {
			args = append(args, r...)
		}
		q := "WITH v(" + strings.Join(names, ", ") + ") AS (VALUES " + row + strings.Repeat(", "+row, len(chunk)-1) +
			") UPDATE " + table + " SET " + strings.Join(assign, ", ") + " FROM v WHERE " + where
		n, err := db.Exec(ctx, q, args...)
		updated += n
		if err != nil {
			return updated, fmt.Errorf("database.BulkUpdate(%s): %w", table, err)
		}
	}
	return updated, nil
}

// pgCast is the PostgreSQL type of a Go value passed as a parameter.
func pgCast(v any) (string, error) {
	switch v.(type) {
	case []byte:
		return "bytea", nil
	case int64, int, int32:
		return "bigint", nil
	case string:
		return "text", nil
	case bool:
		return "boolean", nil
	case nil:
		return "", errors.New("the first row has a nil value: its column's type is unknown")
	}
	return "", fmt.Errorf("no PostgreSQL type for %T", v)
}

// LockTx makes the transaction db holds wait for, then hold until it ends,
// the lock named key, so that transactions taking the same key run their
// critical parts one at a time: PostgreSQL's transaction-level advisory
// lock. SQLite runs one write transaction at a time already, so there it
// does nothing.
func (db *DB) LockTx(ctx context.Context, key int64) error {
	if db.tx == nil {
		return errors.New("database.LockTx: not in a transaction")
	}
	if err := db.flush(); err != nil {
		return err
	}
	if db.dialect != Postgres {
		return nil
	}
	_, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock(?)", key)
	return err
}

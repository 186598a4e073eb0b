package database

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mattn/go-sqlite3"
)

// maxBulkRows caps the rows of one INSERT statement, whatever the
// parameter limit allows: past a thousand rows, longer statements gain
// nothing.
const maxBulkRows = 1024

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

type bulkKey struct {
	table, columns, conflict string
	rows                     int
}

// BulkInsert inserts rows into table with multi-row INSERT statements and
// returns how many rows were inserted (rows skipped by the conflict clause
// are not counted). Each row holds one value per column, in order.
// conflict, when not empty, is appended to each statement, e.g.
// "ON CONFLICT DO NOTHING"; it is SQL text, never user input.
//
// The rows are cut into statements that stay under the backend's parameter
// limit. Every statement carries a power-of-two number of rows, so the
// backend sees a handful of distinct statement texts and PostgreSQL's
// per-connection prepared-statement cache keeps hitting.
//
// On PostgreSQL, rows without a conflict clause, copyMinRows or more, are
// sent with COPY instead (several times faster for a bulk load); a
// conflict fails the whole COPY as it would the INSERT.
//
// Outside a transaction, BulkInsert runs in one of its own: all rows or
// none are written.
func (db *DB) BulkInsert(ctx context.Context, table string, columns []string, rows [][]any, conflict string) (int64, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	if err := db.flush(); err != nil {
		return 0, err
	}
	if !identRE.MatchString(table) {
		return 0, fmt.Errorf("database.BulkInsert: bad table name %q", table)
	}
	if len(columns) == 0 {
		return 0, fmt.Errorf("database.BulkInsert(%s): no columns", table)
	}
	for _, c := range columns {
		if !identRE.MatchString(c) {
			return 0, fmt.Errorf("database.BulkInsert(%s): bad column name %q", table, c)
		}
	}
	for i, r := range rows {
		if len(r) != len(columns) {
			return 0, fmt.Errorf("database.BulkInsert(%s): row %d has %d values for %d columns", table, i, len(r), len(columns))
		}
	}
	if db.tx == nil {
		var n int64
		err := db.Transact(ctx, func(tx *DB) error {
			var err error
			n, err = tx.BulkInsert(ctx, table, columns, rows, conflict)
			return err
		})
		return n, err
	}

	per := min(maxBulkRows, db.shared.maxParams/len(columns))
	if per < 1 {
		return 0, fmt.Errorf("database.BulkInsert(%s): %d columns exceed the parameter limit %d", table, len(columns), db.shared.maxParams)
	}
	if db.conn != nil && conflict == "" && len(rows) >= copyMinRows {
		n, err := db.copyRows(ctx, table, columns, rows)
		if err != nil {
			return n, err
		}
		return n, db.noteInserted(ctx, table, n)
	}
	if db.conn != nil && len(rows) > 1 && arrayable(rows) {
		n, err := db.unnestRows(ctx, table, columns, rows, conflict)
		if err != nil {
			return n, err
		}
		return n, db.noteInserted(ctx, table, n)
	}
	per = 1 << (bits.Len(uint(per)) - 1) // round down to a power of two
	cols := strings.Join(columns, ", ")
	args := make([]any, 0, min(per, len(rows))*len(columns))
	var total int64
	for len(rows) > 0 {
		k := per
		for k > len(rows) {
			k >>= 1
		}
		args = args[:0]
		for _, r := range rows[:k] {
			args = append(args, r...)
		}
		rows = rows[k:]
		q := db.bulkSQL(bulkKey{table: table, columns: cols, conflict: conflict, rows: k}, len(columns))
		db.traced(q, args)
		n, err := db.execInsert(ctx, q, args)
		if err != nil {
			return total, fmt.Errorf("database.BulkInsert(%s, %d rows): %w", table, k, err)
		}
		total += n
	}
	return total, db.noteInserted(ctx, table, total)
}

// execInsert runs one INSERT of BulkInsert's and returns the rows it
// wrote. On SQLite it goes through Query, whose driver path binds the
// values and takes the statement's step in one cgo call, where Exec's
// binds each value in a call of its own (a cgo call per value was 13% of
// the EVM appliers' time on SQLite, BenchmarkIngestEVM); the count is
// then the connection's changes().
func (db *DB) execInsert(ctx context.Context, q string, args []any) (int64, error) {
	if db.dialect != SQLite {
		res, err := db.tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	rows, err := db.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	if err := errors.Join(rows.Close(), rows.Err()); err != nil {
		return 0, err
	}
	var n int64
	if err := db.tx.QueryRowContext(ctx, "SELECT changes()").Scan(&n); err != nil {
		return 0, fmt.Errorf("changes(): %w", err)
	}
	return n, nil
}

// Duplicate reports whether err is an insert refused because a row with
// its primary key or another unique key exists: what BulkInsert without a
// conflict clause (and so COPY) returns for rows written before.
func Duplicate(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" // unique_violation
	}
	var se sqlite3.Error
	return errors.As(err, &se) &&
		(se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique)
}

// copyMinRows is the fewest rows BulkInsert sends with COPY: below, the
// round trips COPY adds (it first reads the columns' types) cost more
// than the INSERT's parameters.
const copyMinRows = 256

// copyRows writes rows into table with COPY on the transaction's
// PostgreSQL connection.
func (db *DB) copyRows(ctx context.Context, table string, columns []string, rows [][]any) (int64, error) {
	var n int64
	err := db.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the connection is a %T, not pgx's", dc)
		}
		var err error
		n, err = c.Conn().CopyFrom(ctx, pgx.Identifier(strings.Split(table, ".")), columns, pgx.CopyFromRows(rows))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("database.BulkInsert(%s, %d rows, COPY): %w", table, len(rows), err)
	}
	return n, nil
}

// bulkSQL returns the INSERT statement for key, in db's dialect.
func (db *DB) bulkSQL(key bulkKey, ncols int) string {
	sh := db.shared
	sh.mu.Lock()
	q, ok := sh.sqls[key]
	sh.mu.Unlock()
	if ok {
		return q
	}
	var b strings.Builder
	b.Grow(32 + len(key.table) + len(key.columns) + key.rows*ncols*6 + len(key.conflict))
	b.WriteString("INSERT INTO ")
	b.WriteString(key.table)
	b.WriteString(" (")
	b.WriteString(key.columns)
	b.WriteString(") VALUES ")
	p := 0
	for r := range key.rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range ncols {
			if c > 0 {
				b.WriteString(", ")
			}
			p++
			if db.dialect == Postgres {
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(p))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	if key.conflict != "" {
		b.WriteByte(' ')
		b.WriteString(key.conflict)
	}
	q = b.String()
	sh.mu.Lock()
	sh.sqls[key] = q
	sh.mu.Unlock()
	return q
}

// maxUnnestRows caps the rows of one unnest statement (memory, not a
// parameter limit: a column is one parameter).
const maxUnnestRows = 8192

// arrayable reports whether every value of rows is of a type that pgx
// encodes as an element of any array: then unnestRows can send them.
func arrayable(rows [][]any) bool {
	for _, r := range rows {
		for _, v := range r {
			switch v.(type) {
			case nil, []byte, string, int, int32, int64, float64, bool:
			default:
				return false
			}
		}
	}
	return true
}

// unnestRows inserts rows into table on PostgreSQL as one statement per
// maxUnnestRows, each column one array parameter that unnest turns back
// into rows: "INSERT ... SELECT * FROM unnest($1::T1[], ...) conflict".
// Unlike a multi-row VALUES, its text and its plan do not grow with the
// rows, so any number of rows is one statement, planned once and kept in
// the connection's statement cache (a VALUES of 64 rows was planned anew
// each time, and a batch's 91 rows took five statements).
func (db *DB) unnestRows(ctx context.Context, table string, columns []string, rows [][]any, conflict string) (int64, error) {
	types, err := db.columnTypes(ctx, table)
	if err != nil {
		return 0, err
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") SELECT * FROM unnest(")
	for i, c := range columns {
		t, ok := types[c]
		if !ok {
			return 0, fmt.Errorf("database.BulkInsert(%s): no column %q", table, c)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::%s[]", i+1, t)
	}
	b.WriteString(") AS u")
	if conflict != "" {
		b.WriteString(" " + conflict)
	}
	q := b.String()
	var total int64
	for len(rows) > 0 {
		k := min(len(rows), maxUnnestRows)
		args := make([]any, len(columns))
		for j := range columns {
			col := make([]any, k)
			for i, r := range rows[:k] {
				col[i] = r[j]
			}
			args[j] = col
		}
		rows = rows[k:]
		res, err := db.tx.ExecContext(ctx, q, args...)
		if err != nil {
			return total, fmt.Errorf("database.BulkInsert(%s, %d rows, unnest): %w", table, k, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("database.BulkInsert(%s): RowsAffected: %w", table, err)
		}
		total += n
	}
	return total, nil
}

// columnTypes returns the SQL types of table's columns on PostgreSQL, read
// from the catalog once per DB (the migrations that set them run before).
func (db *DB) columnTypes(ctx context.Context, table string) (map[string]string, error) {
	sh := db.shared
	sh.mu.Lock()
	types, ok := sh.colTypes[table]
	sh.mu.Unlock()
	if ok {
		return types, nil
	}
	types = map[string]string{}
	rows, err := db.tx.QueryContext(ctx, `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, table)
	if err != nil {
		return nil, fmt.Errorf("database: column types of %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		types[name] = typ
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sh.mu.Lock()
	if sh.colTypes == nil {
		sh.colTypes = map[string]map[string]string{}
	}
	sh.colTypes[table] = types
	sh.mu.Unlock()
	return types, nil
}

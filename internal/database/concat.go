package database

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Field is a column EachRow reads: an integer (Int), a blob of Size
// bytes (Size > 0), or else a blob of any length. It must not be NULL
// (SQLite's concatenation would drop the row).
type Field struct {
	Expr string
	Int  bool
	Size int
}

// A Row is the fields of a row EachRow reads, by their index in its
// fields. Its blobs are valid until the call it was given to returns.
type Row struct {
	ints  []int64
	blobs [][]byte
}

// Int is the integer field i.
func (r *Row) Int(i int) int64 { return r.ints[i] }

// Bytes is the blob field i.
func (r *Row) Bytes(i int) []byte { return r.blobs[i] }

// EachRow calls f with the fields of each row of "SELECT fields " + rest
// (a FROM clause and what follows it), in the query's order: a list of
// many small rows. On SQLite the store concatenates the rows into one
// value (group_concat: an integer as its decimal digits and a comma,
// which SQLite makes without a function call; a blob of any length after
// its length), read here: through cgo, copying each row out was most of
// the time of a 100,000-row read. SQLite keeps an ordered subquery's
// order in practice, though it does not promise it: a caller that needs
// the order checks it. On PostgreSQL the rows are read one by one: pgx
// reads a row for less than string_agg and per-row concatenations cost
// the server; the blobs of a row come as one column, so that at most the
// last blob field is of any length.
func (db *DB) EachRow(ctx context.Context, fields []Field, rest string, f func(*Row) error, args ...any) error {
	for i, fd := range fields {
		if !fd.Int && fd.Size == 0 && slices.ContainsFunc(fields[i+1:], func(f Field) bool { return !f.Int }) {
			return fmt.Errorf("database.EachRow: %s, of any length, is not the last blob", fd.Expr)
		}
	}
	row := &Row{ints: make([]int64, len(fields)), blobs: make([][]byte, len(fields))}
	if db.dialect == Postgres {
		// The integers as columns, the blobs concatenated as one (a
		// column fewer for pgx to read per row), split here by their
		// sizes: only the last may be of any length.
		var (
			exprs, blobs []string
			raw          sql.RawBytes
			dest         []any
		)
		for i, fd := range fields {
			switch {
			case fd.Int:
				exprs = append(exprs, fd.Expr)
				dest = append(dest, &row.ints[i])
			default:
				blobs = append(blobs, "("+fd.Expr+")")
			}
		}
		if len(blobs) > 0 {
			exprs = append(exprs, strings.Join(blobs, " || "))
			dest = append(dest, &raw)
		}
		return db.RunQuery(ctx, "SELECT "+strings.Join(exprs, ", ")+" "+rest, func(rows *sql.Rows) error {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			b := []byte(raw)
			for i, fd := range fields {
				switch {
				case fd.Int:
				case len(b) < fd.Size:
					return fmt.Errorf("%s: %d bytes, want %d", fd.Expr, len(b), fd.Size)
				case fd.Size > 0:
					row.blobs[i], b = b[:fd.Size:fd.Size], b[fd.Size:]
				default:
					row.blobs[i], b = b, nil
				}
			}
			if len(b) != 0 {
				return fmt.Errorf("database.EachRow: %d bytes of blobs left over", len(b))
			}
			return f(row)
		}, args...)
	}
	parts := make([]string, len(fields))
	for i, fd := range fields {
		switch {
		case fd.Int:
			parts[i] = "(" + fd.Expr + ") || ','"
		case fd.Size > 0:
			parts[i] = "(" + fd.Expr + ")"
		default:
			parts[i] = "length(" + fd.Expr + ") || ',' || (" + fd.Expr + ")"
		}
	}
	// SQLite types the concatenation text; as a blob the driver copies it
	// once, not into a string and then into bytes.
	var all []byte
	err := db.QueryRow(ctx, "SELECT CAST(group_concat(v, '') AS BLOB) FROM (SELECT "+strings.Join(parts, " || ")+
		" AS v "+rest+") AS r", args...).Scan(&all)
	if err != nil {
		return err
	}
	for b := all; len(b) > 0; {
		for i, fd := range fields {
			var err error
			if fd.Int {
				row.ints[i], b, err = cutDecimal(b)
			} else {
				n := int64(fd.Size)
				if n == 0 {
					n, b, err = cutDecimal(b)
				}
				if err == nil && (n < 0 || n > int64(len(b))) {
					err = fmt.Errorf("%s: %d bytes, cut at %d", fd.Expr, n, len(b))
				}
				if err == nil {
					row.blobs[i], b = b[:n:n], b[n:]
				}
			}
			if err != nil {
				return fmt.Errorf("database.EachRow at byte %d of %d: %w", len(all)-len(b), len(all), err)
			}
		}
		if err := f(row); err != nil {
			return err
		}
	}
	return nil
}

// cutDecimal reads the decimal digits and comma EachRow's SQLite value
// holds an integer as.
func cutDecimal(b []byte) (int64, []byte, error) {
	i := bytes.IndexByte(b[:min(len(b), 21)], ',')
	if i < 0 {
		return 0, b, fmt.Errorf("no integer in %q", b[:min(len(b), 21)])
	}
	v, err := strconv.ParseInt(string(b[:i]), 10, 64)
	if err != nil {
		return 0, b, fmt.Errorf("an integer: %w", err)
	}
	return v, b[i+1:], nil
}

package database

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
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
// the order checks it. On PostgreSQL the rows are read one by one, as
// pgx receives them (string_agg and per-row concatenations cost the
// server more than that saves).
func (db *DB) EachRow(ctx context.Context, fields []Field, rest string, f func(*Row) error, args ...any) error {
	for i, fd := range fields {
		if !fd.Int && fd.Size == 0 && slices.ContainsFunc(fields[i+1:], func(f Field) bool { return !f.Int }) {
			return fmt.Errorf("database.EachRow: %s, of any length, is not the last blob", fd.Expr)
		}
	}
	if err := db.flush(); err != nil {
		return err
	}
	defer db.iterating()()
	row := &Row{ints: make([]int64, len(fields)), blobs: make([][]byte, len(fields))}
	if db.dialect == Postgres {
		return db.eachRowPostgres(ctx, fields, rest, row, f, args)
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

// eachRowPostgres is EachRow on PostgreSQL. It reads the rows through pgx
// itself, on the transaction's connection (or one of the pool's), and
// takes each field from the row's wire bytes: through database/sql, a row
// cost a copy of each value, driver.Value conversions and the Rows' locks,
// most of the time of a 100,000-row list.
func (db *DB) eachRowPostgres(ctx context.Context, fields []Field, rest string, row *Row, f func(*Row) error, args []any) error {
	exprs := make([]string, len(fields))
	for i, fd := range fields {
		exprs[i] = fd.Expr
	}
	query := "SELECT " + strings.Join(exprs, ", ") + " " + rest
	db.traced(query, args)
	conn := db.conn
	if conn == nil {
		if db.tx != nil {
			return errors.New("database.EachRow: a PostgreSQL transaction without its connection")
		}
		var err error
		if conn, err = db.r.Conn(ctx); err != nil {
			return fmt.Errorf("database.EachRow: %w", err)
		}
		defer conn.Close()
	}
	var (
		text []byte // a text-format bytea's bytes (simple protocol)
		ferr error  // f's, returned as it is
	)
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the connection is a %T, not pgx's", dc)
		}
		rows, err := c.Conn().Query(ctx, db.Rebind(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		descs := rows.FieldDescriptions()
		if len(descs) != len(fields) {
			return fmt.Errorf("%d columns, want %d", len(descs), len(fields))
		}
		for rows.Next() {
			vals := rows.RawValues()
			text = text[:0]
			for i, fd := range fields {
				v, bin := vals[i], descs[i].Format == pgx.BinaryFormatCode
				if v == nil {
					return fmt.Errorf("%s is NULL", fd.Expr)
				}
				if fd.Int {
					n, err := pgInt(v, bin)
					if err != nil {
						return fmt.Errorf("%s: %w", fd.Expr, err)
					}
					row.ints[i] = n
					continue
				}
				if !bin {
					// bytea's hex output, \x and two digits a byte.
					if len(v) < 2 || v[0] != '\\' || v[1] != 'x' {
						return fmt.Errorf("%s: not bytea's hex output: %.20q", fd.Expr, v)
					}
					n := len(text)
					var err error
					if text, err = hex.AppendDecode(text, v[2:]); err != nil {
						return fmt.Errorf("%s: %w", fd.Expr, err)
					}
					v = text[n:len(text):len(text)]
				}
				if fd.Size > 0 && len(v) != fd.Size {
					return fmt.Errorf("%s: %d bytes, want %d", fd.Expr, len(v), fd.Size)
				}
				row.blobs[i] = v[:len(v):len(v)]
			}
			if ferr = f(row); ferr != nil {
				return ferr
			}
		}
		return rows.Err()
	})
	if err != nil && ferr == nil {
		return queryError(err, query)
	}
	return err
}

// pgInt reads an integer column's wire bytes: binary int2, int4 or int8,
// or decimal text.
func pgInt(v []byte, bin bool) (int64, error) {
	if !bin {
		return strconv.ParseInt(string(v), 10, 64)
	}
	switch len(v) {
	case 2:
		return int64(int16(binary.BigEndian.Uint16(v))), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(v))), nil
	case 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	return 0, fmt.Errorf("an integer of %d bytes", len(v))
}

package database

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strconv"
)

// ConcatRows reads the blob expr of every row of "SELECT expr " + rest
// (a FROM clause and what follows it), concatenated: a list of many small
// values read as one. The values must delimit themselves (IntField). On
// SQLite the store concatenates them (group_concat), so that the driver
// copies one value, not a row each: through cgo, that copy was most of
// the time of a 100,000-row read. On PostgreSQL the rows are appended
// here, since pgx reads a row for less than string_agg costs the server.
// An ordered query's values come in its order on PostgreSQL; on SQLite
// an ordered subquery keeps its order in practice, though SQLite does
// not promise it, so a reader that needs the order checks it.
func (db *DB) ConcatRows(ctx context.Context, expr, rest string, args ...any) ([]byte, error) {
	var all []byte
	if db.dialect == Postgres {
		var v sql.RawBytes
		err := db.RunQuery(ctx, "SELECT "+expr+" "+rest, func(r *sql.Rows) error {
			err := r.Scan(&v)
			all = append(all, v...)
			return err
		}, args...)
		return all, err
	}
	// SQLite types the concatenation text; as a blob the driver copies
	// it once, not into a string and then into bytes.
	err := db.QueryRow(ctx, "SELECT CAST(group_concat(v, '') AS BLOB) FROM (SELECT "+expr+" AS v "+rest+") AS r", args...).Scan(&all)
	return all, err
}

// IntField returns the SQL of the integer expr as a field of a value
// ConcatRows reads, in the form its store makes cheapest (db.CutIntField
// reads it back): on SQLite its decimal digits and a comma, which SQLite
// makes of an integer without a function call (printf and unhex per row
// cost more than SQLite's read of the rows); on PostgreSQL 8 bytes
// big-endian (int8send; its text conversions cost as much).
func (db *DB) IntField(expr string) string {
	if db.dialect == Postgres {
		return "int8send((" + expr + ")::bigint)"
	}
	return "(" + expr + ") || ','"
}

// CutIntField reads the IntField at the start of b: its value and the
// bytes after it.
func (db *DB) CutIntField(b []byte) (int64, []byte, error) {
	if db.dialect == Postgres {
		if len(b) < 8 {
			return 0, nil, fmt.Errorf("an integer field of %d bytes", len(b))
		}
		return int64(binary.BigEndian.Uint64(b)), b[8:], nil
	}
	i := bytes.IndexByte(b[:min(len(b), 21)], ',')
	if i < 0 {
		return 0, nil, fmt.Errorf("no integer field in %q", b[:min(len(b), 21)])
	}
	v, err := strconv.ParseInt(string(b[:i]), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("an integer field: %w", err)
	}
	return v, b[i+1:], nil
}

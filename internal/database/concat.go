package database

import (
	"bytes"
	"fmt"
	"strconv"
)

// ConcatAgg returns the aggregate that concatenates the blob expr over a
// query's rows: many small values read as one, so that the driver copies
// one value, not a row each (for 100,000 rows of 30 bytes, most of the
// read's time). The values must delimit themselves (IntField). Rows given
// by an ordered subquery are concatenated in its order on both stores in
// practice, though neither promises it: a reader that needs the order
// checks it. Over no rows it is NULL.
func (db *DB) ConcatAgg(expr string) string {
	if db.dialect == Postgres {
		return "string_agg(" + expr + ", ''::bytea)"
	}
	// SQLite types the concatenation text; as a blob the driver copies
	// it once, not into a string and then into bytes.
	return "CAST(group_concat(" + expr + ", '') AS BLOB)"
}

// IntField returns the SQL of the integer expr as a field of a value
// ConcatAgg reads: its decimal digits and a comma, as bytes (CutIntField
// reads it back). Decimal text, because SQLite makes it of an integer
// without a function call; printf and unhex per row cost SQLite more
// than its read of the rows.
func (db *DB) IntField(expr string) string {
	if db.dialect == Postgres {
		return "convert_to((" + expr + ")::text || ',', 'UTF8')"
	}
	return "(" + expr + ") || ','"
}

// CutIntField reads the IntField at the start of b: its value and the
// bytes after it.
func CutIntField(b []byte) (int64, []byte, error) {
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

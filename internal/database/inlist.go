package database

import "strings"

// InList returns the SQL that matches a column against values, for
// "WHERE col " + match, and match's arguments: "IN (?, ...)" with one
// argument per value on SQLite; "= ANY(?)" with the values as one bytea
// array on PostgreSQL, whose statement text and plan stay the same
// whatever the list's length (a list of 256 ids as as many parameters
// cost more to plan than to run).
func (db *DB) InList(values [][]byte) (match string, args []any) {
	if db.dialect == Postgres {
		return "= ANY(?)", []any{values}
	}
	args = make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return "IN (?" + strings.Repeat(", ?", len(values)-1) + ")", args
}

package database

// BytesContain returns an SQL condition that holds when the BYTEA (BLOB)
// expression expr contains, anywhere, the bytes given as its one ?
// parameter: instr on SQLite, position on PostgreSQL, which find byte
// strings in byte strings alike.
func (db *DB) BytesContain(expr string) string {
	if db.dialect == Postgres {
		return "position(?::bytea in " + expr + ") > 0"
	}
	return "instr(" + expr + ", ?) > 0"
}

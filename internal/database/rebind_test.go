package database

import "testing"

func TestRebind(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"SELECT 1", "SELECT 1"},
		{"SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = $1 AND b = $2"},
		{"INSERT INTO t VALUES (?,?),(?,?)", "INSERT INTO t VALUES ($1,$2),($3,$4)"},
		{"SELECT '?' , ?", "SELECT '?' , $1"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{`SELECT "we?ird" FROM t WHERE x = ?`, `SELECT "we?ird" FROM t WHERE x = $1`},
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{"SELECT ? -- trailing?", "SELECT $1 -- trailing?"},
		{"SELECT /* a ? /* nested ? */ still? */ ?", "SELECT /* a ? /* nested ? */ still? */ $1"},
		{"SELECT $$ a ? $$, ?", "SELECT $$ a ? $$, $1"},
		{"SELECT $tag$ a ? $ $tag$, ?", "SELECT $tag$ a ? $ $tag$, $1"},
		{`SELECT E'\'?', ?`, `SELECT E'\'?', $1`},
		{`SELECT e'a\\', ?`, `SELECT e'a\\', $1`},
		{`SELECT 'a\', ?`, `SELECT 'a\', $1`}, // standard strings: no escapes
		{"SELECT 'open ?", "SELECT 'open ?"},
	} {
		if got := Rebind(Postgres, tc.in); got != tc.want {
			t.Errorf("Rebind(Postgres, %q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Rebind(SQLite, tc.in); got != tc.in {
			t.Errorf("Rebind(SQLite, %q) = %q, want it unchanged", tc.in, got)
		}
	}
}

func TestIsSelect(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1":                      true,
		"  \n select x FROM t":          true,
		"(SELECT 1) UNION (SELECT 2)":   true,
		"INSERT INTO t VALUES (1)":      false,
		"WITH x AS (SELECT 1) SELECT *": false,
		"sel":                           false,
	} {
		if got := isSelect(q); got != want {
			t.Errorf("isSelect(%q) = %t, want %t", q, got, want)
		}
	}
}

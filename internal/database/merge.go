package database

import (
	"fmt"
	"strings"
)

// Merged range scans: the first rows, in order, of the union of several
// ranges of one index, each range told apart by the values of the index's
// leading columns ("arms", e.g. one per address) and read in the order of
// the index's next columns. A page of a list over many addresses reads
// about as many index entries as it returns, whatever each address holds,
// if each engine is told it right:
//
//   - SQLite merges the ordered co-routines of a compound SELECT: the arms
//     under UNION ALL with the ORDER BY and LIMIT outside, read lazily. Its
//     cost is preparing the statement, which grows with the arms, so a
//     statement takes at most sqliteMergeArms.
//   - PostgreSQL plans no ordered merge over UNION ALL arms whose ranges
//     are set by their own WHERE, and with a generic plan (a prepared
//     statement run more than five times) may sort a whole range. So the
//     arms' values are arrays, each range an ordered, LIMITed index scan
//     joined LATERAL to them: one statement of fixed text whatever the
//     arms, and the outer sort sees at most arms × limit rows.

// sqliteMergeArms bounds the arms of one SQLite statement (its compound
// SELECT takes at most 500 terms; preparing 128 takes about 2 ms).
const sqliteMergeArms = 128

// MergeSpec is a merged range scan.
type MergeSpec struct {
	// From is the table.
	From string
	// Select is the selected expressions, each with an alias.
	Select string
	// ArmCols are the leading index columns whose values tell the ranges
	// apart, ArmTypes their SQL types ("BYTEA", "BIGINT", "TEXT").
	ArmCols, ArmTypes []string
	// Where holds conditions every range shares, with ? placeholders for
	// the where arguments of MergeQuery; "" for none.
	Where string
	// Order is the index's order after ArmCols ("created_time DESC,
	// utxo_id DESC"), Merged the same order over Select's aliases.
	Order, Merged string
}

// MaxMergeArms is the most arms one MergeQuery reads.
func (db *DB) MaxMergeArms() int {
	if db.dialect == Postgres {
		return 1 << 16
	}
	return sqliteMergeArms
}

// MergeQuery returns the query and its arguments that read, in s's order,
// the first limit rows of the ranges arms (each the values of s.ArmCols,
// as []byte, int64 or string), with where's arguments for s.Where. A
// row is returned once per range that holds it.
func (db *DB) MergeQuery(s MergeSpec, arms [][]any, where []any, limit int) (string, []any, error) {
	if len(arms) == 0 || len(arms) > db.MaxMergeArms() || len(s.ArmCols) == 0 || len(s.ArmCols) != len(s.ArmTypes) {
		return "", nil, fmt.Errorf("database.MergeQuery(%s): %d arms of %d columns", s.From, len(arms), len(s.ArmCols))
	}
	cond := func(col, val string) string { return col + " = " + val }
	shared := ""
	if s.Where != "" {
		shared = " AND (" + s.Where + ")"
	}
	var (
		b    strings.Builder
		args []any
	)
	if db.dialect == Postgres {
		cols := make([]any, len(s.ArmCols))
		b.WriteString("SELECT m.* FROM unnest(")
		for j, typ := range s.ArmTypes {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?::" + typ + "[]")
			col, err := column(arms, j)
			if err != nil {
				return "", nil, fmt.Errorf("database.MergeQuery(%s): %w", s.From, err)
			}
			cols[j] = col
		}
		b.WriteString(") AS a(")
		var conds []string
		for j, c := range s.ArmCols {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "c%d", j)
			conds = append(conds, cond(c, fmt.Sprintf("a.c%d", j)))
		}
		b.WriteString(") CROSS JOIN LATERAL (SELECT " + s.Select + " FROM " + s.From + " WHERE " + strings.Join(conds, " AND ") +
			shared + " ORDER BY " + s.Order + " LIMIT ?) m ORDER BY " + s.Merged + " LIMIT ?")
		args = append(append(cols, where...), limit, limit)
		return b.String(), args, nil
	}
	var conds []string
	for _, c := range s.ArmCols {
		conds = append(conds, cond(c, "?"))
	}
	arm := "SELECT " + s.Select + " FROM " + s.From + " WHERE " + strings.Join(conds, " AND ") + shared
	for i, vals := range arms {
		if len(vals) != len(s.ArmCols) {
			return "", nil, fmt.Errorf("database.MergeQuery(%s): arm %d has %d values for %d columns", s.From, i, len(vals), len(s.ArmCols))
		}
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString(arm)
		args = append(args, vals...)
		args = append(args, where...)
	}
	b.WriteString(" ORDER BY " + s.Merged + " LIMIT ?")
	return b.String(), append(args, limit), nil
}

// column returns the j-th values of arms as a typed slice, which the
// PostgreSQL driver sends as an array.
func column(arms [][]any, j int) (any, error) {
	switch arms[0][j].(type) {
	case []byte:
		out := make([][]byte, len(arms))
		for i, a := range arms {
			v, ok := a[j].([]byte)
			if !ok {
				return nil, fmt.Errorf("arm %d column %d is a %T, not []byte", i, j, a[j])
			}
			out[i] = v
		}
		return out, nil
	case int64, int:
		out := make([]int64, len(arms))
		for i, a := range arms {
			switch v := a[j].(type) {
			case int64:
				out[i] = v
			case int:
				out[i] = int64(v)
			default:
				return nil, fmt.Errorf("arm %d column %d is a %T, not an integer", i, j, a[j])
			}
		}
		return out, nil
	case string:
		out := make([]string, len(arms))
		for i, a := range arms {
			v, ok := a[j].(string)
			if !ok {
				return nil, fmt.Errorf("arm %d column %d is a %T, not a string", i, j, a[j])
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("column %d is a %T", j, arms[0][j])
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/avaindex/avaindex/internal/database"
)

// Merged keyset scans: a page of a list whose items are found through one
// index range per requested address (or node), in (key, id) order.
//
// Each range ("arm") is one equality prefix of an index that orders its
// rows by (key, id); database.MergeQuery reads the arms merged in that
// order, about as many index entries as the page needs however many rows
// each address holds, and no sort of a whole range. An item that several
// arms return (a UTXO owned by several of the addresses) comes once per
// arm, its copies adjacent; they are counted and kept once, which is how
// the UTXO lists check that the addresses meet the item's threshold.

// mergeScan is a merged keyset scan over table.
type mergeScan struct {
	table string
	// key and id are the columns of the order: a BIGINT and a BYTEA.
	key, id string
	// extra is one more integer expression carried to accept (the
	// threshold), "0" for none.
	extra string
	// filter (with filterArgs) holds conditions every arm shares.
	filter     []string
	filterArgs []any
	// armCols (of SQL types armTypes) are the leading index columns whose
	// values, one tuple per arm in arms, tell the ranges apart.
	armCols, armTypes []string
	arms              [][]any
	desc              bool
	// fold, when set, reads each item whole in the scan's statement.
	fold *mergeFold
}

// mergeKey is a position in the order.
type mergeKey struct {
	key int64
	id  []byte
}

// mergedRow is one item of a merged scan: its position, extra, and how
// many arms returned it.
type mergedRow struct {
	mergeKey
	extra int64
	count int
	// item is what fold read of it, nil without one.
	item any
}

// before reports whether a comes before b in the scan's order.
func (m *mergeScan) before(a, b mergeKey) bool {
	c := cmpInt64(a.key, b.key)
	if c == 0 {
		c = bytes.Compare(a.id, b.id)
	}
	if m.desc {
		return c > 0
	}
	return c < 0
}

// run returns, in order, up to limit items after the position after (nil:
// from the first) that accept takes.
//
// Each round asks every chunk of arms for the items still wanted plus one
// per arm: a chunk that fills that many rows may have more, and its last
// row bounds what the round knows completely, since an item's copies are
// adjacent in each chunk but may be cut by its LIMIT. Items before the
// earliest such bound are complete; the next round starts after the last
// of them. Each full chunk holds at least two positions (an arm returns a
// position once), so every round moves on.
func (m *mergeScan) run(ctx context.Context, db *database.DB, after *mergeKey, limit int, accept func(mergedRow) bool) ([]mergedRow, error) {
	var out []mergedRow
	cur := after
	for len(out) < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := m.round(ctx, db, cur, out, limit, accept)
		if err != nil {
			return nil, err
		}
		out, cur = r.out, r.cur
		if r.done {
			break // every arm was read to its end
		}
	}
	return out, nil
}

// roundResult is what one round of a scan found.
type roundResult struct {
	// out is the items accepted so far; cur the position after the last
	// item the round read completely.
	out []mergedRow
	cur *mergeKey
	// done is set when every arm was read to its end.
	done bool
	// statements is how many statements the round ran.
	statements int
}

// round runs one round of run from cur, adding to out the items accept
// takes, up to limit in all.
func (m *mergeScan) round(ctx context.Context, db *database.DB, cur *mergeKey, out []mergedRow, limit int,
	accept func(mergedRow) bool) (roundResult, error) {
	want := limit - len(out)
	var (
		rows    []mergedRow
		horizon *mergeKey
		chunks  int
	)
	per := db.MaxMergeArms()
	for start := 0; start < len(m.arms); start += per {
		arms := m.arms[start:min(len(m.arms), start+per)]
		n := want + len(arms)
		got, err := m.query(ctx, db, arms, cur, n)
		if err != nil {
			return roundResult{}, err
		}
		if len(got) == n {
			last := got[n-1].mergeKey
			if horizon == nil || m.before(last, *horizon) {
				horizon = &last
			}
		}
		rows = append(rows, got...)
		chunks++
	}
	if chunks > 1 {
		slices.SortStableFunc(rows, func(a, b mergedRow) int {
			switch {
			case m.before(a.mergeKey, b.mergeKey):
				return -1
			case m.before(b.mergeKey, a.mergeKey):
				return 1
			}
			return 0
		})
	}
	for i := 0; i < len(rows) && len(out) < limit; {
		g := rows[i]
		j := i + 1
		for j < len(rows) && rows[j].key == g.key && bytes.Equal(rows[j].id, g.id) {
			j++
		}
		g.count = j - i
		i = j
		if horizon != nil && !m.before(g.mergeKey, *horizon) {
			break // its copies may go on past a chunk's limit
		}
		k := g.mergeKey
		cur = &k
		if accept(g) {
			out = append(out, g)
		}
	}
	return roundResult{out: out, cur: cur, done: horizon == nil, statements: chunks}, nil
}

// mergeFold reads, in the statement of a scan, more of each item than its
// position, saving a round trip per page: the scan's statement becomes the
// subquery m (columns k, i, x and the carried ones) of wrap's statement,
// which keeps the scan's order and adds no placeholder, and scan reads one
// of its rows, setting the row's position, extra and item.
type mergeFold struct {
	// carry selects, from the scan's table, more columns for wrap to
	// join on, each with an alias (", origin AS o").
	carry string
	wrap  func(merge string) string
	scan  func(r *sql.Rows, row *mergedRow) error
}

// query runs one statement over arms: up to n rows after cur, in order,
// one per arm and item.
func (m *mergeScan) query(ctx context.Context, db *database.DB, arms [][]any, cur *mergeKey, n int) ([]mergedRow, error) {
	cmp, dir := ">", "ASC"
	if m.desc {
		cmp, dir = "<", "DESC"
	}
	where := slices.Clone(m.filter)
	args := slices.Clone(m.filterArgs)
	if cur != nil {
		// The first condition bounds the index range; the second skips
		// the ties already seen.
		where = append(where, m.key+" "+cmp+"= ?", "("+m.key+" "+cmp+" ? OR "+m.id+" "+cmp+" ?)")
		args = append(args, cur.key, cur.key, cur.id)
	}
	carry := ""
	if m.fold != nil {
		carry = m.fold.carry
	}
	q, qargs, err := db.MergeQuery(database.MergeSpec{
		From:     m.table,
		Select:   m.key + " AS k, " + m.id + " AS i, " + m.extra + " AS x" + carry,
		ArmCols:  m.armCols,
		ArmTypes: m.armTypes,
		Where:    strings.Join(where, " AND "),
		Order:    m.key + " " + dir + ", " + m.id + " " + dir,
		Merged:   "k " + dir + ", i " + dir,
	}, arms, args, n)
	if err != nil {
		return nil, err
	}
	scan := func(r *sql.Rows, row *mergedRow) error { return r.Scan(&row.key, &row.id, &row.extra) }
	if m.fold != nil {
		q, scan = m.fold.wrap(q), m.fold.scan
	}
	out := make([]mergedRow, 0, min(n, 1024))
	err = db.RunPrepared(ctx, q, func(r *sql.Rows) error {
		var row mergedRow
		if err := scan(r, &row); err != nil {
			return err
		}
		out = append(out, row)
		return nil
	}, qargs...)
	return out, err
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

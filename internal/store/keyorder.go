package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// inKeyOrder sorts rows for BulkInsert into a table whose key is a
// prefix of the rows' columns (as every column list here begins with its
// table's key), comparing column by column. Appliers build their index
// rows in the chain's order, which for a key led by an address is a
// random walk over the B-tree: every row's insert descends to a leaf
// that the next row leaves for another. In key order, consecutive rows
// land on the same leaf and the same path down to it; on SQLite that
// halved the cost of a batch of ERC-20 balance rows
// (BenchmarkIngestEVM, docs/benchmarks.md). The sort is not stable:
// rows whose columns are all of the kinds compareRows tells apart are
// equal only when identical, and the callers' are.
//
// The columns that all rows hold alike (the chain id) are skipped, and
// the first other one, when it holds bytes (an address), is taken out of
// its interface once per row, its first eight bytes as a number: the
// sort compares those numbers first, then the bytes, and whole rows only
// on a tie.
func inKeyOrder(rows [][]any) {
	if len(rows) < 2 {
		return
	}
	lead := 0
	for lead < len(rows[0]) && sameColumn(rows, lead) {
		lead++
	}
	keyed := make([]keyedRow, len(rows))
	for i, r := range rows {
		keyed[i].row = r
		if lead < len(r) {
			k, _ := r[lead].([]byte)
			var head [8]byte
			copy(head[:], k)
			keyed[i].head, keyed[i].key = binary.BigEndian.Uint64(head[:]), k
		}
	}
	slices.SortFunc(keyed, func(a, b keyedRow) int {
		if a.head != b.head {
			return cmp.Compare(a.head, b.head)
		}
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return compareRows(a.row, b.row)
	})
	for i := range keyed {
		rows[i] = keyed[i].row
	}
}

// keyedRow is a row with its first varying column's bytes (nil when the
// column holds something else) and their first eight, zero-padded, as a
// big-endian number (which orders as the bytes do, up to a tie).
type keyedRow struct {
	head uint64
	key  []byte
	row  []any
}

// sameColumn reports whether every row has column i, all equal.
func sameColumn(rows [][]any, i int) bool {
	for _, r := range rows {
		if i >= len(r) || compareValues(r[i], rows[0][i]) != 0 {
			return false
		}
	}
	return true
}

// compareRows compares two rows column by column: int64, int, []byte and
// string values with their own kind, nil before anything. Columns of
// other kinds, or of different kinds, compare equal.
func compareRows(a, b []any) int {
	for i := range min(len(a), len(b)) {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case nil:
		if b == nil {
			return 0
		}
		return -1
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case int:
		if y, ok := b.(int); ok {
			return cmp.Compare(x, y)
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	}
	if b == nil {
		return 1
	}
	return 0
}

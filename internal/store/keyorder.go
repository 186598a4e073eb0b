package store

import (
	"bytes"
	"cmp"
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
func inKeyOrder(rows [][]any) {
	slices.SortFunc(rows, compareRows)
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

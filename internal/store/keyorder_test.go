package store

import (
	"fmt"
	"testing"
)

// TestInKeyOrder: rows sort column by column, each column by its kind
// (numbers by value, not by their text; bytes as unsigned bytes), nil
// first, a shorter row before its extensions.
func TestInKeyOrder(t *testing.T) {
	rows := [][]any{
		{int64(2), []byte{0x01}, 10},
		{int64(1), []byte{0xff}, 2},
		{int64(10), []byte{}, 1},
		{int64(1), []byte{0x02, 0x00}, 1},
		{int64(1), []byte{0x02}, 3},
		{int64(1), nil, 3},
		{int64(1), []byte{0x02}, 3, "b"},
		{int64(1), []byte{0x02}, 3, "a"},
		{int64(-1), []byte{0x00}, 0},
	}
	inKeyOrder(rows)
	want := [][]any{
		{int64(-1), []byte{0x00}, 0},
		{int64(1), nil, 3},
		{int64(1), []byte{0x02}, 3},
		{int64(1), []byte{0x02}, 3, "a"},
		{int64(1), []byte{0x02}, 3, "b"},
		{int64(1), []byte{0x02, 0x00}, 1},
		{int64(1), []byte{0xff}, 2},
		{int64(2), []byte{0x01}, 10},
		{int64(10), []byte{}, 1},
	}
	if got, w := fmt.Sprint(rows), fmt.Sprint(want); got != w {
		t.Errorf("inKeyOrder:\n got %s\nwant %s", got, w)
	}
}

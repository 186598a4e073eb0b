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

	// A chain's rows: the first column alike, the second's bytes compared
	// first (nil before empty before the rest, past their eighth byte
	// too), whole rows on a tie.
	rows = [][]any{
		{int64(7), []byte{0x80}, int64(2)},
		{int64(7), []byte{}, int64(1)},
		{int64(7), []byte{0x80}, int64(1)},
		{int64(7), nil, int64(5)},
		{int64(7), []byte{0x7f, 0xff}, int64(9)},
		{int64(7), []byte{0x00}, int64(3)},
		{int64(7), []byte{1, 1, 1, 1, 1, 1, 1, 1, 2}, int64(0)},
		{int64(7), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 9}, int64(0)},
	}
	inKeyOrder(rows)
	want = [][]any{
		{int64(7), nil, int64(5)},
		{int64(7), []byte{}, int64(1)},
		{int64(7), []byte{0x00}, int64(3)},
		{int64(7), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 9}, int64(0)},
		{int64(7), []byte{1, 1, 1, 1, 1, 1, 1, 1, 2}, int64(0)},
		{int64(7), []byte{0x7f, 0xff}, int64(9)},
		{int64(7), []byte{0x80}, int64(1)},
		{int64(7), []byte{0x80}, int64(2)},
	}
	if got, w := fmt.Sprintf("%v", rows), fmt.Sprintf("%v", want); got != w {
		t.Errorf("inKeyOrder, one chain:\n got %s\nwant %s", got, w)
	}
}

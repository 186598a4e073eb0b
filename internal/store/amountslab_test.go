package store

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"
)

// TestAmountSlab checks the slab's Ints against big.Int's own decoding,
// for magnitudes of every length up to 33 bytes, with leading zeros, and
// that growing one leaves the next untouched.
func TestAmountSlab(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var slab amountSlab
	for n := 0; n <= 33; n++ {
		for range 50 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.UintN(256))
			}
			if n > 0 && r.UintN(4) == 0 {
				b[0] = 0
			}
			if got, want := slab.fromBytes(b), new(big.Int).SetBytes(b); got.Cmp(want) != 0 {
				t.Fatalf("fromBytes(%x) = %s, want %s", b, got, want)
			}
			if got, want := slab.fromSpan(b), spanAmountFrom(b); got.Cmp(want) != 0 {
				t.Fatalf("fromSpan(%x) = %s, want %s", b, got, want)
			}
			if got, want := slab.fromSortable(b), amountFromSortable(b); got.Cmp(want) != 0 {
				t.Fatalf("fromSortable(%x) = %s, want %s", b, got, want)
			}
		}
	}
	x, y := slab.fromBytes([]byte{1}), slab.fromBytes([]byte{2})
	x.Lsh(x, 200)
	if y.Cmp(big.NewInt(2)) != 0 {
		t.Fatalf("growing an Int of the slab changed the next one to %s", y)
	}
}

// TestSortAmountRows checks the radix sort against a sort by all 20
// bytes, with addresses that tie on their first 8 bytes and rows that
// share a byte (a skipped pass).
func TestSortAmountRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		rows := make([]amountRow, n)
		for i := range rows {
			a := &rows[i].addr
			for j := range a {
				a[j] = byte(r.UintN(256))
			}
			a[3] = 0x5a // every row: its pass is skipped
			if i > 0 && r.UintN(3) == 0 {
				copy(a[:8], rows[r.UintN(uint(i))].addr[:8])
			}
			rows[i].off = uint32(i)
		}
		want := slices.Clone(rows)
		slices.SortFunc(want, func(a, b amountRow) int { return bytes.Compare(a.addr[:], b.addr[:]) })
		sortAmountRows(rows)
		if !slices.EqualFunc(rows, want, func(a, b amountRow) bool { return a.addr == b.addr }) {
			t.Fatalf("%d rows: not sorted by address", n)
		}
		seen := map[common.Address]uint32{}
		for _, row := range rows {
			seen[row.addr] = row.off
		}
		for _, row := range want {
			if seen[row.addr] != row.off {
				t.Fatalf("%d rows: row %x lost its offset", n, row.addr)
			}
		}
	}
}

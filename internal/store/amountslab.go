package store

import (
	"bytes"
	"math/big"
	"math/bits"
	"slices"
	"sync"

	"github.com/ava-labs/libevm/common"
)

// amountSlab hands out big.Ints, and the words of their magnitudes, from
// shared blocks: a list of 100,000 amounts (a Looking Glass answer) is
// then a few dozen allocations instead of two per amount, and the
// collector has fewer objects to trace. An Int of it owns its words (a
// later operation on it that needs more allocates anew), and keeps its
// block alive while it lives.
type amountSlab struct {
	ints  []big.Int
	words []big.Word
}

const (
	slabInts  = 4096
	slabWords = 8192
	wordBytes = bits.UintSize / 8
)

// fromBytes is new(big.Int).SetBytes(b): b is a magnitude big-endian.
func (s *amountSlab) fromBytes(b []byte) *big.Int {
	if len(s.ints) == 0 {
		s.ints = make([]big.Int, slabInts)
	}
	z := &s.ints[0]
	s.ints = s.ints[1:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	n := (len(b) + wordBytes - 1) / wordBytes
	if n == 0 {
		return z
	}
	if len(s.words) < n {
		s.words = make([]big.Word, max(slabWords, n))
	}
	// Capped: an Int that grows never writes into its neighbour's words.
	w := s.words[:n:n]
	s.words = s.words[n:]
	for i := range w {
		// Word i holds the bytes [len(b)-(i+1)*wordBytes, len(b)-i*wordBytes).
		var v big.Word
		for _, c := range b[max(len(b)-(i+1)*wordBytes, 0) : len(b)-i*wordBytes] {
			v = v<<8 | big.Word(c)
		}
		w[i] = v
	}
	return z.SetBits(w)
}

// fromSortable is amountFromSortable.
func (s *amountSlab) fromSortable(b []byte) *big.Int {
	if len(b) == 0 {
		return s.fromBytes(nil)
	}
	return s.fromBytes(b[1:])
}

// fromSpan is spanAmountFrom.
func (s *amountSlab) fromSpan(b []byte) *big.Int {
	if len(b) > 0 && b[0] == 0 {
		z := s.fromBytes(b[1:])
		return z.Neg(z)
	}
	return s.fromBytes(b)
}

// amountRow is an address and where its amount's bytes are in a shared
// buffer: a row of a list being read, without pointers, so that growing
// and sorting a list of them moves no pointer the collector must track.
type amountRow struct {
	addr     common.Address
	off, end uint32
}

// rowBufs keeps row lists' buffers ([]amountRow) between reads. A list
// of 100,000 rows is 2.8 MB, and its sort needs as much again: allocated
// anew for each read, their pages' first touches (and the clearing)
// cost about as much as taking the rows from the driver.
var rowBufs sync.Pool

// getRows returns an empty buffer of at least n rows' capacity.
func getRows(n int) *[]amountRow {
	if p, ok := rowBufs.Get().(*[]amountRow); ok {
		if cap(*p) >= n {
			*p = (*p)[:0]
			return p
		}
		n = max(n, 2*cap(*p))
	}
	b := make([]amountRow, 0, n)
	return &b
}

// putRows gives back a buffer from getRows; its rows are not used after.
func putRows(p *[]amountRow) { rowBufs.Put(p) }

// sortAmountRows sorts rows by address: a radix sort of their first 8
// bytes (a byte a pass, from the last; a pass whose byte all rows share
// is skipped), then the runs that tie on them by the other 12. Sorting
// 100,000 rows costs a third of a comparison sort by the first 8 bytes as
// a number, a sixth of one by all 20 bytes.
func sortAmountRows(rows []amountRow) {
	if len(rows) < 2 {
		return
	}
	scratch := getRows(len(rows))
	defer putRows(scratch)
	src, dst := rows, (*scratch)[:len(rows)]
	for d := 7; d >= 0; d-- {
		// start[c+1] counts the rows of byte c, then start[c] is where
		// they go.
		var start [257]int
		for i := range src {
			start[int(src[i].addr[d])+1]++
		}
		if start[int(src[0].addr[d])+1] == len(src) {
			continue
		}
		for c := 1; c < len(start); c++ {
			start[c] += start[c-1]
		}
		for i := range src {
			c := src[i].addr[d]
			dst[start[c]] = src[i]
			start[c]++
		}
		src, dst = dst, src
	}
	if &src[0] != &rows[0] {
		copy(rows, src)
	}
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && [8]byte(rows[j].addr[:8]) == [8]byte(rows[i].addr[:8]) {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(rows[i:j], func(a, b amountRow) int { return bytes.Compare(a.addr[8:], b.addr[8:]) })
		}
		i = j
	}
}

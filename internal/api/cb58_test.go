package api

import (
	"crypto/rand"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
)

// TestCB58ID compares cb58ID with avalanchego's cb58 over random ids and
// ids with leading zero bytes, all zero and all ones.
func TestCB58ID(t *testing.T) {
	cases := []ids.ID{ids.Empty, {0xff, 0xff}, {31: 1}}
	var all ids.ID
	for i := range all {
		all[i] = 0xff
	}
	cases = append(cases, all)
	for zeros := 0; zeros <= 32; zeros++ {
		for range 50 {
			var id ids.ID
			_, _ = rand.Read(id[zeros:])
			cases = append(cases, id)
		}
	}
	for range 20000 {
		var id ids.ID
		_, _ = rand.Read(id[:])
		cases = append(cases, id)
	}
	for _, id := range cases {
		if got, want := cb58ID(id), id.String(); got != want {
			t.Fatalf("cb58ID(%x) = %s, want %s", id[:], got, want)
		}
	}
}

func BenchmarkCB58ID(b *testing.B) {
	id := ids.GenerateTestID()
	b.Run("cb58ID", func(b *testing.B) {
		for range b.N {
			_ = cb58ID(id)
		}
	})
	b.Run("String", func(b *testing.B) {
		for range b.N {
			_ = id.String()
		}
	})
}

package jsonscan

import (
	"encoding/binary"
	"testing"
)

// TestSpecial checks the eight-byte test of skipStr against each byte's,
// on words of every byte value at every position among plain bytes.
func TestSpecial(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			want := false
			for _, x := range w {
				want = want || x < 0x20 || x == '"' || x == '\\'
			}
			if got := special(binary.LittleEndian.Uint64(w)); got != want {
				t.Errorf("special(%q) = %t", w, got)
			}
		}
	}
}

package api

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"

	"github.com/ava-labs/avalanchego/ids"
)

const (
	b58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	// b58Chunk is 58^10, the largest power of 58 under 2^64: one 64-bit
	// division by it yields ten base58 digits.
	b58Chunk = 430804206899405824
	// cb58IDLen is the most digits of a 36-byte value (an id and its
	// checksum): 58^50 > 2^288.
	cb58IDLen = 50
)

// cb58ID is id.String() (cb58: base58 of the id and the last 4 bytes of
// its sha256) without the generic base58's quadratic byte-by-byte
// division: the 288-bit value is cut into ten digits at a time with 64-bit
// divisions. The ids of a list page are a fifth of its CPU time otherwise.
func cb58ID(id ids.ID) string {
	sum := sha256.Sum256(id[:])
	var in [36]byte
	copy(in[:], id[:])
	copy(in[32:], sum[28:])
	// limbs, most significant first: 4 bytes, then four of 8.
	limbs := [5]uint64{uint64(binary.BigEndian.Uint32(in[0:4]))}
	for i := 1; i < 5; i++ {
		limbs[i] = binary.BigEndian.Uint64(in[4+8*(i-1):])
	}
	var out [cb58IDLen]byte
	pos := cb58IDLen
	for pass := 0; pass < cb58IDLen/10; pass++ {
		var rem uint64
		for i := range limbs {
			limbs[i], rem = bits.Div64(rem, limbs[i], b58Chunk)
		}
		for j := 0; j < 10; j++ {
			pos--
			out[pos] = b58Alphabet[rem%58]
			rem /= 58
		}
	}
	// Drop the value's leading zero digits, then write one '1' for each
	// leading zero byte of the input, as base58 does.
	for pos < cb58IDLen && out[pos] == '1' {
		pos++
	}
	for i := 0; i < len(in) && in[i] == 0; i++ {
		pos--
		out[pos] = '1'
	}
	return string(out[pos:])
}

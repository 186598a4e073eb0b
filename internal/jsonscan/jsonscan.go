// Package jsonscan is a single-pass reader of JSON of a known, plain
// shape: it validates what it skips, eight bytes at a time through long
// strings, and copies nothing but the strings a caller keeps with Str
// (StrBytes and Raw alias the document). encoding/json reads a document
// twice (a validating scan, then a reflective decode) and copies every
// string it keeps.
//
// A caller reads only the plain shape it expects and gives up on anything
// else (a duplicate or case-folded key of a kept field, a kept string with
// an escape or a non-ASCII byte, a value of an unexpected type, nesting
// deeper than MaxDepth, invalid JSON); it then decodes the document with
// encoding/json, so that the result, error included, is always
// encoding/json's.
package jsonscan

import (
	"bytes"
	"encoding/binary"
)

// MaxDepth bounds the nesting a Reader follows (encoding/json allows
// 10,000); a caller hands deeper documents to encoding/json.
const MaxDepth = 1000

// Reader reads one JSON document.
type Reader struct {
	s     []byte
	i     int
	depth int
}

// NewReader returns a Reader of doc.
func NewReader(doc []byte) Reader { return Reader{s: doc} }

// Raw skips the next value and returns its bytes, which alias the
// document.
func (r *Reader) Raw() ([]byte, bool) {
	r.ws()
	start := r.i
	if !r.Skip() {
		return nil, false
	}
	return r.s[start:r.i], true
}

// Uint reads a non-negative integer of at most 18 digits, with no
// fraction or exponent.
func (r *Reader) Uint() (int64, bool) {
	r.ws()
	s, i := r.s, r.i
	var n int64
	for i < len(s) && isDigit(s[i]) && i-r.i < 18 {
		n = n*10 + int64(s[i]-'0')
		i++
	}
	if i == r.i || (s[r.i] == '0' && i-r.i > 1) || (i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E')) {
		return 0, false
	}
	r.i = i
	return n, true
}

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func (r *Reader) ws() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// Next returns the next byte after spaces, 0 at the end.
func (r *Reader) Next() byte {
	r.ws()
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// End reports whether only spaces are left.
func (r *Reader) End() bool {
	r.ws()
	return r.i == len(r.s)
}

func (r *Reader) literal(w string) bool {
	if bytes.HasPrefix(r.s[r.i:], []byte(w)) {
		r.i += len(w)
		return true
	}
	return false
}

// plain marks the bytes a kept string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Str reads a string with no escape and no byte outside printable ASCII.
func (r *Reader) Str() (string, bool) {
	b, ok := r.StrBytes()
	return string(b), ok
}

// StrBytes is Str without copying.
func (r *Reader) StrBytes() ([]byte, bool) {
	if r.Next() != '"' {
		return nil, false
	}
	start := r.i + 1
	for j := start; j < len(r.s); j++ {
		if !plain[r.s[j]] {
			if r.s[j] != '"' {
				return nil, false
			}
			r.i = j + 1
			return r.s[start:j], true
		}
	}
	return nil, false
}

// skipStr skips any valid string.
func (r *Reader) skipStr() bool {
	if r.i >= len(r.s) || r.s[r.i] != '"' {
		return false
	}
	for j := r.i + 1; j < len(r.s); j++ {
		// Eight bytes at a time through the long ones (code, blooms).
		for j+8 <= len(r.s) && !special(binary.LittleEndian.Uint64(r.s[j:])) {
			j += 8
		}
		if j >= len(r.s) {
			break
		}
		c := r.s[j]
		if plain[c] || c >= 0x80 {
			continue // encoding/json takes invalid UTF-8 too
		}
		switch c {
		case '"':
			r.i = j + 1
			return true
		case '\\':
			j++
			if j >= len(r.s) {
				return false
			}
			switch r.s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(r.s) {
					return false
				}
				for _, h := range r.s[j+1 : j+5] {
					if !isHex(h) {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		default:
			return false // a control character
		}
	}
	return false
}

// special reports whether any byte of w ends or escapes a string, or is a
// control character: w has a byte below 0x20, or a zero byte once xored
// with the quote or the backslash (the bit tricks tell whether any byte is
// below n by the borrow that sets its top bit).
func special(w uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, b := w^(ones*'"'), w^(ones*'\\')
	return ((w-ones*0x20)&^w|(q-ones)&^q|(b-ones)&^b)&tops != 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber skips a number as JSON writes them.
func (r *Reader) skipNumber() bool {
	s, i := r.s, r.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && isDigit(s[i]):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	r.i = i
	return true
}

// Skip skips any valid value.
func (r *Reader) Skip() bool {
	switch r.Next() {
	case '"':
		return r.skipStr()
	case '{':
		return r.members(func([]byte) bool { return r.Skip() }, false)
	case '[':
		return r.Array(r.Skip, nil)
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	default:
		return r.skipNumber()
	}
}

// Null reads a null if one is next.
func (r *Reader) Null() bool {
	return r.Next() == 'n' && r.literal("null")
}

// Object reads an object, calling member with each key and the reader at
// its value. A key is a plain string (Str).
func (r *Reader) Object(member func(key []byte) bool) bool {
	return r.members(member, true)
}

// members reads an object; plainKeys gives up on keys that are not plain
// strings, else any key is skipped.
func (r *Reader) members(member func(key []byte) bool, plainKeys bool) bool {
	if r.Next() != '{' {
		return false
	}
	r.i++
	if r.depth++; r.depth > MaxDepth {
		return false
	}
	if r.Next() == '}' {
		r.i++
		r.depth--
		return true
	}
	for {
		var k []byte
		if plainKeys {
			var ok bool
			if k, ok = r.StrBytes(); !ok {
				return false
			}
		} else if r.Next() != '"' || !r.skipStr() {
			return false
		}
		if r.Next() != ':' {
			return false
		}
		r.i++
		if !member(k) {
			return false
		}
		switch r.Next() {
		case ',':
			r.i++
		case '}':
			r.i++
			r.depth--
			return true
		default:
			return false
		}
	}
}

// Array reads an array, calling elem with the reader at each element;
// empty, when not nil, is called for an empty array.
func (r *Reader) Array(elem func() bool, empty func()) bool {
	if r.Next() != '[' {
		return false
	}
	r.i++
	if r.depth++; r.depth > MaxDepth {
		return false
	}
	if r.Next() == ']' {
		r.i++
		r.depth--
		if empty != nil {
			empty()
		}
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch r.Next() {
		case ',':
			r.i++
		case ']':
			r.i++
			r.depth--
			return true
		default:
			return false
		}
	}
}

// Fields tracks the kept fields an object has set: a second one gives up
// (encoding/json merges or overwrites).
type Fields uint32

// First marks field bit set, false when it already was.
func (f *Fields) First(bit uint) bool {
	if *f&(1<<bit) != 0 {
		return false
	}
	*f |= 1 << bit
	return true
}

// Other skips the value of a key that is none of names, giving up when it
// is one of them but for case (encoding/json matches it).
func (r *Reader) Other(key []byte, names []string) bool {
	for _, n := range names {
		if len(n) == len(key) && bytes.EqualFold([]byte(n), key) {
			return false
		}
	}
	return r.Skip()
}

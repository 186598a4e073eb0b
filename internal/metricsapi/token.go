package metricsapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// Page tokens of the Metrics API, as the hosted service words them: based
// on a UUID and valid for 24 hours. A token is base64url (no padding) of
//
//	UUID (16 bytes, random, version 4) || issued (8, unix seconds) ||
//	next (8, the start of the next page's first period; or a keyset
//	cursor, the last item's key, of the length its endpoint's keys have) ||
//	HMAC-SHA256(key, "metrics" || scope || the bytes before)
//
// signed so that it needs no state on the server and cannot be altered or
// replayed against another query (the scope names the endpoint, chain,
// metric, interval and range).

// tokenTTL is how long a page token is valid.
const tokenTTL = 24 * time.Hour

var (
	errInvalidToken = derrors.Invalid("invalid page token: it was not issued for this query; request the first page without it")
	errExpiredToken = derrors.Invalid("the page token has expired (page tokens are valid for 24 hours); request the first page again without it")
)

// tokenPayload is the length of an offset token's bytes before its MAC.
const tokenPayload = 16 + 8 + 8

type tokens struct{ key []byte }

func newTokens(key []byte) (*tokens, error) {
	if len(key) < param.MinTokenKeyLen {
		return nil, fmt.Errorf("metricsapi: page token key has %d bytes, need at least %d", len(key), param.MinTokenKeyLen)
	}
	return &tokens{key: bytes.Clone(key)}, nil
}

func (t *tokens) mac(scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write([]byte("metrics"))
	var n [binary.MaxVarintLen64]byte
	m.Write(n[:binary.PutUvarint(n[:], uint64(len(scope)))])
	m.Write([]byte(scope))
	m.Write(payload)
	return m.Sum(nil)
}

// encode returns a token for the page starting at next, issued at now.
func (t *tokens) encode(scope string, next int64, now time.Time) string {
	return t.seal(scope, binary.BigEndian.AppendUint64(nil, uint64(next)), now)
}

// encodeKey returns a token for the page after key, the last item's sort
// key (a keyset cursor), issued at now. It is longer than encode's and
// should have a scope of its own.
func (t *tokens) encodeKey(scope string, key []byte, now time.Time) string {
	return t.seal(scope, key, now)
}

// seal returns the token of next, issued at now.
func (t *tokens) seal(scope string, next []byte, now time.Time) string {
	raw := make([]byte, 24, 24+len(next)+sha256.Size)
	_, _ = rand.Read(raw[:16])  // never fails (crypto/rand)
	raw[6] = raw[6]&0x0f | 0x40 // UUID version 4
	raw[8] = raw[8]&0x3f | 0x80 // RFC 4122 variant
	binary.BigEndian.PutUint64(raw[16:], uint64(now.Unix()))
	raw = append(raw, next...)
	raw = append(raw, t.mac(scope, raw)...)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// decode returns the next page's start a token of scope carries, and
// errors (400) for a token not issued for scope with this key, or issued
// more than 24 hours before now.
func (t *tokens) decode(token, scope string, now time.Time) (int64, error) {
	next, err := t.open(token, scope, 8, now)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(next)), nil
}

// decodeKey returns the key of size bytes an encodeKey token of scope
// carries, with decode's errors.
func (t *tokens) decodeKey(token, scope string, size int, now time.Time) ([]byte, error) {
	return t.open(token, scope, size, now)
}

// open returns the size bytes after the issue time of a token of scope.
func (t *tokens) open(token, scope string, size int, now time.Time) ([]byte, error) {
	// The decoder skips \r and \n even in strict mode; a token has neither.
	if len(token) > param.MaxTokenLen || strings.ContainsAny(token, "\r\n") {
		return nil, errInvalidToken
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) != 24+size+sha256.Size {
		return nil, errInvalidToken
	}
	payload := raw[:24+size]
	if !hmac.Equal(raw[len(payload):], t.mac(scope, payload)) {
		return nil, errInvalidToken
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(raw[16:])), 0)
	if now.Sub(issued) > tokenTTL {
		return nil, errExpiredToken
	}
	return payload[24:], nil
}

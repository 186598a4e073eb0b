package metricsapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// Page tokens of the Metrics API, as the hosted service words them: based
// on a UUID and valid for 24 hours. A token is base64url (no padding) of
//
//	UUID (16 bytes, random, version 4) || issued (8, unix seconds) ||
//	next (8, the start of the next page's first period) ||
//	HMAC-SHA256(key, "metrics" || scope || the 32 bytes before)
//
// signed so that it needs no state on the server and cannot be altered or
// replayed against another query (the scope names the endpoint, chain,
// metric, interval and range).

// tokenTTL is how long a page token is valid.
const tokenTTL = 24 * time.Hour

const tokenPayload = 16 + 8 + 8

var (
	errInvalidToken = derrors.Invalid("invalid page token: it was not issued for this query; request the first page without it")
	errExpiredToken = derrors.Invalid("the page token has expired (page tokens are valid for 24 hours); request the first page again without it")
)

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
	raw := make([]byte, tokenPayload, tokenPayload+sha256.Size)
	_, _ = rand.Read(raw[:16])  // never fails (crypto/rand)
	raw[6] = raw[6]&0x0f | 0x40 // UUID version 4
	raw[8] = raw[8]&0x3f | 0x80 // RFC 4122 variant
	binary.BigEndian.PutUint64(raw[16:], uint64(now.Unix()))
	binary.BigEndian.PutUint64(raw[24:], uint64(next))
	raw = append(raw, t.mac(scope, raw)...)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// decode returns the next page's start a token of scope carries, and
// errors (400) for a token not issued for scope with this key, or issued
// more than 24 hours before now.
func (t *tokens) decode(token, scope string, now time.Time) (int64, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) != tokenPayload+sha256.Size {
		return 0, errInvalidToken
	}
	if !hmac.Equal(raw[tokenPayload:], t.mac(scope, raw[:tokenPayload])) {
		return 0, errInvalidToken
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(raw[16:])), 0)
	if now.Sub(issued) > tokenTTL {
		return 0, errExpiredToken
	}
	return int64(binary.BigEndian.Uint64(raw[24:])), nil
}

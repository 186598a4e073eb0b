package param

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/avaindex/avaindex/internal/derrors"
)

// Page tokens.
//
// A token is base64url (no padding) of
//
//	version (1 byte) || cursor JSON || HMAC-SHA256(key, version || len(scope) || scope || cursor JSON)
//
// The scope names the query the token continues: the handler builds it with
// Scope from the route and every filter parameter, so a token of one query
// cannot be replayed against another query or endpoint. The cursor is not
// encrypted; it is opaque to clients only by convention, and must hold
// nothing secret.

const (
	tokenVersion = 1
	// MinTokenKeyLen is the minimum length of the key of Tokens.
	MinTokenKeyLen = 32
	// MaxTokenLen bounds the length of an encoded page token.
	MaxTokenLen = 1024
)

var errInvalidToken = derrors.Invalid("invalid pageToken")

// Tokens encodes and decodes page tokens with one secret key. It is safe for
// concurrent use.
type Tokens struct {
	key []byte
}

// NewTokens returns Tokens keyed by key, which must have at least
// MinTokenKeyLen bytes.
func NewTokens(key []byte) (*Tokens, error) {
	if len(key) < MinTokenKeyLen {
		return nil, fmt.Errorf("page token key has %d bytes, need at least %d", len(key), MinTokenKeyLen)
	}
	return &Tokens{key: bytes.Clone(key)}, nil
}

// Scope returns an unambiguous scope string for page tokens from its parts:
// the route (e.g. an operation id) and the value of every filter parameter,
// in a fixed order. Parts may hold any bytes.
func Scope(parts ...string) string {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return string(b)
}

func (t *Tokens) mac(scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, t.key)
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = tokenVersion
	n := binary.PutUvarint(hdr[1:], uint64(len(scope)))
	m.Write(hdr[:1+n])
	m.Write([]byte(scope))
	m.Write(payload)
	return m.Sum(nil)
}

// Encode returns the page token for cursor, a JSON-encodable value, bound to
// scope.
func (t *Tokens) Encode(scope string, cursor any) (string, error) {
	payload, err := json.Marshal(cursor)
	if err != nil {
		return "", fmt.Errorf("encoding page token cursor: %w", err)
	}
	raw := make([]byte, 0, 1+len(payload)+sha256.Size)
	raw = append(raw, tokenVersion)
	raw = append(raw, payload...)
	raw = append(raw, t.mac(scope, payload)...)
	tok := base64.RawURLEncoding.EncodeToString(raw)
	if len(tok) > MaxTokenLen {
		return "", fmt.Errorf("page token of %d bytes exceeds the limit of %d", len(tok), MaxTokenLen)
	}
	return tok, nil
}

// Decode verifies token against scope and decodes its cursor into cursor, a
// pointer. Any token that Encode did not produce with this key and scope, or
// whose cursor does not decode into cursor exactly, is a
// derrors.InvalidArgument error "invalid pageToken".
func (t *Tokens) Decode(token, scope string, cursor any) error {
	// The decoder skips \r and \n even in strict mode; a token has neither.
	if len(token) == 0 || len(token) > MaxTokenLen || strings.ContainsAny(token, "\r\n") {
		return errInvalidToken
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) < 1+sha256.Size+1 || raw[0] != tokenVersion {
		return errInvalidToken
	}
	payload := raw[1 : len(raw)-sha256.Size]
	if !hmac.Equal(raw[len(raw)-sha256.Size:], t.mac(scope, payload)) {
		return errInvalidToken
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cursor); err != nil {
		return errInvalidToken
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errInvalidToken
	}
	return nil
}

// FromRequest decodes the pageToken query parameter of r into cursor (see
// Decode) and reports whether there was one; an absent or empty pageToken
// starts at the first page.
func (t *Tokens) FromRequest(r *http.Request, scope string, cursor any) (bool, error) {
	tok, err := PageToken(r)
	if err != nil || tok == "" {
		return false, err
	}
	if err := t.Decode(tok, scope, cursor); err != nil {
		return false, err
	}
	return true, nil
}

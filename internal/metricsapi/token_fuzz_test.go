package metricsapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
)

// FuzzDecodeToken decodes arbitrary strings as page tokens of one scope. A
// string is accepted only if it is a token encode issued for that scope
// with this key (its re-encoding with the same UUID and times is itself)
// within 24 hours; every other string is a 400 with one of the two
// messages.
func FuzzDecodeToken(f *testing.F) {
	tk, err := newTokens(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		f.Fatal(err)
	}
	const scope = "fuzz"
	now := time.Unix(1_800_000_000, 0)
	good := tk.encode(scope, 1_700_000_000, now)
	old := tk.encode(scope, 5, now.Add(-25*time.Hour))
	other := tk.encode("other", 5, now)
	for _, s := range []string{good, old, other, good[:len(good)-1], good + "A", "", "A", "not-a-token", "====",
		strings.Repeat("A", 86), strings.Repeat("/", 86), "\x00\xff",
		good[:5] + "\n" + good[5:], good + "\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		next, err := tk.decode(s, scope, now)
		if err != nil {
			if derrors.ToStatus(err) != http.StatusBadRequest || (err != errInvalidToken && err != errExpiredToken) {
				t.Fatalf("decode(%q): %v (%d)", s, err, derrors.ToStatus(err))
			}
			return
		}
		raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
		if err != nil || len(raw) != tokenPayload+sha256.Size || base64.RawURLEncoding.EncodeToString(raw) != s {
			t.Fatalf("decode accepted %q, which is not a token's shape", s)
		}
		// What was signed is what the token says; signing it again gives
		// the same token.
		if !bytes.Equal(raw[tokenPayload:], tk.mac(scope, raw[:tokenPayload])) {
			t.Fatalf("decode accepted %q, whose MAC does not verify", s)
		}
		if int64(next) != int64(beUint64(raw[24:])) {
			t.Fatalf("decode(%q) = %d, not its next", s, next)
		}
		if issued := time.Unix(int64(beUint64(raw[16:])), 0); now.Sub(issued) > tokenTTL {
			t.Fatalf("decode accepted %q, issued %s", s, issued)
		}
		if _, err := tk.decode(s, "other", now); err == nil {
			t.Fatalf("%q decodes for another scope", s)
		}
	})
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b[:8] {
		n = n<<8 | uint64(c)
	}
	return n
}

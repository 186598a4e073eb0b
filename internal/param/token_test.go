package param

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
)

type testCursor struct {
	Height int64  `json:"h"`
	TxID   string `json:"t,omitempty"`
}

func newTestTokens(t testing.TB, fill byte) *Tokens {
	t.Helper()
	tk, err := NewTokens(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func wantInvalidToken(t *testing.T, err error, what string) {
	t.Helper()
	if derrors.ToStatus(err) != http.StatusBadRequest {
		t.Errorf("%s: err = %v, want a 400", what, err)
		return
	}
	if msg, _ := derrors.ClientMessage(err); msg != "invalid pageToken" {
		t.Errorf("%s: message = %q, want %q", what, msg, "invalid pageToken")
	}
}

func TestNewTokens(t *testing.T) {
	if _, err := NewTokens(make([]byte, 31)); err == nil {
		t.Error("NewTokens accepted a 31-byte key")
	}
	key := bytes.Repeat([]byte{7}, 32)
	tk, err := NewTokens(key)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := tk.Encode("s", testCursor{Height: 1})
	key[0] = 8 // the caller's slice must not alias the key
	if err := tk.Decode(tok, "s", &testCursor{}); err != nil {
		t.Errorf("key aliased the caller's slice: %v", err)
	}
}

func TestTokenRoundTrip(t *testing.T) {
	tk := newTestTokens(t, 1)
	scope := Scope("listLatestPrimaryNetworkBlocks", "fuji", "p-chain", "", "")
	in := testCursor{Height: 1234567, TxID: "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"}
	tok, err := tk.Encode(scope, in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(tok, "=+/") || len(tok) > MaxTokenLen {
		t.Errorf("token %q is not unpadded base64url within the limit", tok)
	}
	var out testCursor
	if err := tk.Decode(tok, scope, &out); err != nil || out != in {
		t.Errorf("Decode = %+v, %v; want %+v", out, err, in)
	}

	// FromRequest.
	r := httptest.NewRequest("GET", "/x?pageToken="+url.QueryEscape(tok), nil)
	out = testCursor{}
	if ok, err := tk.FromRequest(r, scope, &out); !ok || err != nil || out != in {
		t.Errorf("FromRequest = %v, %v, %+v", ok, err, out)
	}
	for _, q := range []string{"", "pageToken="} {
		if ok, err := tk.FromRequest(req(q), scope, &out); ok || err != nil {
			t.Errorf("FromRequest(%q) = %v, %v; want the first page", q, ok, err)
		}
	}
	_, err = tk.FromRequest(req("pageToken=a&pageToken=b"), scope, &out)
	wantInvalid(t, err, "pageToken must be given at most once")
	_, err = tk.FromRequest(req("pageToken=garbage"), scope, &out)
	wantInvalidToken(t, err, "garbage")
}

func TestTokenRejections(t *testing.T) {
	tk := newTestTokens(t, 1)
	scope := Scope("listLatestPrimaryNetworkBlocks", "fuji", "p-chain")
	tok, err := tk.Encode(scope, testCursor{Height: 42})
	if err != nil {
		t.Fatal(err)
	}
	var c testCursor

	// Every single-character alteration is rejected.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(tok) {
		for _, ch := range []byte{alphabet[(strings.IndexByte(alphabet, tok[i])+1)%64], alphabet[(strings.IndexByte(alphabet, tok[i])+33)%64]} {
			altered := tok[:i] + string(ch) + tok[i+1:]
			if err := tk.Decode(altered, scope, &c); err == nil {
				t.Fatalf("altered token (position %d) accepted", i)
			}
		}
	}
	// Truncations and extensions.
	for n := 0; n < len(tok); n++ {
		wantInvalidToken(t, tk.Decode(tok[:n], scope, &c), "truncated")
	}
	wantInvalidToken(t, tk.Decode(tok+"A", scope, &c), "extended")
	wantInvalidToken(t, tk.Decode(tok+"AA", scope, &c), "extended")

	// Foreign scope, foreign key.
	wantInvalidToken(t, tk.Decode(tok, Scope("listLatestPrimaryNetworkBlocks", "fuji", "x-chain"), &c), "foreign scope")
	wantInvalidToken(t, tk.Decode(tok, Scope("listLatestPrimaryNetworkBlocks", "fuji", "p-chain", ""), &c), "scope with an extra part")
	wantInvalidToken(t, newTestTokens(t, 2).Decode(tok, scope, &c), "foreign key")

	// Oversized, padded, non-base64, wrong version, wrong cursor shape.
	wantInvalidToken(t, tk.Decode(strings.Repeat("A", MaxTokenLen+1), scope, &c), "oversized")
	wantInvalidToken(t, tk.Decode(tok+"==", scope, &c), "padded")
	wantInvalidToken(t, tk.Decode("!!!!", scope, &c), "not base64")
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	raw[0] = 2
	wantInvalidToken(t, tk.Decode(base64.RawURLEncoding.EncodeToString(raw), scope, &c), "version 2")
	other, _ := tk.Encode(scope, map[string]int{"x": 1})
	wantInvalidToken(t, tk.Decode(other, scope, &c), "unknown cursor field")
	wrongType, _ := tk.Encode(scope, map[string]string{"h": "x"})
	wantInvalidToken(t, tk.Decode(wrongType, scope, &c), "wrong cursor type")

	// Encode refuses cursors that would exceed the limit.
	if _, err := tk.Encode(scope, strings.Repeat("x", MaxTokenLen)); err == nil {
		t.Error("Encode produced an oversized token")
	}
	if _, err := tk.Encode(scope, make(chan int)); err == nil {
		t.Error("Encode of an unencodable cursor succeeded")
	}
}

func TestScopeIsUnambiguous(t *testing.T) {
	pairs := [][2][]string{
		{{"ab", "c"}, {"a", "bc"}},
		{{"a", ""}, {"a"}},
		{{""}, {}},
		{{"a,b"}, {"a", "b"}},
	}
	for _, p := range pairs {
		if Scope(p[0]...) == Scope(p[1]...) {
			t.Errorf("Scope(%q) == Scope(%q)", p[0], p[1])
		}
	}
}

func FuzzDecodeToken(f *testing.F) {
	tk := newTestTokens(f, 1)
	const scope = "fuzz"
	good, err := tk.Encode(scope, testCursor{Height: 7, TxID: "x"})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{good, good[:len(good)-1], good + "A", "", "A", "AQ", "AAAA", "!!", "====",
		strings.Repeat("A", MaxTokenLen), strings.Repeat("A", MaxTokenLen+1), "\x00\xff",
		good[:5] + "\n" + good[5:], good[:5] + "\r\n" + good[5:], good + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var c testCursor
		err := tk.Decode(s, scope, &c)
		if err == nil {
			// Only a token Encode produced decodes: re-encoding gives it back.
			again, err := tk.Encode(scope, c)
			if err != nil || again != s {
				t.Fatalf("Decode accepted %q, which re-encodes as %q (%v)", s, again, err)
			}
			return
		}
		if derrors.ToStatus(err) != http.StatusBadRequest {
			t.Fatalf("Decode(%q): %v is not a 400", s, err)
		}
		if msg, _ := derrors.ClientMessage(err); msg != "invalid pageToken" {
			t.Fatalf("Decode(%q): message %q", s, msg)
		}
	})
}

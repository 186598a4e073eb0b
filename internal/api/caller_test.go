package api

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
)

// TestKeyed: a keyed resource needs the request's API key (401 naming
// the header) and an instance that serves it (503 naming the resource).
func TestKeyed(t *testing.T) {
	type source interface{ Name() string }
	var served source = named("webhooks' store")
	for _, tc := range []struct {
		name   string
		caller *Caller
		src    source
		kind   error
		msg    string
	}{
		{"no caller", nil, served, derrors.Unauthenticated, "webhooks belong to an API key: send one in the " + HeaderDataAPIKey + " header"},
		{"anonymous caller", &Caller{Tier: "anonymous"}, served, derrors.Unauthenticated, "send one in the"},
		{"not served", &Caller{KeyID: "k1"}, nil, derrors.Unavailable, "webhooks are not served by this instance"},
		{"keyed", &Caller{KeyID: "k1", KeyName: "one"}, served, nil, ""},
	} {
		r := httptest.NewRequest("GET", "/v1/webhooks", nil)
		if tc.caller != nil {
			r = r.WithContext(WithCaller(r.Context(), tc.caller))
		}
		c, src, err := keyed(r, "webhooks", tc.src)
		switch {
		case tc.kind == nil && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.kind == nil && (c.KeyID != "k1" || src != served):
			t.Errorf("%s: caller %+v, source %v", tc.name, c, src)
		case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) || src != nil):
			t.Errorf("%s: %v (source %v), want %v with %q", tc.name, err, src, tc.kind, tc.msg)
		}
	}
}

type named string

func (n named) Name() string { return string(n) }

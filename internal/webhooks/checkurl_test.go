package webhooks

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func TestCheckURL(t *testing.T) {
	r := fakeResolver{
		"public.example":  {netip.MustParseAddr("93.184.215.14")},
		"private.example": {netip.MustParseAddr("10.1.2.3")},
		// One private address among public ones is refused: the dialer
		// may pick any.
		"mixed.example": {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("169.254.169.254")},
		"loop.example":  {netip.MustParseAddr("::1")},
	}
	allow := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	for _, c := range []struct {
		url   string
		allow []netip.Prefix
		bad   string // "" when allowed; else in the error
	}{
		{"https://public.example/hook", nil, ""},
		{"https://93.184.215.14:8443/hook", nil, ""},
		{"http://127.0.0.1:9000/hook", nil, "127.0.0.1"},
		{"http://[::1]/hook", nil, "::1"},
		{"http://169.254.169.254/latest/meta-data", nil, "169.254.169.254"},
		{"https://private.example/hook", nil, "10.1.2.3"},
		{"https://private.example/hook", allow, ""},
		{"https://mixed.example/hook", allow, "169.254.169.254"},
		{"https://loop.example/hook", allow, "::1"},
		{"https://unknown.example/hook", nil, ""}, // resolves later, perhaps
		{"http://10.1.9.9/hook", allow, ""},
		{"http://10.2.0.1/hook", allow, "10.2.0.1"},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckURL(context.Background(), r, u, c.allow)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s (allow %v): %v", c.url, c.allow, err)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s (allow %v): %v, want an error naming %s", c.url, c.allow, err, c.bad)
		}
	}
}

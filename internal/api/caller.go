package api

import (
	"context"
	"net/http"

	"github.com/avaindex/avaindex/internal/derrors"
)

// Caller is who a request comes from, as internal/server's access check
// recognized it: the usage operations show a key its own requests, and an
// admin key everyone's; webhooks belong to the key that made them.
type Caller struct {
	// KeyID and KeyName are the API key's (apikeys.Key); "" without one.
	KeyID, KeyName string
	// Tier is the key's tier's name.
	Tier string
	// Admin: the key's tier is ratelimit.Admin.
	Admin bool
}

type callerKey struct{}

// WithCaller returns ctx carrying c, which the access check fills in.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf returns the caller ctx carries, or nil.
func CallerOf(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// keyed returns the request's caller and src, the store of a resource
// that belongs to API keys (what: "webhooks", "operations"): a request
// without a key is refused (401), and so is one to an instance that does
// not serve them (src is nil: 503).
func keyed[S comparable](r *http.Request, what string, src S) (Caller, S, error) {
	var none S
	c := CallerOf(r.Context())
	if c == nil || c.KeyID == "" {
		return Caller{}, none, derrors.Client(derrors.Unauthenticated, "%s belong to an API key: send one in the %s header", what, HeaderDataAPIKey)
	}
	if src == none {
		return Caller{}, none, derrors.Client(derrors.Unavailable, "%s are not served by this instance", what)
	}
	return *c, src, nil
}

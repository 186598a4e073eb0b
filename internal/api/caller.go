package api

import "context"

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

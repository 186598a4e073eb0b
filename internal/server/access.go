package server

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/ratelimit"
)

// Surface is one of the API surfaces, each with its access Policy. The
// Data API is the zero value, so that a route added without saying is
// guarded rather than open; the operational routes (health, readiness,
// metrics) are the server's own and not guarded.
type Surface int

const (
	DataAPI Surface = iota
	MetricsAPI
	NodeAPI
	// Operational is the server's own routes (status page, health,
	// readiness, metrics, docs): no policy, never limited.
	Operational
)

// bucketPrefix names a surface in rate-limit buckets: each surface spends
// its own quotas.
var bucketPrefix = map[Surface]string{DataAPI: "data", MetricsAPI: "metrics", NodeAPI: "node"}

// Policy is how a surface is accessed.
type Policy struct {
	// Keys: the surface takes API keys (x-data-api-key or
	// x-glacier-api-key) and limits a caller with one by the key's tier.
	// Without Keys, every caller is anonymous.
	Keys bool
	// RequireKey refuses calls without a key (401); only with Keys.
	RequireKey bool
	// AnonymousTier limits calls without a key, per client IP.
	AnonymousTier string
	// CORS lets web pages of the allowed origins call the surface.
	CORS bool
	// WriteError writes err in the surface's error body.
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
}

// DefaultPolicies are the surfaces' policies: the Data API with keys
// (required when requireKey), the Metrics API without keys but limited,
// as the spec has them, and the node API limited per IP in its own tier,
// with JSON-RPC error bodies and no CORS (the node serves none either).
func DefaultPolicies(requireKey bool) map[Surface]Policy {
	return map[Surface]Policy{
		DataAPI:    {Keys: true, RequireKey: requireKey, AnonymousTier: ratelimit.Anonymous, CORS: true, WriteError: api.WriteError},
		MetricsAPI: {AnonymousTier: ratelimit.Metrics, CORS: true, WriteError: metricsapi.WriteError},
		NodeAPI:    {AnonymousTier: ratelimit.Node, WriteError: writeRPCError},
	}
}

// KeyLookup recognizes API keys; *apikeys.Cache is one.
type KeyLookup interface {
	Lookup(ctx context.Context, key string) (apikeys.Key, bool, error)
}

// AccessConfig is what an Access is made of.
type AccessConfig struct {
	Keys    KeyLookup
	Limiter ratelimit.Limiter
	// Tiers by name; Weights by route pattern (1 for any other route).
	Tiers    map[string]ratelimit.Tier
	Weights  map[string]int
	Policies map[Surface]Policy
	// CORSOrigins are "*" or scheme://host[:port], the host possibly
	// starting with "*.".
	CORSOrigins []string
	// TrustedProxies are the networks whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
}

// Access checks API keys, applies the rate limits and answers CORS on the
// API surfaces' routes. It outlives the handlers New builds (the service
// rebuilds them once the network is known), so its limits carry over.
type Access struct {
	AccessConfig
	cors cors
	// policyHeaders are the tiers' RateLimit-Policy values, made once.
	policyHeaders map[string]string
}

// NewAccess checks c: every policy's anonymous tier must exist.
func NewAccess(c AccessConfig) (*Access, error) {
	for s, p := range c.Policies {
		if _, ok := c.Tiers[p.AnonymousTier]; !ok {
			return nil, fmt.Errorf("the %s surface's tier %q is not configured", bucketPrefix[s], p.AnonymousTier)
		}
		if p.WriteError == nil {
			return nil, fmt.Errorf("the %s surface has no error writer", bucketPrefix[s])
		}
	}
	cors, err := newCORS(c.CORSOrigins)
	if err != nil {
		return nil, err
	}
	policies := make(map[string]string, len(c.Tiers))
	for name, t := range c.Tiers {
		policies[name] = fmt.Sprintf("%d;w=%d;name=%q", t.Limit, ceilSeconds(t.Period), t.Name)
	}
	return &Access{AccessConfig: c, cors: cors, policyHeaders: policies}, nil
}

// CheckWeights fails when a weight names none of patterns, the routes
// served: a mistyped pattern would otherwise weigh nothing, silently.
func (a *Access) CheckWeights(patterns []string) error {
	served := map[string]bool{}
	for _, p := range patterns {
		served[p] = true
	}
	for p := range a.Weights {
		if !served[p] && !defaultWeight(p) {
			return fmt.Errorf("--rate-limit-weight: no route %q (the routes are named as /metrics labels them)", p)
		}
	}
	return nil
}

// defaultWeight tells whether p is one of ratelimit.DefaultWeights, which
// may name routes not served (e.g. while the network is not known).
func defaultWeight(p string) bool {
	_, ok := ratelimit.DefaultWeights()[p]
	return ok
}

// caller is who a request is limited as.
type caller struct {
	bucket string
	tier   ratelimit.Tier
	// key is the recognized API key's; zero for an anonymous caller.
	key apikeys.Key
	// denied, when set, is answered instead of serving the request.
	denied error
}

// wrap puts rt's handler behind its surface's policy: CORS headers,
// then the caller's identity (key or IP) and tier, then the rate limit,
// whose headers every answer carries, then 401 or 403 for a key or tier
// that does not allow the call, and only then the handler.
func (a *Access) wrap(rt Route) http.Handler {
	pol, ok := a.Policies[rt.Surface]
	if !ok {
		return rt.Handler
	}
	weight := max(1, a.Weights[rt.Pattern])
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pol.CORS {
			a.cors.simple(w.Header(), r)
		}
		c := a.identify(r, pol, rt)
		if !pol.Keys && api.CallerOf(r.Context()) != nil {
			// A surface without keys (the node API) is limited per IP, but
			// a valid key sent along still names the caller in usage.
			c.key = a.attribute(r)
		}
		// The usage recorder, the usage operations and the handlers that
		// keep state per key (webhooks) read who called.
		if c.key.ID != "" {
			var ca *api.Caller
			r, ca = withCaller(r)
			ca.KeyID, ca.KeyName, ca.Tier, ca.Admin = c.key.ID, c.key.Name, c.key.Tier, c.key.Tier == ratelimit.Admin
		}
		cost := weight
		if rt.Surface == NodeAPI {
			cost += sizeCost(r)
		}
		if c.denied != nil {
			cost = 1 // a refused call is cheap, but not free
		}
		res, err := a.Limiter.Allow(r.Context(), c.bucket, c.tier, cost)
		if err != nil {
			pol.WriteError(w, r, fmt.Errorf("rate limit: %w: %w", derrors.Unavailable, err))
			return
		}
		a.setLimitHeaders(w.Header(), c.tier, res)
		switch {
		case !res.Allowed:
			retry := ceilSeconds(res.RetryAfter)
			w.Header().Set("Retry-After", strconv.Itoa(max(1, retry)))
			pol.WriteError(w, r, derrors.Client(derrors.ResourceExhausted,
				"rate limit exceeded: the %s tier allows %d units per %s and this call costs %d; retry in %d s",
				c.tier.Name, c.tier.Limit, c.tier.Period, cost, max(1, retry)))
		case c.denied != nil:
			pol.WriteError(w, r, c.denied)
		default:
			rt.Handler.ServeHTTP(w, r)
		}
	})
}

// identify tells the caller of r under pol: an API key's, or the client
// IP's at the anonymous tier (also when its key is refused, so that
// guessing keys spends the IP's quota).
func (a *Access) identify(r *http.Request, pol Policy, rt Route) caller {
	surface := bucketPrefix[rt.Surface]
	anon := caller{bucket: surface + ":ip:" + a.clientIP(r), tier: a.Tiers[pol.AnonymousTier]}
	key := ""
	if pol.Keys {
		key = api.RequestAPIKey(r.Header)
	}
	if key == "" {
		switch {
		case pol.RequireKey && !rt.Signed:
			anon.denied = derrors.Client(derrors.Unauthenticated, "an API key is required: send it in the %s header", api.HeaderDataAPIKey)
		case rt.Write && anon.tier.ReadOnly:
			anon.denied = derrors.Client(derrors.PermissionDenied, "%s is a write operation, which calls without an API key may not make", rt.Pattern)
		}
		return anon
	}
	k, ok, err := a.Keys.Lookup(r.Context(), key)
	switch {
	case err != nil:
		anon.denied = fmt.Errorf("checking the API key: %w: %w", derrors.Unavailable, err)
		return anon
	case !ok:
		anon.denied = derrors.Client(derrors.Unauthenticated, "the API key is not valid: unknown or revoked")
		return anon
	}
	tier, ok := a.Tiers[k.Tier]
	if !ok {
		anon.denied = derrors.Client(derrors.PermissionDenied, "the API key's tier %q is not configured on this server", k.Tier)
		return anon
	}
	c := caller{bucket: surface + ":key:" + k.ID, tier: tier, key: k}
	if rt.Write && tier.ReadOnly {
		c.denied = derrors.Client(derrors.PermissionDenied, "the API key's tier %s is read-only and %s is a write operation", tier.Name, rt.Pattern)
	}
	return c
}

// attribute returns the valid API key r carries, or the zero Key: for
// usage only, never for limits or access.
func (a *Access) attribute(r *http.Request) apikeys.Key {
	key := api.RequestAPIKey(r.Header)
	if key == "" {
		return apikeys.Key{}
	}
	k, ok, err := a.Keys.Lookup(r.Context(), key)
	if err != nil || !ok {
		return apikeys.Key{}
	}
	return k
}

// setLimitHeaders tells the caller its quota, as the hosted API does
// (draft-ietf-httpapi-ratelimit-headers-06), with the tier's name in the
// policy. An unlimited tier has no quota to tell.
func (a *Access) setLimitHeaders(h http.Header, t ratelimit.Tier, res ratelimit.Result) {
	if t.Unlimited() {
		return
	}
	h.Set("RateLimit-Policy", a.policyHeaders[t.Name])
	h.Set("RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(res.ResetAfter)))
}

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// clientIP is the address r is limited by: the peer's, or, when the peer
// is a trusted proxy, the nearest untrusted address of X-Forwarded-For.
// IPv6 clients are limited per /64, the block one subscriber holds.
func (a *Access) clientIP(r *http.Request) string {
	ip, ok := parseIP(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if a.trusted(ip) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, ok := parseIP(strings.TrimSpace(hops[i]))
			if !ok {
				break // a forged or garbled entry: trust nothing before it
			}
			ip = hop
			if !a.trusted(hop) {
				break
			}
		}
	}
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

func (a *Access) trusted(ip netip.Addr) bool {
	for _, p := range a.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// parseIP parses "host:port" or a bare address.
func parseIP(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap().WithZone(""), true
}

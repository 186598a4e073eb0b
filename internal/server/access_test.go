package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

const (
	blocksPath  = "/v1/networks/local/blockchains/p-chain/blocks"
	aggPath     = "/v1/signatureAggregator/local/aggregateSignatures"
	rewardsPath = "/v1/networks/local/rewards?addresses=local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	metricsPath = "/v1/test-metrics"
	nodePath    = "/ext/test-node"
)

var testNetwork = &internal.Network{ID: 12345, Name: "local", HRP: "local", PChainID: constants.PlatformChainID,
	XChainID: ids.ID{'x'}, CChainID: ids.ID{'c'}}

// testTiers are small, so that tests reach them.
func testTiers(extra ...ratelimit.Tier) map[string]ratelimit.Tier {
	tiers := ratelimit.DefaultTiers()
	for _, t := range extra {
		tiers[t.Name] = t
	}
	return tiers
}

// serve runs the real Data API over st, a Metrics API and a node API
// stand-in, behind access, on a loopback listener.
func serve(t *testing.T, st store.Store, access *Access) string {
	t.Helper()
	dataAPI, err := api.New(api.Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, param.MinTokenKeyLen)})
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.WriteJSON(w, http.StatusOK, map[string]string{"ok": r.URL.Path})
	})
	routes := []Route{
		{Pattern: "GET " + metricsPath, Handler: ok, Surface: MetricsAPI},
		{Pattern: nodePath, Handler: ok, Surface: NodeAPI, RPCMethods: []string{"test.method"}},
	}
	for _, r := range dataAPI.Routes() {
		routes = append(routes, Route{Pattern: r.Pattern, Handler: r.Handler, Surface: DataAPI, Write: r.Write})
	}
	srv := httptest.NewServer(New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes, Access: access}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func newAccess(t *testing.T, c AccessConfig) *Access {
	t.Helper()
	if c.Limiter == nil {
		c.Limiter = ratelimit.NewMemory()
	}
	if c.Tiers == nil {
		c.Tiers = testTiers()
	}
	if c.Policies == nil {
		c.Policies = DefaultPolicies(false)
	}
	if c.CORSOrigins == nil {
		c.CORSOrigins = []string{"*"}
	}
	a, err := NewAccess(c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type answer struct {
	status int
	header http.Header
	body   string
}

// call makes one request; headers are name, value pairs.
func call(t *testing.T, method, url, body string, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// wantError checks a Data API error answer.
func wantError(t *testing.T, a answer, status int, msg string) {
	t.Helper()
	var body api.ErrorBody
	if err := json.Unmarshal([]byte(a.body), &body); err != nil || a.status != status || body.StatusCode != status ||
		body.Error != http.StatusText(status) || !strings.Contains(body.Message, msg) {
		t.Errorf("answer %d %s, want %d with a message containing %q", a.status, a.body, status, msg)
	}
}

// wantLimits checks the rate-limit headers: the tier's policy, limit and
// remaining units.
func wantLimits(t *testing.T, a answer, tier ratelimit.Tier, remaining int) {
	t.Helper()
	policy := strconv.Itoa(tier.Limit) + ";w=" + strconv.Itoa(int(tier.Period.Seconds())) + `;name="` + tier.Name + `"`
	if got := a.header.Get("RateLimit-Policy"); got != policy {
		t.Errorf("RateLimit-Policy = %q, want %q", got, policy)
	}
	if got := a.header.Get("RateLimit-Limit"); got != strconv.Itoa(tier.Limit) {
		t.Errorf("RateLimit-Limit = %q, want %d", got, tier.Limit)
	}
	if got := a.header.Get("RateLimit-Remaining"); got != strconv.Itoa(remaining) {
		t.Errorf("RateLimit-Remaining = %q, want %d", got, remaining)
	}
	if reset, err := strconv.Atoi(a.header.Get("RateLimit-Reset")); err != nil || reset < 0 || reset > int(tier.Period.Seconds()) {
		t.Errorf("RateLimit-Reset = %q", a.header.Get("RateLimit-Reset"))
	}
}

// TestAPIKeys: without a key the anonymous tier, a valid key in either
// header its tier, an unknown or revoked key 401, a read-only tier 403 on
// a write-class route, and --require-api-key; on both stores.
func TestAPIKeys(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		known := func(string) bool { return true }
		std, err := apikeys.Create(ctx, st, "std", ratelimit.Standard, known, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ro, err := apikeys.Create(ctx, st, "ro", ratelimit.ReadOnly, known, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		const maxAge = 200 * time.Millisecond
		keys := apikeys.NewCache(st, maxAge, nil)
		// The standard tier over a day: a unit comes back every 7.2 s, so
		// no refill between two calls can hide the second one's unit.
		tiers := testTiers(ratelimit.Tier{Name: ratelimit.Standard, Limit: 12000, Period: 24 * time.Hour})
		base := serve(t, st, newAccess(t, AccessConfig{Keys: keys, Tiers: tiers}))

		a := call(t, "GET", base+blocksPath, "")
		if a.status != http.StatusOK {
			t.Fatalf("anonymous: %d %s", a.status, a.body)
		}
		wantLimits(t, a, tiers[ratelimit.Anonymous], tiers[ratelimit.Anonymous].Limit-1)

		a = call(t, "GET", base+blocksPath, "", "x-data-api-key", std)
		if a.status != http.StatusOK {
			t.Fatalf("standard key: %d %s", a.status, a.body)
		}
		wantLimits(t, a, tiers[ratelimit.Standard], tiers[ratelimit.Standard].Limit-1)
		a = call(t, "GET", base+blocksPath, "", "x-glacier-api-key", std)
		wantLimits(t, a, tiers[ratelimit.Standard], tiers[ratelimit.Standard].Limit-2)

		for _, h := range []string{"x-data-api-key", "x-glacier-api-key"} {
			a = call(t, "GET", base+blocksPath, "", h, std+"x")
			wantError(t, a, http.StatusUnauthorized, "API key is not valid")
			if strings.Contains(a.body, std) {
				t.Errorf("the 401 echoes the key: %s", a.body)
			}
			// A refused key spends the IP's anonymous quota.
			if a.header.Get("RateLimit-Policy") == "" || !strings.Contains(a.header.Get("RateLimit-Policy"), `"anonymous"`) {
				t.Errorf("401 without the anonymous tier's headers: %v", a.header)
			}
		}

		agg := `{"message":"00"}`
		a = call(t, "POST", base+aggPath, agg, "x-data-api-key", ro, "Content-Type", "application/json")
		wantError(t, a, http.StatusForbidden, "read-only")
		wantLimits(t, a, tiers[ratelimit.ReadOnly], tiers[ratelimit.ReadOnly].Limit-1)
		if a = call(t, "GET", base+blocksPath, "", "x-data-api-key", ro); a.status != http.StatusOK {
			t.Errorf("read-only key reading: %d %s", a.status, a.body)
		}
		// The standard tier may write: the aggregator answers (here, 503:
		// this server has none), not the access check.
		if a = call(t, "POST", base+aggPath, agg, "x-data-api-key", std, "Content-Type", "application/json"); a.status == http.StatusForbidden || a.status == http.StatusUnauthorized {
			t.Errorf("standard key writing: %d %s", a.status, a.body)
		}

		// Revoked while serving: refused within the cache's age.
		if err := st.RevokeAPIKey(ctx, "std", time.Now()); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(maxAge + 2*time.Second)
		for {
			a = call(t, "GET", base+blocksPath, "", "x-data-api-key", std)
			if a.status == http.StatusUnauthorized {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a revoked key still answered %d after %s", a.status, maxAge+2*time.Second)
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantError(t, a, http.StatusUnauthorized, "unknown or revoked")

		// --require-api-key: no key, no answer; a key as before.
		base = serve(t, st, newAccess(t, AccessConfig{Keys: keys, Policies: DefaultPolicies(true)}))
		wantError(t, call(t, "GET", base+blocksPath, ""), http.StatusUnauthorized, "x-data-api-key")
		wantError(t, call(t, "GET", base+"/v1/no/such/route", ""), http.StatusUnauthorized, "x-data-api-key")
		if a = call(t, "GET", base+blocksPath, "", "x-glacier-api-key", ro); a.status != http.StatusOK {
			t.Errorf("a key with --require-api-key: %d %s", a.status, a.body)
		}
		// The Metrics API takes no key, and needs none.
		a = call(t, "GET", base+metricsPath, "", "x-data-api-key", "not-a-key")
		if a.status != http.StatusOK {
			t.Errorf("metrics with a bogus key: %d %s", a.status, a.body)
		}
		wantLimits(t, a, tiers[ratelimit.Metrics], tiers[ratelimit.Metrics].Limit-1)
		// Operational routes are not guarded.
		if a = call(t, "GET", base+"/healthz", ""); a.status != http.StatusOK || a.header.Get("RateLimit-Limit") != "" {
			t.Errorf("/healthz: %d %v", a.status, a.header)
		}
	})
}

// TestReadOnlyAnonymous: an anonymous tier configured read-only refuses
// writes to calls without a key.
func TestReadOnlyAnonymous(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tiers := testTiers(ratelimit.Tier{Name: ratelimit.Anonymous, Limit: 100, Period: time.Minute, ReadOnly: true})
	base := serve(t, st, newAccess(t, AccessConfig{Keys: apikeys.NewCache(st, 0, nil), Tiers: tiers}))
	wantError(t, call(t, "POST", base+aggPath, `{"message":"00"}`, "Content-Type", "application/json"), http.StatusForbidden, "without an API key")
	if a := call(t, "GET", base+blocksPath, ""); a.status != http.StatusOK {
		t.Errorf("reading: %d %s", a.status, a.body)
	}
}

// TestRateLimits: a tier's quota in units, routes' weights, 429 with
// retry-after and the standard body, per client IP for anonymous calls,
// per key for keys, and the node API's own limit and error body.
func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, err := apikeys.Create(ctx, st, "k", "small", func(string) bool { return true }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	anon := ratelimit.Tier{Name: ratelimit.Anonymous, Limit: 3, Period: time.Minute}
	small := ratelimit.Tier{Name: "small", Limit: 5, Period: time.Hour}
	node := ratelimit.Tier{Name: ratelimit.Node, Limit: 2, Period: time.Minute}
	access := newAccess(t, AccessConfig{
		Keys:           apikeys.NewCache(st, 0, nil),
		Tiers:          testTiers(anon, small, node),
		Weights:        map[string]int{"GET /v1/networks/{network}/rewards": 2},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		CORSOrigins:    []string{"*"},
	})
	base := serve(t, st, access)

	for i := range 3 {
		a := call(t, "GET", base+blocksPath, "")
		if a.status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, a.status, a.body)
		}
		wantLimits(t, a, anon, 2-i)
	}
	a := call(t, "GET", base+blocksPath, "", "Origin", "https://dapp.example")
	wantError(t, a, http.StatusTooManyRequests, "rate limit exceeded")
	wantLimits(t, a, anon, 0)
	// 1 unit back every 20 s.
	if retry, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || retry < 1 || retry > 20 {
		t.Errorf("Retry-After = %q, want 1 to 20 s", a.header.Get("Retry-After"))
	}
	if a.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(a.header.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("a page cannot read the 429: %v", a.header)
	}

	// Another client (behind the trusted proxy) has its own quota; a
	// heavier route spends more of it.
	other := []string{"X-Forwarded-For", "203.0.113.9"}
	a = call(t, "GET", base+rewardsPath, "", other...)
	if a.status != http.StatusOK {
		t.Fatalf("another client: %d %s", a.status, a.body)
	}
	wantLimits(t, a, anon, 1)
	wantError(t, call(t, "GET", base+rewardsPath, "", other...), http.StatusTooManyRequests, "costs 2")
	if a = call(t, "GET", base+blocksPath, "", other...); a.status != http.StatusOK {
		t.Errorf("the last unit, on a route of weight 1: %d", a.status)
	}

	// A key has its own quota, whatever its IP spent.
	for i := range 5 {
		a = call(t, "GET", base+blocksPath, "", "x-data-api-key", key)
		if a.status != http.StatusOK {
			t.Fatalf("key call %d: %d %s", i, a.status, a.body)
		}
		wantLimits(t, a, small, 4-i)
	}
	a = call(t, "GET", base+blocksPath, "", "x-data-api-key", key)
	wantError(t, a, http.StatusTooManyRequests, "the small tier allows 5 units per 1h0m0s")
	if retry, _ := strconv.Atoi(a.header.Get("Retry-After")); retry < 600 || retry > 720 {
		t.Errorf("Retry-After = %q, want about 720 s", a.header.Get("Retry-After"))
	}

	// The node API: its own quota, per IP, a JSON-RPC error body.
	rpcBody := `{"jsonrpc":"2.0","id":1,"method":"test.method","params":{}}`
	for i := range 2 {
		if a = call(t, "POST", base+nodePath, rpcBody); a.status != http.StatusOK {
			t.Fatalf("node call %d: %d %s", i, a.status, a.body)
		}
		wantLimits(t, a, node, 1-i)
	}
	a = call(t, "POST", base+nodePath, rpcBody)
	var rpcErr struct {
		JSONRPC string
		Error   struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(a.body), &rpcErr); err != nil || a.status != http.StatusTooManyRequests || rpcErr.JSONRPC != "2.0" ||
		rpcErr.Error.Code != -32000 || !strings.Contains(rpcErr.Error.Message, "rate limit exceeded") || a.header.Get("Retry-After") == "" {
		t.Errorf("node API over its limit: %d %s %v", a.status, a.body, a.header)
	}
	if a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("the node API answers CORS")
	}
}

func redisLimiter(t *testing.T, prefix string) ratelimit.Limiter {
	t.Helper()
	url := os.Getenv("AVAINDEX_TEST_REDIS")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	c, err := ratelimit.DialRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s: %v", url, err)
		}
		t.Skipf("SKIP: Redis not reachable at %s: %v", url, err)
	}
	return ratelimit.NewRedis(c, prefix)
}

// TestRedisSharedLimit: two servers limiting through one Redis prefix
// share each caller's quota; the headers of either tell the shared count.
func TestRedisSharedLimit(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	prefix := "avaindex-test:" + hex.EncodeToString(b) + ":"
	anon := ratelimit.Tier{Name: ratelimit.Anonymous, Limit: 4, Period: time.Minute}
	var bases []string
	for range 2 {
		bases = append(bases, serve(t, st, newAccess(t, AccessConfig{
			Keys: apikeys.NewCache(st, 0, nil), Limiter: redisLimiter(t, prefix), Tiers: testTiers(anon),
		})))
	}
	for i := range 4 {
		a := call(t, "GET", bases[i%2]+blocksPath, "")
		if a.status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, a.status, a.body)
		}
		wantLimits(t, a, anon, 3-i)
	}
	for _, base := range bases {
		a := call(t, "GET", base+blocksPath, "")
		wantError(t, a, http.StatusTooManyRequests, "rate limit exceeded")
		if a.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	// Another prefix: other instances, other quotas.
	base := serve(t, st, newAccess(t, AccessConfig{
		Keys: apikeys.NewCache(st, 0, nil), Limiter: redisLimiter(t, prefix+"other:"), Tiers: testTiers(anon),
	}))
	if a := call(t, "GET", base+blocksPath, ""); a.status != http.StatusOK {
		t.Errorf("another prefix: %d", a.status)
	}
}

// TestCORS: preflights answered for the Data and Metrics APIs, the
// allowed origins, the rate-limit headers exposed, and no credentials.
func TestCORS(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys := apikeys.NewCache(st, 0, nil)
	preflight := func(base, path, method string, origin string) answer {
		return call(t, "OPTIONS", base+path, "", "Origin", origin, "Access-Control-Request-Method", method,
			"Access-Control-Request-Headers", "content-type,x-glacier-api-key")
	}

	anyOrigin := serve(t, st, newAccess(t, AccessConfig{Keys: keys}))
	// A preflight allows only the methods the path is served under and the
	// headers its route reads, whatever was asked.
	const keyHeaders = "x-data-api-key, x-glacier-api-key"
	for _, tc := range []struct{ path, method, methods, headers string }{
		{blocksPath, "GET", "GET, HEAD", keyHeaders},
		{blocksPath, "DELETE", "GET, HEAD", keyHeaders},
		{aggPath, "POST", "POST", "Content-Type, " + keyHeaders},
		{aggPath, "PUT", "POST", "Content-Type, " + keyHeaders},
		{metricsPath, "GET", "GET, HEAD", ""},
	} {
		a := preflight(anyOrigin, tc.path, tc.method, "https://dapp.example")
		h := a.header
		if a.status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != tc.methods ||
			h.Get("Access-Control-Allow-Headers") != tc.headers || h.Get("Access-Control-Max-Age") == "" ||
			h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight %s %s: %d %v", tc.method, tc.path, a.status, h)
		}
		if h.Get("RateLimit-Limit") != "" {
			t.Errorf("a preflight spent the quota: %v", h)
		}
	}
	a := call(t, "GET", anyOrigin+blocksPath, "", "Origin", "https://dapp.example")
	expose := a.header.Get("Access-Control-Expose-Headers")
	if a.status != http.StatusOK || a.header.Get("Access-Control-Allow-Origin") != "*" || a.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("simple GET: %d %v", a.status, a.header)
	}
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"} {
		if !strings.Contains(expose, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", expose, h)
		}
	}
	if a = call(t, "GET", anyOrigin+blocksPath, ""); a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS headers on a same-origin request: %v", a.header)
	}
	// The node API is not for browsers: no preflight answer.
	if a = preflight(anyOrigin, nodePath, "POST", "https://dapp.example"); a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("node API preflight: %d %v", a.status, a.header)
	}

	listed := serve(t, st, newAccess(t, AccessConfig{Keys: keys, CORSOrigins: []string{"https://app.example", "https://*.dapps.example"}}))
	for origin, allowed := range map[string]bool{
		"https://app.example":         true,
		"https://APP.example":         true,
		"https://x.dapps.example":     true,
		"https://a.b.dapps.example":   true,
		"https://dapps.example":       false,
		"http://app.example":          false,
		"https://evil.example":        false,
		"https://app.example.evil.io": false,
	} {
		a := preflight(listed, blocksPath, "GET", origin)
		if got := a.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed || (!allowed && got != "") || a.status != http.StatusNoContent {
			t.Errorf("preflight from %s: %d, Allow-Origin %q, want allowed %t", origin, a.status, got, allowed)
		}
		a = call(t, "GET", listed+blocksPath, "", "Origin", origin)
		if got := a.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed || !strings.Contains(strings.Join(a.header.Values("Vary"), ","), "Origin") {
			t.Errorf("GET from %s: Allow-Origin %q, Vary %q, want allowed %t", origin, got, a.header.Values("Vary"), allowed)
		}
	}
}

func TestClientIP(t *testing.T) {
	a := newAccess(t, AccessConfig{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	for _, tc := range []struct {
		remote, xff, want string
	}{
		{"192.0.2.1:5000", "", "192.0.2.1"},
		{"192.0.2.1:5000", "198.51.100.7", "192.0.2.1"}, // not a trusted proxy: its header is ignored
		{"10.0.0.1:5000", "198.51.100.7", "198.51.100.7"},
		{"10.0.0.1:5000", "203.0.113.5, 198.51.100.7, 10.0.0.2", "198.51.100.7"}, // the nearest untrusted hop
		{"10.0.0.1:5000", "garbage, 10.0.0.2", "10.0.0.2"},
		{"10.0.0.1:5000", "", "10.0.0.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.9]:1", "", "192.0.2.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := a.clientIP(r); got != tc.want {
			t.Errorf("clientIP(%s, XFF %q) = %s, want %s", tc.remote, tc.xff, got, tc.want)
		}
	}
}

func TestCheckWeights(t *testing.T) {
	a := newAccess(t, AccessConfig{Weights: map[string]int{"GET /v1/x": 3}})
	if err := a.CheckWeights([]string{"GET /v1/x"}); err != nil {
		t.Error(err)
	}
	if err := a.CheckWeights([]string{"GET /v1/y"}); err == nil || !strings.Contains(err.Error(), "GET /v1/x") {
		t.Errorf("a weight for no route: %v", err)
	}
}

// BenchmarkAccess measures what the Access adds to a Data API call: the
// key lookup (cached) or the client IP, the in-memory limit and its
// headers, over a handler that does nothing.
func BenchmarkAccess(b *testing.B) {
	st, err := store.Open(context.Background(), dbtest.SQLite(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	key, err := apikeys.Create(context.Background(), st, "bench", ratelimit.Standard, func(string) bool { return true }, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	huge := testTiers(ratelimit.Tier{Name: ratelimit.Anonymous, Limit: 1 << 30, Period: time.Second}, ratelimit.Tier{Name: ratelimit.Standard, Limit: 1 << 30, Period: time.Second})
	a, err := NewAccess(AccessConfig{Keys: apikeys.NewCache(st, 0, nil), Limiter: ratelimit.NewMemory(), Tiers: huge,
		Policies: DefaultPolicies(false), CORSOrigins: []string{"*"}})
	if err != nil {
		b.Fatal(err)
	}
	noop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	h := a.wrap(Route{Pattern: "GET /v1/bench", Handler: noop, Surface: DataAPI})
	for _, tc := range []struct {
		name   string
		header string
	}{{"anonymous", ""}, {"key", key}} {
		b.Run(tc.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/v1/bench", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			if tc.header != "" {
				r.Header.Set("x-data-api-key", tc.header)
			}
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

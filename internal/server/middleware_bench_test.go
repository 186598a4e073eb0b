package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/usage"
)

// BenchmarkMiddleware measures what the middleware chain adds to one
// request, without the network or the store: a Data API route as served
// (api.Middleware inside, the server's instrumentation and routing around)
// against the same handler bare behind a mux. The load test
// (tests.BenchmarkLoad) measures the same on loopback; this isolates it
// from the machine's noise.
//
// mw=limited adds the access check: the request's key recognized and its
// tier's in-memory rate limit taken, at a quota no run exhausts.
func BenchmarkMiddleware(b *testing.B) {
	body := []byte(`{"blocks":[],"chainInfo":{"chainName":"p-chain","network":"fuji"}}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		api.WriteJSON(w, http.StatusOK, body)
	})
	const pattern = "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks"
	bare := http.NewServeMux()
	bare.Handle(pattern, h)
	routes := []Route{{Pattern: pattern, Handler: api.Middleware(h)}}
	chain := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes})
	roomy := ratelimit.Tier{Name: ratelimit.Standard, Limit: 1 << 30, Period: time.Second}
	access, err := NewAccess(AccessConfig{Keys: oneKey{"key": {Name: "bench", Tier: ratelimit.Standard, ID: "bench"}},
		Limiter: ratelimit.NewMemory(), Tiers: testTiers(roomy), Policies: DefaultPolicies(false), CORSOrigins: []string{"*"}})
	if err != nil {
		b.Fatal(err)
	}
	limited := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes, Access: access})
	// mw=recorded adds usage recording to mw=limited: the real recorder,
	// its worker draining the buffer into a store that keeps nothing.
	rec := usage.New(discardRequests{}, usage.Config{}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rec.Run(ctx) }()
	recorded := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes, Access: access, Usage: rec})
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"mw=off", bare}, {"mw=on", chain}, {"mw=limited", limited}, {"mw=recorded", recorded}} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10", nil)
			req.Header.Set(api.HeaderGlacierAPIKey, "key")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := httptest.NewRecorder()
					tc.h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
					}
				}
			})
		})
	}
}

// oneKey recognizes the keys it maps.
type oneKey map[string]apikeys.Key

func (k oneKey) Lookup(_ context.Context, key string) (apikeys.Key, bool, error) {
	v, ok := k[key]
	return v, ok, nil
}

// discardRequests is a usage store that keeps nothing.
type discardRequests struct{ store.APIRequestStore }

func (discardRequests) InsertAPIRequests(context.Context, []internal.APIRequest) error { return nil }

func (discardRequests) DeleteAPIRequestsBefore(context.Context, time.Time) (int64, error) {
	return 0, nil
}

// BenchmarkRecordUsage measures the work recording adds to one request,
// alone: the caller in the request's context and the request handed to
// the real recorder, whose worker drains it.
func BenchmarkRecordUsage(b *testing.B) {
	// Drained every millisecond, so that the buffer keeps up with a loop
	// that does nothing else: a dropped request costs less than a kept one.
	rec := usage.New(discardRequests{}, usage.Config{FlushInterval: time.Millisecond}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rec.Run(ctx) }()
	req := httptest.NewRequest(http.MethodGet, "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10", nil)
	const pattern = "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks"
	b.ReportAllocs()
	for b.Loop() {
		r, c := withCaller(req)
		c.KeyID, c.KeyName = "bench", "bench"
		recordUsage(rec, r, c, pattern, DataAPI, http.StatusOK, time.Now(), "")
	}
	b.ReportMetric(float64(rec.Dropped()), "dropped")
}

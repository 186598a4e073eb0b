package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/avaindex/avaindex/internal/api"
)

// BenchmarkMiddleware measures what the middleware chain adds to one
// request, without the network or the store: a Data API route as served
// (api.Middleware inside, the server's instrumentation and routing around)
// against the same handler bare behind a mux. The load test
// (tests.BenchmarkLoad) measures the same on loopback; this isolates it
// from the machine's noise.
//
// TODO(rate limits): add the limiter to the chain (a key under its tier)
// when it lands.
func BenchmarkMiddleware(b *testing.B) {
	body := []byte(`{"blocks":[],"chainInfo":{"chainName":"p-chain","network":"fuji"}}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		api.WriteJSON(w, http.StatusOK, body)
	})
	const pattern = "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks"
	bare := http.NewServeMux()
	bare.Handle(pattern, h)
	chain := New(Deps{Store: pinger{}, Indexer: status{Running: true}, Routes: []Route{{Pattern: pattern, Handler: api.Middleware(h)}}})
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"mw=off", bare}, {"mw=on", chain}} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=10", nil)
			req.Header.Set(api.HeaderGlacierAPIKey, "key")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := httptest.NewRecorder()
					tc.h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("HTTP %d", rec.Code)
					}
				}
			})
		})
	}
}

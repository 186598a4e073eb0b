// Package server composes avaindex's one HTTP handler: the Data API under
// /v1, the Metrics API at /v1/avg_tps, the node API under /ext, health at
// /healthz and /readyz, and the service's own metrics at /metrics. Every
// route is instrumented by its pattern.
package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/store"
)

// Route is one pattern of http.ServeMux and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// Deps are what the server serves from.
type Deps struct {
	Store   store.Store
	Indexer *ingest.Indexer
	// Routes are the API surfaces' routes.
	Routes []Route
}

// New returns the handler of all surfaces.
func New(d Deps) http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.Handler) {
		mux.Handle(pattern, instrumented(pattern, h))
	}
	handle("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	}))
	handle("GET /readyz", readyz(d))
	handle("GET /metrics", instrument.Handler())
	for _, r := range d.Routes {
		handle(r.Pattern, r.Handler)
	}
	handle("/", api.NotFoundHandler())
	return mux
}

// readiness is the body of /readyz.
type readiness struct {
	Ready   bool          `json:"ready"`
	Store   string        `json:"store"`
	Indexer ingest.Status `json:"indexer"`
}

// readyz answers 200 when the store answers and the indexer is running.
func readyz(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		res := readiness{Store: "ok", Indexer: d.Indexer.Status()}
		if err := d.Store.Ping(ctx); err != nil {
			res.Store = "unreachable"
		}
		res.Ready = res.Store == "ok" && res.Indexer.Running
		status := http.StatusOK
		if !res.Ready {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(res)
	})
}

// instrumented records each request's route pattern, status and latency.
func instrumented(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		instrument.ObserveRequest(pattern, sw.status, start)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

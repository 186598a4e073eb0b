// Package server composes avaindex's one HTTP handler: the Data API under
// /v1, the node API under /ext, health at /healthz and /readyz, and the
// service's own metrics at /metrics. Every route is instrumented by its
// pattern, and a node API route also by its JSON-RPC method.
//
// Routes is the one route table: the server's own routes and the
// surfaces'. While the network is not known yet, the API surfaces answer
// 503 with the reason. The status page (status.html) is /readyz rendered in
// the browser, inline SVG, no external asset. access.go guards each API
// route by its surface's Policy (API keys with 401/403 on the Data API,
// rate limits and their headers on all three, the Metrics API keyless but
// limited); cors.go answers CORS on the Data and Metrics APIs.
package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/progress"
)

// Route is one pattern of http.ServeMux and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
	// RPCMethods, for a JSON-RPC route, are the methods it serves (see
	// RPCMethods): each request is instrumented as "Pattern method", and
	// any other as "Pattern unknown", so that the labels stay bounded.
	RPCMethods []string
	// Surface is the surface the route belongs to, whose Policy the
	// Access applies to it.
	Surface Surface
	// Write marks a write-class operation, refused to read-only tiers.
	Write bool
	// Signed marks a route authorized by its URL's signature (api.Route's
	// Signed): no key is required, also where the surface requires one.
	Signed bool
}

// Pinger is what /readyz asks of the store.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are what the server serves from.
type Deps struct {
	Store Pinger
	// Progress is the background workers' (the indexer's among them), for
	// /readyz and the status page; nil while Waiting.
	Progress progress.Reporter
	// Pending, when set, names the derivation work the store still lacks
	// (backfills a migration asked for, the metrics' catch-up), which
	// the indexer lease's holder runs while the surfaces serve: until it
	// is done the reads that depend on it would answer short, so /readyz
	// answers 503 with the names.
	Pending func(ctx context.Context) ([]string, error)
	// Network is the indexed network; nil while Waiting.
	Network *internal.Network
	// Routes are the API surfaces' routes.
	Routes []Route
	// Waiting, when set, says why the API surfaces cannot answer yet (the
	// network is not known): /readyz answers 503 with it, and so does
	// every request under /v1/, /v2/ and /ext/, in its surface's error
	// body (the Metrics API's v1 series answer the Data API's, whose /v1/
	// they share).
	Waiting string
	// Access, when set, guards the API surfaces' routes (keys, rate limits,
	// CORS); the routes of unknown paths count as the Data API's.
	Access *Access
	// Instance, when set, tells this instance's part in indexing the
	// store, which one instance at a time does.
	Instance InstanceReporter
	// Usage, when set, is handed every request of the Data API and the
	// node API once served.
	Usage UsageRecorder
}

// Instance is what /readyz says of this instance among those sharing the
// store.
type Instance struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Indexing: this instance holds the indexer lease and indexes.
	Indexing bool `json:"indexing"`
	// Indexer is the instance that took the indexer lease last, and
	// IndexerSince when (Unix seconds).
	Indexer      string `json:"indexer,omitempty"`
	IndexerSince int64  `json:"indexerSince,omitempty"`
}

// InstanceReporter is what /readyz asks of the instance.
type InstanceReporter interface {
	Instance(ctx context.Context) Instance
}

// Routes returns every route New serves, its own (status page, health,
// metrics, docs) and d.Routes: the one route table, which the served
// OpenAPI document must describe exactly (internal/apidoc).
func Routes(d Deps) []Route {
	own := []Route{
		{Pattern: "GET /{$}", Surface: Operational, Handler: statusPage(d)},
		{Pattern: "GET /healthz", Surface: Operational, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("ok\n"))
		})},
		{Pattern: "GET /readyz", Surface: Operational, Handler: readyz(d)},
		{Pattern: "GET /metrics", Surface: Operational, Handler: instrument.Handler()},
		{Pattern: "GET /openapi.json", Surface: Operational, Handler: apidoc.OpenAPIHandler()},
		{Pattern: "GET " + apidoc.MetricsDocumentPath, Surface: Operational, Handler: apidoc.MetricsOpenAPIHandler()},
		{Pattern: "GET /docs", Surface: Operational, Handler: apidoc.DocsHandler()},
		{Pattern: "GET /docs/{file}", Surface: Operational, Handler: apidoc.AssetHandler()},
	}
	return append(own, d.Routes...)
}

// New returns the handler of all surfaces.
func New(d Deps) http.Handler {
	mux := http.NewServeMux()
	surfaces := map[string]Surface{}
	// recorder is d.Usage for a pattern of a recorded surface (guard has
	// named its surface by the time handle is called), else nil.
	recorder := func(pattern string) UsageRecorder {
		if s, ok := surfaces[pattern]; ok && d.Usage != nil && recordsUsage(s) {
			return d.Usage
		}
		return nil
	}
	handle := func(pattern string, h http.Handler) {
		mux.Handle(pattern, instrumented(pattern, h, recorder(pattern), surfaces[pattern]))
	}
	guard := func(rt Route) http.Handler {
		surfaces[rt.Pattern] = rt.Surface
		if d.Access == nil {
			return rt.Handler
		}
		return d.Access.wrap(rt)
	}
	heavy := newHeavyLimiter()
	for _, r := range Routes(d) {
		if r.Surface == NodeAPI {
			// Inside the access check: a call over its quota is refused
			// before it waits for a slot.
			r.Handler = heavy.wrap(r.Handler, writeRPCError)
		}
		if len(r.RPCMethods) > 0 {
			h := guard(r)
			mux.Handle(r.Pattern, instrumentedRPC(r.Pattern, r.RPCMethods, h, recorder(r.Pattern)))
			continue
		}
		handle(r.Pattern, guard(r))
	}
	fallbacks := []string{"/", "/v2/", "/ext/"}
	// Once the surfaces are known, a hosted operation no route serves is a
	// 501 naming it (unserved.go), any other path no route serves a 404.
	// Their patterns serve nothing, so a 405's Allow does not list them.
	var unserved []unservedOp
	if d.Waiting == "" {
		unserved = unservedOps(Routes(d))
		handleUnserved(handle, guard, unserved)
		for _, op := range unserved {
			fallbacks = append(fallbacks, op.Method+" "+op.Path)
		}
	}
	if d.Waiting != "" {
		handle("/v1/", guard(Route{Pattern: "/v1/", Handler: dataAPIUnavailable(d.Waiting), Surface: DataAPI}))
		handle("/ext/", guard(Route{Pattern: "/ext/", Handler: nodeAPIUnavailable(d.Waiting), Surface: NodeAPI}))
		handle("/v2/", guard(Route{Pattern: "/v2/", Handler: metricsAPIUnavailable(d.Waiting), Surface: MetricsAPI}))
		fallbacks = append(fallbacks, "/v1/")
	} else {
		// A path under /v2/ no route serves is the Metrics API's 404.
		handle("/v2/", guard(Route{Pattern: "/v2/", Handler: unservedOr(unserved, metricsapi.NotFoundHandler()), Surface: MetricsAPI}))
		// One under /ext/ is the node's plain 404, outside any quota.
		handle("/ext/", extNotFound())
	}
	handle("/", guard(Route{Pattern: "/", Handler: unservedOr(unserved, api.NotFoundHandler()), Surface: DataAPI}))
	return newGate(mux, surfaces, fallbacks, d.Access)
}

// readiness is the body of /readyz.
type readiness struct {
	Ready bool `json:"ready"`
	// Reason says why the service is not ready.
	Reason string `json:"reason,omitempty"`
	Store  string `json:"store"`
	// Network is the indexed network, once known.
	Network *networkInfo    `json:"network,omitempty"`
	Indexer progress.Status `json:"indexer"`
	// Instance is this instance's part in indexing, when it shares the
	// store with others.
	Instance *Instance `json:"instance,omitempty"`
	// Pending names the derivation work the store lacks (Deps.Pending).
	Pending []string `json:"pending,omitempty"`
}

type networkInfo struct {
	Name string `json:"name"`
	ID   uint32 `json:"id"`
}

// readinessOf returns what /readyz answers, and its status code.
func readinessOf(ctx context.Context, d Deps) (readiness, int) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res := readiness{Store: "ok", Reason: d.Waiting}
	if d.Network != nil {
		res.Network = &networkInfo{Name: d.Network.Name, ID: d.Network.ID}
	}
	if d.Progress != nil {
		d.Progress.Report(&res.Indexer)
	}
	// An instance that does not index (its role, or another holds the
	// lease) is ready without a running indexer.
	needIndexer := true
	if d.Instance != nil {
		in := d.Instance.Instance(ctx)
		res.Instance = &in
		needIndexer = in.Indexing
	}
	if err := d.Store.Ping(ctx); err != nil {
		res.Store = "unreachable"
	}
	if d.Pending != nil && res.Store == "ok" {
		pending, err := d.Pending(ctx)
		if err != nil {
			res.Store = "unreachable"
		}
		res.Pending = pending
	}
	switch {
	case res.Reason != "":
	case res.Store != "ok":
		res.Reason = "the store does not answer"
	case len(res.Pending) > 0: // before the indexer's: it waits for this work
		res.Reason = "deriving what the store lacks since an upgrade (" + strings.Join(res.Pending, ", ") +
			"): some reads would answer short until it is done"
	case needIndexer && !res.Indexer.Running:
		res.Reason = "the indexer is not running"
	}
	res.Ready = res.Reason == ""
	if !res.Ready {
		return res, http.StatusServiceUnavailable
	}
	return res, http.StatusOK
}

// readyz answers 200 when the store answers and the indexer is running.
func readyz(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, status := readinessOf(r.Context(), d)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(res)
	})
}

// instrumented records each request's route pattern, status and latency,
// and hands the request to rec when not nil.
func instrumented(pattern string, h http.Handler, rec UsageRecorder, s Surface) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		if rec == nil {
			h.ServeHTTP(sw, r)
			instrument.ObserveRequest(pattern, sw.status, start)
			return
		}
		r, c := withCaller(r)
		h.ServeHTTP(sw, r)
		instrument.ObserveRequest(pattern, sw.status, start)
		recordUsage(rec, r, c, pattern, s, sw.status, start, "")
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

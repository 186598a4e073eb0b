package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/jsonrpc"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

type args struct{ X int }

// svc has two methods gorilla/rpc would serve and three it would not.
type svc struct{}

func (*svc) GetThing(*http.Request, *args, *args) error   { return nil }
func (*svc) ListThings(*http.Request, *args, *args) error { return nil }
func (*svc) Helper(context.Context, *args, *args) error   { return nil }
func (*svc) NoError(*http.Request, *args, *args) int      { return 0 }
func (*svc) ByValue(*http.Request, args, *args) error     { return nil }

func TestRPCMethods(t *testing.T) {
	got := RPCMethods("thing", (*svc)(nil))
	slices.Sort(got)
	if want := []string{"thing.getThing", "thing.listThings"}; !slices.Equal(got, want) {
		t.Errorf("RPCMethods = %q, want %q", got, want)
	}
}

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

type status progress.Status

func (s status) Report(st *progress.Status) { *st = progress.Status(s) }

// sample returns the value of the requests counter for route and code in
// the served metrics, "" when absent.
func sample(t *testing.T, h http.Handler, route, code string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	prefix := `avaindex_http_requests_total{route="` + route + `",status="` + code + `"} `
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return v
		}
	}
	return ""
}

// TestRPCRouteLabels: a JSON-RPC route is counted per method it serves,
// anything else as unknown, and its handler still reads the body as sent.
func TestRPCRouteLabels(t *testing.T) {
	var bodies []string
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the body: %v", err)
		}
		bodies = append(bodies, string(b))
		w.WriteHeader(http.StatusAccepted)
	})
	h := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: []Route{
		{Pattern: "/ext/test", Handler: echo, RPCMethods: []string{"thing.getThing"}},
	}})
	big := `{"params":{"pad":"` + strings.Repeat("x", rpcPeekBytes) + `"},"method":"thing.getThing"}`
	for _, tc := range []struct {
		method, body, label string
	}{
		{http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"thing.getThing","params":{}}`, "/ext/test thing.getThing"},
		{http.MethodPost, `{"params":{"a":[1,{"b":2}]},"Method":"thing.GetThing"}`, "/ext/test thing.getThing"},
		{http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"thing.other","params":{}}`, "/ext/test unknown"},
		{http.MethodPost, `{"method":"thing.getThing.x"}`, "/ext/test unknown"},
		{http.MethodPost, `[{"method":"thing.getThing"}]`, "/ext/test unknown"},
		{http.MethodPost, `{"method":`, "/ext/test unknown"},
		{http.MethodPost, big, "/ext/test unknown"},
		{http.MethodGet, "", "/ext/test unknown"},
	} {
		before := sample(t, h, tc.label, "202")
		bodies = nil
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/ext/test", strings.NewReader(tc.body)))
		if len(bodies) != 1 || bodies[0] != tc.body {
			t.Errorf("%s %.40q: the handler read %d bodies, not the one sent", tc.method, tc.body, len(bodies))
		}
		if after := sample(t, h, tc.label, "202"); after == before {
			t.Errorf("%s %.40q: not counted under %q (still %q)", tc.method, tc.body, tc.label, after)
		}
	}
}

// TestWaiting: while the network is unknown, health answers, readiness
// and the API surfaces say why not.
func TestWaiting(t *testing.T) {
	const reason = "waiting for the node at http://127.0.0.1:1"
	h := New(Deps{Store: pinger{}, Waiting: reason})
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{http.MethodGet, "/healthz", 200, "ok"},
		{http.MethodGet, "/readyz", 503, `"reason":"` + reason + `"`},
		{http.MethodGet, "/v1/networks/local/blockchains/p-chain/blocks", 503, `{"message":"` + reason + `","statusCode":503,"error":"Service Unavailable"}`},
		{http.MethodPost, "/ext/bc/P", 503, `"error":{"code":-32000,"message":"` + reason + `"}`},
		{http.MethodGet, "/v2/chains/total/metrics/txCount", 503, `{"message":["` + reason + `"],"statusCode":503,"error":"Service Unavailable"}`},
		{http.MethodGet, "/elsewhere", 404, `"statusCode":404`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader("{}")))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s %s = %d %s, want %d with %s", tc.method, tc.path, rec.Code, rec.Body, tc.status, tc.want)
		}
	}

	// Ready: the store answers and the indexer runs; each failing part is
	// the reason.
	for _, tc := range []struct {
		d      Deps
		status int
		want   string
	}{
		{Deps{Store: pinger{}, Progress: status{Running: true}}, 200, `"ready":true`},
		{Deps{Store: pinger{errors.New("down")}, Progress: status{Running: true}}, 503, `"reason":"the store does not answer"`},
		{Deps{Store: pinger{}, Progress: status{}}, 503, `"reason":"the indexer is not running"`},
		{Deps{Store: pinger{}, Progress: status{}, Pending: pendingWork("backfill:address_txs", "metrics:P")}, 503,
			`"reason":"deriving what the store lacks since an upgrade (backfill:address_txs, metrics:P): some reads would answer short until it is done"`},
		{Deps{Store: pinger{}, Progress: status{Running: true}, Pending: pendingWork()}, 200, `"ready":true`},
	} {
		rec := httptest.NewRecorder()
		New(tc.d).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("/readyz = %d %s, want %d with %s", rec.Code, rec.Body, tc.status, tc.want)
		}
	}
}

// TestStatusPage: / is the status page, starting from /readyz's answer
// (embedded where no text of it can end the script), with no asset from
// elsewhere; only / itself: other paths stay 404.
func TestStatusPage(t *testing.T) {
	h := New(Deps{Store: pinger{}, Network: &internal.Network{Name: "local", ID: 12345}, Progress: status{
		Running: true,
		Heights: map[string]uint64{"P": 10, "index:P/block": 9},
		Tips:    map[string]uint64{"P": 12, "index:P/block": 11},
		// A hostile error text must stay data.
		LastError: `P-chain: </script><script>alert(1)</script>`,
	}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	page := rec.Body.String()
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET / = %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, want := range []string{`"heights":{"P":10,"index:P/block":9}`, `"tips":{"P":12,"index:P/block":11}`,
		`"network":{"name":"local","id":12345}`, `\u003c/script\u003e`, `fetch("/readyz"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("the last error's text ends the page's script")
	}
	if m := regexp.MustCompile(`(?:src|href)="(?:https?:)?//`).FindString(page); m != "" {
		t.Errorf("the page loads %s from elsewhere", m)
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /status = %d, want 404", rec.Code)
	}
}

// TestReadyzMatchesDocument: /readyz's bodies, ready or not, are what the
// served OpenAPI document says.
func TestReadyzMatchesDocument(t *testing.T) {
	doc, err := openapitest.Parse(apidoc.Document())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Deps{
		{Store: pinger{}, Network: &internal.Network{Name: "local", ID: 12345}, Progress: status{Running: true,
			Heights: map[string]uint64{"P": 3}, Tips: map[string]uint64{"P": 4}, BlocksPerSecond: map[string]float64{"P": 0.5},
			History: &progress.History{IntervalSeconds: 60, Blocks: []uint64{0, 2}}, Queues: map[string]int64{"nft-metadata": 7}}},
		{Store: pinger{errors.New("down")}, Progress: status{}},
		{Store: pinger{}, Progress: status{Running: true, Derivations: []progress.Step{{Name: "backfill:burned", Done: 3, Total: 9, PerSecond: 1.5}}},
			Pending: pendingWork("backfill:burned")},
		{Store: pinger{}, Waiting: "waiting for the node at http://127.0.0.1:1"},
	} {
		rec := httptest.NewRecorder()
		New(d).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		doc.ValidateRecorder(t, http.MethodGet, "/readyz", rec)
	}
}

// TestUnknownPaths: a path no route serves is a 404 in the error body of
// the surface its prefix names: the Metrics API's under /v2/, the Data
// API's elsewhere.
func TestUnknownPaths(t *testing.T) {
	h := New(Deps{Store: pinger{}, Progress: status{Running: true}, Network: &internal.Network{Name: "local"},
		Routes: []Route{{Pattern: "GET /v2/chains", Surface: MetricsAPI, Handler: http.NotFoundHandler()}}})
	for _, tc := range []struct{ method, path, want string }{
		{http.MethodGet, "/v2/nothing", `{"message":["no route for GET /v2/nothing"],"statusCode":404,"error":"Not Found"}`},
		{http.MethodPut, "/v2/chain", `{"message":["no route for PUT /v2/chain"],"statusCode":404,"error":"Not Found"}`},
		{http.MethodGet, "/v1/nothing", `{"message":"no route for GET /v1/nothing","statusCode":404,"error":"Not Found"}`},
		{http.MethodGet, "/elsewhere", `{"message":"no route for GET /elsewhere","statusCode":404,"error":"Not Found"}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != 404 || strings.TrimSpace(rec.Body.String()) != tc.want {
			t.Errorf("%s %s = %d %s, want 404 %s", tc.method, tc.path, rec.Code, rec.Body, tc.want)
		}
	}
}

// pendingWork is a Deps.Pending that names work.
func pendingWork(work ...string) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) { return work, nil }
}

// TestRPCBodyHandedDown: the instrumentation hands the body it parsed to
// the handler (jsonrpc.BodyOf), so that the node API does not read and
// parse it again; a body past the peek is left to the handler to read.
func TestRPCBodyHandedDown(t *testing.T) {
	var got *jsonrpc.Body
	h := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: []Route{
		{Pattern: "/ext/test", RPCMethods: []string{"thing.getThing"}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = jsonrpc.BodyOf(r.Context())
		})},
	}})
	small := `{"jsonrpc":"2.0","id":7,"method":"thing.getThing","params":{"a":1}}`
	big := `{"params":{"pad":"` + strings.Repeat("x", rpcPeekBytes) + `"},"method":"thing.getThing"}`
	for _, tc := range []struct {
		body   string
		parsed bool
	}{{small, true}, {`[` + small + `]`, true}, {`{"method":`, true}, {big, false}} {
		got = nil
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/ext/test", strings.NewReader(tc.body)))
		if (got != nil) != tc.parsed {
			t.Errorf("%.40q: handed down %v, want %v", tc.body, got != nil, tc.parsed)
			continue
		}
		if got == nil {
			continue
		}
		reqs, batch := jsonrpc.Parse([]byte(tc.body))
		if string(got.Raw) != tc.body || got.Batch != batch || len(got.Reqs) != len(reqs) {
			t.Errorf("%.40q: handed down %q (batch %v, %d requests), want the body sent, batch %v, %d requests",
				tc.body, got.Raw, got.Batch, len(got.Reqs), batch, len(reqs))
		}
	}
	if got := sample(t, h, "/ext/test thing.getThing", "200"); got == "" {
		t.Error("the calls were not counted")
	}
}

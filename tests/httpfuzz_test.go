package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// fuzzRoute is one route of the served table: its method, its path
// template and the query parameters it documents.
type fuzzRoute struct {
	method, path string
	query        []string
	body         bool
}

// metricsQuery are the query parameters of the Metrics API's routes.
var metricsQuery = []string{"from", "to", "interval", "startKey", "pageToken", "pageSize", "startTimestamp", "endTimestamp", "timeInterval", "network"}

// servedRoutes are every route avaindex serves: the operations of its
// served OpenAPI document (which TestOpenAPIDocumentsEveryRoute holds equal
// to the route table, server.Routes and service.routeTable) and the Metrics
// API's routes.
func servedFuzzRoutes(t *testing.T, base string) []fuzzRoute {
	status, body, _ := get(t, base+"/openapi.json")
	if status != http.StatusOK {
		t.Fatalf("/openapi.json: %d", status)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				In   string `json:"in"`
				Name string `json:"name"`
			} `json:"parameters"`
			RequestBody json.RawMessage `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var routes []fuzzRoute
	for path, ops := range doc.Paths {
		for method, op := range ops {
			r := fuzzRoute{method: strings.ToUpper(method), path: path, body: op.RequestBody != nil}
			for _, p := range op.Parameters {
				if p.In == "query" {
					r.query = append(r.query, p.Name)
				}
			}
			routes = append(routes, r)
		}
	}
	for _, r := range (&metricsapi.API{}).Routes() {
		method, path, _ := strings.Cut(r.Pattern, " ")
		routes = append(routes, fuzzRoute{method: method, path: path, query: metricsQuery})
	}
	slices.SortFunc(routes, func(a, b fuzzRoute) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	return routes
}

// badValues are malformed values for every path segment and query value:
// empty, signs and overflows, non-numbers, huge, unicode, control
// characters, separators, JSON, hex and id look-alikes.
var badValues = []string{
	"", " ", "-1", "-9223372036854775809", "99999999999999999999999", "1e309", "NaN", "0x", "0xZZ", "1.5",
	"é∑漢🙂", "\x00", "\x01\x7f\x1b[31m", "\xff\xfe", "../..", "a/b", "?x=1#y", ",,,", "null", "{}", `"'<>`,
	strings.Repeat("a", 10000), strings.Repeat("9", 4000), "NodeID-" + strings.Repeat("1", 100), "P-" + strings.Repeat("q", 200),
}

// badBodies are malformed request bodies.
var badBodies = []string{
	"", "{", "}", "null", "[]", "1", `"x"`, "{}{}", "{} x", `{"a":1,}`, "\xff\xfe", "{\"a\":\"\x00\"}",
	strings.Repeat("[", 100000), strings.Repeat(`{"a":`, 20000),
	`{"addresses":1,"message":[],"justification":{},"quorumPercentage":"x","jsonrpc":2,"method":1,"params":"x","id":{}}`,
	`{"addresses":"` + strings.Repeat("x,", 5000) + `","message":"` + strings.Repeat("zz", 10) + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"platform.getBalance","params":{"addresses":["` + strings.Repeat("x", 100000) + `"]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":-1,"numToFetch":1e308}}`,
	`{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":"-1","encoding":"nope"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"no.such","params":[]}`,
	`{"message":"` + strings.Repeat("ab", 1<<20) + `"}`, // over the Data API's 1 MiB
}

// goodPathValues fill the path parameters not being fuzzed, so that each
// request reaches the handler's parsing of the fuzzed one.
func goodPathValues(n *testnet.Network) map[string]string {
	return map[string]string{
		"network":      "testnet",
		"blockchainId": "p-chain",
		"chainId":      fmt.Sprint(n.EVMChainID),
		"chain":        "total",
		"address":      n.EthAddr.Hex(),
		"txHash":       n.AVAXAssetID.String(),
		"blockId":      "0",
		"assetId":      n.AVAXAssetID.String(),
		"metric":       "txCount",
		"file":         "index.html",
	}
}

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// fill returns route's path with its parameters from values, and bad
// (escaped) for the parameter fuzzed.
func fill(path, fuzzed, bad string, values map[string]string) string {
	return pathParam.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		if name == fuzzed {
			return url.PathEscape(bad)
		}
		return url.PathEscape(values[name])
	})
}

// fuzzRequest is one malformed request and what it fuzzes.
type fuzzRequest struct {
	route  fuzzRoute
	what   string
	method string
	path   string // escaped
	query  string // raw
	body   string
}

// surface tells whose error body an answer to path must have.
func surface(path string) string {
	switch {
	case strings.HasPrefix(path, "/ext/"):
		return "node"
	case strings.HasPrefix(path, "/v2/"), metricsV1.MatchString(path):
		return "metrics"
	case path == "/" || path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/openapi.json" || path == "/openapi/metrics.json" ||
		path == "/docs" || strings.HasPrefix(path, "/docs/"):
		return "own"
	}
	return "data"
}

const unknownParam = "noSuchParameter=1"

// acceptedValue tells whether req's "malformed" query value is one its
// parameter's reference schema accepts: listValidators' number filters
// (type number) take 1.5, and its nodeIds are substrings of node ids
// ("Supports substring matching"), so any short text matches or not.
func acceptedValue(req fuzzRequest) bool {
	if req.route.path != "/v1/networks/{network}/validators" {
		return false
	}
	name, value, _ := strings.Cut(req.query, "=")
	switch name {
	case "minTimeRemaining", "maxTimeRemaining", "minUptimePerformance", "maxUptimePerformance":
		return value == "1.5"
	case "nodeIds":
		// Up to the 64 characters a node id's text may have.
		v, err := url.QueryUnescape(value)
		return err == nil && len(v) <= 64
	}
	return false
}

var metricsV1 = regexp.MustCompile(`^/v1/((avg_tps|max_tps|tx_count|gas_used|avg_gps|max_gps|avg_gas_price|max_gas_price|active_addresses|active_senders|cumulative/[a-z_]+)/|lookingGlass/compositeQuery$)`)

// checkAnswer returns what is wrong with an answer to req: a 5xx, a 2xx
// or 3xx (the request is malformed; only the service's own routes, which
// take no input, may ignore a query string), or a 4xx without the
// surface's standard error body (the Data API's {message, statusCode,
// error}, the Metrics API's with message an array, the node API's
// JSON-RPC error envelope).
func checkAnswer(req fuzzRequest, status int, body []byte) string {
	sf := surface(req.route.path)
	// A malformed request may land on a hosted operation avaindex does not
	// serve (another method on a served path; an empty segment, which
	// ServeMux's redirect removes: /v1/networks//rewards is
	// /v1/networks/rewards, getNetworkDetails): its 501 names it
	// (internal/server/unserved.go), no server fault.
	if status == http.StatusNotImplemented && bytes.Contains(body, []byte("avaindex does not serve it")) {
		return ""
	}
	if status >= 500 {
		return fmt.Sprintf("HTTP %d %.300s", status, body)
	}
	if sf == "node" {
		if status != http.StatusOK {
			if status < 400 {
				return fmt.Sprintf("HTTP %d", status)
			}
			return ""
		}
		if len(body) == 0 {
			// A notification (a request without an id) gets no answer, as
			// JSON-RPC 2.0 and the node's codec (which reads the body's
			// first JSON value) say.
			var r struct {
				ID json.RawMessage `json:"id"`
			}
			if json.NewDecoder(strings.NewReader(req.body)).Decode(&r) == nil && (len(r.ID) == 0 || string(r.ID) == "null") {
				return ""
			}
			return "empty answer"
		}
		var env struct {
			Version string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    *int   `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Version != "2.0" || env.Error == nil || env.Error.Code == nil || env.Error.Message == "" {
			// A malformed request answered with a result is acceptable
			// only where the node answers one too: never for these.
			return fmt.Sprintf("not a JSON-RPC error: %.300s", body)
		}
		return ""
	}
	if status < 400 {
		switch {
		case sf == "own" && req.what != "method":
			// The service's own routes take no input.
			return ""
		case sf == "data" && req.query == unknownParam:
			// The Data API's routes leave parameters they do not take
			// alone (the Metrics API's refuse them).
			return ""
		case req.query == "pageToken=" || req.query == "startKey=":
			// An empty page token is no page token: the first page.
			return ""
		case acceptedValue(req):
			return ""
		}
		return fmt.Sprintf("HTTP %d for a malformed request: %.300s", status, body)
	}
	var e struct {
		Message    json.RawMessage `json:"message"`
		StatusCode int             `json:"statusCode"`
		Error      string          `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.StatusCode != status || e.Error != http.StatusText(status) {
		return fmt.Sprintf("HTTP %d without the standard error body: %.300s", status, body)
	}
	var msg string
	var msgs []string
	// The Metrics API's v1 series share /v1/ with the Data API, whose 404
	// answers a path or method no route serves there.
	sharedV1 := strings.HasPrefix(req.route.path, "/v1/") && status == http.StatusNotFound && json.Unmarshal(e.Message, &msg) == nil && strings.HasPrefix(msg, "no route for ")
	if sf == "metrics" && !sharedV1 {
		if json.Unmarshal(e.Message, &msgs) != nil || len(msgs) == 0 || msgs[0] == "" {
			return fmt.Sprintf("HTTP %d: the Metrics API's message is not an array: %.300s", status, body)
		}
		return ""
	}
	if json.Unmarshal(e.Message, &msg) != nil || msg == "" {
		return fmt.Sprintf("HTTP %d: message is not a string: %.300s", status, body)
	}
	return ""
}

// fuzzRequests are the malformed requests for every route: each path
// parameter and each documented query parameter with every bad value, a
// repeated parameter, an unknown one, a malformed query string, every bad
// body on the routes that take one, and the methods a route does not
// serve.
func fuzzRequests(routes []fuzzRoute, good map[string]string) []fuzzRequest {
	var reqs []fuzzRequest
	for _, r := range routes {
		goodPath := fill(r.path, "", "", good)
		for _, m := range pathParam.FindAllStringSubmatch(r.path, -1) {
			for _, v := range badValues {
				reqs = append(reqs, fuzzRequest{route: r, what: "path " + m[1], method: r.method, path: fill(r.path, m[1], v, good), body: "{}"})
			}
		}
		for _, q := range r.query {
			for _, v := range badValues {
				reqs = append(reqs, fuzzRequest{route: r, what: "query " + q, method: r.method, path: goodPath, query: q + "=" + url.QueryEscape(v), body: "{}"})
			}
			reqs = append(reqs,
				fuzzRequest{route: r, what: "query " + q, method: r.method, path: goodPath, query: q + "=1&" + q + "=2", body: "{}"},
				fuzzRequest{route: r, what: "query " + q, method: r.method, path: goodPath, query: q + "=%zz", body: "{}"},
				// Huge, within the server's 64 KiB of headers (beyond, net/http
				// answers 431 before any route).
				fuzzRequest{route: r, what: "query " + q, method: r.method, path: goodPath, query: q + "=" + url.QueryEscape(strings.Repeat("9", 50000)), body: "{}"},
			)
		}
		reqs = append(reqs,
			fuzzRequest{route: r, what: "query", method: r.method, path: goodPath, query: unknownParam, body: "{}"},
			fuzzRequest{route: r, what: "query", method: r.method, path: goodPath, query: "%", body: "{}"},
			fuzzRequest{route: r, what: "query", method: r.method, path: goodPath, query: "a=%00&&=&;", body: "{}"},
		)
		if r.body {
			for _, b := range badBodies {
				reqs = append(reqs, fuzzRequest{route: r, what: "body", method: r.method, path: goodPath, body: b})
			}
		}
		for _, m := range []string{"PUT", "DELETE", "PATCH", "POST", "GET", "BREW"} {
			if m != r.method && !(m == "GET" && r.method == "HEAD") {
				reqs = append(reqs, fuzzRequest{route: r, what: "method", method: m, path: goodPath, body: "{}"})
			}
		}
	}
	return reqs
}

// TestHTTPFuzzEveryRoute walks every route of a service that indexed the
// real local network (SQLite) with malformed path segments, query values,
// bodies and methods: every answer must be a 4xx with its surface's
// standard error body (or the node API's JSON-RPC error), never a 5xx,
// never a panic.
func TestHTTPFuzzEveryRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n := testnet.Get(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	base := startService(t, n.URL, dbtest.SQLite(t), "--network-alias", "testnet",
		"--rate-limit-tier", "anonymous:unlimited", "--rate-limit-tier", "metrics:unlimited", "--rate-limit-tier", "node:unlimited")
	waitIndexed(t, base, tip, 2*time.Minute)

	routes := servedFuzzRoutes(t, base)
	for _, want := range append(api.Patterns(), "POST /ext/bc/P", "GET /v2/chains/{chainId}/metrics/{metric}", "GET /healthz") {
		// As the document names it ({tokenId}:reindex for the pattern's
		// {tokenIdReindex}).
		method, path := apidoc.SplitPattern(want)
		method = strings.ToUpper(method)
		if !slices.ContainsFunc(routes, func(r fuzzRoute) bool { return r.method == method && r.path == path }) {
			t.Fatalf("route %s is not walked", want)
		}
	}
	reqs := fuzzRequests(routes, goodPathValues(n))

	client := &http.Client{Timeout: time.Minute}
	var (
		mu       sync.Mutex
		failures = map[string][]string{} // by route and what was fuzzed
		statuses = map[int]int{}
	)
	work := make(chan fuzzRequest)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for fr := range work {
				u := base + fr.path
				if fr.query != "" {
					u += "?" + fr.query
				}
				req, err := http.NewRequest(fr.method, base, strings.NewReader(fr.body))
				if err != nil {
					t.Error(err)
					continue
				}
				// The path and query go to the server as written.
				req.URL.Opaque = strings.TrimPrefix(u, req.URL.Scheme+":")
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					failures[fr.route.method+" "+fr.route.path+" "+fr.what] = append(failures[fr.route.method+" "+fr.route.path+" "+fr.what],
						fmt.Sprintf("%s %.200s: %v", fr.method, u, err))
					mu.Unlock()
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				problem := checkAnswer(fr, resp.StatusCode, body)
				if err != nil {
					problem = err.Error()
				}
				mu.Lock()
				statuses[resp.StatusCode]++
				if problem != "" {
					k := fr.route.method + " " + fr.route.path + " " + fr.what
					failures[k] = append(failures[k], fmt.Sprintf("%s %.200s body %.80q: %s", fr.method, u, fr.body, problem))
				}
				mu.Unlock()
			}
		}()
	}
	for _, fr := range reqs {
		work <- fr
	}
	close(work)
	wg.Wait()

	t.Logf("%d routes, %d malformed requests; statuses %v", len(routes), len(reqs), statuses)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range failures {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		fs := failures[k]
		t.Errorf("%s: %d bad answers, e.g. %s", k, len(fs), fs[0])
	}
}

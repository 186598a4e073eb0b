package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

const reindexPath = "/v1/chains/43114/nfts/collections/0x0000000000000000000000000000000000000001/tokens/1:reindex"

// gateServer serves the real Data API with an anonymous tier that allows
// writes, so that what a request meets before its route shows.
func gateServer(t *testing.T) string {
	t.Helper()
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return serve(t, st, newAccess(t, AccessConfig{Keys: apikeys.NewCache(st, 0, nil)}))
}

// wantMetricsError checks a Metrics API error answer.
func wantMetricsError(t *testing.T, a answer, status int, msg string) {
	t.Helper()
	var body metricsapi.ErrorBody
	if err := json.Unmarshal([]byte(a.body), &body); err != nil || a.status != status || body.StatusCode != status ||
		len(body.Message) != 1 || !strings.Contains(body.Message[0], msg) {
		t.Errorf("answer %d %s, want %d with the Metrics API's body and a message containing %q", a.status, a.body, status, msg)
	}
}

// TestPostNeedsJSON: a POST route refuses a body that is not
// application/json with 415, so that a cross-site "simple" request (a
// form, text/plain, or no body at all) cannot fire it; a JSON one passes.
func TestPostNeedsJSON(t *testing.T) {
	base := gateServer(t)
	for _, path := range []string{aggPath, reindexPath} {
		for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
			"application/jsonx", "text/json"} {
			a := call(t, "POST", base+path, `{}`, "Content-Type", ct)
			wantError(t, a, http.StatusUnsupportedMediaType, "application/json")
			if a.header.Get("RateLimit-Limit") != "" {
				t.Errorf("POST %s as %q spent the quota", path, ct)
			}
		}
		for _, ct := range []string{"application/json", "Application/JSON; charset=utf-8"} {
			if a := call(t, "POST", base+path, `{}`, "Content-Type", ct); a.status == http.StatusUnsupportedMediaType {
				t.Errorf("POST %s as %q: %d %s", path, ct, a.status, a.body)
			}
		}
	}
	// An empty body with no type is what chainkit sends for :reindex.
	if a := call(t, "POST", base+reindexPath, ""); a.status == http.StatusUnsupportedMediaType {
		t.Errorf("POST %s without a body: %d %s", reindexPath, a.status, a.body)
	}
	// The node API answers as the node does (gorilla/rpc's own checks).
	if a := call(t, "POST", base+nodePath, `{}`, "Content-Type", "text/plain"); a.status != http.StatusOK {
		t.Errorf("node API: %d %s", a.status, a.body)
	}
}

// TestWrongMethod: a path served under other methods answers 405 with
// Allow, in its surface's error body, instead of a 404.
func TestWrongMethod(t *testing.T) {
	base := gateServer(t)
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", blocksPath, "GET, HEAD"},
		{"DELETE", aggPath, "POST"},
		{"GET", aggPath, "POST"},
		{"POST", blocksPath, "GET, HEAD"},
		{"POST", "/healthz", "GET, HEAD"},
	} {
		a := call(t, tc.method, base+tc.path, "", "Content-Type", "application/json")
		wantError(t, a, http.StatusMethodNotAllowed, tc.allow)
		if got := a.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
	a := call(t, "PATCH", base+metricsPath, "")
	wantMetricsError(t, a, http.StatusMethodNotAllowed, "GET")
	if a.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("PATCH %s: Allow %q", metricsPath, a.header.Get("Allow"))
	}
	// A path no route serves stays a 404.
	wantError(t, call(t, "PUT", base+"/v1/nothing", ""), http.StatusNotFound, "no route")
}

// TestUnknownExtPaths: a path under /ext/ that no route serves answers as
// the node does, a plain 404, outside the Data API's quota; the node API's
// routes are still served.
func TestUnknownExtPaths(t *testing.T) {
	base := gateServer(t)
	for _, p := range []string{"/ext/nothing", "/ext/bc/Z", "/ext/"} {
		a := call(t, "POST", base+p, `{}`, "Content-Type", "application/json")
		if a.status != http.StatusNotFound || a.body != "404 page not found\n" ||
			!strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") || a.header.Get("RateLimit-Limit") != "" {
			t.Errorf("POST %s: %d %v %q, want the node's plain 404 without a quota", p, a.status, a.header, a.body)
		}
	}
	if a := call(t, "POST", base+nodePath, `{}`, "Content-Type", "application/json"); a.status != http.StatusOK {
		t.Errorf("POST %s: %d %s", nodePath, a.status, a.body)
	}
}

// TestEmptyPathSegment: a path with an empty or dot segment is a 400 in
// the surface's error body, not a redirect to the cleaned path.
func TestEmptyPathSegment(t *testing.T) {
	base := gateServer(t)
	// call follows redirects: one to the cleaned path would answer 200.
	get := func(p string) answer { return call(t, "GET", base+p, "") }
	for _, p := range []string{"/v1//networks/local/blockchains/p-chain/blocks", "/v1/networks/local//blockchains",
		"/v1/networks/./local", "/v1/networks/local/../x", "/v1//", "/healthz/."} {
		wantError(t, get(p), http.StatusBadRequest, "empty or dot segment")
	}
	wantMetricsError(t, get("/v2//chains"), http.StatusBadRequest, "empty or dot segment")
	if a := get(blocksPath); a.status != http.StatusOK {
		t.Errorf("GET %s: %d %s", blocksPath, a.status, a.body)
	}
}

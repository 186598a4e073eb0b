package apidoc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/api"
)

// TestDocumentIsCurrent regenerates the served document from the
// reference, when it is beside the repository, and requires the committed
// one to be the same bytes.
func TestDocumentIsCurrent(t *testing.T) {
	ref := readReference(t, ReferenceFile, "openapi.json")
	own, err := os.ReadFile(OwnFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Build(ref, own, api.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Document(), want) {
		t.Errorf("openapi.json is not what %s and own.yaml give for the served routes: run go generate ./internal/apidoc", ReferenceFile)
	}
}

// TestBuild: the reference's operations are kept whole, with the
// components they reach and only those; an operation the reference lacks is
// an error naming it.
func TestBuild(t *testing.T) {
	ref := []byte(`{"openapi":"3.1.0","info":{"title":"ref"},"security":[{"apiKey":[]},{}],
	 "tags":[{"name":"A","description":"a"},{"name":"B"}],
	 "paths":{"/v1/a/{id}":{"get":{"operationId":"getA","tags":["A"],"x-speakeasy-name-override":"x","description":"d",
	   "parameters":[{"name":"pageSize","in":"query","example":"10","schema":{"type":"integer"}},{"name":"n","in":"query","example":"x","schema":{"type":"string"}}],
	   "responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}},
	   "post":{"operationId":"postA","tags":["B"]}}},
	 "components":{"schemas":{"A":{"type":"object","properties":{"b":{"$ref":"#/components/schemas/B"},"examples":{"type":"object","examples":{"k":1}}}},"B":{"type":"integer","maximum":9007199254740993},"Unused":{}},
	   "securitySchemes":{"apiKey":{"type":"apiKey","in":"header","name":"x-glacier-api-key"}}}}`)
	own := []byte("info: {title: mine, version: 2.0.0}\ntags: [{name: mine}]\npaths:\n  /healthz:\n    get: {operationId: h, tags: [mine]}\n")
	got, err := Build(ref, own, []string{"GET /v1/a/{id}"})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	ops, err := Operations(got)
	if err != nil {
		t.Fatal(err)
	}
	if want := "get /healthz,get /v1/a/{id}"; strings.Join(ops, ",") != want {
		t.Errorf("operations %q, want %s", ops, want)
	}
	s := string(got)
	// The reference's slips that validators refuse are mended: a schema's
	// examples object is a list of that one example (a property named
	// examples stays a property), a numeric parameter's example a number.
	for _, want := range []string{`"description": "d"`, `"maximum": 9007199254740993`, `"title": "mine"`, `"version": "2.0.0"`, `"x-glacier-api-key"`, `"name": "mine"`,
		`"example": 10,`, `"example": "x",`} {
		if !strings.Contains(s, want) {
			t.Errorf("document lacks %s:\n%s", want, s)
		}
	}
	var mended struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Examples []map[string]int `json:"examples"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(got, &mended); err != nil {
		t.Errorf("a schema's examples object is not made a list: %v", err)
	} else if ex := mended.Components.Schemas["A"].Properties["examples"].Examples; len(ex) != 1 || ex[0]["k"] != 1 {
		t.Errorf("a schema's examples object became %v, want [{k: 1}]", ex)
	}
	for _, absent := range []string{"Unused", "x-speakeasy", "postA", `"name": "B"`} {
		if strings.Contains(s, absent) {
			t.Errorf("document has %s:\n%s", absent, s)
		}
	}
	if _, err := Build(ref, []byte("info: {title: mine}"), nil); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("own.yaml without info.version: err = %v", err)
	}
	if _, err := Build(ref, own, []string{"DELETE /v1/a/{id}"}); err == nil || !strings.Contains(err.Error(), "DELETE /v1/a/{id}") {
		t.Errorf("an operation missing from the reference: err = %v", err)
	}
}

func TestSplitPattern(t *testing.T) {
	for pattern, want := range map[string]string{
		"GET /v1/x/{id}":              "get /v1/x/{id}",
		"/ext/bc/P":                   "post /ext/bc/P",
		"GET /{$}":                    "get /",
		"GET /files/{path...}":        "get /files/{path}",
		"POST /v1/a:b":                "post /v1/a:b",
		"POST /v1/t/{tokenIdReindex}": "post /v1/t/{tokenId}:reindex",
		"GET /v1/t/{reindex}":         "get /v1/t/{reindex}",
	} {
		m, p := SplitPattern(pattern)
		if got := m + " " + p; got != want {
			t.Errorf("SplitPattern(%q) = %q, want %q", pattern, got, want)
		}
	}
}

// TestDocsPageIsSelfContained: the page loads its viewer from avaindex
// itself, every file it names is served, and nothing points elsewhere.
func TestDocsPageIsSelfContained(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /docs", DocsHandler())
	mux.Handle("GET /docs/{file}", AssetHandler())
	mux.Handle("GET /openapi.json", OpenAPIHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	page := get(t, srv.URL+"/docs", "text/html; charset=utf-8")
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 2 {
		t.Fatalf("the page names %d files, want the viewer's script and style sheet:\n%s", len(refs), page)
	}
	for _, m := range refs {
		if !strings.HasPrefix(m[1], "/docs/") {
			t.Errorf("the page loads %s, not from /docs/", m[1])
		}
		get(t, srv.URL+m[1], "")
	}
	if !strings.Contains(page, `"/openapi.json"`) || !strings.Contains(page, "validatorUrl: null") {
		t.Errorf("the page does not point the viewer at /openapi.json with no validator:\n%s", page)
	}
	get(t, srv.URL+"/docs/LICENSE", "text/plain; charset=utf-8")
	for _, missing := range []string{"/docs/nope.js", "/docs/..%2fapidoc.go", "/docs/" + strings.Repeat("a", 60_000)} {
		resp, err := http.Get(srv.URL + missing)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e api.ErrorBody
		if resp.StatusCode != http.StatusNotFound || json.Unmarshal(body, &e) != nil || e.StatusCode != 404 || e.Message == "" {
			t.Errorf("GET %.60s: %d %.200s, want 404 with the error body", missing, resp.StatusCode, body)
		}
		// The message repeats at most a bounded prefix of the path.
		if len(body) > 1024 {
			t.Errorf("GET %.60s: a body of %d bytes, want at most 1024", missing, len(body))
		}
	}

	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(get(t, srv.URL+"/openapi.json", "application/json")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != OpenAPIVersion || len(doc.Paths) == 0 {
		t.Errorf("served document: openapi %q, %d paths", doc.OpenAPI, len(doc.Paths))
	}
}

func get(t *testing.T, url, contentType string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b.String())
	}
	if ct := resp.Header.Get("Content-Type"); contentType != "" && ct != contentType {
		t.Errorf("GET %s: Content-Type %q, want %q", url, ct, contentType)
	}
	return b.String()
}

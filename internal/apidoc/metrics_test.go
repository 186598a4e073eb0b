package apidoc

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/avaindex/avaindex/internal/metricsapi"
)

// TestMetricsDocumentIsCurrent: the committed Metrics API document is what
// the reference and metrics_own.yaml give for the Metrics API's routes.
func TestMetricsDocumentIsCurrent(t *testing.T) {
	ref := readReference(t, MetricsReferenceFile, MetricsDocumentFile)
	own, err := os.ReadFile(MetricsOwnFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := BuildMetrics(ref, own, metricsapi.Patterns())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(MetricsDocument(), want) {
		t.Errorf("%s is not what %s and %s give for the Metrics API's routes: run go generate ./internal/apidoc", MetricsDocumentFile, MetricsReferenceFile, MetricsOwnFile)
	}
}

// TestMetricsDocumentIsTheRoutes: the document's operations are the
// Metrics API's routes, no more and no fewer, and it is served.
func TestMetricsDocumentIsTheRoutes(t *testing.T) {
	documented, err := Operations(MetricsDocument())
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, p := range metricsapi.Patterns() {
		m, path := SplitPattern(p)
		served = append(served, m+" "+path)
	}
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("the Metrics API document has\n%s\nthe routes are\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
	// A route the reference lacks is an error naming it.
	ref := []byte("openapi: 3.1.0\npaths:\n  /v2/chains:\n    get: {operationId: listChains, responses: {200: {description: ok}}}\n")
	own := []byte("info: {title: m, version: 1.0.0}\n")
	if _, err := BuildMetrics(ref, own, []string{"GET /v2/nope"}); err == nil || !strings.Contains(err.Error(), "/v2/nope") {
		t.Errorf("a route the reference lacks: err = %v", err)
	}
	// An unquoted status code is a key of the JSON document.
	doc, err := BuildMetrics(ref, own, []string{"GET /v2/chains"})
	if err != nil || !strings.Contains(string(doc), `"200": {`) {
		t.Errorf("BuildMetrics: %v\n%s", err, doc)
	}

	rec := httptest.NewRecorder()
	MetricsOpenAPIHandler().ServeHTTP(rec, httptest.NewRequest("GET", MetricsDocumentPath, nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(rec.Body.Bytes(), MetricsDocument()) {
		t.Errorf("GET %s: %d %q, %d bytes", MetricsDocumentPath, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
}

// TestMetricsDocumentIsValidOpenAPI: as TestDocumentIsValidOpenAPI, for
// the Metrics API's document.
func TestMetricsDocumentIsValidOpenAPI(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(MetricsDocument())
	if err != nil {
		t.Fatalf("loading the Metrics API document: %v", err)
	}
	ctx := openapi3.WithValidationOptions(context.Background(), openapi3.EnableMultiError())
	if err := doc.Validate(ctx); err != nil {
		t.Errorf("the Metrics API document is not valid OpenAPI: %v", err)
	}
}

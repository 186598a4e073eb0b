package apidoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Files of the Metrics API's document.
const (
	// MetricsOwnFile gives the Metrics API document's info.
	MetricsOwnFile = "metrics_own.yaml"
	// MetricsDocumentFile is the generated Metrics API document.
	MetricsDocumentFile = "metrics-openapi.json"
	// MetricsDocumentPath is where the Metrics API document is served. It is
	// a document of its own, not part of /openapi.json: the two references
	// give different schemas under the same component names
	// (ListChainsResponse).
	MetricsDocumentPath = "/openapi/metrics.json"
)

//go:embed metrics-openapi.json
var metricsDocument []byte

// MetricsDocument returns the served Metrics API OpenAPI document.
func MetricsDocument() []byte { return metricsDocument }

// MetricsOpenAPIHandler serves the Metrics API document.
func MetricsOpenAPIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(metricsDocument)))
		_, _ = w.Write(metricsDocument)
	})
}

// BuildMetrics makes the Metrics API document: the operations of the
// Metrics API's reference (YAML) that patterns (the Metrics API's route
// patterns) name, as Build does for the Data API, with own's info.
func BuildMetrics(reference, own []byte, patterns []string) ([]byte, error) {
	var ref any
	if err := yaml.Unmarshal(reference, &ref); err != nil {
		return nil, fmt.Errorf("decoding the Metrics API reference: %w", err)
	}
	j, err := json.Marshal(stringKeys(ref))
	if err != nil {
		return nil, fmt.Errorf("the Metrics API reference as JSON: %w", err)
	}
	return Build(j, own, patterns)
}

// stringKeys returns v with every map's keys strings, as JSON needs (YAML
// keys such as an unquoted 200 decode as numbers).
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = stringKeys(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = stringKeys(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = stringKeys(x)
		}
		return v
	}
	return v
}

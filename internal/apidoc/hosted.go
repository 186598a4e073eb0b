package apidoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// The hosted services' reference documents, in the reference directory,
// and the list of their operations made from them.
const (
	MetricsReferenceFile = "metrics-api-openapi.yml"
	HostedFile           = "hosted.json"
)

// The APIs of HostedOperation.API.
const (
	DataAPI    = "Data API"
	MetricsAPI = "Metrics API"
)

// HostedOperation is an operation of the hosted Data API or Metrics API.
type HostedOperation struct {
	API         string `json:"api"`
	Method      string `json:"method"` // upper case
	Path        string `json:"path"`   // the reference's template
	OperationID string `json:"operationId"`
}

//go:embed hosted.json
var hostedJSON []byte

var hosted = func() []HostedOperation {
	var ops []HostedOperation
	if err := json.Unmarshal(hostedJSON, &ops); err != nil {
		panic(fmt.Sprintf("apidoc: %s: %v", HostedFile, err)) // generated, embedded: a broken build
	}
	return ops
}()

// HostedOperations returns every operation of the hosted services'
// references (hosted.json, made by go generate), sorted by API, path and
// method.
func HostedOperations() []HostedOperation { return slices.Clone(hosted) }

// BuildHosted makes hosted.json from the Data API's reference (JSON) and
// the Metrics API's (YAML).
func BuildHosted(dataRef, metricsRef []byte) ([]byte, error) {
	var ops []HostedOperation
	for _, ref := range []struct {
		api string
		doc []byte
	}{{DataAPI, dataRef}, {MetricsAPI, metricsRef}} {
		var doc struct {
			Paths map[string]map[string]any `yaml:"paths"`
		}
		if err := yaml.Unmarshal(ref.doc, &doc); err != nil { // JSON is YAML
			return nil, fmt.Errorf("decoding the %s reference: %w", ref.api, err)
		}
		if len(doc.Paths) == 0 {
			return nil, fmt.Errorf("the %s reference has no paths", ref.api)
		}
		for path, item := range doc.Paths {
			for method, op := range item {
				switch method {
				case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				default:
					continue
				}
				m, _ := op.(map[string]any)
				id, _ := m["operationId"].(string)
				if id == "" {
					return nil, fmt.Errorf("the %s reference's %s %s has no operationId", ref.api, strings.ToUpper(method), path)
				}
				ops = append(ops, HostedOperation{API: ref.api, Method: strings.ToUpper(method), Path: path, OperationID: id})
			}
		}
	}
	slices.SortFunc(ops, func(a, b HostedOperation) int {
		return strings.Compare(a.API+" "+a.Path+" "+a.Method, b.API+" "+b.Path+" "+b.Method)
	})
	b, err := json.MarshalIndent(ops, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

package service

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/metricsapi"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// TestUnservedIsReferenceLessRoutes: the operations the server answers
// 501 for are exactly the hosted references' operations (the copies
// openapitest embeds) that no route of the production route table, the
// Metrics API's included, serves.
func TestUnservedIsReferenceLessRoutes(t *testing.T) {
	routes := servedRoutes(t)
	network := &internal.Network{ID: 12345, Name: "local", HRP: "local", PChainID: ids.Empty, XChainID: ids.GenerateTestID(), CChainID: ids.GenerateTestID()}
	m, err := metricsapi.New(metricsapi.Deps{Store: struct{ metricsapi.Source }{}, Network: network, TokenKey: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	routes = append(routes, metricsRoutes(m)...)
	// A route serves an operation when its method and path are the
	// operation's, whatever its wildcards are named.
	wildcard := regexp.MustCompile(`\{[^}/]*\}`)
	served := map[string]bool{}
	for _, r := range routes {
		method, path := apidoc.SplitPattern(r.Pattern)
		served[strings.ToUpper(method)+" "+wildcard.ReplaceAllString(path, "{}")] = true
	}

	total := 0
	var want []string
	for _, file := range []string{openapitest.DefaultFile, openapitest.MetricsFile} {
		b, err := os.ReadFile(filepath.Join("..", "testing", "openapitest", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for path, item := range doc.Paths {
			for method := range item {
				if method == "parameters" {
					continue
				}
				total++
				method = strings.ToUpper(method)
				if !served[method+" "+wildcard.ReplaceAllString(path, "{}")] {
					want = append(want, method+" "+path)
				}
			}
		}
	}
	var got []string
	for _, op := range server.Unserved(routes) {
		got = append(got, op.Method+" "+op.Path)
	}
	slices.Sort(want)
	slices.Sort(got)
	for _, op := range want {
		if !slices.Contains(got, op) {
			t.Errorf("%s is unserved but not listed as such", op)
		}
	}
	for _, op := range got {
		if !slices.Contains(want, op) {
			t.Errorf("%s is served but listed as unserved", op)
		}
	}
	if len(want) == 0 || len(want) == total {
		t.Errorf("%d of %d operations unserved: the test found no served one or no unserved one", len(want), total)
	}
}

package service

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/store"
)

// servedRoutes is the route table avaindex serves for a network, with the
// production assembly (routeTable, server.Routes) and no store behind it.
func servedRoutes(t *testing.T) []server.Route {
	t.Helper()
	network := &internal.Network{ID: 12345, Name: "local", HRP: "local", PChainID: ids.Empty, XChainID: ids.GenerateTestID(), CChainID: ids.GenerateTestID()}
	dataAPI, err := api.New(api.Deps{Network: network, TokenKey: make([]byte, param.MinTokenKeyLen)})
	if err != nil {
		t.Fatal(err)
	}
	indexes := map[string]http.Handler{}
	for _, name := range store.IndexNames {
		indexes[name] = http.NotFoundHandler()
	}
	return server.Routes(server.Deps{Routes: routeTable(network, http.NotFoundHandler(), indexes, dataAPI.Routes())})
}

// TestOpenAPIDocumentsEveryRoute: the served OpenAPI document describes
// every served route and no other, and each JSON-RPC route's methods. A
// new route fails it until `go generate ./internal/apidoc` (a Data API
// route in the reference) or an entry in internal/apidoc/own.yaml (any
// other) documents it.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	routes := servedRoutes(t)
	documented, err := apidoc.Operations(apidoc.Document())
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, r := range routes {
		method, path := apidoc.SplitPattern(r.Pattern)
		served = append(served, method+" "+path)
	}
	slices.Sort(served)
	for _, op := range served {
		if _, found := slices.BinarySearch(documented, op); !found {
			t.Errorf("served but not in openapi.json: %s (run go generate ./internal/apidoc, or describe it in internal/apidoc/own.yaml)", op)
		}
	}
	for _, op := range documented {
		if _, found := slices.BinarySearch(served, op); !found {
			t.Errorf("in openapi.json but not served: %s", op)
		}
	}

	// The method enum of each JSON-RPC route's request body is what the
	// route dispatches.
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties struct {
					Method struct {
						Enum []string `json:"enum"`
					} `json:"method"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(apidoc.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		if len(r.RPCMethods) == 0 {
			continue
		}
		method, path := apidoc.SplitPattern(r.Pattern)
		ref := doc.Paths[path][method].RequestBody.Content["application/json"].Schema.Ref
		enum := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Properties.Method.Enum
		want := slices.Sorted(slices.Values(r.RPCMethods))
		if got := slices.Sorted(slices.Values(enum)); !slices.Equal(got, want) {
			t.Errorf("%s: the documented methods (%s) are %q, the route serves %q", path, ref, got, want)
		}
	}
}

package server

import (
	"net/http"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
)

// UsageRecorder takes each request the Data API and the node API serve
// (usage.Recorder): Record must not block.
type UsageRecorder interface {
	Record(r internal.APIRequest)
}

// recordsUsage tells whether requests to a surface's routes are recorded:
// the Data API's and the node API's, which the usage operations report.
func recordsUsage(s Surface) bool { return s == DataAPI || s == NodeAPI }

// withCaller returns r carrying an empty Caller, which the access check
// fills in and which the recorder reads once the request is served.
func withCaller(r *http.Request) (*http.Request, *api.Caller) {
	if c := api.CallerOf(r.Context()); c != nil {
		return r, c
	}
	c := &api.Caller{}
	return r.WithContext(api.WithCaller(r.Context(), c)), c
}

// recordUsage hands the served request to rec.
func recordUsage(rec UsageRecorder, r *http.Request, c *api.Caller, pattern string, s Surface, status int, start time.Time, rpcMethod string) {
	req := internal.APIRequest{
		Time: start, KeyID: c.KeyID, KeyName: c.KeyName, Type: internal.RequestTypeData,
		Route: pattern, Method: r.Method, Status: status, Duration: time.Since(start), RPCMethod: rpcMethod,
	}
	if s == NodeAPI {
		req.Type = internal.RequestTypeRPC
		req.ChainID = extChain(r.URL.Path)
	} else if req.ChainID = r.PathValue("blockchainId"); req.ChainID == "" {
		req.ChainID = r.PathValue("chainId")
	}
	rec.Record(req)
}

// extChain is the chain an /ext path names: /ext/bc/{chain}/...,
// /ext/index/{chain}/... or /ext/{chain} (e.g. /ext/P), "" for none.
func extChain(path string) string {
	rest, ok := strings.CutPrefix(path, "/ext/")
	if !ok {
		return ""
	}
	first, rest, _ := strings.Cut(rest, "/")
	if first == "bc" || first == "index" {
		first, _, _ = strings.Cut(rest, "/")
	}
	if len(first) > 64 { // bounded: the path is the client's
		first = first[:64]
	}
	return first
}

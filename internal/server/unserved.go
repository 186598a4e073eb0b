package server

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/apidoc"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/metricsapi"
)

// unservedOp is a hosted operation no route serves, and the paths it
// answers.
type unservedOp struct {
	apidoc.HostedOperation
	re *regexp.Regexp
	// literal is how much of the template is fixed text: the most
	// specific of several matching operations wins.
	literal int
}

// Unserved returns the hosted Data API and Metrics API operations that
// routes do not serve: the references' operations (apidoc.HostedOperations)
// less the routes' patterns, so that a route added to the table leaves
// the list by itself.
func Unserved(routes []Route) []apidoc.HostedOperation {
	served := map[string]bool{}
	for _, r := range routes {
		method, path := apidoc.SplitPattern(r.Pattern)
		served[strings.ToUpper(method)+" "+wildcards.ReplaceAllString(path, "{}")] = true
	}
	var out []apidoc.HostedOperation
	for _, op := range apidoc.HostedOperations() {
		if !served[op.Method+" "+wildcards.ReplaceAllString(op.Path, "{}")] {
			out = append(out, op)
		}
	}
	return out
}

// wildcards are a path template's variables, whose names do not matter.
var wildcards = regexp.MustCompile(`\{[^}/]*\}`)

// unservedOps compiles the operations routes do not serve.
func unservedOps(routes []Route) []unservedOp {
	ops := Unserved(routes)
	out := make([]unservedOp, 0, len(ops))
	for _, op := range ops {
		// A variable matches one non-empty segment, or part of one
		// ({tokenId}:reindex); the rest is literal.
		var b strings.Builder
		literal := 0
		b.WriteString("^")
		rest := op.Path
		for _, loc := range wildcards.FindAllStringIndex(op.Path, -1) {
			lit := op.Path[len(op.Path)-len(rest) : loc[0]]
			b.WriteString(regexp.QuoteMeta(lit))
			b.WriteString("[^/]+")
			literal += len(lit)
			rest = op.Path[loc[1]:]
		}
		b.WriteString(regexp.QuoteMeta(rest) + "$")
		literal += len(rest)
		out = append(out, unservedOp{HostedOperation: op, re: regexp.MustCompile(b.String()), literal: literal})
	}
	return out
}

// handleUnserved routes each operation of ops by its own pattern where
// ServeMux can (not a segment such as {tokenId}:reindex, nor a pattern that
// conflicts with a served one), so that a served route's wildcard does not
// take a request for it (GET /v1/chains/{chainId} would take
// /v1/chains/allBlocks); unservedOr answers the others on the not-found
// path.
func handleUnserved(handle func(pattern string, h http.Handler), guard func(Route) http.Handler, ops []unservedOp) {
	for _, op := range ops {
		surface := DataAPI
		if op.API == apidoc.MetricsAPI {
			surface = MetricsAPI
		}
		pattern := op.Method + " " + op.Path
		h := unservedOr([]unservedOp{op}, http.NotFoundHandler())
		func() {
			defer func() { _ = recover() }() // ServeMux refuses the pattern: the not-found path answers it
			handle(pattern, guard(Route{Pattern: pattern, Handler: h, Surface: surface}))
		}()
	}
}

// unservedOr answers a request for a hosted operation avaindex does not
// serve with 501 in its API's error body, naming the operation, and hands
// any other request (a path that is no operation) to notFound.
func unservedOr(ops []unservedOp, notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		var best *unservedOp
		for i, op := range ops {
			if op.Method == method && op.re.MatchString(r.URL.Path) && (best == nil || op.literal > best.literal) {
				best = &ops[i]
			}
		}
		if best == nil {
			notFound.ServeHTTP(w, r)
			return
		}
		err := derrors.Client(derrors.Unimplemented, "%s (%s %s) is an operation of the hosted %s; avaindex does not serve it",
			best.OperationID, best.Method, best.Path, best.API)
		if best.API == apidoc.MetricsAPI {
			metricsapi.WriteError(w, r, err)
			return
		}
		api.WriteError(w, r, err)
	})
}

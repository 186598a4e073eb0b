package server

import (
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/derrors"
)

// This file holds what the server answers before a route's own handler,
// so that a browser page of another origin cannot make a route act: a
// path with an empty or dot segment (400, where http.ServeMux would
// redirect), a method the path is not served under (405 with Allow), a
// POST body that is not JSON (415, so that a cross-site "simple" request
// cannot fire a write), and the CORS preflight, which allows only the
// methods and headers the route takes.

// probeMethods are the methods a 405's Allow and a preflight may list.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// gate is the handler in front of the route table.
type gate struct {
	mux *http.ServeMux
	// surfaces by pattern; fallbacks are the patterns that answer paths no
	// route serves ("/", "/v2/", "/ext/").
	surfaces  map[string]Surface
	fallbacks map[string]bool
	// jsonBody are the patterns whose POST must carry application/json.
	jsonBody map[string]bool
	access   *Access
}

func newGate(mux *http.ServeMux, surfaces map[string]Surface, fallbacks []string, access *Access) *gate {
	g := &gate{mux: mux, surfaces: surfaces, fallbacks: map[string]bool{}, jsonBody: map[string]bool{}, access: access}
	for _, f := range fallbacks {
		g.fallbacks[f] = true
	}
	for p := range surfaces {
		// Only patterns with a method: the node API's routes take any and
		// answer wrong methods and types as the node does (gorilla/rpc).
		// A fallback reads no body: an unserved operation is a 501 whatever
		// its type.
		if strings.HasPrefix(p, http.MethodPost+" ") && !g.fallbacks[p] {
			g.jsonBody[p] = true
		}
	}
	return g
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.EscapedPath(); !cleanPath(p) {
		// The mux names the route of the cleaned path it would redirect
		// to: the answer is in that route's surface's body.
		_, pattern := g.mux.Handler(r)
		g.writeError(g.surfaces[pattern])(w, r, derrors.Invalid("the path %s has an empty or dot segment", derrors.Echo(p)))
		return
	}
	if g.access != nil && isPreflight(r) {
		asked := *r
		asked.Method = r.Header.Get("Access-Control-Request-Method")
		_, pattern := g.mux.Handler(&asked)
		s := g.surfaces[pattern]
		methods, served := g.allowed(r)
		if len(methods) > 0 {
			s = served
		}
		if pol := g.access.Policies[s]; pol.CORS {
			g.access.cors.preflight(w, r, methods, allowedHeaders(pol, methods))
			return
		}
	}
	_, pattern := g.mux.Handler(r)
	if g.fallbacks[pattern] {
		if methods, s := g.allowed(r); len(methods) > 0 {
			allow := strings.Join(methods, ", ")
			w.Header().Set("Allow", allow)
			g.writeError(s)(w, r, derrors.Client(derrors.MethodNotAllowed,
				"%s is not served for %s: its methods are %s", derrors.Echo(r.Method), derrors.Echo(r.URL.Path), allow))
			return
		}
	}
	if r.Method == http.MethodPost && g.jsonBody[pattern] && !jsonOrEmpty(r) {
		g.writeError(g.surfaces[pattern])(w, r, derrors.Client(derrors.UnsupportedMediaType,
			"the body must be sent as Content-Type: application/json, not %s", derrors.Echo(r.Header.Get("Content-Type"))))
		return
	}
	g.mux.ServeHTTP(w, r)
}

// allowed returns the methods r's path is served under by a route, and
// that route's surface; none when no route serves the path.
func (g *gate) allowed(r *http.Request) ([]string, Surface) {
	var (
		methods []string
		s       Surface
	)
	probe := *r
	for _, m := range probeMethods {
		probe.Method = m
		if _, pattern := g.mux.Handler(&probe); !g.fallbacks[pattern] {
			methods = append(methods, m)
			s = g.surfaces[pattern]
		}
	}
	return methods, s
}

// allowedHeaders are the request headers a route of pol taking methods
// reads beyond the CORS-safelisted ones: Content-Type for a JSON body, the
// API key headers where keys are taken.
func allowedHeaders(pol Policy, methods []string) []string {
	var h []string
	for _, m := range methods {
		if m == http.MethodPost {
			h = append(h, "Content-Type")
			break
		}
	}
	if pol.Keys {
		h = append(h, api.HeaderDataAPIKey, api.HeaderGlacierAPIKey)
	}
	return h
}

// writeError is the error writer of surface s: its policy's, or the Data
// API's for the server's own routes.
func (g *gate) writeError(s Surface) func(http.ResponseWriter, *http.Request, error) {
	policies := DefaultPolicies(false)
	if g.access != nil {
		policies = g.access.Policies
	}
	if pol, ok := policies[s]; ok && pol.WriteError != nil {
		return pol.WriteError
	}
	return api.WriteError
}

// cleanPath tells whether the escaped path p has no empty or dot segment:
// the paths http.ServeMux would redirect (a trailing slash is no empty
// segment; an escaped slash or dot is no separator or dot segment).
func cleanPath(p string) bool {
	if p == "" || p == "/" {
		return true
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") {
		c += "/"
	}
	return c == p
}

// jsonOrEmpty tells whether r's body is declared JSON, or is empty with no
// Content-Type: what chainkit sends for an operation without a body
// (:reindex). Every cross-site form a browser can send without a preflight
// names its type (form-urlencoded, multipart or text/plain), so it is
// refused either way.
func jsonOrEmpty(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return isJSON(ct) || ct == "" && r.ContentLength == 0
}

// isJSON tells whether a Content-Type is application/json, with any
// parameters.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// extNotFound answers a path under /ext/ that no route serves as the node
// does: a plain 404, outside any surface's quota.
func extNotFound() http.Handler { return http.HandlerFunc(http.NotFound) }

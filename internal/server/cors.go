package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// exposedHeaders are the response headers a page may read: the rate
// limits, and what the signature aggregator tells of a signature.
var exposedHeaders = strings.Join([]string{
	"RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After",
	"X-Avaindex-Signed-Weight", "X-Avaindex-Total-Weight", "X-Avaindex-Signing-Subnet", "X-Avaindex-P-Chain-Height",
}, ", ")

// preflightMaxAge is how long a browser may keep a preflight's answer, in
// seconds.
const preflightMaxAge = "600"

// cors answers CORS for the surfaces whose policy allows it. No
// credentials are ever allowed: API keys travel in headers, not cookies.
type cors struct {
	any   bool
	exact map[string]bool
	// wild are "scheme://*.suffix" origins as scheme:// and .suffix.
	wild [][2]string
}

func newCORS(origins []string) (cors, error) {
	c := cors{exact: map[string]bool{}}
	for _, o := range origins {
		if o == "*" {
			c.any = true
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return cors{}, fmt.Errorf("CORS origin %q is not * or scheme://host[:port]", o)
		}
		if rest, ok := strings.CutPrefix(u.Host, "*."); ok {
			c.wild = append(c.wild, [2]string{strings.ToLower(u.Scheme) + "://", "." + strings.ToLower(rest)})
			continue
		}
		c.exact[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return c, nil
}

func (c *cors) allowed(origin string) bool {
	if c.any {
		return true
	}
	o := strings.ToLower(origin)
	if c.exact[o] {
		return true
	}
	for _, w := range c.wild {
		if host, ok := strings.CutPrefix(o, w[0]); ok && strings.HasSuffix(host, w[1]) && !strings.ContainsAny(host, "/@") {
			return true
		}
	}
	return false
}

// allowOrigin sets the headers that let the page of r's origin read the
// answer; false when r is not a cross-origin request of an allowed origin.
func (c *cors) allowOrigin(h http.Header, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	if c.any {
		h.Set("Access-Control-Allow-Origin", "*")
		return true
	}
	h.Add("Vary", "Origin")
	if !c.allowed(origin) {
		return false
	}
	h.Set("Access-Control-Allow-Origin", origin)
	return true
}

// simple answers CORS on an actual request.
func (c *cors) simple(h http.Header, r *http.Request) {
	if c.allowOrigin(h, r) {
		h.Set("Access-Control-Expose-Headers", exposedHeaders)
	}
}

// isPreflight tells whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// preflight answers a preflight for a route that allows CORS: 204, with
// the methods the path is served under and the request headers its route
// reads when the origin is allowed (the browser refuses any other); a
// page of another origin gets no CORS header, which its browser takes as
// a no.
func (c *cors) preflight(w http.ResponseWriter, r *http.Request, methods, headers []string) {
	h := w.Header()
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	if c.allowOrigin(h, r) {
		if len(methods) > 0 {
			h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
		}
		if len(headers) > 0 {
			h.Set("Access-Control-Allow-Headers", strings.Join(headers, ", "))
		}
		h.Set("Access-Control-Max-Age", preflightMaxAge)
	}
	w.WriteHeader(http.StatusNoContent)
}

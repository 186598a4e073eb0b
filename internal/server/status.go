package server

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
)

// statusHTML is the status page: /readyz's answer rendered by a script in
// the page, with no asset from anywhere else (the chart is inline SVG).
//
//go:embed status.html
var statusHTML string

var statusTemplate = template.Must(template.New("status").Parse(statusHTML))

// statusPage serves the status page at /, starting from /readyz's answer
// at the time of the request, which the page then refreshes itself.
func statusPage(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, _ := readinessOf(r.Context(), d)
		// encoding/json escapes <, > and &: the text cannot end the script.
		b, err := json.Marshal(res)
		if err != nil {
			http.Error(w, "encoding the status: "+err.Error(), http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		if err := statusTemplate.Execute(&buf, template.JS(b)); err != nil {
			http.Error(w, "rendering the status page: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
	})
}

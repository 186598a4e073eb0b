// Package apidoc serves the OpenAPI document of what avaindex serves, at
// /openapi.json, and the API reference page rendered from it at /docs by a
// viewer bundled into the binary (Swagger UI, from the npm package
// swagger-ui-dist, Apache-2.0: viewer/dist/LICENSE), so that the page needs
// no network.
//
// The document is generated (gen, Build) from the hosted Data API's
// reference restricted to the routes avaindex serves, plus own.yaml for the
// routes it has no reference for; both are committed and embedded.
package apidoc

import (
	"embed"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/derrors"
)

//go:generate go run ./gen
//go:generate sh viewer/vendor.sh

// Files of this directory.
const (
	// ReferenceFile is the reference document, in the reference directory.
	ReferenceFile = "data-api-openapi.json"
	// OwnFile describes the routes the reference does not have.
	OwnFile = "own.yaml"
	// DocumentFile is the generated document that is served.
	DocumentFile = "openapi.json"
)

var (
	//go:embed openapi.json
	document []byte
	//go:embed viewer/dist
	viewer embed.FS
)

// Document returns the served OpenAPI document.
func Document() []byte { return document }

// OpenAPIHandler serves the document.
func OpenAPIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(document)))
		_, _ = w.Write(document)
	})
}

// docsPage loads the viewer's files from avaindex itself and points it at
// /openapi.json. validatorUrl null: Swagger UI would otherwise send the
// document to a validator on the internet.
var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>avaindex API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<style>body{margin:0} .topbar{display:none}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: {{.}},
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false
});
</script>
</body>
</html>
`))

// DocsHandler serves the API reference page.
func DocsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = docsPage.Execute(w, "/openapi.json")
	})
}

// AssetHandler serves the viewer's files, /docs/{file}.
func AssetHandler() http.Handler {
	dist, err := fs.Sub(viewer, "viewer/dist")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		b, err := fs.ReadFile(dist, name)
		if err != nil || !fs.ValidPath(name) {
			// A missing file is a 404 with the Data API's error body, as
			// every other path avaindex does not serve.
			api.WriteError(w, r, derrors.Missing("no file %s in /docs", derrors.Echo(name)))
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		// The files change only with the binary.
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(b)
	})
}

package apidoc

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDocumentIsValidOpenAPI: the served document passes an OpenAPI
// validator (kin-openapi, which knows 3.1), so that tools that read it
// (code generators, viewers, gateways) accept it.
func TestDocumentIsValidOpenAPI(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(Document())
	if err != nil {
		t.Fatalf("loading the served document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("the served document is OpenAPI %s, want %s", doc.OpenAPI, OpenAPIVersion)
	}
	ctx := openapi3.WithValidationOptions(context.Background(), openapi3.EnableMultiError())
	if err := doc.Validate(ctx); err != nil {
		t.Errorf("the served document is not valid OpenAPI: %v", err)
	}
}

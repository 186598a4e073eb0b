package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recordingTB records Errorf calls instead of failing.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func wantValid(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("want valid, got:\n%v", err)
	}
}

// wantInvalid requires a *ValidationError mentioning every fragment.
func wantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("want a ValidationError, got %v", err)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("problems do not mention %q:\n%v", f, err)
		}
	}
}

func TestBadRequestSchema(t *testing.T) {
	d := Default(t)
	for _, body := range []string{
		`{"message":"pageSize must be an integer","statusCode":400,"error":"Bad Request"}`,
		`{"message":["a","b"],"statusCode":400,"error":"Bad Request"}`,
		`{"message":"x","statusCode":400,"error":"Bad Request","extra":1}`,
		"{\"message\":\"x\",\"statusCode\":400.0,\"error\":\"Bad Request\"}\n",
	} {
		wantValid(t, d.CheckSchema("BadRequest", []byte(body)))
	}
	for _, tc := range []struct{ body, want string }{
		{`{"statusCode":400,"error":"Bad Request"}`, `required property "message" is missing`},
		{`{"message":"x","statusCode":"400","error":"Bad Request"}`, `$.statusCode: want number, got string "400"`},
		{`{"message":null,"statusCode":400,"error":"Bad Request"}`, `$.message: value matches none`},
		{`{"message":5,"statusCode":400,"error":"Bad Request"}`, `$.message: value matches none`},
		{`{"message":["a",1],"statusCode":400,"error":"Bad Request"}`, `want string, got number 1`},
		{`{"message":"x","statusCode":400,"error":null}`, `$.error: want string, got null`},
		{`[]`, `$: want object, got array`},
		{``, `empty body`},
		{`{"message":"x"`, `invalid JSON`},
		{`{"message":"x","statusCode":400,"error":"Bad Request"} {}`, `data after the first value`},
	} {
		wantInvalid(t, d.CheckSchema("BadRequest", []byte(tc.body)), tc.want)
	}
}

const goodBlocks = `{
  "blocks": [{
    "blockNumber": "12", "blockHash": "h", "parentHash": "p",
    "blockTimestamp": 1700000000, "blockType": "BanffStandardBlock",
    "txCount": 1, "transactions": ["t"], "blockSizeBytes": 300,
    "activeL1Validators": 0, "currentSupply": "1000",
    "proposerDetails": {"proposerId": "x", "proposerPChainHeight": 3}
  }],
  "chainInfo": {"chainName": "p-chain", "network": "fuji"},
  "nextPageToken": "abc"
}`

func TestListPrimaryNetworkBlocksResponseSchema(t *testing.T) {
	d := Default(t)
	wantValid(t, d.CheckSchema("ListPrimaryNetworkBlocksResponse", []byte(goodBlocks)))
	wantValid(t, d.CheckSchema("ListPrimaryNetworkBlocksResponse", []byte(`{"blocks":[],"chainInfo":{"chainName":"x-chain","network":"testnet"}}`)))

	for _, tc := range []struct{ from, to, want string }{
		{`"chainInfo": {"chainName": "p-chain", "network": "fuji"},`, ``, `required property "chainInfo" is missing`},
		{`"network": "fuji"`, `"network": "local"`, `$.chainInfo.network: string "local" is not one of the enum values`},
		{`"chainName": "p-chain"`, `"chainName": "P"`, `$.chainInfo.chainName: string "P" is not one of`},
		{`"blockTimestamp": 1700000000`, `"blockTimestamp": "1700000000"`, `$.blocks[0].blockTimestamp: want number, got string`},
		{`"blockNumber": "12"`, `"blockNumber": 12`, `$.blocks[0].blockNumber: want string, got number 12`},
		{`"transactions": ["t"]`, `"transactions": null`, `$.blocks[0].transactions: want array, got null`},
		{`"transactions": ["t"], `, ``, `$.blocks[0]: required property "transactions" is missing`},
		{`"nextPageToken": "abc"`, `"nextPageToken": null`, `$.nextPageToken: want string, got null`},
		{`{"proposerId": "x", "proposerPChainHeight": 3}`, `null`, `$.blocks[0].proposerDetails: want object, got null`},
		{`"proposerPChainHeight": 3`, `"proposerPChainHeight": "3"`, `proposerPChainHeight: want number`},
		{`"activeL1Validators": 0`, `"activeL1Validators": true`, `activeL1Validators: want number, got boolean true`},
	} {
		body := strings.Replace(goodBlocks, tc.from, tc.to, 1)
		if body == goodBlocks {
			t.Fatalf("replacement %q did not apply", tc.from)
		}
		wantInvalid(t, d.CheckSchema("ListPrimaryNetworkBlocksResponse", []byte(body)), tc.want)
	}
}

func TestCheckResponse(t *testing.T) {
	d := Default(t)
	const tmpl = "/v1/networks/{network}/blockchains/{blockchainId}/blocks"
	wantValid(t, d.CheckResponse("GET", tmpl, 200, []byte(goodBlocks)))
	wantValid(t, d.CheckResponse("get", "/v1/networks/fuji/blockchains/p-chain/blocks?pageSize=3", 200, []byte(goodBlocks)))
	errBody := `{"message":"x","statusCode":503,"error":"Service Unavailable"}`
	wantValid(t, d.CheckResponse("GET", tmpl, 503, []byte(errBody)))
	wantInvalid(t, d.CheckResponse("GET", tmpl, 200, []byte(errBody)), `required property "blocks" is missing`)

	// Literal colons and a wildcard followed by a literal in one segment.
	reindex := "/v1/chains/43113/nfts/collections/0xabc/tokens/7:reindex"
	wantValid(t, d.CheckResponse("POST", reindex, 201, nil))
	wantInvalid(t, d.CheckResponse("POST", reindex, 201, []byte(`{}`)), "documents no body")

	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", tmpl, 418, "status 418 is not documented"},
		{"GET", "/v1/nope", 200, "no operation GET /v1/nope"},
		{"DELETE", tmpl, 200, "no operation DELETE"},
	} {
		err := d.CheckResponse(tc.method, tc.path, tc.status, []byte(`{}`))
		var ve *ValidationError
		if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckResponse(%s %s %d) = %v, want a lookup error mentioning %q", tc.method, tc.path, tc.status, err, tc.want)
		}
	}
	if err := d.CheckSchema("NoSuchSchema", []byte(`{}`)); err == nil {
		t.Error("CheckSchema of an unknown schema succeeded")
	}
	if m, p, ok := d.OperationPath("listLatestPrimaryNetworkBlocks"); !ok || m != "GET" || p != tmpl {
		t.Errorf("OperationPath = %s %s %v", m, p, ok)
	}
}

func TestValidateFailsTheTest(t *testing.T) {
	d := Default(t)
	rt := &recordingTB{TB: t}
	d.ValidateSchema(rt, "BadRequest", []byte(`{"message":"x"}`))
	d.ValidateResponse(rt, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks", 200, []byte(`{}`))
	if len(rt.errs) != 2 {
		t.Fatalf("recorded %d errors, want 2: %q", len(rt.errs), rt.errs)
	}

	rt = &recordingTB{TB: t}
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "text/plain")
	rec.WriteHeader(http.StatusBadRequest)
	rec.WriteString(`{"message":"x","statusCode":400,"error":"Bad Request"}`)
	d.ValidateRecorder(rt, "GET", "/v1/networks/fuji/blockchains/p-chain/blocks", rec)
	if len(rt.errs) != 1 || !strings.Contains(rt.errs[0], "Content-Type") {
		t.Errorf("ValidateRecorder errors = %q, want one about Content-Type", rt.errs)
	}

	rt = &recordingTB{TB: t}
	ValidateSchema(rt, "BadRequest", []byte(`{"message":"x","statusCode":400,"error":"Bad Request"}`))
	ValidateResponse(rt, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks", 400, []byte(`{"message":"x","statusCode":400,"error":"Bad Request"}`))
	if len(rt.errs) != 0 {
		t.Errorf("valid bodies failed: %q", rt.errs)
	}
}

// synthetic is a small document exercising every supported keyword.
const synthetic = `{
  "openapi": "3.1.0",
  "paths": {},
  "components": {"schemas": {
    "Int": {"type": "integer", "minimum": 1, "maximum": 10},
    "Excl": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "NullStr": {"type": ["string", "null"]},
    "Nullable": {"nullable": true, "allOf": [{"$ref": "#/components/schemas/Obj"}]},
    "NotNullable": {"allOf": [{"$ref": "#/components/schemas/Obj"}]},
    "Obj": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    "Closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
    "Map": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "Const": {"const": "x"},
    "Enum": {"type": "string", "enum": ["A", "B"]},
    "NumEnum": {"enum": [1, 2]},
    "Any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "Cat": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["cat"]}, "meow": {"type": "boolean"}}, "required": ["kind", "meow"]},
    "Dog": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["dog"]}, "bark": {"type": "boolean"}}, "required": ["kind", "bark"]},
    "Pet": {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
            "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"}}},
    "Both": {"allOf": [{"$ref": "#/components/schemas/Obj"}, {"type": "object", "required": ["b"]}]},
    "Arr": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    "Str": {"type": "string", "minLength": 2, "maxLength": 3},
    "Time": {"type": "string", "format": "date-time"},
    "Loop": {"$ref": "#/components/schemas/Loop"},
    "Weird": {"type": "string", "pattern": "^a$"},
    "a/b": {"type": "boolean"}
  }}
}`

func TestKeywords(t *testing.T) {
	d, err := Parse([]byte(synthetic))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, body string
		want         string // "" means valid
	}{
		{"Int", `5`, ""},
		{"Int", `5.0`, ""},
		{"Int", `1e1`, ""},
		{"Int", `5.5`, "want integer, got number 5.5"},
		{"Int", `0`, "must be >= 1"},
		{"Int", `11`, "must be <= 10"},
		{"Int", `"5"`, "want integer"},
		{"Int", `1e999`, "want integer"},
		{"Excl", `0.5`, ""},
		{"Excl", `0`, "must be > 0"},
		{"Excl", `1`, "must be < 1"},
		{"NullStr", `null`, ""},
		{"NullStr", `"s"`, ""},
		{"NullStr", `1`, "want string or null"},
		{"Nullable", `null`, ""},
		{"Nullable", `{"a":"x"}`, ""},
		{"Nullable", `{}`, `required property "a"`},
		{"NotNullable", `null`, "want object, got null"},
		{"Closed", `{"a":"x"}`, ""},
		{"Closed", `{"a":"x","b":1}`, `property "b" is not allowed`},
		{"Obj", `{"a":"x","b":1}`, ""},
		{"Map", `{"x":true,"y":false}`, ""},
		{"Map", `{"x":1}`, "$.x: want boolean"},
		{"Const", `"x"`, ""},
		{"Const", `"y"`, "is not the constant"},
		{"Enum", `"A"`, ""},
		{"Enum", `"a"`, `string "a" is not one of the enum values ["A","B"]`},
		{"NumEnum", `2.0`, ""},
		{"NumEnum", `3`, "not one of the enum values"},
		{"Any", `"s"`, ""},
		{"Any", `3`, ""},
		{"Any", `3.5`, "matches none of the 2 anyOf alternatives"},
		{"Pet", `{"kind":"cat","meow":true}`, ""},
		{"Pet", `{"kind":"dog","bark":true}`, ""},
		{"Pet", `{"kind":"dog","meow":true}`, `required property "bark"`},
		{"Pet", `{"kind":"cow"}`, `discriminator kind "cow" is not one of cat, dog`},
		{"Pet", `{"meow":true}`, `discriminator property "kind" must be a string`},
		{"Pet", `"cat"`, "matches none of the 2 oneOf alternatives"},
		{"Both", `{"a":"x","b":1}`, ""},
		{"Both", `{"a":"x"}`, `required property "b"`},
		{"Arr", `[1]`, ""},
		{"Arr", `[]`, "fewer than 1 items"},
		{"Arr", `[1,2,3]`, "more than 2 items"},
		{"Arr", `[1,"2"]`, "$[1]: want integer"},
		{"Str", `"ab"`, ""},
		{"Str", `"a"`, "shorter than 2"},
		{"Str", `"abcd"`, "longer than 3"},
		{"Time", `"2024-01-02T03:04:05.123Z"`, ""},
		{"Time", `"yesterday"`, "not an RFC 3339 date-time"},
		{"Loop", `1`, "cyclic $ref"},
		{"Weird", `"a"`, `keyword "pattern"`},
		{"a/b", `true`, ""},
	} {
		err := d.CheckSchema(tc.schema, []byte(tc.body))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s %s: want valid, got:\n%v", tc.schema, tc.body, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want a problem mentioning %q", tc.schema, tc.body, err, tc.want)
		}
	}
}

// TestDocumentKeywords proves the validator understands every keyword the
// reference documents use in a schema position.
func TestDocumentKeywords(t *testing.T) {
	for _, name := range []string{DefaultFile, MetricsFile} {
		t.Run(name, func(t *testing.T) { documentKeywords(t, Load(t, name)) })
	}
}

func documentKeywords(t *testing.T, d *Doc) {
	var walk func(s any, at string)
	walk = func(s any, at string) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		for k, v := range m {
			if _, ok := keywords[k]; !ok && !strings.HasPrefix(k, "x-") {
				t.Errorf("%s: unsupported keyword %q", at, k)
			}
			switch k {
			case "properties":
				if pm, ok := v.(map[string]any); ok {
					for name, ps := range pm {
						walk(ps, at+"/properties/"+name)
					}
				}
			case "items", "additionalProperties":
				walk(v, at+"/"+k)
			case "oneOf", "anyOf", "allOf":
				if l, ok := v.([]any); ok {
					for i, x := range l {
						walk(x, fmt.Sprintf("%s/%s/%d", at, k, i))
					}
				}
			}
		}
	}
	schemas := d.root["components"].(map[string]any)["schemas"].(map[string]any)
	for name, s := range schemas {
		walk(s, "#/components/schemas/"+name)
	}
	for p, item := range d.root["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			resps, _ := o["responses"].(map[string]any)
			for code, r := range resps {
				content, _ := r.(map[string]any)["content"].(map[string]any)
				for ct, media := range content {
					walk(media.(map[string]any)["schema"], fmt.Sprintf("%s %s %s %s", m, p, code, ct))
				}
			}
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("load of a missing document: %v, want an error naming it", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`[1]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(filepath.Join(dir, "bad.json")); err == nil {
		t.Error("load of a non-object document succeeded")
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`{"paths":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d1, err := load(ok)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := load(filepath.Join(dir, ".", "ok.json"))
	if d1 != d2 {
		t.Error("documents are not cached by path")
	}

	// The embedded documents load whatever the working directory and
	// whatever lies beside the repository.
	t.Chdir(dir)
	t.Setenv(EnvReferenceDir, filepath.Join(dir, "nowhere"))
	for name, want := range map[string]string{"": "listLatestPrimaryNetworkBlocks", DefaultFile: "listLatestPrimaryNetworkBlocks", MetricsFile: "getAvgTps"} {
		d, err := load(name)
		if err != nil {
			t.Errorf("load(%q): %v", name, err)
			continue
		}
		if _, _, ok := d.OperationPath(want); !ok {
			t.Errorf("load(%q) = %s, which has no operation %s", name, d.Path(), want)
		}
	}
}

func TestReduce(t *testing.T) {
	const full = `{
  "openapi": "3.1.0",
  "info": {"title": "T", "version": "1"},
  "servers": [{"url": "https://example.com"}],
  "tags": [{"name": "t"}],
  "x-speakeasy-retries": {"strategy": "backoff"},
  "paths": {
    "/v1/things/{id}": {
      "summary": "things",
      "get": {
        "operationId": "getThing", "summary": "s", "description": "d", "tags": ["t"],
        "x-codeSamples": [{"lang": "js"}],
        "parameters": [{"name": "id", "in": "path", "required": true, "description": "d",
                        "schema": {"type": "string", "example": "x"}, "examples": {"a": {"value": "y"}}}],
        "responses": {
          "200": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Thing"}, "example": {"description": "kept?"}}}},
          "400": {"description": "bad", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BadRequest"}}}}
        }
      }
    }
  },
  "components": {
    "securitySchemes": {"key": {"type": "apiKey"}},
    "examples": {"e": {"value": 1}},
    "schemas": {
      "Thing": {
        "type": "object", "title": "Thing", "description": "a thing",
        "properties": {
          "description": {"type": "string", "description": "a property named description"},
          "example": {"type": "integer", "minimum": 0},
          "x-custom": {"type": "boolean"},
          "kind": {"type": "string", "enum": ["description", "example"], "default": "example"}
        },
        "required": ["description", "example"],
        "additionalProperties": false,
        "x-speakeasy-name-override": "T"
      },
      "BadRequest": {"type": "object", "properties": {"message": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string", "description": "d"}}]}},
                     "discriminator": {"propertyName": "message", "mapping": {"description": "#/components/schemas/Thing"}}}
    }
  }
}`
	const want = `{
  "openapi": "3.1.0",
  "paths": {"/v1/things/{id}": {"get": {
    "operationId": "getThing",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {
      "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
      "400": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/BadRequest"}}}}
    }
  }}},
  "components": {"schemas": {
    "Thing": {
      "type": "object",
      "properties": {
        "description": {"type": "string"},
        "example": {"type": "integer", "minimum": 0},
        "x-custom": {"type": "boolean"},
        "kind": {"type": "string", "enum": ["description", "example"], "default": "example"}
      },
      "required": ["description", "example"],
      "additionalProperties": false
    },
    "BadRequest": {"type": "object", "properties": {"message": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}},
                   "discriminator": {"propertyName": "message", "mapping": {"description": "#/components/schemas/Thing"}}}
  }}
}`
	got, err := Reduce("doc.json", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("reduced document is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("Reduce =\n%s\nwant the equivalent of\n%s", got, want)
	}
	again, err := Reduce("doc.json", []byte(full))
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("Reduce is not deterministic: %v", err)
	}

	// The same document in YAML reduces to the same bytes: status codes are
	// strings, numbers keep their value.
	const yamlDoc = `
openapi: 3.1.0
paths:
  /v1/n:
    get:
      operationId: n
      description: gone
      responses:
        200:
          content:
            application/json:
              schema:
                type: integer
                minimum: 0
                maximum: 1.5
                enum: [1, 0x10]
                nullable: true
`
	const yamlWant = `{"openapi": "3.1.0", "paths": {"/v1/n": {"get": {"operationId": "n", "responses": {"200": {"content": {"application/json": {"schema": {"type": "integer", "minimum": 0, "maximum": 1.5, "enum": [1, 16], "nullable": true}}}}}}}}}`
	got, err = Reduce("doc.yml", []byte(yamlDoc))
	if err != nil {
		t.Fatal(err)
	}
	g, w = nil, nil
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(yamlWant), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("Reduce of YAML =\n%s\nwant the equivalent of\n%s", got, yamlWant)
	}
	if _, err := Reduce("doc.yml", []byte("a: .inf\n")); err == nil {
		t.Error("Reduce accepted a number JSON cannot hold")
	}
}

// TestReducedCopiesAreCurrent regenerates the embedded documents from the
// full reference documents, when they are beside the repository, and
// requires the committed copies to be the same bytes.
func TestReducedCopiesAreCurrent(t *testing.T) {
	dir := ReferenceDir(t)
	for name, src := range Sources {
		full, err := os.ReadFile(filepath.Join(dir, src))
		if errors.Is(err, fs.ErrNotExist) {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing under CI=true, where ../shared/reference must be present", filepath.Join(dir, src))
			}
			t.Skipf("SKIP: %s is not here (a clone without ../shared): the embedded copies cannot be compared with it", filepath.Join(dir, src))
		}
		if err != nil {
			t.Fatal(err)
		}
		want, err := Reduce(src, full)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := embedded.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/%s is not the reduction of %s: run go generate ./internal/testing/openapitest", name, filepath.Join(dir, src))
		}
	}
}

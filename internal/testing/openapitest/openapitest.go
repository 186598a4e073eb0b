// Package openapitest validates Data API (and Metrics API) responses in
// tests against the reference OpenAPI 3.1 documents of the real services,
// embedded in reduced form.
//
// The validator is as strict as the generated zod client of
// @avalanche-sdk/chainkit: a missing required property, a value of the wrong
// JSON type (string vs number, integer vs fraction), a null the schema does
// not allow, or an enum value outside the list is an error. Like that
// client, it accepts properties a schema does not declare (unless the schema
// says additionalProperties: false), and it treats oneOf like anyOf (a value
// must match at least one alternative; overlapping alternatives are not an
// error). With a discriminator, the value is checked against the mapped
// alternative only.
//
// Supported schema keywords: $ref, type (a name or an array of names,
// including "null"), nullable, properties, required, additionalProperties,
// items, enum, const, oneOf, anyOf, allOf, discriminator, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
// maxItems and format "date-time"; annotations are ignored. Any other
// keyword is reported, so a schema the validator cannot judge never passes
// silently.
package openapitest

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The reference documents tests validate against are embedded: reduced
// copies of the full documents in ../shared/reference, made by `go
// generate` (see Reduce), so the tests need nothing outside the repository.
//
//go:generate go run ./reduce
//go:embed testdata/*.json
var embedded embed.FS

// DefaultFile is the embedded Data API reference document.
const DefaultFile = "data-api-openapi.json"

// MetricsFile is the embedded Metrics API reference document.
const MetricsFile = "metrics-api-openapi.json"

// EnvReferenceDir overrides the directory of the full reference documents
// the embedded copies are made from.
const EnvReferenceDir = "AVAINDEX_REFERENCE_DIR"

// Doc is a loaded OpenAPI document. It is immutable and safe for concurrent
// use.
type Doc struct {
	path string
	root map[string]any
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Doc{}
)

// ReferenceDir returns the directory of the full reference documents (see
// LocateReferenceDir); it fails the test when there is no go.mod to start
// from. The directory need not exist.
func ReferenceDir(t testing.TB) string {
	t.Helper()
	dir, err := LocateReferenceDir()
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	return dir
}

// LocateReferenceDir returns $AVAINDEX_REFERENCE_DIR when set, otherwise
// ../shared/reference relative to the repository root.
func LocateReferenceDir() (string, error) {
	if d := os.Getenv(EnvReferenceDir); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("%w; set %s to the directory holding %s", err, EnvReferenceDir, Sources[DefaultFile])
	}
	return filepath.Join(root, "..", "shared", "reference"), nil
}

// RepoRoot returns the nearest directory above the working directory that
// holds go.mod.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
		dir = parent
	}
}

// Load returns an OpenAPI document: "" means DefaultFile; DefaultFile and
// MetricsFile are the embedded reference documents; any other path is a
// JSON file on disk. A missing or malformed document fails the test.
// Documents are cached per process.
func Load(t testing.TB, path string) *Doc {
	t.Helper()
	d, err := load(path)
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	return d
}

// Default returns the Data API reference document (Load(t, "")).
func Default(t testing.TB) *Doc {
	t.Helper()
	return Load(t, "")
}

// Metrics returns the Metrics API reference document.
func Metrics(t testing.TB) *Doc {
	t.Helper()
	return Load(t, MetricsFile)
}

// embeddedName is the name under which an embedded document is cached; no
// file path looks like it.
func embeddedName(name string) string { return "embedded:" + name }

func load(path string) (*Doc, error) {
	if path == "" {
		path = DefaultFile
	}
	read := func() ([]byte, error) { return os.ReadFile(path) }
	if _, ok := Sources[path]; ok {
		name := path
		path = embeddedName(name)
		read = func() ([]byte, error) { return embedded.ReadFile("testdata/" + name) }
	} else {
		path = filepath.Clean(path)
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if d, ok := cache[path]; ok {
		return d, nil
	}
	b, err := read()
	if err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	d, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.path = path
	cache[path] = d
	return d, nil
}

// Parse returns the OpenAPI document in b.
func Parse(b []byte) (*Doc, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("parsing OpenAPI document: %v", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("OpenAPI document is not a JSON object")
	}
	if _, ok := root["paths"].(map[string]any); !ok {
		return nil, errors.New("OpenAPI document has no paths")
	}
	return &Doc{root: root}, nil
}

// Path returns the file the document was loaded from ("embedded:NAME" for
// an embedded document, "" when parsed).
func (d *Doc) Path() string { return d.path }

// decodeJSON decodes exactly one JSON value, keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty body, want JSON")
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: data after the first value")
	}
	return v, nil
}

// ValidationError lists what is wrong with a body.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	return strings.Join(e.Problems, "\n")
}

// ValidateSchema fails the test unless body is valid against
// components.schemas[schemaName].
func (d *Doc) ValidateSchema(t testing.TB, schemaName string, body []byte) {
	t.Helper()
	if err := d.CheckSchema(schemaName, body); err != nil {
		t.Errorf("body does not match schema %s:\n%v\nbody: %s", schemaName, err, clip(body))
	}
}

// ValidateResponse fails the test unless body is a valid response of the
// operation at method and path with the given status. path is a path
// template of the document ("/v1/networks/{network}/blockchains/{blockchainId}/blocks")
// or a concrete request path matching one.
func (d *Doc) ValidateResponse(t testing.TB, method, path string, status int, body []byte) {
	t.Helper()
	if err := d.CheckResponse(method, path, status, body); err != nil {
		t.Errorf("%s %s %d: response does not match the document:\n%v\nbody: %s", method, path, status, err, clip(body))
	}
}

// ValidateRecorder is ValidateResponse for a recorded response; it also
// requires Content-Type application/json on a JSON body.
func (d *Doc) ValidateRecorder(t testing.TB, method, path string, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	if len(bytes.TrimSpace(body)) > 0 {
		ct := rec.Header().Get("Content-Type")
		if mt, _, _ := strings.Cut(ct, ";"); strings.TrimSpace(strings.ToLower(mt)) != "application/json" {
			t.Errorf("%s %s: Content-Type is %q, want application/json", method, path, ct)
		}
	}
	d.ValidateResponse(t, method, path, rec.Code, body)
}

// ValidateSchema validates body against a schema of the default document.
func ValidateSchema(t testing.TB, schemaName string, body []byte) {
	t.Helper()
	Default(t).ValidateSchema(t, schemaName, body)
}

// ValidateResponse validates a response against the default document.
func ValidateResponse(t testing.TB, method, pathTemplate string, status int, body []byte) {
	t.Helper()
	Default(t).ValidateResponse(t, method, pathTemplate, status, body)
}

func clip(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// CheckSchema returns a *ValidationError when body is not valid against
// components.schemas[schemaName], or another error when the schema does not
// exist.
func (d *Doc) CheckSchema(schemaName string, body []byte) error {
	ref := "#/components/schemas/" + escapePointer(schemaName)
	if _, err := d.resolve(ref); err != nil {
		return fmt.Errorf("no schema %q in the document", schemaName)
	}
	return d.check(map[string]any{"$ref": ref}, body)
}

// CheckResponse returns a *ValidationError when body is not a valid
// response of the operation at method and path with status, or another
// error when the document has no such operation or status.
func (d *Doc) CheckResponse(method, path string, status int, body []byte) error {
	op, tmpl, err := d.operation(method, path)
	if err != nil {
		return err
	}
	resp, err := d.response(op, status)
	if err != nil {
		return fmt.Errorf("%s %s: %v", strings.ToUpper(method), tmpl, err)
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(bytes.TrimSpace(body)) != 0 {
			return &ValidationError{Problems: []string{fmt.Sprintf("status %d documents no body, got %d bytes", status, len(body))}}
		}
		return nil
	}
	media, ok := content["application/json"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s %d: no application/json content", strings.ToUpper(method), tmpl, status)
	}
	schema, ok := media["schema"]
	if !ok {
		return nil
	}
	return d.check(schema, body)
}

func (d *Doc) check(schema any, body []byte) error {
	v, err := decodeJSON(body)
	if err != nil {
		return &ValidationError{Problems: []string{err.Error()}}
	}
	c := &checker{d: d}
	c.check(schema, v, "$", 0)
	if len(c.problems) > 0 {
		return &ValidationError{Problems: c.problems}
	}
	return nil
}

// OperationPath returns the method and path template of the operation with
// the given operationId.
func (d *Doc) OperationPath(operationID string) (method, path string, ok bool) {
	paths, _ := d.root["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for m, op := range ops {
			if o, _ := op.(map[string]any); o != nil && o["operationId"] == operationID {
				return strings.ToUpper(m), p, true
			}
		}
	}
	return "", "", false
}

// operation finds the operation object of method at path (a template or a
// concrete path).
func (d *Doc) operation(method, path string) (map[string]any, string, error) {
	m := strings.ToLower(method)
	paths, _ := d.root["paths"].(map[string]any)
	if path, _, _ = strings.Cut(path, "?"); path == "" {
		return nil, "", errors.New("empty path")
	}
	find := func(tmpl string) (map[string]any, bool) {
		item, _ := paths[tmpl].(map[string]any)
		if item == nil {
			return nil, false
		}
		if ref, ok := item["$ref"].(string); ok {
			r, err := d.resolve(ref)
			if err != nil {
				return nil, false
			}
			item, _ = r.(map[string]any)
		}
		op, ok := item[m].(map[string]any)
		return op, ok
	}
	if op, ok := find(path); ok {
		return op, path, nil
	}
	// A concrete path: the matching template with the most literal text.
	best, bestLit := "", -1
	for tmpl := range paths {
		if lit, ok := matchTemplate(tmpl, path); ok && lit > bestLit {
			if _, ok := find(tmpl); ok {
				best, bestLit = tmpl, lit
			}
		}
	}
	if best == "" {
		return nil, "", fmt.Errorf("the document has no operation %s %s", strings.ToUpper(method), path)
	}
	op, _ := find(best)
	return op, best, nil
}

var paramRE = regexp.MustCompile(`\{[^}/]*\}`)

// matchTemplate reports whether path matches the template tmpl and how
// many literal bytes the template has.
func matchTemplate(tmpl, path string) (int, bool) {
	var re strings.Builder
	re.WriteString("^")
	last, lit := 0, 0
	for _, loc := range paramRE.FindAllStringIndex(tmpl, -1) {
		re.WriteString(regexp.QuoteMeta(tmpl[last:loc[0]]))
		lit += loc[0] - last
		re.WriteString("[^/]+")
		last = loc[1]
	}
	re.WriteString(regexp.QuoteMeta(tmpl[last:]))
	lit += len(tmpl) - last
	re.WriteString("$")
	ok, err := regexp.MatchString(re.String(), path)
	return lit, err == nil && ok
}

// response finds the response object of op for status: the exact code, then
// its class ("4XX"), then "default".
func (d *Doc) response(op map[string]any, status int) (map[string]any, error) {
	resps, _ := op["responses"].(map[string]any)
	code := strconv.Itoa(status)
	for _, k := range []string{code, code[:1] + "XX", code[:1] + "xx", "default"} {
		r, ok := resps[k]
		if !ok {
			continue
		}
		if m, _ := r.(map[string]any); m != nil {
			if ref, ok := m["$ref"].(string); ok {
				rr, err := d.resolve(ref)
				if err != nil {
					return nil, err
				}
				m, _ = rr.(map[string]any)
			}
			if m != nil {
				return m, nil
			}
		}
	}
	var codes []string
	for k := range resps {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	return nil, fmt.Errorf("status %d is not documented (documented: %s)", status, strings.Join(codes, ", "))
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// resolve follows a local JSON reference ("#/components/schemas/X").
func (d *Doc) resolve(ref string) (any, error) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("unsupported non-local $ref %q", ref)
	}
	var cur any = d.root
	if p == "" {
		return cur, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("malformed $ref %q", ref)
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("unresolvable $ref %q", ref)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("unresolvable $ref %q", ref)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("unresolvable $ref %q", ref)
		}
	}
	return cur, nil
}

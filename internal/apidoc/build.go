package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// OpenAPIVersion is the version of the served document, the reference's.
const OpenAPIVersion = "3.1.0"

// Build makes the served OpenAPI document: the operations of reference
// (the hosted Data API's document) that dataAPIPatterns name (the Data API's
// route patterns, "METHOD /path"), as they are there, with the components
// they reference, and the paths, components, tags and info of own
// (own.yaml: what has no reference). The output is JSON with sorted keys,
// so the same inputs always give the same bytes.
func Build(reference, own []byte, dataAPIPatterns []string) ([]byte, error) {
	var ref map[string]any
	dec := json.NewDecoder(bytes.NewReader(reference))
	dec.UseNumber()
	if err := dec.Decode(&ref); err != nil {
		return nil, fmt.Errorf("decoding the reference document: %w", err)
	}
	var ownDoc struct {
		Info       map[string]any            `yaml:"info"`
		Tags       []map[string]any          `yaml:"tags"`
		Paths      map[string]map[string]any `yaml:"paths"`
		Components map[string]map[string]any `yaml:"components"`
	}
	if err := yaml.Unmarshal(own, &ownDoc); err != nil {
		return nil, fmt.Errorf("decoding own.yaml: %w", err)
	}

	refPaths, _ := ref["paths"].(map[string]any)
	paths := map[string]map[string]any{}
	for _, p := range dataAPIPatterns {
		method, path := SplitPattern(p)
		item, _ := refPaths[path].(map[string]any)
		op, ok := item[method].(map[string]any)
		if !ok {
			if _, own := ownDoc.Paths[path][method]; own {
				continue // a Data API route of avaindex's own (an export's download)
			}
			return nil, fmt.Errorf("the reference document has no %s %s: describe it in own.yaml", strings.ToUpper(method), path)
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
			if params, ok := item["parameters"]; ok {
				paths[path]["parameters"] = params
			}
		}
		paths[path][method] = withoutExtensions(op)
		typedParameterExamples(op)
	}
	for path, item := range ownDoc.Paths {
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		for method, op := range item {
			if _, dup := paths[path][method]; dup {
				return nil, fmt.Errorf("own.yaml describes %s %s, which the reference has", strings.ToUpper(method), path)
			}
			paths[path][method] = op
		}
	}

	// The components the paths reference, transitively, from own.yaml
	// first, then the reference.
	refComps, _ := ref["components"].(map[string]any)
	comps := map[string]map[string]any{}
	var visit func(v any) error
	visit = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				s, isRef := x.(string)
				if k != "$ref" || !isRef {
					if err := visit(x); err != nil {
						return err
					}
					continue
				}
				kind, name, ok := strings.Cut(strings.TrimPrefix(s, "#/components/"), "/")
				if !ok || !strings.HasPrefix(s, "#/components/") {
					return fmt.Errorf("unsupported $ref %q", s)
				}
				if _, done := comps[kind][name]; done {
					continue
				}
				c, ok := ownDoc.Components[kind][name]
				if !ok {
					m, _ := refComps[kind].(map[string]any)
					if c, ok = m[name]; !ok {
						return fmt.Errorf("$ref %q names no component", s)
					}
				}
				if kind == "schemas" {
					schemaExamplesAsArrays(c)
				}
				if comps[kind] == nil {
					comps[kind] = map[string]any{}
				}
				comps[kind][name] = c
				if err := visit(c); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := visit(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, item := range paths {
		if err := visit(item); err != nil {
			return nil, err
		}
	}
	// The API key scheme the reference operations name in security.
	if schemes, ok := refComps["securitySchemes"]; ok {
		comps["securitySchemes"], _ = schemes.(map[string]any)
	}

	// The tags the operations use, in the reference's order, then own's.
	used := map[string]bool{}
	for _, item := range paths {
		for _, op := range item {
			m, _ := op.(map[string]any)
			tags, _ := m["tags"].([]any)
			for _, t := range tags {
				if s, ok := t.(string); ok {
					used[s] = true
				}
			}
		}
	}
	var tags []any
	refTags, _ := ref["tags"].([]any)
	for _, t := range refTags {
		if m, ok := t.(map[string]any); ok && used[fmt.Sprint(m["name"])] {
			tags = append(tags, withoutExtensions(m))
		}
	}
	for _, t := range ownDoc.Tags {
		tags = append(tags, t)
	}

	if v, _ := ownDoc.Info["version"].(string); v == "" {
		return nil, errors.New("own.yaml's info has no version, which OpenAPI requires")
	}
	doc := map[string]any{
		"openapi":    OpenAPIVersion,
		"info":       ownDoc.Info,
		"tags":       tags,
		"paths":      paths,
		"components": comps,
	}
	if sec, ok := ref["security"]; ok {
		doc["security"] = sec
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the document: %w", err)
	}
	return buf.Bytes(), nil
}

// SplitPattern returns the OpenAPI method (lower case) and path of an
// http.ServeMux pattern. A pattern without a method is a JSON-RPC route,
// which only POST reaches (gorilla/rpc refuses any other method). Wildcards
// keep their name ({name...} is {name}); {$} goes. A wildcard named
// {nameVerb} for a verb of customVerbs is the segment {name}:verb, which
// ServeMux cannot route (the handler checks the verb); one named
// {wordSegment} for a word of fixedSegments is the segment word.
func SplitPattern(pattern string) (method, path string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "post", pattern
	}
	path = strings.ReplaceAll(path, "...}", "}")
	for _, verb := range customVerbs {
		title := strings.ToUpper(verb[:1]) + verb[1:]
		if strings.HasSuffix(path, title+"}") {
			path = strings.TrimSuffix(path, title+"}") + "}:" + verb
		}
	}
	for _, word := range fixedSegments {
		path = strings.ReplaceAll(path, "{"+word+"Segment}", word)
	}
	path = strings.TrimSuffix(path, "{$}")
	if path == "" {
		path = "/"
	}
	return strings.ToLower(method), path
}

// customVerbs are the Data API's custom methods on a wildcard segment.
var customVerbs = []string{"reindex"}

// fixedSegments are the fixed segments ServeMux cannot route beside a
// sibling wildcard with fixed children (GET /v1/chains/address/{address}
// beside /v1/chains/{chainId}/blocks): a wildcard named {wordSegment} is
// the segment word (the handler checks it).
var fixedSegments = []string{"address"}

// schemaExamplesAsArrays makes every examples keyword of schema (a JSON
// Schema, whose examples is an array) an array: the reference has schemas
// whose examples is an object, which OpenAPI validators refuse. The object
// is the one example it gives.
func schemaExamplesAsArrays(schema any) {
	switch s := schema.(type) {
	case []any:
		for _, x := range s {
			schemaExamplesAsArrays(x)
		}
	case map[string]any:
		for k, v := range s {
			switch k {
			case "examples":
				if _, isList := v.([]any); !isList && v != nil {
					s[k] = []any{v}
				}
			case "properties", "patternProperties", "$defs", "dependentSchemas":
				// Maps of names to schemas: the names are no keywords.
				if m, ok := v.(map[string]any); ok {
					for _, x := range m {
						schemaExamplesAsArrays(x)
					}
				}
			case "example", "default", "const", "enum":
				// Values, not schemas.
			default:
				schemaExamplesAsArrays(v)
			}
		}
	}
}

// typedParameterExamples gives the numeric parameters of op whose example
// is its query-string text ("10") that number instead, and the string ones
// whose example is a number its text, which is what their schema says and
// what OpenAPI validators check the example against.
func typedParameterExamples(op map[string]any) {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		m, _ := p.(map[string]any)
		schema, _ := m["schema"].(map[string]any)
		// The Metrics API reference has string parameters with a numeric
		// example (a timestamp): the example is its text.
		if n, isNumber := m["example"].(json.Number); isNumber && schema["type"] == "string" {
			m["example"] = n.String()
			continue
		}
		if f, isNumber := m["example"].(float64); isNumber && schema["type"] == "string" {
			m["example"] = strconv.FormatFloat(f, 'f', -1, 64)
			continue
		}
		text, isText := m["example"].(string)
		if !isText || (schema["type"] != "integer" && schema["type"] != "number") {
			continue
		}
		if _, err := strconv.ParseFloat(text, 64); err == nil {
			m["example"] = json.Number(text)
		}
	}
}

// withoutExtensions returns m without its x- keys (the hosted service's
// code generator's annotations).
func withoutExtensions(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, "x-") {
			out[k] = v
		}
	}
	return out
}

// Operations returns the "method path" pairs of an OpenAPI document, sorted.
func Operations(doc []byte) ([]string, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding the document: %w", err)
	}
	var out []string
	for path, item := range d.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				out = append(out, method+" "+path)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Sources maps each embedded reduced document to the full reference
// document (in ReferenceDir) it is made from.
var Sources = map[string]string{
	DefaultFile: "data-api-openapi.json",
	MetricsFile: "metrics-api-openapi.yml",
}

// Reduce returns the reduced copy of the full OpenAPI document src (YAML
// when name ends in .yml or .yaml, JSON otherwise): what validation reads (paths, operations,
// parameters, request bodies, responses, components and every $ref) without
// the prose and tooling annotations (description, summary, title,
// example(s), tags, externalDocs, x-*), which make up most of the bytes.
// The output is canonical JSON (sorted keys, one-space indent, trailing
// newline), so the same input always gives the same bytes.
func Reduce(name string, src []byte) ([]byte, error) {
	var doc any
	if strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml") {
		var n yaml.Node
		if err := yaml.Unmarshal(src, &n); err != nil {
			return nil, fmt.Errorf("parsing YAML: %w", err)
		}
		v, err := fromYAML(&n)
		if err != nil {
			return nil, fmt.Errorf("converting YAML: %w", err)
		}
		doc = v
	} else {
		v, err := decodeJSON(src)
		if err != nil {
			return nil, err
		}
		doc = v
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("OpenAPI document is not an object")
	}
	out := map[string]any{"openapi": root["openapi"]}
	for _, k := range []string{"paths", "webhooks"} {
		if v, ok := root[k]; ok {
			out[k] = reduceNamed(v)
		}
	}
	if comps, ok := root["components"].(map[string]any); ok {
		c := map[string]any{}
		for k, v := range comps {
			// Security schemes and shared examples say nothing about a body.
			if k == "securitySchemes" || k == "examples" || strings.HasPrefix(k, "x-") {
				continue
			}
			c[k] = reduceNamed(v)
		}
		out["components"] = c
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encoding the reduced document: %w", err)
	}
	return buf.Bytes(), nil
}

// annotations are the keys of an OpenAPI or schema object that no
// validation reads.
var annotations = map[string]bool{
	"description": true, "summary": true, "title": true, "example": true,
	"examples": true, "tags": true, "externalDocs": true, "$comment": true,
	"security": true, "servers": true,
}

// namedMaps are the keywords whose value is a map from names chosen by the
// document's author (property names, paths, status codes, media types) to
// objects: its keys are kept whatever they are, since a property may well
// be called "description".
var namedMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
	"dependentSchemas": true, "responses": true, "content": true, "headers": true,
	"encoding": true, "callbacks": true, "links": true, "variables": true,
	"parameters": true, "requestBodies": true, "schemas": true, "pathItems": true,
}

// literals are the keywords whose value is data, not schema, and is kept
// as it is.
var literals = map[string]bool{
	"enum": true, "const": true, "default": true, "required": true, "mapping": true,
	"$ref": true, "type": true, "operationId": true, "name": true, "in": true,
}

// reduceNamed reduces a map of named objects (or a list of objects, as
// operation parameters are).
func reduceNamed(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for name, x := range v {
			out[name] = reduceObject(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = reduceObject(x)
		}
		return out
	default:
		return v
	}
}

// reduceObject reduces an OpenAPI object or schema: annotations go, the
// rest is kept, recursively.
func reduceObject(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch {
			case annotations[k] || strings.HasPrefix(k, "x-"):
			case literals[k]:
				out[k] = x
			case namedMaps[k]:
				out[k] = reduceNamed(x)
			default:
				out[k] = reduceObject(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = reduceObject(x)
		}
		return out
	default:
		return v
	}
}

// fromYAML converts a YAML node to the values decodeJSON produces (numbers
// as json.Number, every mapping key a string: YAML's unquoted `200:` is
// the status code "200").
func fromYAML(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("line %d: want one document, got %d", n.Line, len(n.Content))
		}
		return fromYAML(n.Content[0])
	case yaml.AliasNode:
		return fromYAML(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				return nil, fmt.Errorf("line %d: unsupported mapping key", k.Line)
			}
			x, err := fromYAML(v)
			if err != nil {
				return nil, err
			}
			m[k.Value] = x
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			x, err := fromYAML(c)
			if err != nil {
				return nil, err
			}
			l[i] = x
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s has no JSON form", n.Line, n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		default: // !!str, !!timestamp, !!binary: the text itself
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node kind %d", n.Line, n.Kind)
}

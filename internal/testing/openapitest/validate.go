package openapitest

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// maxProblems bounds the problems reported for one body.
	maxProblems = 50
	// maxDepth bounds schema recursion (a $ref cycle that consumes no data).
	maxDepth = 256
)

// keywords are the schema keywords the checker understands; annotations
// are listed with a false value (accepted, not checked).
var keywords = map[string]bool{
	"$ref": true, "type": true, "nullable": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true,
	"enum": true, "const": true, "oneOf": true, "anyOf": true, "allOf": true,
	"discriminator": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true,
	"maxLength": true, "minItems": true, "maxItems": true, "format": true,

	"description": false, "examples": false, "example": false,
	"deprecated": false, "default": false, "title": false,
	"readOnly": false, "writeOnly": false, "$comment": false,
}

type checker struct {
	d        *Doc
	problems []string
}

func (c *checker) fail(at, format string, args ...any) {
	if len(c.problems) == maxProblems {
		c.problems = append(c.problems, "... (more problems omitted)")
	}
	if len(c.problems) > maxProblems {
		return
	}
	c.problems = append(c.problems, at+": "+fmt.Sprintf(format, args...))
}

// check validates v against schema s; at is the JSON path of v.
func (c *checker) check(s any, v any, at string, depth int) {
	if depth > maxDepth {
		c.fail(at, "schema nesting deeper than %d (cyclic $ref?)", maxDepth)
		return
	}
	var sm map[string]any
	switch s := s.(type) {
	case bool:
		if !s {
			c.fail(at, "no value is allowed here")
		}
		return
	case map[string]any:
		sm = s
	default:
		c.fail(at, "invalid schema of JSON type %s", kind(s))
		return
	}
	for k := range sm {
		if _, ok := keywords[k]; !ok && !strings.HasPrefix(k, "x-") {
			c.fail(at, "schema uses keyword %q, which the validator does not support", k)
		}
	}

	if v == nil && sm["nullable"] == true {
		return
	}
	if ref, ok := sm["$ref"]; ok {
		rs, _ := ref.(string)
		target, err := c.d.resolve(rs)
		if err != nil {
			c.fail(at, "%v", err)
			return
		}
		n := len(c.problems)
		c.check(target, v, at, depth+1)
		if len(c.problems) > n {
			return // the sibling keywords would mostly repeat the problem
		}
	}
	if t, ok := sm["type"]; ok {
		types, err := typeNames(t)
		if err != nil {
			c.fail(at, "%v", err)
			return
		}
		if !hasType(v, types) {
			c.fail(at, "want %s, got %s", strings.Join(types, " or "), describe(v))
			return
		}
	}
	if e, ok := sm["enum"]; ok {
		list, _ := e.([]any)
		found := false
		for _, x := range list {
			if equal(v, x) {
				found = true
				break
			}
		}
		if !found {
			c.fail(at, "%s is not one of the enum values %s", describe(v), compact(list))
		}
	}
	if x, ok := sm["const"]; ok && !equal(v, x) {
		c.fail(at, "%s is not the constant %s", describe(v), compact(x))
	}
	switch v := v.(type) {
	case json.Number:
		c.checkNumber(sm, v, at)
	case string:
		c.checkString(sm, v, at)
	case []any:
		c.checkArray(sm, v, at, depth)
	case map[string]any:
		c.checkObject(sm, v, at, depth)
	}
	if all, ok := sm["allOf"].([]any); ok {
		for _, sub := range all {
			c.check(sub, v, at, depth+1)
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := sm[k].([]any); ok {
			c.checkUnion(sm, k, alts, v, at, depth)
		}
	}
}

func (c *checker) checkNumber(sm map[string]any, v json.Number, at string) {
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return // reported by the type check when a type is given
	}
	bound := func(k string, bad func(f, b float64) bool, rel string) {
		if b, ok := number(sm[k]); ok && bad(f, b) {
			c.fail(at, "%s must be %s %s", v, rel, strconv.FormatFloat(b, 'g', -1, 64))
		}
	}
	bound("minimum", func(f, b float64) bool { return f < b }, ">=")
	bound("maximum", func(f, b float64) bool { return f > b }, "<=")
	bound("exclusiveMinimum", func(f, b float64) bool { return f <= b }, ">")
	bound("exclusiveMaximum", func(f, b float64) bool { return f >= b }, "<")
}

func (c *checker) checkString(sm map[string]any, v string, at string) {
	n := utf8.RuneCountInString(v)
	if m, ok := number(sm["minLength"]); ok && float64(n) < m {
		c.fail(at, "string shorter than %v characters", m)
	}
	if m, ok := number(sm["maxLength"]); ok && float64(n) > m {
		c.fail(at, "string longer than %v characters", m)
	}
	if sm["format"] == "date-time" {
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			c.fail(at, "%q is not an RFC 3339 date-time", v)
		}
	}
}

func (c *checker) checkArray(sm map[string]any, v []any, at string, depth int) {
	if m, ok := number(sm["minItems"]); ok && float64(len(v)) < m {
		c.fail(at, "array has fewer than %v items", m)
	}
	if m, ok := number(sm["maxItems"]); ok && float64(len(v)) > m {
		c.fail(at, "array has more than %v items", m)
	}
	if items, ok := sm["items"]; ok {
		for i, x := range v {
			c.check(items, x, at+"["+strconv.Itoa(i)+"]", depth+1)
		}
	}
}

func (c *checker) checkObject(sm map[string]any, v map[string]any, at string, depth int) {
	if req, ok := sm["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			if _, ok := v[name]; !ok {
				c.fail(at, "required property %q is missing", name)
			}
		}
	}
	props, _ := sm["properties"].(map[string]any)
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	addl, hasAddl := sm["additionalProperties"]
	for _, k := range keys {
		sub := at + "." + k
		if ps, ok := props[k]; ok {
			c.check(ps, v[k], sub, depth+1)
			continue
		}
		if !hasAddl {
			continue
		}
		if b, ok := addl.(bool); ok && !b {
			c.fail(at, "property %q is not allowed", k)
			continue
		}
		c.check(addl, v[k], sub, depth+1)
	}
}

// checkUnion requires v to match at least one alternative, or the one a
// discriminator selects.
func (c *checker) checkUnion(sm map[string]any, kw string, alts []any, v any, at string, depth int) {
	if disc, ok := sm["discriminator"].(map[string]any); ok {
		if obj, ok := v.(map[string]any); ok {
			c.checkDiscriminated(disc, alts, obj, at, depth)
			return
		}
	}
	var why []string
	for i, alt := range alts {
		sub := &checker{d: c.d}
		sub.check(alt, v, at, depth+1)
		if len(sub.problems) == 0 {
			return
		}
		name := fmt.Sprintf("alternative %d", i+1)
		if m, ok := alt.(map[string]any); ok {
			if r, ok := m["$ref"].(string); ok {
				name = r[strings.LastIndex(r, "/")+1:]
			}
		}
		p := sub.problems
		if len(p) > 3 {
			p = append(p[:3:3], "...")
		}
		why = append(why, name+": "+strings.Join(p, "; "))
	}
	c.fail(at, "value matches none of the %d %s alternatives:\n\t%s", len(alts), kw, strings.Join(why, "\n\t"))
}

func (c *checker) checkDiscriminated(disc map[string]any, alts []any, v map[string]any, at string, depth int) {
	prop, _ := disc["propertyName"].(string)
	val, ok := v[prop].(string)
	if !ok {
		c.fail(at, "discriminator property %q must be a string, got %s", prop, describe(v[prop]))
		return
	}
	mapping, _ := disc["mapping"].(map[string]any)
	if ref, ok := mapping[val].(string); ok {
		c.check(map[string]any{"$ref": ref}, v, at, depth+1)
		return
	}
	// Without a mapping entry the value names the schema.
	for _, alt := range alts {
		if m, ok := alt.(map[string]any); ok {
			if r, ok := m["$ref"].(string); ok && r[strings.LastIndex(r, "/")+1:] == val {
				c.check(alt, v, at, depth+1)
				return
			}
		}
	}
	var allowed []string
	for k := range mapping {
		allowed = append(allowed, k)
	}
	sort.Strings(allowed)
	c.fail(at, "discriminator %s %q is not one of %s", prop, val, strings.Join(allowed, ", "))
}

func typeNames(t any) ([]string, error) {
	switch t := t.(type) {
	case string:
		return []string{t}, nil
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("invalid type list %s", compact(t))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("invalid type %s", compact(t))
}

func hasType(v any, types []string) bool {
	for _, t := range types {
		switch t {
		case "null":
			if v == nil {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "number", "integer":
			n, ok := v.(json.Number)
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) {
				continue // not representable by a client's float64
			}
			if t == "number" || f == math.Trunc(f) {
				return true
			}
		}
	}
	return false
}

// number returns a schema's numeric keyword value.
func number(x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// equal compares JSON values; numbers compare by value.
func equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		fa, ea := strconv.ParseFloat(string(a), 64)
		fb, eb := strconv.ParseFloat(string(bn), 64)
		return ea == nil && eb == nil && fa == fb
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			y, ok := bm[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// describe names v's JSON type and, for scalars, its value.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 60 {
			v = v[:60] + "..."
		}
		return "string " + strconv.Quote(v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	}
	return kind(v)
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// Package param reads the query parameters of avaindex's HTTP APIs (the
// Data API and the Metrics API) and signs their page tokens. Every
// function here answers a parameter that is malformed, out of range,
// outside its allowed values or repeated with a derrors.InvalidArgument
// error whose message names the parameter and what it allows.
package param

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/avaindex/avaindex/internal/derrors"
)

// MaxEcho bounds how much of a rejected value an error message repeats.
const MaxEcho = 64

// Clip shortens s to at most n bytes for use in a message.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Quote formats a rejected value for a message.
func Quote(v string) string { return strconv.Quote(Clip(v, MaxEcho)) }

// Values parses r's query string strictly: a malformed query string is
// an error rather than silently dropped pairs.
func Values(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, derrors.Invalid("malformed query string")
	}
	return q, nil
}

// QueryValue returns the one value of the query parameter name and whether
// it is present. A parameter given more than once is an error.
func QueryValue(r *http.Request, name string) (string, bool, error) {
	q, err := Values(r)
	if err != nil {
		return "", false, err
	}
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, derrors.Invalid("%s must be given at most once", name)
	}
	return vs[0], true, nil
}

// OnlyParams rejects a request whose query string has a parameter not in
// names.
func OnlyParams(r *http.Request, names ...string) error {
	q, err := Values(r)
	if err != nil {
		return err
	}
	for k := range q {
		known := false
		for _, n := range names {
			if k == n {
				known = true
				break
			}
		}
		if !known {
			return derrors.Invalid("unknown query parameter %s; allowed: %s", Quote(k), strings.Join(names, ", "))
		}
	}
	return nil
}

// ParseInt parses a base-10 integer written with ASCII digits and an
// optional leading minus sign only (no "+", spaces, exponents or fractions).
func ParseInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 19 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// PageSize returns the pageSize query parameter: def when absent, otherwise
// an integer in [1, max].
func PageSize(r *http.Request, def, max int) (int, error) {
	v, ok, err := QueryValue(r, "pageSize")
	if err != nil || !ok {
		return def, err
	}
	n, valid := ParseInt(v)
	if !valid || n < 1 || n > int64(max) {
		return 0, derrors.Invalid("pageSize must be an integer between 1 and %d, got %s", max, Quote(v))
	}
	return int(n), nil
}

// PageToken returns the pageToken query parameter, "" when absent or empty.
// Decode it with Tokens.Decode.
func PageToken(r *http.Request) (string, error) {
	v, _, err := QueryValue(r, "pageToken")
	return v, err
}

// OptionalUint returns the non-negative integer query parameter name
// (startTimestamp, endTimestamp, startBlock, minUtxoAmount, ...) and whether
// it is present.
func OptionalUint(r *http.Request, name string) (int64, bool, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return 0, false, err
	}
	n, valid := ParseInt(v)
	if !valid || n < 0 {
		return 0, false, derrors.Invalid("%s must be a non-negative integer, got %s", name, Quote(v))
	}
	return n, true, nil
}

// Bool returns the boolean query parameter name, def when absent. Only
// "true" and "false" are accepted.
func Bool(r *http.Request, name string, def bool) (bool, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return def, err
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, derrors.Invalid("%s must be true or false, got %s", name, Quote(v))
}

// Enum returns the query parameter name, def when absent; a present value
// must be one of allowed (case-sensitive).
func Enum(r *http.Request, name, def string, allowed ...string) (string, error) {
	v, ok, err := QueryValue(r, name)
	if err != nil || !ok {
		return def, err
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", derrors.Invalid("%s must be one of %s, got %s", name, strings.Join(allowed, ", "), Quote(v))
}

// List returns the items of the list query parameter name, which may be
// comma-separated, repeated (name=a&name=b, how OpenAPI clients send arrays)
// or both. Items are trimmed of spaces; an empty item is an error and so is
// a list of more than max items. It returns nil when name is absent.
func List(r *http.Request, name string, max int) ([]string, error) {
	q, err := Values(r)
	if err != nil {
		return nil, err
	}
	vs, ok := q[name]
	if !ok {
		return nil, nil
	}
	var items []string
	for _, v := range vs {
		part, err := SplitList(name, v, max, len(items))
		if err != nil {
			return nil, err
		}
		items = append(items, part...)
	}
	return items, nil
}

// SplitList splits a comma-separated value of parameter name into trimmed,
// non-empty items; with the already items seen before, at most max.
func SplitList(name, v string, max, already int) ([]string, error) {
	if n := strings.Count(v, ",") + 1; n > max-already {
		return nil, derrors.Invalid("%s must list at most %d items", name, max)
	}
	items := strings.Split(v, ",")
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, derrors.Invalid("%s must be a comma-separated list without empty items, got %s", name, Quote(v))
		}
		items[i] = it
	}
	return items, nil
}

// maxEnumListItems bounds the items of an EnumList parameter, duplicates
// included.
const maxEnumListItems = 100

// EnumList returns the list query parameter name (see List) whose items must
// each be one of allowed; duplicates are dropped. It returns nil when name is
// absent.
func EnumList(r *http.Request, name string, allowed ...string) ([]string, error) {
	items, err := List(r, name, maxEnumListItems)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		ok := false
		for _, a := range allowed {
			if it == a {
				ok = true
				break
			}
		}
		if !ok {
			return nil, derrors.Invalid("%s items must be among %s, got %s", name, strings.Join(allowed, ", "), Quote(it))
		}
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out, nil
}

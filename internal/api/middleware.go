package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// MaxBodyBytes bounds the body of a Data API request.
const MaxBodyBytes = 1 << 20

// API key headers: the spec's and the one the SDK sends. Both are optional
// unless the server requires a key; internal/server checks the key and
// limits the caller by it. Its value is never logged.
const (
	HeaderDataAPIKey    = "x-data-api-key"
	HeaderGlacierAPIKey = "x-glacier-api-key"
)

// Middleware wraps the Data API's handler: it recovers panics into 500
// responses, refuses malformed query strings and bounds request bodies.
// The API key headers are read by internal/server's access guard
// (RequestAPIKey).
func Middleware(next http.Handler) http.Handler {
	return Recover(StrictQuery(LimitBody(next, MaxBodyBytes)))
}

// StrictQuery answers a request whose query string does not parse (a bad
// %-escape, a ';' separator) with a 400, on every route: also on those that
// read no query parameter, which would otherwise ignore it. Parameters
// that parse but that a route does not take are left to the route.
func StrictQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := param.Values(r); err != nil {
			WriteError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Recover turns a panic of next into a 500 error response (written with
// WriteError, which logs it with its stack). When the response has already
// started, the connection is aborted instead so that the client never sees a
// truncated body as a complete one.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			err := fmt.Errorf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
			if tw.started {
				slog.ErrorContext(r.Context(), "data api request failed after the response started", "method", r.Method, "path", r.URL.Path, "err", err)
				panic(http.ErrAbortHandler)
			}
			WriteError(w, r, err)
		}()
		next.ServeHTTP(tw, r)
	})
}

// trackingWriter records whether the response has started.
type trackingWriter struct {
	http.ResponseWriter
	started bool
}

func (w *trackingWriter) WriteHeader(code int) {
	if code >= 200 { // 1xx responses do not start the final response
		w.started = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// RequestAPIKey returns the API key of a request's headers,
// x-data-api-key first, or "".
func RequestAPIKey(h http.Header) string {
	key := strings.TrimSpace(h.Get(HeaderDataAPIKey))
	if key == "" {
		key = strings.TrimSpace(h.Get(HeaderGlacierAPIKey))
	}
	return key
}

// LimitBody bounds the request body to n bytes; reading past it fails with
// an *http.MaxBytesError (DecodeJSONBody answers it with a 400).
func LimitBody(next http.Handler, n int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		next.ServeHTTP(w, r)
	})
}

// DecodeJSONBody decodes the JSON object in r's body into v. Unknown fields
// are ignored; an empty, malformed, oversized or trailing-garbage body, or a
// field of the wrong JSON type, is a derrors.InvalidArgument error naming
// the problem.
func DecodeJSONBody(r *http.Request, v any) error {
	if r.Body == nil {
		return derrors.Invalid("request body must be a JSON object")
	}
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = terr
			if err == nil {
				return derrors.Invalid("request body must hold a single JSON object")
			}
		}
	}
	if err == nil {
		return nil
	}
	var (
		maxErr  *http.MaxBytesError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &maxErr):
		return derrors.Invalid("request body exceeds %d bytes", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return derrors.Invalid("request body must be a JSON object")
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return derrors.Invalid("request body field %s must be a JSON %s, got %s", param.Clip(typeErr.Field, param.MaxEcho), jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &typeErr):
		return derrors.Invalid("request body must be a JSON object, got %s", typeErr.Value)
	}
	return derrors.Invalid("request body is not valid JSON")
}

// jsonKind names the JSON type that decodes into a Go kind.
func jsonKind(kind string) string {
	switch {
	case kind == "string":
		return "string"
	case kind == "bool":
		return "boolean"
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		return "number"
	case kind == "slice", kind == "array":
		return "array"
	}
	return "object"
}

// Package api holds the conventions every Data API endpoint shares: the
// error body and the one function that writes it, JSON responses, request
// parameter parsing, page tokens, the shared wire types and the request
// middleware.
package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// genericMessages is the message of an error response whose error carries no
// client-safe message. It never contains internal details.
var genericMessages = map[int]string{
	http.StatusBadRequest:          "the request is invalid",
	http.StatusUnauthorized:        "the request lacks valid credentials",
	http.StatusForbidden:           "the credentials do not allow this request",
	http.StatusNotFound:            "the requested resource was not found",
	http.StatusGone:                "the requested resource is no longer available",
	http.StatusTooManyRequests:     "rate limit exceeded, retry later",
	http.StatusInternalServerError: "an internal error occurred",
	http.StatusBadGateway:          "the upstream node returned an invalid response",
	http.StatusServiceUnavailable:  "the service is temporarily unavailable",
	http.StatusNotImplemented:      "avaindex does not serve this operation",
}

// errorBody returns the body of an error response for err and its status.
func errorBody(err error) (ErrorBody, int) {
	status := derrors.ToStatus(err)
	if err == nil || status < 400 {
		// A nil or non-error error is a bug of the caller; never answer 2xx.
		status = http.StatusInternalServerError
	}
	msg, ok := derrors.ClientMessage(err)
	if !ok || msg == "" {
		msg = genericMessages[status]
		if msg == "" {
			msg = http.StatusText(status)
		}
	}
	return ErrorBody{Message: msg, StatusCode: status, Error: http.StatusText(status)}, status
}

// WriteError writes the Data API error response for err: the status is
// derrors.ToStatus(err), the message the client-safe message err carries
// (derrors.Invalid, derrors.Missing) or else a generic text for the status.
// Server-side (5xx) errors are logged; their text never reaches the client.
// r may be nil.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	body, status := errorBody(err)
	if status >= 500 && !errors.Is(err, derrors.Unimplemented) {
		args := []any{"status", status, "err", err}
		if err == nil {
			args[3] = "WriteError called with a nil error"
		}
		if r != nil {
			args = append(args, "method", r.Method, "path", r.URL.Path)
			slog.ErrorContext(r.Context(), "data api request failed", args...)
		} else {
			slog.Error("data api request failed", args...)
		}
	}
	writeJSON(w, status, body)
}

// WriteJSON writes v as a JSON response with the given status and
// Content-Type application/json. When v cannot be encoded it writes a 500
// error response instead.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, nil, fmt.Errorf("api.WriteJSON(%T): %w", v, err))
		return
	}
	writeRaw(w, status, b)
}

// writeJSON writes an ErrorBody, which always encodes.
func writeJSON(w http.ResponseWriter, status int, body ErrorBody) {
	b, err := json.Marshal(body)
	if err != nil { // cannot happen: ErrorBody holds only strings and an int
		b = []byte(`{"message":"an internal error occurred","statusCode":500,"error":"Internal Server Error"}`)
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// NotFoundHandler answers every request with the Data API's 404 body; its
// message names the method and path that matched no route.
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, derrors.Missing("no route for %s %s", r.Method, param.Clip(r.URL.EscapedPath(), 256)))
	})
}

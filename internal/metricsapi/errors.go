package metricsapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/avaindex/avaindex/internal/derrors"
)

// ErrorBody is the Metrics API's error response: the Data API's body with
// message an array of strings.
type ErrorBody struct {
	Message    []string `json:"message"`
	StatusCode int      `json:"statusCode"`
	Error      string   `json:"error"`
}

// NewErrorBody returns the body of an error response with status and msg.
func NewErrorBody(status int, msg string) ErrorBody {
	return ErrorBody{Message: []string{msg}, StatusCode: status, Error: http.StatusText(status)}
}

// WriteError writes the Metrics API's error response for err: its status
// is derrors.ToStatus(err), its message the client-safe message err
// carries, or the status's text. Server errors are logged, never shown.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status := derrors.ToStatus(err)
	if err == nil || status < 400 {
		status = http.StatusInternalServerError
	}
	// An operation avaindex does not serve is no server fault: its message
	// says which.
	serverFault := status >= 500 && !errors.Is(err, derrors.Unimplemented)
	msg, ok := derrors.ClientMessage(err)
	if !ok || msg == "" || serverFault {
		msg = http.StatusText(status)
	}
	if serverFault {
		slog.ErrorContext(r.Context(), "metrics api request failed", "status", status, "err", err, "path", r.URL.Path)
	}
	writeJSON(w, status, NewErrorBody(status, msg))
}

// writeJSON writes v, which always encodes (the wire types hold no
// values JSON rejects: non-finite numbers are never computed).
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(NewErrorBody(status, http.StatusText(status)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// NotFoundHandler answers a request under /v2/ that no route serves: a 404
// with the Metrics API's error body.
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		if len(p) > 256 {
			p = p[:256] + "..."
		}
		WriteError(w, r, derrors.Client(derrors.NotFound, "no route for %s %s", r.Method, p))
	})
}

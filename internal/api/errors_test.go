package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
)

// captureLog sends the default slog logger to a buffer for the test.
func captureLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// decodeError decodes rec as an error response and checks its envelope.
func decodeError(t *testing.T, rec *httptest.ResponseRecorder, wantStatus int) ErrorBody {
	t.Helper()
	if rec.Code != wantStatus {
		t.Errorf("status = %d, want %d (body %s)", rec.Code, wantStatus, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var raw map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if len(raw) != 3 {
		t.Errorf("body has keys %v, want exactly message, statusCode, error", raw)
	}
	var b ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b.StatusCode != wantStatus || b.Error != http.StatusText(wantStatus) || b.Message == "" {
		t.Errorf("body = %+v, want statusCode %d, error %q and a message", b, wantStatus, http.StatusText(wantStatus))
	}
	return b
}

// kindErrors are errors of each of the eight statuses, carrying internal
// text that must never reach a client unless it is a client message.
var kindErrors = []struct {
	err    error
	status int
	phrase string
}{
	{fmt.Errorf("store: %w", derrors.Invalid("pageSize must be an integer between 1 and 100, got %q", "abc")), 400, "Bad Request"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.Unauthenticated), 401, "Unauthorized"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.PermissionDenied), 403, "Forbidden"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.Missing("block 12 not found")), 404, "Not Found"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.ResourceExhausted), 429, "Too Many Requests"},
	{errors.New("secret-internal-detail: disk on fire"), 500, "Internal Server Error"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.BadGateway), 502, "Bad Gateway"},
	{fmt.Errorf("secret-internal-detail: %w", derrors.Unavailable), 503, "Service Unavailable"},
}

func TestWriteError(t *testing.T) {
	logs := captureLog(t)
	for _, tc := range kindErrors {
		t.Run(tc.phrase, func(t *testing.T) {
			logs.Reset()
			rec := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/v1/x", nil)
			WriteError(rec, r, tc.err)
			b := decodeError(t, rec, tc.status)
			if b.Error != tc.phrase {
				t.Errorf("error = %q, want %q", b.Error, tc.phrase)
			}
			if strings.Contains(b.Message, "secret-internal-detail") || strings.Contains(b.Message, "store:") {
				t.Errorf("message %q leaks internal text", b.Message)
			}
			switch tc.status {
			case 400:
				if want := `pageSize must be an integer between 1 and 100, got "abc"`; b.Message != want {
					t.Errorf("message = %q, want %q", b.Message, want)
				}
			case 404:
				if b.Message != "block 12 not found" {
					t.Errorf("message = %q, want the client message", b.Message)
				}
			}
			logged := strings.Contains(logs.String(), "secret-internal-detail")
			if tc.status >= 500 && !logged {
				t.Errorf("5xx error not logged; log: %s", logs)
			}
			if tc.status < 500 && logs.Len() > 0 {
				t.Errorf("4xx error logged: %s", logs)
			}
		})
	}
}

func TestWriteErrorNil(t *testing.T) {
	captureLog(t)
	rec := httptest.NewRecorder()
	WriteError(rec, nil, nil)
	decodeError(t, rec, 500)
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusCreated, map[string]string{"signedMessage": "0x00"})
	if rec.Code != 201 || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := strings.TrimSpace(rec.Body.String()); got != `{"signedMessage":"0x00"}` {
		t.Errorf("body = %s", got)
	}

	logs := captureLog(t)
	rec = httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, map[string]any{"bad": make(chan int)})
	b := decodeError(t, rec, 500)
	if strings.Contains(b.Message, "chan") {
		t.Errorf("message %q leaks the encoding error", b.Message)
	}
	if !strings.Contains(logs.String(), "chan") {
		t.Errorf("encoding error not logged: %s", logs)
	}
}

func TestNotFoundHandler(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /v1/known", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	mux.Handle("/", NotFoundHandler())
	for _, tc := range []struct{ method, target, want string }{
		{"GET", "/v1/nope", "GET /v1/nope"},
		{"POST", "/v1/known", "POST /v1/known"},
		{"GET", "/v1/a%20b?x=1", "GET /v1/a%20b"},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, nil))
		b := decodeError(t, rec, 404)
		if !strings.Contains(b.Message, tc.want) {
			t.Errorf("%s %s: message %q does not name %q", tc.method, tc.target, b.Message, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	NotFoundHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/"+strings.Repeat("a", 5000), nil))
	if b := decodeError(t, rec, 404); len(b.Message) > 400 {
		t.Errorf("message of %d bytes for a long path", len(b.Message))
	}
}

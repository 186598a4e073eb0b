package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	logs := captureLog(t)
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom: secret-internal-detail")
	}))
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/v1/x", nil)
	r.Header.Set(HeaderDataAPIKey, "the-api-key-value")
	h.ServeHTTP(rec, r)
	b := decodeError(t, rec, 500)
	if strings.Contains(b.Message, "secret") || strings.Contains(b.Message, "boom") {
		t.Errorf("message %q leaks the panic", b.Message)
	}
	if !strings.Contains(logs.String(), "boom: secret-internal-detail") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("panic and stack not logged: %s", logs)
	}
	if strings.Contains(logs.String(), "the-api-key-value") {
		t.Error("the API key was logged")
	}
}

func TestRecoverAfterResponseStarted(t *testing.T) {
	captureLog(t)
	h := Recover(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"blocks":[`))
		panic("half way")
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestRecoverPassesAbort(t *testing.T) {
	h := Recover(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

type utxosBody struct {
	Addresses string `json:"addresses"`
}

func TestDecodeJSONBody(t *testing.T) {
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b utxosBody
		if err := DecodeJSONBody(r, &b); err != nil {
			WriteError(w, r, err)
			return
		}
		WriteJSON(w, 200, b)
	}))
	post := func(body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/networks/fuji/blockchains/p-chain/utxos", strings.NewReader(body)))
		return rec
	}
	if rec := post(`{"addresses":"fuji1abc","other":1}`); rec.Code != 200 || !strings.Contains(rec.Body.String(), "fuji1abc") {
		t.Errorf("valid body: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct{ body, want string }{
		{``, "request body must be a JSON object"},
		{`{"addresses":`, "request body is not valid JSON"},
		{`{"addresses":1}`, "request body field addresses must be a JSON string, got number"},
		{`"fuji1abc"`, "request body must be a JSON object, got string"},
		{`{"addresses":"a"} {}`, "request body must hold a single JSON object"},
		{`{"addresses":"a"} x`, "request body is not valid JSON"},
		{`{"addresses":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, "request body exceeds 1048576 bytes"},
	} {
		b := decodeError(t, post(tc.body), 400)
		if b.Message != tc.want {
			t.Errorf("body %.40q: message %q, want %q", tc.body, b.Message, tc.want)
		}
	}
}

func TestLimitBody(t *testing.T) {
	var readErr error
	h := LimitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 100)
		for readErr == nil {
			_, readErr = r.Body.Read(buf)
		}
	}), 10)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 11))))
	var mbe *http.MaxBytesError
	if !errors.As(readErr, &mbe) {
		t.Errorf("read error = %v, want *http.MaxBytesError", readErr)
	}
}

// TestStrictQuery: a query string that does not parse is a 400 on every
// route, also on one that reads no parameter; one that parses reaches it.
func TestStrictQuery(t *testing.T) {
	reached := 0
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}))
	for q, want := range map[string]int{"": 204, "a=1&b=2": 204, "x": 204, "%": 400, "a=%zz": 400, "a=1;b=2": 400, "a=%00": 204} {
		r := httptest.NewRequest("GET", "/v1/x", nil)
		r.URL.RawQuery = q
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != want {
			t.Errorf("query %q: HTTP %d, want %d", q, rec.Code, want)
		}
		if want == 400 {
			decodeError(t, rec, 400)
			if !strings.Contains(rec.Body.String(), "malformed query string") {
				t.Errorf("query %q: %s", q, rec.Body)
			}
		}
	}
	if reached != 4 {
		t.Errorf("the handler was reached %d times, want 4", reached)
	}
}

func TestRequestAPIKey(t *testing.T) {
	for _, tc := range []struct {
		headers map[string]string
		want    string
	}{
		{nil, ""},
		{map[string]string{"X-Data-Api-Key": "k1"}, "k1"},
		{map[string]string{"x-glacier-api-key": "k2"}, "k2"},
		{map[string]string{"x-data-api-key": "k1", "x-glacier-api-key": "k2"}, "k1"},
		{map[string]string{"x-data-api-key": " ", "x-glacier-api-key": "k2"}, "k2"},
	} {
		h := http.Header{}
		for k, v := range tc.headers {
			h.Set(k, v)
		}
		if got := RequestAPIKey(h); got != tc.want {
			t.Errorf("RequestAPIKey(%v) = %q, want %q", tc.headers, got, tc.want)
		}
	}
}

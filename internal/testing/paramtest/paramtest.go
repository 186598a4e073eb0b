// Package paramtest helps test the HTTP APIs' parameter readers
// (internal/param and the Data API's own).
package paramtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
)

// Request returns a GET request with the query string rawQuery.
func Request(rawQuery string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/x", nil)
	r.URL.RawQuery = rawQuery
	return r
}

// WantInvalid requires err to be a 400 whose client message contains every
// fragment.
func WantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if derrors.ToStatus(err) != http.StatusBadRequest {
		t.Errorf("err = %v (status %d), want a 400", err, derrors.ToStatus(err))
		return
	}
	msg, ok := derrors.ClientMessage(err)
	if !ok {
		t.Errorf("err %v has no client message", err)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("message %q does not contain %q", msg, f)
		}
	}
}

package derrors

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestToStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, http.StatusOK},
		{fmt.Errorf("pageSize: %w", InvalidArgument), http.StatusBadRequest},
		{Invalid("pageSize must be between 1 and 100"), http.StatusBadRequest},
		{Unauthenticated, http.StatusUnauthorized},
		{PermissionDenied, http.StatusForbidden},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", NotFound)), http.StatusNotFound},
		{Missing("block %s", "x"), http.StatusNotFound},
		{MethodNotAllowed, http.StatusMethodNotAllowed},
		{UnsupportedMediaType, http.StatusUnsupportedMediaType},
		{ResourceExhausted, http.StatusTooManyRequests},
		{BadGateway, http.StatusBadGateway},
		{fmt.Errorf("node: %w: dial refused", Unavailable), http.StatusServiceUnavailable},
		{Client(Unimplemented, "listWebhooks: avaindex does not serve it"), http.StatusNotImplemented},
		{errors.New("disk on fire"), http.StatusInternalServerError},
	} {
		if got := ToStatus(tc.err); got != tc.want {
			t.Errorf("ToStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestClientMessage(t *testing.T) {
	err := fmt.Errorf("handler: %w", Invalid("network must be one of %s", "local, testnet"))
	if msg, ok := ClientMessage(err); !ok || msg != "network must be one of local, testnet" {
		t.Errorf("ClientMessage = %q, %t", msg, ok)
	}
	if msg, ok := ClientMessage(fmt.Errorf("store: %w", NotFound)); ok {
		t.Errorf("an internal error produced a client message %q", msg)
	}
}

func TestWrap(t *testing.T) {
	f := func() (err error) {
		defer Wrap(&err, "store.Get(%d)", 7)
		return NotFound
	}
	err := f()
	if err.Error() != "store.Get(7): not found" || !errors.Is(err, NotFound) {
		t.Errorf("Wrap gave %v", err)
	}
	g := func() (err error) {
		defer Wrap(&err, "nothing")
		return nil
	}
	if err := g(); err != nil {
		t.Errorf("Wrap of nil gave %v", err)
	}
}

func TestClientOfAnyKind(t *testing.T) {
	err := fmt.Errorf("aggregating: %w", Client(Unavailable, "%d validators did not answer", 3))
	if got := ToStatus(err); got != http.StatusServiceUnavailable {
		t.Errorf("ToStatus = %d, want 503", got)
	}
	if msg, ok := ClientMessage(err); !ok || msg != "3 validators did not answer" {
		t.Errorf("ClientMessage = %q, %t", msg, ok)
	}
}

func TestEcho(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short", `"short"`},
		{strings.Repeat("a", MaxEcho), `"` + strings.Repeat("a", MaxEcho) + `"`},
		{strings.Repeat("a", 60_000), `"` + strings.Repeat("a", MaxEcho) + `"...`},
		// A cut inside a character moves back to its start.
		{strings.Repeat("a", MaxEcho-1) + "é" + "b", `"` + strings.Repeat("a", MaxEcho-1) + `"...`},
		{"\x00\"", `"\x00\""`},
	} {
		if got := Echo(tc.in); got != tc.want {
			t.Errorf("Echo(%.80q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestRegisterUnavailable: an error a registered function recognizes is
// served 503, unless it wraps a kind, which comes first.
func TestRegisterUnavailable(t *testing.T) {
	lost := errors.New("connection lost")
	saved := unavailable
	t.Cleanup(func() { unavailable = saved })
	if got := ToStatus(fmt.Errorf("query: %w", lost)); got != http.StatusInternalServerError {
		t.Fatalf("before registering: %d, want 500", got)
	}
	RegisterUnavailable(func(err error) bool { return errors.Is(err, lost) })
	if got := ToStatus(fmt.Errorf("query: %w", lost)); got != http.StatusServiceUnavailable {
		t.Errorf("a recognized error: %d, want 503", got)
	}
	if got := ToStatus(fmt.Errorf("%w: %w", NotFound, lost)); got != http.StatusNotFound {
		t.Errorf("a recognized error of kind NotFound: %d, want 404", got)
	}
	if !IsUnavailable(fmt.Errorf("x: %w", Unavailable)) || IsUnavailable(errors.New("other")) {
		t.Error("IsUnavailable misjudges the kind or another error")
	}
}

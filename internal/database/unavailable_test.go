package database

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/avaindex/avaindex/internal/derrors"
)

// TestConnectionLost: a server that is not there, a session that ended and
// the server's shutdown codes are Unavailable (503); a failed statement is
// not.
func TestConnectionLost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, refused := Open(ctx, "postgres://postgres@"+addr+"/x?sslmode=disable&connect_timeout=2")
	if refused == nil {
		t.Fatal("opened a database where nothing listens")
	}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"connection refused", refused, http.StatusServiceUnavailable},
		{"conn closed", fmt.Errorf("q: %w", pgconn.ErrConnClosed), http.StatusServiceUnavailable},
		{"unexpected EOF", fmt.Errorf("q: %w", io.ErrUnexpectedEOF), http.StatusServiceUnavailable},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, http.StatusServiceUnavailable},
		{"starting up", fmt.Errorf("q: %w", &pgconn.PgError{Code: "57P03"}), http.StatusServiceUnavailable},
		{"connection failure", &pgconn.PgError{Code: "08006"}, http.StatusServiceUnavailable},
		{"syntax error", &pgconn.PgError{Code: "42601"}, http.StatusInternalServerError},
		{"unique violation", &pgconn.PgError{Code: "23505"}, http.StatusInternalServerError},
		{"other", errors.New("boom"), http.StatusInternalServerError},
	} {
		if got := derrors.ToStatus(tc.err); got != tc.want {
			t.Errorf("%s (%v): %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestConnectionLostNotTimeouts: a request's deadline is no lost server.
func TestConnectionLostNotTimeouts(t *testing.T) {
	if ConnectionLost(fmt.Errorf("q: %w", context.DeadlineExceeded)) || ConnectionLost(context.Canceled) {
		t.Error("a deadline or a cancellation counted as a lost connection")
	}
}

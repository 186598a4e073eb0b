package database

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/avaindex/avaindex/internal/derrors"
)

func init() { derrors.RegisterUnavailable(ConnectionLost) }

// ConnectionLost reports whether err says the database server cannot be
// reached or went away (it was stopped, restarted or is starting up),
// rather than that a statement failed: an error that clears by itself
// once the server is back, which readers are answered 503 for.
func ConnectionLost(err error) bool {
	var netErr *net.OpError
	var connectErr *pgconn.ConnectError
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, net.ErrClosed):
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08, connection exceptions; 57P01-57P03, the server shutting
		// down, crashed or starting up; 53300, too many connections.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	// Errors pgconn knows the server never saw, such as its "conn closed"
	// of a lost session, an unexported type that does not wrap
	// ErrConnClosed. Timeouts are not here: a query that is too slow is no
	// server that went away.
	return pgconn.SafeToRetry(err)
}

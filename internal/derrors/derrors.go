// Package derrors defines the error kinds of avaindex and maps each kind to
// the HTTP status it is served with. Code anywhere wraps a kind with context
// (fmt.Errorf("...: %w", derrors.NotFound)); the API layers call ToStatus
// once, so the mapping lives only here.
package derrors

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

var (
	// InvalidArgument: the request is malformed or a parameter is out of range.
	InvalidArgument = errors.New("invalid argument")
	// Unauthenticated: the resource needs credentials the request lacks.
	Unauthenticated = errors.New("unauthenticated")
	// PermissionDenied: the credentials lack the privilege.
	PermissionDenied = errors.New("permission denied")
	// NotFound: the resource does not exist (or is not indexed yet).
	NotFound = errors.New("not found")
	// Gone: the resource existed and no longer does (an expired
	// download link).
	Gone = errors.New("gone")
	// MethodNotAllowed: the path is served, under other methods.
	MethodNotAllowed = errors.New("method not allowed")
	// UnsupportedMediaType: the body is not of the type the route takes.
	UnsupportedMediaType = errors.New("unsupported media type")
	// ResourceExhausted: a rate limit was hit.
	ResourceExhausted = errors.New("resource exhausted")
	// BadGateway: the upstream node gave an invalid answer.
	BadGateway = errors.New("bad gateway")
	// Unavailable: a dependency (store, upstream node) cannot serve now.
	Unavailable = errors.New("unavailable")
	// Unimplemented: an operation of the hosted API avaindex does not
	// serve. It is no fault of the server's: not logged as one.
	Unimplemented = errors.New("unimplemented")
)

var statuses = []struct {
	kind   error
	status int
}{
	{InvalidArgument, http.StatusBadRequest},
	{Unauthenticated, http.StatusUnauthorized},
	{PermissionDenied, http.StatusForbidden},
	{NotFound, http.StatusNotFound},
	{Gone, http.StatusGone},
	{MethodNotAllowed, http.StatusMethodNotAllowed},
	{UnsupportedMediaType, http.StatusUnsupportedMediaType},
	{ResourceExhausted, http.StatusTooManyRequests},
	{BadGateway, http.StatusBadGateway},
	{Unavailable, http.StatusServiceUnavailable},
	{Unimplemented, http.StatusNotImplemented},
}

// ToStatus returns the HTTP status for err: the status of the first kind err
// wraps, 200 for nil, 503 for an error a RegisterUnavailable function
// recognizes, and 500 for anything else.
func ToStatus(err error) int {
	if err == nil {
		return http.StatusOK
	}
	for _, s := range statuses {
		if errors.Is(err, s.kind) {
			return s.status
		}
	}
	if IsUnavailable(err) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// unavailable are the RegisterUnavailable functions. They are registered
// by package initialization only, so they are read without a lock.
var unavailable []func(error) bool

// RegisterUnavailable makes errors that is recognizes be of kind
// Unavailable, for errors that cannot all be wrapped where they arise: a
// database's lost connections, which surface from every query (and from
// sql.Row.Scan, which nothing wraps). Call it from an init function.
func RegisterUnavailable(is func(error) bool) {
	unavailable = append(unavailable, is)
}

// IsUnavailable reports whether err is of kind Unavailable, wrapped or
// recognized by a RegisterUnavailable function.
func IsUnavailable(err error) bool {
	if errors.Is(err, Unavailable) {
		return true
	}
	for _, is := range unavailable {
		if is(err) {
			return true
		}
	}
	return false
}

// Wrap adds context to *errp when it is non-nil, in the style of
// pkgsite: defer derrors.Wrap(&err, "store.PBlockByHeight(%d)", h).
func Wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), *errp)
	}
}

// Invalid returns an InvalidArgument error with a message for the client.
func Invalid(format string, args ...any) error {
	return &clientError{msg: fmt.Sprintf(format, args...), kind: InvalidArgument}
}

// Missing returns a NotFound error with a message for the client.
func Missing(format string, args ...any) error {
	return &clientError{msg: fmt.Sprintf(format, args...), kind: NotFound}
}

// Client returns an error of kind (one of this package's kinds) with a
// message for the client, for the kinds Invalid and Missing do not cover
// (e.g. Unavailable with a message that says what is unavailable).
func Client(kind error, format string, args ...any) error {
	return &clientError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// MaxEcho bounds how many bytes of a client's input a message repeats.
const MaxEcho = 64

// Echo quotes v for a message to the client, at most MaxEcho bytes of it
// (cut on a character boundary, "..." marking the cut): an error body
// never repeats a 60 kB path or parameter in full.
func Echo(v string) string {
	if len(v) <= MaxEcho {
		return strconv.Quote(v)
	}
	n := MaxEcho
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return strconv.Quote(v[:n]) + "..."
}

// clientError carries a message that is safe to show to API clients.
type clientError struct {
	msg  string
	kind error
}

func (e *clientError) Error() string { return e.msg }
func (e *clientError) Unwrap() error { return e.kind }

// ClientMessage returns the message of the outermost client-safe error in
// err's chain, and false when err carries none (then the caller shows a
// generic text, never internal details).
func ClientMessage(err error) (string, bool) {
	var ce *clientError
	if errors.As(err, &ce) {
		return ce.msg, true
	}
	return "", false
}

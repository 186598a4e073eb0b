package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/jsonrpc"
	"github.com/avaindex/avaindex/internal/metricsapi"
)

// rpcPeekBytes bounds what is read of a JSON-RPC request to find its
// method: clients put "method" before "params", and a method named past
// this prefix is only labelled "unknown".
const rpcPeekBytes = 64 << 10

// unknownMethod labels a request whose JSON-RPC method the route does not
// serve, or that has none (a malformed body, a GET).
const unknownMethod = "unknown"

var (
	requestType = reflect.TypeFor[*http.Request]()
	errorType   = reflect.TypeFor[error]()
)

// RPCMethods returns the JSON-RPC methods that gorilla/rpc serves for
// receiver registered as service: each exported method of the form
// func(*http.Request, *Args, *Reply) error, named as clients call it
// ("platform.getBlock").
func RPCMethods(service string, receiver any) []string {
	t := reflect.TypeOf(receiver)
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		mt := m.Type // the receiver is its first argument
		if mt.NumIn() != 4 || mt.In(1) != requestType || mt.In(2).Kind() != reflect.Pointer ||
			mt.In(3).Kind() != reflect.Pointer || mt.NumOut() != 1 || mt.Out(0) != errorType {
			continue
		}
		out = append(out, service+"."+lowerFirst(m.Name))
	}
	return out
}

func lowerFirst(s string) string {
	if s != "" && s[0] < utf8.RuneSelf && (s[0] < 'A' || s[0] > 'Z') {
		return s // as the clients send it: no copy per request
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// instrumentedRPC records each request under "pattern method", where method
// is one of methods or unknownMethod, and hands it to rec when not nil.
func instrumentedRPC(pattern string, methods []string, h http.Handler, rec UsageRecorder) http.Handler {
	labels := make(map[string]string, len(methods))
	for _, m := range methods {
		labels[m] = pattern + " " + m
	}
	unknown := pattern + " " + unknownMethod
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		label, method := unknown, ""
		ctx := r.Context()
		if r.Method == http.MethodPost && r.Body != nil {
			var m string
			peek, err := io.ReadAll(io.LimitReader(r.Body, rpcPeekBytes+1))
			if err == nil && len(peek) <= rpcPeekBytes {
				// The whole body: parsed once here, and handed down with
				// the request for the handler to route by (jsonrpc.BodyOf).
				reqs, batch := jsonrpc.Parse(peek)
				ctx = jsonrpc.WithBody(ctx, &jsonrpc.Body{Raw: peek, Reqs: reqs, Batch: batch})
				r.Body = struct {
					io.Reader
					io.Closer
				}{bytes.NewReader(peek), r.Body}
				switch {
				case len(reqs) == 1 && !batch:
					m = reqs[0].Method
				case !batch:
					m = rpcMethod(peek) // malformed past its method
				}
			} else {
				// A large body (or a failed read): the handler reads it
				// all, as sent, and bounds it.
				r.Body = struct {
					io.Reader
					io.Closer
				}{io.MultiReader(bytes.NewReader(peek), errReader{err}, r.Body), r.Body}
				m = rpcMethod(peek)
			}
			m = canonicalMethod(m)
			if l, ok := labels[m]; ok {
				label, method = l, m
			}
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		var c *api.Caller
		if rec != nil {
			// An empty Caller, which the access check fills in and the
			// recorder reads once the request is served.
			if c = api.CallerOf(ctx); c == nil {
				c = &api.Caller{}
				ctx = api.WithCaller(ctx, c)
			}
		}
		if ctx != r.Context() {
			r = r.WithContext(ctx) // one copy of the request for both values
		}
		h.ServeHTTP(sw, r)
		instrument.ObserveRequest(label, sw.status, start)
		if rec != nil {
			recordUsage(rec, r, c, pattern, NodeAPI, sw.status, start, method)
		}
	})
}

// errReader returns err, when reading the body failed, where the rest of
// the body would have been.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// rpcMethod returns the "method" member of a JSON-RPC request object, or
// "" when b does not start with one.
func rpcMethod(b []byte) string {
	var m string
	if raw := rpcMember(b, "method"); raw == nil || json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return m
}

// rpcMember returns the member name of the JSON object b starts with, nil
// when it has none (or b is no object, or is malformed before it).
func rpcMember(b []byte, name string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		// Member names match case-insensitively, as the node's decoder does.
		if strings.EqualFold(key, name) {
			return v
		}
	}
	return nil
}

// rpcRequestID returns the id of r's JSON-RPC request, to echo in an
// answer made before the JSON-RPC handler (null when there is none): a
// client matches answers to its calls by id. It reads at most
// rpcPeekBytes of the body, which nothing reads after it.
func rpcRequestID(r *http.Request) json.RawMessage {
	if r == nil || r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, rpcPeekBytes))
	id := rpcMember(b, "id")
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64, nil: // the ids JSON-RPC 2.0 allows
		return id
	}
	return nil
}

// canonicalMethod is the name gorilla/rpc dispatches m to: the node's codec
// upper-cases the first letter of the method, so "platform.GetBlock" is
// "platform.getBlock".
func canonicalMethod(m string) string {
	service, method, ok := strings.Cut(m, ".")
	if !ok || method == "" || strings.Contains(method, ".") {
		return ""
	}
	if lower := lowerFirst(method); lower != method {
		return service + "." + lower
	}
	return m
}

// dataAPIUnavailable answers with the Data API's 503 error body.
func dataAPIUnavailable(reason string) http.Handler {
	body := api.ErrorBody{Message: reason, StatusCode: http.StatusServiceUnavailable, Error: http.StatusText(http.StatusServiceUnavailable)}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		api.WriteJSON(w, http.StatusServiceUnavailable, body)
	})
}

// metricsAPIUnavailable answers with HTTP 503 in the Metrics API's error
// body.
func metricsAPIUnavailable(reason string) http.Handler {
	body := metricsapi.NewErrorBody(http.StatusServiceUnavailable, reason)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		api.WriteJSON(w, http.StatusServiceUnavailable, body)
	})
}

// rpcUnavailableCode is JSON-RPC's "server error" code, which the node
// also answers with.
const rpcUnavailableCode = -32000

// nodeAPIUnavailable answers with HTTP 503 and a JSON-RPC error object.
func nodeAPIUnavailable(reason string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeRPCErrorBody(w, r, http.StatusServiceUnavailable, reason)
	})
}

// writeRPCError is the node API's error writer for what is refused before
// the JSON-RPC handler (e.g. a rate limit): err's status, with a JSON-RPC
// error object carrying its client-safe message.
func writeRPCError(w http.ResponseWriter, r *http.Request, err error) {
	status := derrors.ToStatus(err)
	msg, ok := derrors.ClientMessage(err)
	if !ok {
		msg = http.StatusText(status)
	}
	writeRPCErrorBody(w, r, status, msg)
}

// writeRPCErrorBody writes a JSON-RPC error object with the id of r's
// request.
func writeRPCErrorBody(w http.ResponseWriter, r *http.Request, status int, message string) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	body := struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   rpcError        `json:"error"`
		ID      json.RawMessage `json:"id"`
	}{"2.0", rpcError{rpcUnavailableCode, message}, rpcRequestID(r)}
	if body.ID == nil {
		body.ID = json.RawMessage("null")
	}
	api.WriteJSON(w, status, body)
}

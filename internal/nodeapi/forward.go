package nodeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ava-labs/avalanchego/cache/lru"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/jsonrpc"
	"github.com/avaindex/avaindex/internal/node"
)

// Passthrough sends a client's JSON-RPC body to the node as sent.
// *node.Forwarder implements it.
type Passthrough interface {
	Forward(ctx context.Context, path, label string, body []byte) (*node.Forwarded, error)
	ForwardURL(ctx context.Context, url, label string, body []byte) (*node.Forwarded, error)
}

// ErrNodeUnreachable is the message of a forwarded call's error while the
// node does not answer.
const ErrNodeUnreachable = "the node is unreachable"

// Forward describes one route whose requests avaindex does not (all)
// answer itself.
type Forward struct {
	// Path is the node's path the requests go to (e.g. "/ext/bc/P"), or
	// URL a full URL (an EVM chain another node serves); URL wins.
	Path, URL string
	// Local, when set, answers every request but those of Service's
	// methods not in Served, which go to the node: a malformed body, a
	// batch, an unknown service are answered as the node answers them,
	// by the same codec. Without Local, every request goes to the node.
	Local   http.Handler
	Service string
	Served  []string
	// Also, when set, names served calls that go to the node all the
	// same (by method and params).
	Also func(method string, params json.RawMessage) bool
}

// NewForwardHandler returns the handler of a route described by f.
// Requests are bounded (MaxRequestBytes), only their body reaches the
// node, and answers of immutable values are kept in cache (nil: none).
func NewForwardHandler(pass Passthrough, cache *ReplyCache, f Forward) http.Handler {
	served := make(map[string]bool, len(f.Served))
	for _, m := range f.Served {
		served[m] = true
	}
	label := f.Path
	if f.URL != "" {
		label = "evm rpc"
	}
	return &forwardHandler{pass: pass, cache: cache, f: f, served: served, label: label}
}

type forwardHandler struct {
	pass   Passthrough
	cache  *ReplyCache
	f      Forward
	served map[string]bool
	label  string // bounded: the route's path, never the client's method
}

func (h *forwardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.f.Local != nil && r.Method != http.MethodPost {
		h.f.Local.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeRPCError(w, http.StatusMethodNotAllowed, nil, "method not allowed: use POST")
		return
	}
	body, reqs, batch, err := requestBody(w, r)
	if err != nil {
		writeRPCError(w, http.StatusRequestEntityTooLarge, nil, fmt.Sprintf("request body larger than %d bytes", MaxRequestBytes))
		return
	}
	if h.f.Local == nil && len(bytes.TrimSpace(body)) == 0 {
		// Some nodes (geth's RPC) answer an empty body with an empty 200;
		// a JSON-RPC client expects an error object.
		body := newRPCError(nil, "empty request body")
		body.Error.Code = rpcParseError
		writeJSON(w, http.StatusBadRequest, body)
		return
	}
	if h.f.Local != nil && (batch || len(reqs) != 1 || !h.forwarded(reqs[0])) {
		r.Body = readCloser{bytes.NewReader(body)}
		h.serveLocal(w, r, reqs, batch)
		return
	}
	var key string
	if !batch && len(reqs) == 1 {
		key = h.cacheKey(reqs[0], cachedMethods)
		if ans, ok := h.cache.get(key); ok {
			writeResult(w, reqs[0].ID, ans)
			return
		}
	}
	var ans *node.Forwarded
	if h.f.URL != "" {
		ans, err = h.pass.ForwardURL(r.Context(), h.f.URL, h.label, body)
	} else {
		ans, err = h.pass.Forward(r.Context(), h.f.Path, h.label, body)
	}
	if err != nil {
		h.unreachable(w, reqs, batch, err)
		return
	}
	if key != "" && ans.StatusCode == http.StatusOK {
		h.cache.putIfFinal(key, reqs[0].Method, ans.Body, nil)
	}
	if ans.ContentType != "" {
		w.Header().Set("Content-Type", ans.ContentType)
	}
	w.WriteHeader(ans.StatusCode)
	_, _ = w.Write(ans.Body)
}

// serveLocal answers a request avaindex serves itself, through the reply
// cache for localCachedMethods (serveKept).
func (h *forwardHandler) serveLocal(w http.ResponseWriter, r *http.Request, reqs []rpcRequest, batch bool) {
	key := ""
	if !batch && len(reqs) == 1 {
		if k := h.cacheKey(reqs[0], localCachedMethods); k != "" {
			key = "local\x00" + k
		}
	}
	h.cache.serveKept(w, r, key, reqs, h.f.Local, nil)
}

// serveKept answers a call served by h (a JSON-RPC codec over the store)
// whose answer never changes once h has one. A success is kept under key
// (with final, when set, saying whether it is complete) and sent again
// without decoding, reading the store and encoding: the codec's envelope
// around the kept result, with the request's id (TestLocalReplyCache
// holds the two byte-identical). A request the codec would refuse or
// leave unanswered (its Content-Type, its jsonrpc version, no id) never
// takes the kept path; nor does one without a key.
func (c *ReplyCache) serveKept(w http.ResponseWriter, r *http.Request, key string, reqs []rpcRequest, h http.Handler, final func(result []byte) bool) {
	if c == nil || key == "" || len(reqs) != 1 || reqs[0].JSONRPC != "2.0" || len(reqs[0].ID) == 0 ||
		string(reqs[0].ID) == "null" || !codecContentType(r) {
		h.ServeHTTP(w, r)
		return
	}
	id, err := json.Marshal(reqs[0].ID) // compacted and escaped as the codec's encoder does
	if err != nil {
		h.ServeHTTP(w, r)
		return
	}
	if result, ok := c.get(key); ok {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		out := make([]byte, 0, len(result)+len(id)+40)
		out = append(out, `{"jsonrpc":"2.0","result":`...)
		out = append(out, result...)
		out = append(out, `,"id":`...)
		out = append(out, id...)
		_, _ = w.Write(append(out, "}\n"...))
		return
	}
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusOK {
		c.putIfFinal(key, reqs[0].Method, rec.body.Bytes(), final)
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// localCachedMethods are the methods served from the store whose answers
// are immutable once found: a block by height or id, an accepted tx (a
// height or id the store does not hold yet is an error, never kept).
var localCachedMethods = []string{
	"platform.getBlockByHeight", "platform.getBlock", "platform.getTx",
	"avm.getBlockByHeight", "avm.getBlock", "avm.getTx",
}

// codecContentType reports whether the JSON-RPC codec accepts r's
// Content-Type, as gorilla/rpc picks a codec: the media type before any
// ';', lower-cased, neither trimmed nor defaulted.
func codecContentType(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(ct) == "application/json"
}

// recorder keeps a handler's answer so that it can be kept before it is
// sent; headers go to the real writer.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) { r.status = status }

func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// forwarded reports whether req calls one of the service's methods that
// avaindex does not serve, or a served call Also names. The node's codec
// upper-cases the first letter of the method's name, so
// "platform.IssueTx" is "platform.issueTx".
func (h *forwardHandler) forwarded(req rpcRequest) bool {
	service, name, ok := strings.Cut(req.Method, ".")
	if !ok || service != h.f.Service || name == "" {
		return false
	}
	method := req.Method
	if lower := lowerFirst(name); lower != name {
		method = service + "." + lower
	}
	return !h.served[method] || h.f.Also != nil && h.f.Also(method, req.Params)
}

// cacheKey is what identifies a request's answer: the route, the method
// and its params as sent; "" for a method not in methods.
func (h *forwardHandler) cacheKey(req rpcRequest, methods []string) string {
	if h.cache == nil || !slices.Contains(methods, req.Method) {
		return ""
	}
	var params bytes.Buffer
	if err := json.Compact(&params, req.Params); err != nil {
		return ""
	}
	return h.f.URL + h.f.Path + "\x00" + req.Method + "\x00" + params.String()
}

// unreachable answers the requests of a call the node did not answer: a
// JSON-RPC error for each, echoing its id, with HTTP 200 as the node
// answers its errors, so that clients show the message.
func (h *forwardHandler) unreachable(w http.ResponseWriter, reqs []rpcRequest, batch bool, err error) {
	msg := ErrNodeUnreachable
	switch {
	case errors.Is(err, derrors.BadGateway):
		msg = "the node's answer was not usable"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		msg = ErrNodeUnreachable + ": it did not answer in time"
	}
	if !batch {
		var id json.RawMessage
		if len(reqs) == 1 {
			id = reqs[0].ID
		}
		writeRPCError(w, http.StatusOK, id, msg)
		return
	}
	out := make([]rpcErrorBody, len(reqs))
	for i, r := range reqs {
		out[i] = newRPCError(r.ID, msg)
	}
	writeJSON(w, http.StatusOK, out)
}

// rpcRequest is what the forwarder reads of a JSON-RPC request.
type rpcRequest = jsonrpc.Request

// requestBody returns r's body and its requests: as the server's
// instrumentation read and parsed it (jsonrpc.BodyOf), or else read here,
// bounded by MaxRequestBytes.
func requestBody(w http.ResponseWriter, r *http.Request) (body []byte, reqs []rpcRequest, batch bool, err error) {
	if p := jsonrpc.BodyOf(r.Context()); p != nil {
		return p.Raw, p.Reqs, p.Batch, nil
	}
	if body, err = readBody(w, r); err != nil {
		return nil, nil, false, err
	}
	reqs, batch = jsonrpc.Parse(body)
	return body, reqs, batch, nil
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	return buf.Bytes(), err
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

type rpcErrorBody struct {
	JSONRPC string          `json:"jsonrpc"`
	Error   rpcErrorObject  `json:"error"`
	ID      json.RawMessage `json:"id"`
}

type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcServerError is JSON-RPC's "server error" code, the node's for every
// method error.
const rpcServerError = -32000

// rpcParseError is JSON-RPC's code for a body that is no JSON.
const rpcParseError = -32700

func newRPCError(id json.RawMessage, msg string) rpcErrorBody {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return rpcErrorBody{JSONRPC: "2.0", Error: rpcErrorObject{Code: rpcServerError, Message: msg}, ID: id}
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	writeJSON(w, status, newRPCError(id, msg))
}

func writeResult(w http.ResponseWriter, id json.RawMessage, result json.RawMessage) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	writeJSON(w, http.StatusOK, struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", id, result})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the answer", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func lowerFirst(s string) string {
	if s != "" && s[0] < utf8.RuneSelf && (s[0] < 'A' || s[0] > 'Z') {
		return s // as the clients send it: no copy per request
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// cachedMethods answer values that never change once final: a block or a
// tx by its hash, a mined tx's receipt, an accepted tx. Their answers are
// kept only when final (ReplyCache.putIfFinal).
var cachedMethods = []string{
	"eth_getBlockByHash", "eth_getTransactionByHash", "eth_getTransactionReceipt",
	"avm.getTx", "platform.getTx",
}

// ReplyCache keeps the results of forwarded calls whose answers are
// immutable, bounded by their total size, least recently used first out.
type ReplyCache struct {
	lru *lru.SizedCache[string, json.RawMessage]
}

// NewReplyCache returns a cache of at most maxBytes of results.
func NewReplyCache(maxBytes int) *ReplyCache {
	return &ReplyCache{lru: lru.NewSizedCache(maxBytes, func(k string, v json.RawMessage) int { return len(k) + len(v) })}
}

func (c *ReplyCache) get(key string) (json.RawMessage, bool) {
	if c == nil || key == "" {
		return nil, false
	}
	return c.lru.Get(key)
}

// putIfFinal keeps the result of body, the node's answer to one call of
// method, when it is final: a result and no error, and for a tx by hash
// one already in a block (a pending tx's answer changes once mined), and
// one final (nil: any) accepts.
func (c *ReplyCache) putIfFinal(key, method string, body []byte, final func(result []byte) bool) {
	var ans struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &ans) != nil || len(ans.Error) > 0 && string(ans.Error) != "null" ||
		len(ans.Result) == 0 || string(ans.Result) == "null" {
		return
	}
	if method == "eth_getTransactionByHash" {
		var tx struct {
			BlockHash *string `json:"blockHash"`
		}
		if json.Unmarshal(ans.Result, &tx) != nil || tx.BlockHash == nil {
			return
		}
	}
	if final != nil && !final(ans.Result) {
		return
	}
	c.lru.Put(key, ans.Result)
}

// NewEVMForwardHandler returns the handler of /ext/bc/{blockchainId}/rpc:
// each request goes to the RPC of the EVM chain the path names, as
// resolve finds it (its URL); a chain resolve does not know is a 404.
func NewEVMForwardHandler(pass Passthrough, cache *ReplyCache, resolve func(chain string) (url string, ok bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		url, ok := resolve(r.PathValue("blockchainId"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := &forwardHandler{pass: pass, cache: cache, f: Forward{URL: url}, label: "evm rpc"}
		h.ServeHTTP(w, r)
	})
}

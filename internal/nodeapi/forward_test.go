package nodeapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/avaindex/avaindex/internal/node"
)

// recordingNode is a stand-in for the node's HTTP server: it answers each
// path with what answer returns and records what it was sent.
type recordingNode struct {
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	answer  func(path string, body []byte) string
}

func (n *recordingNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	n.mu.Lock()
	n.bodies = append(n.bodies, r.URL.Path+" "+string(b))
	n.headers = append(n.headers, r.Header.Clone())
	n.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, n.answer(r.URL.Path, b))
}

func (n *recordingNode) calls() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.bodies...)
}

func post(t *testing.T, h http.Handler, body string, header http.Header) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/ext/bc/P", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestForwardPlatform: a platform method avaindex does not serve reaches
// the node as sent and its answer comes back as the node sent it, without
// the client's headers; a served method, a batch, another service and a
// malformed body are answered locally.
func TestForwardPlatform(t *testing.T) {
	fake := &recordingNode{answer: func(string, []byte) string {
		return `{"jsonrpc":"2.0","result":{"txID":"2Z4UUzZJmMK36mgH4j4mWQvJGp8FBVUgfNNz4w6xFSgRCnjZHK"},"id":7}`
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	local, err := newServer(&Echo{}, "platform")
	if err != nil {
		t.Fatal(err)
	}
	h := NewForwardHandler(node.NewForwarder(srv.URL), nil, Forward{Path: "/ext/bc/P", Local: local, Service: "platform", Served: []string{"platform.say"}})

	issue := `{"jsonrpc":"2.0","id":7,"method":"platform.issueTx","params":{"tx":"0x00","encoding":"hex"}}`
	secret := http.Header{"X-Glacier-Api-Key": {"secret-key"}, "Authorization": {"Bearer secret"}, "Cookie": {"a=b"}}
	status, body := post(t, h, issue, secret)
	if status != 200 || !strings.Contains(body, `"txID":"2Z4UUzZJmMK36mgH4j4mWQvJGp8FBVUgfNNz4w6xFSgRCnjZHK"`) {
		t.Fatalf("issueTx: HTTP %d %s", status, body)
	}
	if got := fake.calls(); len(got) != 1 || got[0] != "/ext/bc/P "+issue {
		t.Fatalf("the node was sent %q, want the request as sent", got)
	}
	for k := range fake.headers[0] {
		if v := fake.headers[0].Get(k); strings.Contains(v, "secret") || k == "Cookie" {
			t.Errorf("the client's header %s reached the node", k)
		}
	}
	// The node's codec upper-cases the method's first letter: IssueTx is
	// issueTx, and forwarded too.
	if _, _ = post(t, h, strings.Replace(issue, "issueTx", "IssueTx", 1), nil); len(fake.calls()) != 2 {
		t.Fatal("platform.IssueTx was not forwarded")
	}

	for _, local := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"platform.say","params":{"text":"hi"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"platform.Say","params":{"text":"hi"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"platform.issueTx","params":{}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"avm.issueTx","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"platform.issueTx"`,
		`{"jsonrpc":"2.0","id":1,"method":"platform.","params":{}}`,
	} {
		before := len(fake.calls())
		status, body := post(t, h, local, nil)
		if len(fake.calls()) != before {
			t.Errorf("%s was forwarded", local)
		}
		if status == 200 && !strings.Contains(body, `"result"`) && !strings.Contains(body, `"error"`) {
			t.Errorf("%s: HTTP %d %s", local, status, body)
		}
	}
	if _, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"platform.say","params":{"text":"hi"}}`, nil); !strings.Contains(body, `"text":"hi"`) {
		t.Errorf("the served method was not answered locally: %s", body)
	}
}

// TestForwardNodeUnreachable: with the node down, a forwarded call is a
// JSON-RPC error that says so and echoes the request's id, one per
// request of a batch.
func TestForwardNodeUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	h := NewForwardHandler(node.NewForwarder(url), nil, Forward{Path: "/ext/bc/C/rpc"})

	status, body := post(t, h, `{"jsonrpc":"2.0","id":"abc-1","method":"eth_blockNumber","params":[]}`, nil)
	var one rpcErrorBody
	if err := json.Unmarshal([]byte(body), &one); err != nil || status != 200 {
		t.Fatalf("HTTP %d %s", status, body)
	}
	if string(one.ID) != `"abc-1"` || one.Error.Message != ErrNodeUnreachable || one.Error.Code != -32000 {
		t.Fatalf("answer %s: want the id echoed and %q", body, ErrNodeUnreachable)
	}

	_, body = post(t, h, `[{"jsonrpc":"2.0","id":3,"method":"eth_chainId"},{"jsonrpc":"2.0","id":4,"method":"eth_blockNumber"}]`, nil)
	var many []rpcErrorBody
	if err := json.Unmarshal([]byte(body), &many); err != nil || len(many) != 2 {
		t.Fatalf("batch answer %s", body)
	}
	if string(many[0].ID) != "3" || string(many[1].ID) != "4" || many[1].Error.Message != ErrNodeUnreachable {
		t.Fatalf("batch answer %s: want each id echoed", body)
	}
}

// TestForwardCache: a mined tx by hash is asked of the node once and then
// answered from the cache under the new request's id; a pending tx and an
// error are asked each time.
func TestForwardCache(t *testing.T) {
	fake := &recordingNode{answer: func(_ string, b []byte) string {
		switch {
		case bytes.Contains(b, []byte("0xmined")):
			return `{"jsonrpc":"2.0","id":1,"result":{"hash":"0xmined","blockHash":"0xb1"}}`
		case bytes.Contains(b, []byte("0xpending")):
			return `{"jsonrpc":"2.0","id":1,"result":{"hash":"0xpending","blockHash":null}}`
		}
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := NewForwardHandler(node.NewForwarder(srv.URL), NewReplyCache(1<<20), Forward{Path: "/ext/bc/C/rpc"})
	ask := func(id, hash string) string {
		_, body := post(t, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"eth_getTransactionByHash","params":["`+hash+`"]}`, nil)
		return body
	}
	for _, hash := range []string{"0xmined", "0xpending", "0xfails"} {
		ask("1", hash)
	}
	if n := len(fake.calls()); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	body := ask("99", "0xmined")
	var env struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			BlockHash string `json:"blockHash"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || string(env.ID) != "99" || env.Result.BlockHash != "0xb1" {
		t.Fatalf("cached answer %s: want the result under id 99", body)
	}
	ask("2", "0xpending")
	ask("2", "0xfails")
	if n := len(fake.calls()); n != 5 {
		t.Fatalf("%d calls, want the mined tx asked once and the others twice (5)", n)
	}
}

// TestForwardBounds: a body over the bound and an empty body are refused
// before the node sees them, and a GET is not forwarded.
func TestForwardBounds(t *testing.T) {
	fake := &recordingNode{answer: func(string, []byte) string { return `{}` }}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := NewForwardHandler(node.NewForwarder(srv.URL), nil, Forward{Path: "/ext/info"})
	status, _ := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"info.x","params":"`+strings.Repeat("x", MaxRequestBytes)+`"}`, nil)
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: HTTP %d, want 413", status)
	}
	if status, body := post(t, h, " \n", nil); status != http.StatusBadRequest || !strings.Contains(body, `"code":-32700`) {
		t.Errorf("empty body: HTTP %d %s, want 400 and a parse error", status, body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ext/info", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: HTTP %d, want 405", rec.Code)
	}
	if n := len(fake.calls()); n != 0 {
		t.Errorf("the node was called %d times", n)
	}
}

package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	avajson "github.com/ava-labs/avalanchego/utils/json"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// blockService is a stand-in for the platform service: blocks at heights
// below 100, with a '<' in them so that the codec's HTML escaping shows;
// it counts its calls.
type blockService struct{ calls atomic.Int64 }

type CacheTestArgs struct {
	Height   avajson.Uint64 `json:"height"`
	Encoding string         `json:"encoding"`
}

type CacheTestReply struct {
	Block    string `json:"block"`
	Encoding string `json:"encoding"`
}

func (s *blockService) GetBlockByHeight(_ *http.Request, args *CacheTestArgs, reply *CacheTestReply) error {
	s.calls.Add(1)
	if args.Height >= 100 {
		return errors.New("no block at that height")
	}
	reply.Block, reply.Encoding = fmt.Sprintf("0x%04x<&>", uint64(args.Height)), args.Encoding
	return nil
}

// TestLocalReplyCache: a served block answer is kept after its first
// call and sent again without the service, byte for byte (headers
// included) what the service's codec writes for the same request; errors
// are not kept, and requests the codec would refuse or not answer never
// get a kept answer.
func TestLocalReplyCache(t *testing.T) {
	svc := &blockService{}
	local, err := newServer(svc, "platform")
	if err != nil {
		t.Fatal(err)
	}
	none := node.NewForwarder("http://127.0.0.1:9")
	f := Forward{Path: "/ext/bc/P", Local: local, Service: "platform", Served: []string{"platform.getBlockByHeight"}}
	cached := NewForwardHandler(none, NewReplyCache(1<<20), f)
	direct := NewForwardHandler(none, nil, f)
	call := func(h http.Handler, body, contentType string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/ext/bc/P", strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	same := func(what string, got, want *httptest.ResponseRecorder) {
		t.Helper()
		if got.Code != want.Code || got.Body.String() != want.Body.String() {
			t.Errorf("%s: HTTP %d %q, want HTTP %d %q", what, got.Code, got.Body.String(), want.Code, want.Body.String())
		}
		for _, k := range []string{"Content-Type", "X-Content-Type-Options"} {
			if got.Header().Get(k) != want.Header().Get(k) {
				t.Errorf("%s: %s %q, want %q", what, k, got.Header().Get(k), want.Header().Get(k))
			}
		}
	}
	req := func(id, height string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"platform.getBlockByHeight","params":{"height":` + height + `,"encoding":"hex"}}`
	}

	first := call(cached, req("1", "7"), "application/json")
	if first.Code != 200 || !strings.Contains(first.Body.String(), `0x0007\u003c\u0026\u003e`) {
		t.Fatalf("first call: HTTP %d %s", first.Code, first.Body.String())
	}
	if n := svc.calls.Load(); n != 1 {
		t.Fatalf("the service was called %d times, want 1", n)
	}
	for _, id := range []string{`1`, `42`, `"abc"`, `"a<b>&"`, ` 7 `, `{"x": [1, 2]}`, `1.5e3`, `-0`} {
		calls := svc.calls.Load()
		got := call(cached, req(id, "7"), "application/json; charset=UTF-8")
		if svc.calls.Load() != calls {
			t.Errorf("id %s: the kept answer was not used", id)
		}
		same("id "+id, got, call(direct, req(id, "7"), "application/json; charset=UTF-8"))
	}

	// An error is not kept.
	calls := svc.calls.Load()
	call(cached, req("1", "100"), "application/json")
	same("unknown height", call(cached, req("1", "100"), "application/json"), call(direct, req("1", "100"), "application/json"))
	if got := svc.calls.Load() - calls; got != 3 {
		t.Errorf("the service answered %d of 3 calls of an unknown height, want all", got)
	}

	// What the codec refuses or leaves unanswered, with a kept answer for
	// the same params.
	for _, c := range []struct{ name, body, contentType string }{
		{"jsonrpc 1.0", strings.Replace(req("1", "7"), `"2.0"`, `"1.0"`, 1), "application/json"},
		{"no jsonrpc", strings.Replace(req("1", "7"), `"jsonrpc":"2.0",`, "", 1), "application/json"},
		{"null id", req("null", "7"), "application/json"},
		{"no id", strings.Replace(req("1", "7"), `"id":1,`, "", 1), "application/json"},
		{"no Content-Type", req("1", "7"), ""},
		{"text/plain", req("1", "7"), "text/plain"},
		{"spaced media type", req("1", "7"), "application/json ; charset=utf-8"},
		{"upper-case method", strings.Replace(req("1", "7"), "getBlock", "GetBlock", 1), "application/json"},
	} {
		same(c.name, call(cached, c.body, c.contentType), call(direct, c.body, c.contentType))
	}
}

// countingContainers counts the container ranges read from the store.
type countingContainers struct {
	ContainerSource
	ranges atomic.Int64
}

func (c *countingContainers) ContainerRange(ctx context.Context, index string, first, last uint64) ([]store.Container, error) {
	c.ranges.Add(1)
	return c.ContainerSource.ContainerRange(ctx, index, first, last)
}

// TestIndexReplyCache: a range of as many containers as asked for is
// kept and sent again, byte-identical to the codec's answer; a shorter
// range, which grows as containers are accepted, is read every time.
func TestIndexReplyCache(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetIndexSource(ctx, "X/tx", store.SourceNode); err != nil {
		t.Fatal(err)
	}
	apply := func(from, to uint64) {
		var cs []store.Container
		for i := from; i <= to; i++ {
			cs = append(cs, store.Container{Index: i, ID: ids.GenerateTestID(), Bytes: []byte{byte(i), '<'}, Timestamp: "2025-01-02T03:04:05Z"})
		}
		if err := st.ApplyContainers(ctx, "X/tx", cs); err != nil {
			t.Fatal(err)
		}
	}
	src := &countingContainers{ContainerSource: st}
	cached, err := NewIndexHandler(src, "X/tx", NewReplyCache(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := NewIndexHandler(st, "X/tx", nil)
	if err != nil {
		t.Fatal(err)
	}
	body := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"index.getContainerRange","params":{"startIndex":0,"numToFetch":5,"encoding":"hex"}}`
	}
	post := func(h http.Handler, id string) string {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body(id)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("HTTP %d %s", rec.Code, rec.Body.String())
		}
		return rec.Body.String()
	}
	containers := func(answer string) int {
		var env struct {
			Result struct {
				Containers []json.RawMessage `json:"containers"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(answer), &env); err != nil {
			t.Fatal(err)
		}
		return len(env.Result.Containers)
	}

	apply(0, 2)
	if n := containers(post(cached, "1")); n != 3 {
		t.Fatalf("%d containers, want 3", n)
	}
	apply(3, 4)
	reads := src.ranges.Load()
	if got := post(cached, "2"); containers(got) != 5 {
		t.Fatalf("after 2 more containers: %d, want 5 (a short range was kept)", containers(got))
	}
	if src.ranges.Load() == reads {
		t.Fatal("the store was not read for a range not kept")
	}
	reads = src.ranges.Load()
	for _, id := range []string{"3", `"x<y"`} {
		if got, want := post(cached, id), post(direct, id); got != want {
			t.Errorf("id %s: kept answer %q, want the codec's %q", id, got, want)
		}
	}
	if n := src.ranges.Load() - reads; n != 0 {
		t.Errorf("a full range was read from the store %d times after it was kept", n)
	}
}

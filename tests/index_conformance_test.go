package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	proposerblock "github.com/ava-labs/avalanchego/vms/proposervm/block"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// post sends a JSON-RPC request and returns the HTTP status and body.
func post(t testing.TB, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// nodeIndexes returns, for each index the node serves, the index of its
// last container (-1 when empty).
func nodeIndexes(t *testing.T, nodeURL string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, name := range store.IndexNames {
		status, _ := post(t, nodeURL+"/ext/index/"+name, `{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}`)
		if status == http.StatusNotFound {
			continue
		}
		_, last, err := indexer.NewClient(nodeURL + "/ext/index/" + name).GetLastAccepted(context.Background())
		switch {
		case err != nil && strings.Contains(err.Error(), "no containers have been accepted"):
			out[name] = -1
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			out[name] = int64(last)
		}
	}
	return out
}

// waitMirrored waits until avaindex's index name holds last (-1: until the
// index answers as an empty one).
func waitMirrored(t *testing.T, base, name string, last int64, within time.Duration) {
	t.Helper()
	c := indexer.NewClient(base + "/ext/index/" + name)
	start := time.Now()
	for {
		_, got, err := c.GetLastAccepted(context.Background())
		if last < 0 && err != nil && strings.Contains(err.Error(), "no containers have been accepted") {
			return
		}
		if err == nil && int64(got) >= last {
			return
		}
		if time.Since(start) > within {
			t.Fatalf("avaindex did not mirror %s up to %d within %s (at %d, err %v)", name, last, within, got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIndexMatchesNode compares every index.* method on every index, every
// index value and every container id, on avaindex and on the node.
func TestIndexMatchesNode(t *testing.T) {
	n, _ := issuedNetwork(t)
	ctx := context.Background()
	lasts := nodeIndexes(t, n.URL)
	for _, name := range []string{"C/block", "P/block", "X/block"} {
		if lasts[name] < 1 {
			t.Fatalf("the node's %s index has %d containers; the comparison needs some", name, lasts[name]+1)
		}
	}
	t.Logf("node indexes (last index): %v", lasts)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		compared := 0
		for _, name := range store.IndexNames {
			nodeEP, ourEP := n.URL+"/ext/index/"+name, base+"/ext/index/"+name
			last, served := lasts[name]
			if !served {
				// The node has no such index: neither has avaindex.
				if s, _ := post(t, ourEP, `{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}`); s != http.StatusNotFound {
					t.Errorf("%s: the node has no such index but avaindex answers HTTP %d", name, s)
				}
				continue
			}
			waitMirrored(t, base, name, last, time.Minute)

			compare := sameAsNode(t, nodeEP, ourEP, t.Fatalf)
			same := func(method string, params any) json.RawMessage {
				t.Helper()
				compared++
				return compare(method, params)
			}
			sameRaw := func(body string) {
				t.Helper()
				compared++
				ws, wb := post(t, nodeEP, body)
				gs, gb := post(t, ourEP, body)
				if ws != gs || !bytes.Equal(bytes.TrimSpace(wb), bytes.TrimSpace(gb)) {
					t.Fatalf("%s %s:\n node:     HTTP %d %s\n avaindex: HTTP %d %s", name, body, ws, clip(wb), gs, clip(gb))
				}
			}

			emptyRange := func(params map[string]any) {
				t.Helper()
				compared++
				req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "index.getContainerRange", "params": params})
				_, wb := post(t, nodeEP, string(req))
				if !bytes.Contains(wb, []byte("numToFetch must be in [1,1024] but is 0")) {
					t.Errorf("%s getContainerRange %s: the node answers %s; avaindex documents its error", name, req, clip(wb))
				}
				gs, gb := post(t, ourEP, string(req))
				if gs != http.StatusOK || !bytes.Equal(bytes.TrimSpace(gb), []byte(`{"jsonrpc":"2.0","result":{"containers":null},"id":1}`)) {
					t.Fatalf("%s getContainerRange %s: HTTP %d %s; want the empty answer", name, req, gs, clip(gb))
				}
			}
			encodings := []any{"hex", "hexnc", "hexc", "json", "HEX", nil}
			withEnc := func(p map[string]any, enc any) map[string]any {
				q := map[string]any{}
				for k, v := range p {
					q[k] = v
				}
				if enc != nil {
					q["encoding"] = enc
				}
				return q
			}
			for _, enc := range encodings {
				same("index.getLastAccepted", withEnc(map[string]any{}, enc))
			}
			var ids_ []string
			for i := int64(0); i <= last; i++ {
				for _, enc := range encodings {
					res := same("index.getContainerByIndex", withEnc(map[string]any{"index": i}, enc))
					if enc == "hex" {
						var c struct {
							ID string `json:"id"`
						}
						if err := json.Unmarshal(res, &c); err != nil || c.ID == "" {
							t.Fatalf("%s container %d: %s (%v)", name, i, res, err)
						}
						ids_ = append(ids_, c.ID)
					}
				}
				same("index.getContainerByIndex", map[string]any{"index": fmt.Sprint(i), "encoding": "hex"})
			}
			for _, id := range ids_ {
				for _, enc := range []any{"hex", "hexnc", "json", nil} {
					same("index.getContainerByID", withEnc(map[string]any{"id": id}, enc))
				}
				same("index.getIndex", map[string]any{"id": id})
				same("index.getIndex", map[string]any{"id": id, "encoding": "hex"})
				same("index.isAccepted", map[string]any{"id": id})
			}
			// Ranges, in and beyond the index.
			end := max(last, 0)
			for _, w := range []struct{ start, n any }{
				{0, 1}, {0, 2}, {0, 5}, {0, 1024}, {0, 1025}, {0, 0}, {0, 100000},
				{1, 3}, {end / 2, 7}, {end, 1}, {end, 1024}, {end + 1, 1}, {end + 1, 0},
				{end + 100, 5}, {uint64(math.MaxUint64), 1}, {uint64(math.MaxUint64), 1024},
				{"0", "3"}, {-1, 1}, {0, -1}, {"x", 1}, {0, "x"}, {1.5, 1}, {nil, nil},
			} {
				for _, enc := range []any{"hex", "hexnc", "json", "cb58", nil} {
					p := map[string]any{}
					if w.start != nil {
						p["startIndex"] = w.start
					}
					if w.n != nil {
						p["numToFetch"] = w.n
					}
					if (w.n == nil || w.n == 0) && enc != "cb58" {
						// The one documented difference: the spec's empty
						// answer where the node answers an error (params
						// that do not decode, as cb58, fail alike).
						emptyRange(withEnc(p, enc))
						continue
					}
					same("index.getContainerRange", withEnc(p, enc))
				}
			}
			// Bad and unknown inputs.
			unknown := ids.GenerateTestID().String()
			someID := unknown
			if len(ids_) > 0 {
				someID = ids_[0]
			}
			for _, bad := range []struct {
				method string
				params any
			}{
				{"index.getContainerByIndex", map[string]any{"index": end + 1}},
				{"index.getContainerByIndex", map[string]any{"index": end + 1, "encoding": "json"}},
				{"index.getContainerByIndex", map[string]any{"index": uint64(math.MaxUint64)}},
				{"index.getContainerByIndex", map[string]any{"index": -1}},
				{"index.getContainerByIndex", map[string]any{"index": "x"}},
				{"index.getContainerByIndex", map[string]any{"index": 0, "encoding": "cb58"}},
				{"index.getContainerByIndex", map[string]any{"index": 0, "encoding": 1}},
				{"index.getContainerByIndex", map[string]any{}},
				{"index.getContainerByIndex", []int{0}},
				{"index.getContainerByID", map[string]any{"id": unknown}},
				{"index.getContainerByID", map[string]any{"id": unknown, "encoding": "json"}},
				{"index.getContainerByID", map[string]any{"id": "nope"}},
				{"index.getContainerByID", map[string]any{"id": someID, "encoding": "cb58"}},
				{"index.getContainerByID", map[string]any{}},
				{"index.getIndex", map[string]any{"id": unknown}},
				{"index.getIndex", map[string]any{"id": "nope"}},
				{"index.getIndex", map[string]any{}},
				{"index.isAccepted", map[string]any{"id": unknown}},
				{"index.isAccepted", map[string]any{"id": "nope"}},
				{"index.isAccepted", map[string]any{"id": 5}},
				{"index.getLastAccepted", map[string]any{"encoding": "cb58"}},
				{"index.getLastAccepted", nil},
				{"index.getNothing", map[string]any{}},
				{"index.GetLastAccepted", map[string]any{}},
			} {
				same(bad.method, bad.params)
			}
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}`,
				`{"jsonrpc":"1.0","id":1,"method":"index.getLastAccepted","params":{}}`,
				`{"jsonrpc":"2.0","method":"index.getLastAccepted","params":{}}`,
				`{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":[{"encoding":"hex"}]}`,
				`{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted"`,
			} {
				sameRaw(body)
			}
		}

		// avalanchego's own client works against avaindex unmodified.
		for _, name := range []string{"P/block", "C/block", "X/block"} {
			ours, theirs := indexer.NewClient(base+"/ext/index/"+name), indexer.NewClient(n.URL+"/ext/index/"+name)
			wc, wi, err := theirs.GetLastAccepted(ctx)
			if err != nil {
				t.Fatal(err)
			}
			gc, gi, err := ours.GetLastAccepted(ctx)
			if err != nil || gi != wi || !reflect.DeepEqual(gc, wc) {
				t.Fatalf("%s GetLastAccepted: %v %d %v, want %v %d", name, gc, gi, err, wc, wi)
			}
			wr, err := theirs.GetContainerRange(ctx, 0, 1024)
			if err != nil {
				t.Fatal(err)
			}
			gr, err := ours.GetContainerRange(ctx, 0, 1024)
			if err != nil || !reflect.DeepEqual(gr, wr) {
				t.Fatalf("%s GetContainerRange: %d containers, %v; want %d", name, len(gr), err, len(wr))
			}
			for i, c := range wr {
				g, err := ours.GetContainerByIndex(ctx, uint64(i))
				if err != nil || !reflect.DeepEqual(g, c) {
					t.Fatalf("%s GetContainerByIndex(%d): %v", name, i, err)
				}
				g, gi, err := ours.GetContainerByID(ctx, c.ID)
				if err != nil || gi != uint64(i) || !reflect.DeepEqual(g, c) {
					t.Fatalf("%s GetContainerByID(%s): %d %v", name, c.ID, gi, err)
				}
				if gi, err := ours.GetIndex(ctx, c.ID); err != nil || gi != uint64(i) {
					t.Fatalf("%s GetIndex(%s) = %d, %v", name, c.ID, gi, err)
				}
				if ok, err := ours.IsAccepted(ctx, c.ID); err != nil || !ok {
					t.Fatalf("%s IsAccepted(%s) = %t, %v", name, c.ID, ok, err)
				}
			}
			if ok, err := ours.IsAccepted(ctx, ids.GenerateTestID()); err != nil || ok {
				t.Fatalf("%s IsAccepted(unknown) = %t, %v", name, ok, err)
			}
			_, err = ours.GetIndex(ctx, ids.GenerateTestID())
			_, werr := theirs.GetIndex(ctx, ids.GenerateTestID())
			if err == nil || werr == nil || err.Error() != werr.Error() {
				t.Fatalf("%s GetIndex(unknown): %v, node %v", name, err, werr)
			}
		}
		t.Logf("compared %d requests", compared)
	})
}

// noIndexProxy forwards to the node everything but /ext/index/..., which
// it answers 404 like a node started without --index-enabled.
func noIndexProxy(t *testing.T, nodeURL string) string {
	t.Helper()
	u, err := url.Parse(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/ext/index/") {
			http.NotFound(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestPBlockIndexWithoutNodeIndex: with a node that has no index,
// avaindex serves P/block from its P-chain blocks, container i being the
// platformvm block at height i+1 (the inner block of the node's index
// container i), and answers 404 for the other indexes like the node.
func TestPBlockIndexWithoutNodeIndex(t *testing.T) {
	n, _ := issuedNetwork(t)
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nodeP := indexer.NewClient(n.URL + "/ext/index/P/block")
	nodeContainers, err := nodeP.GetContainerRange(ctx, 0, 1024)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, noIndexProxy(t, n.URL), dsn)
		waitIndexed(t, base, tip, time.Minute)
		// The fallback starts once the indexer learned the node has no index.
		ours := indexer.NewClient(base + "/ext/index/P/block")
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, last, err := ours.GetLastAccepted(ctx)
			if err == nil && last == tip-1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("P/block fallback: last %d, %v; want %d", last, err, tip-1)
			}
			time.Sleep(20 * time.Millisecond)
		}
		got, err := ours.GetContainerRange(ctx, 0, 1024)
		if err != nil {
			t.Fatal(err)
		}
		if uint64(len(got)) != tip {
			t.Fatalf("%d containers, want %d", len(got), tip)
		}
		for i, c := range got {
			h := uint64(i) + 1
			blk, err := pc.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c.Bytes, blk) {
				t.Fatalf("container %d is not the platformvm block at height %d", i, h)
			}
			if i < len(nodeContainers) {
				inner := nodeContainers[i].Bytes
				if pb, err := proposerblock.ParseWithoutVerification(inner); err == nil {
					inner = pb.Block()
				}
				if !bytes.Equal(inner, c.Bytes) {
					t.Fatalf("container %d is not the inner block of the node's container %d", i, i)
				}
			}
			byID, idx, err := ours.GetContainerByID(ctx, c.ID)
			if err != nil || idx != uint64(i) || !reflect.DeepEqual(byID, c) {
				t.Fatalf("GetContainerByID(%s) = %d, %v", c.ID, idx, err)
			}
		}
		// Errors are the node's.
		for _, p := range []struct {
			method, params, want string
		}{
			{"index.getContainerByIndex", fmt.Sprintf(`{"index":%d}`, tip), fmt.Sprintf("no container at index %d", tip)},
			{"index.getContainerRange", fmt.Sprintf(`{"startIndex":%d,"numToFetch":1}`, tip), fmt.Sprintf("start index (%d) > last accepted index (%d)", tip, tip-1)},
			{"index.getIndex", fmt.Sprintf(`{"id":%q}`, ids.GenerateTestID()), "not found"},
		} {
			_, body := post(t, base+"/ext/index/P/block", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, p.method, p.params))
			var env struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &env); err != nil || env.Error.Message != p.want {
				t.Errorf("%s %s: %s; want error %q", p.method, p.params, body, p.want)
			}
		}
		// The genesis block is not in the index.
		genesis, err := pc.GetBlockByHeight(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := pchain.Decode(0, genesis)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := ours.IsAccepted(ctx, gb.ID); err != nil || ok {
			t.Errorf("IsAccepted(genesis) = %t, %v; want false", ok, err)
		}
		if s, _ := post(t, base+"/ext/index/X/tx", `{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}`); s != http.StatusNotFound {
			t.Errorf("X/tx without a node index: HTTP %d, want 404", s)
		}
	})
}

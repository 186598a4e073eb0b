package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// TestXChainVertexEndpoints stores a DAG of vertices built with
// avalanchego's vertex.Build, as the node's X/vtx index serves them, on
// both stores, and reads them back through listLatestXChainVertices,
// getVertexByHash and getVertexByHeight: each field from what was built.
func TestXChainVertexEndpoints(t *testing.T) {
	xChainID := ids.ID{'x'}
	txA, txB := []byte("tx a bytes"), []byte("tx b bytes")
	// Container i is built[i]: v0 and v2 at height 8, v1 at 6, then the
	// stop vertex.
	v0, err := vertex.Build(xChainID, 8, []ids.ID{{3}}, [][]byte{txA})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := vertex.Build(xChainID, 6, []ids.ID{{4}, {5}}, [][]byte{txA, txB})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := vertex.Build(xChainID, 8, []ids.ID{v1.ID()}, [][]byte{txB})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := vertex.BuildStopVertex(xChainID, 9, []ids.ID{v0.ID(), v2.ID()})
	if err != nil {
		t.Fatal(err)
	}
	built := []vertex.StatelessVertex{v0, v1, v2, stop}
	parents := [][]ids.ID{{{3}}, {{4}, {5}}, {v1.ID()}, {v0.ID(), v2.ID()}}
	txs := [][][]byte{{txA}, {txA, txB}, {txB}, nil}
	accepted := func(i int) time.Time { return time.Unix(1_600_000_100+int64(10*i), 0).UTC() }
	want := func(i int) XChainVertex {
		w := XChainVertex{VertexHash: built[i].ID().String(), VertexHeight: built[i].Height(), VertexIndex: uint64(i),
			VertexTimestamp: accepted(i).Unix(), TxCount: len(txs[i]), Transactions: []string{}, ParentHashes: []string{},
			VertexSizeBytes: len(built[i].Bytes())}
		for _, p := range parents[i] {
			w.ParentHashes = append(w.ParentHashes, p.String())
		}
		for _, tx := range txs[i] {
			w.Transactions = append(w.Transactions, ids.ID(hashing.ComputeHash256Array(tx)).String())
		}
		return w
	}
	var containers []store.Container
	for i, v := range built {
		containers = append(containers, store.Container{Index: uint64(i), ID: v.ID(), Bytes: v.Bytes(),
			Timestamp: accepted(i).Format(time.RFC3339Nano)})
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.ApplyContainers(ctx, store.XVtxIndex, containers); err != nil {
			t.Fatal(err)
		}
		// Only the first three are decoded: the stop vertex is mirrored
		// but not served until it is.
		cs, err := st.XVertexContainers(ctx, 3)
		if err != nil || len(cs) != 3 {
			t.Fatalf("XVertexContainers = %d, %v", len(cs), err)
		}
		var vs []*xchain.Vertex
		for _, c := range cs {
			v, err := xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		if err := st.ApplyXVertices(ctx, vs); err != nil {
			t.Fatal(err)
		}
		a, err := New(Deps{Store: st, TokenKey: bytes.Repeat([]byte{1}, param.MinTokenKeyLen), Aliases: []string{Testnet},
			Network: &internal.Network{Name: "local", HRP: "local", XChainID: xChainID}})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		const base = "/v1/networks/testnet/blockchains/x-chain/vertices"
		pages := func(first string) []XChainVertex {
			var out []XChainVertex
			for target, n := first, 0; target != ""; n++ {
				if n > 5 {
					t.Fatal("pagination does not end")
				}
				var page ListXChainVerticesResponse
				getOK(t, mux, target, &page)
				if page.ChainInfo.ChainName != XChainName || page.ChainInfo.Network != Testnet {
					t.Errorf("chainInfo = %+v", page.ChainInfo)
				}
				out = append(out, page.Vertices...)
				target = ""
				if page.NextPageToken != "" {
					sep := "?"
					if strings.Contains(first, "?") {
						sep = "&"
					}
					target = first + sep + "pageToken=" + page.NextPageToken
				}
			}
			return out
		}
		check := func(what string, got []XChainVertex, idx ...int) {
			t.Helper()
			var w []XChainVertex
			for _, i := range idx {
				w = append(w, want(i))
			}
			if !slices.EqualFunc(got, w, func(a, b XChainVertex) bool { return jsonText(a) == jsonText(b) }) {
				t.Errorf("%s = %+v\nwant %+v", what, got, w)
			}
		}
		check("latest", pages(base+"?pageSize=2"), 2, 1, 0)
		check("latest", pages(base), 2, 1, 0)
		check("height 8", pages(base+":listByHeight?vertexHeight=8&pageSize=1"), 2, 0)
		check("height 8 asc", pages(base+":listByHeight?vertexHeight=8&sortOrder=asc"), 0, 2)
		check("height 7", pages(base+":listByHeight?vertexHeight=7"))
		for i := 0; i < 3; i++ {
			var got XChainVertex
			getOK(t, mux, base+"/"+built[i].ID().String(), &got)
			check("getVertexByHash", []XChainVertex{got}, i)
		}
		for _, tc := range []struct {
			target string
			status int
			param  string
		}{
			{base + "/" + stop.ID().String(), 404, stop.ID().String()},
			{base + "/nope", 400, "vertexHash"},
			{base + ":listByHeight", 400, "vertexHeight"},
			{base + ":listByHeight?vertexHeight=-1", 400, "vertexHeight"},
			{base + ":listByHeight?vertexHeight=8&sortOrder=up", 400, "sortOrder"},
			{"/v1/networks/testnet/blockchains/p-chain/vertices", 400, "blockchainId"},
			{base + "?pageSize=101", 400, "pageSize"},
		} {
			rec := do(t, mux, "GET", tc.target, "")
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.param) {
				t.Errorf("GET %s = %d %s; want %d naming %s", tc.target, rec.Code, rec.Body, tc.status, tc.param)
			}
		}
	})
}

// jsonText is v in JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

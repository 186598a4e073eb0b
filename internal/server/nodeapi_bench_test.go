package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/usage"
)

// BenchmarkNodeAPIGetBlockByHeight measures the node API's request path
// for platform.getBlockByHeight as the load test drives it (random
// heights over a chain the reply cache holds whole), without the network
// or the store: the server's chain (routing, JSON-RPC instrumentation,
// usage recording into a store that keeps nothing) around the forward
// handler, whose reply cache answers after each height's first call.
// The codec behind it is a stand-in answering a fixed block, so that what
// is measured is what the path adds to a cached answer.
func BenchmarkNodeAPIGetBlockByHeight(b *testing.B) {
	codec := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte("getBlockByHeight")) {
			b.Errorf("the codec read %q", body)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":{"block":"0x`+strings.Repeat("ab", 300)+`","encoding":"hex"},"id":1}`+"\n")
	})
	const pattern = "/ext/bc/P"
	methods := []string{"platform.getBlockByHeight", "platform.getHeight"}
	h := nodeapi.NewForwardHandler(nil, nodeapi.NewReplyCache(64<<20), nodeapi.Forward{
		Path: pattern, Local: codec, Service: "platform", Served: methods,
	})
	rec := usage.New(discardRequests{}, usage.Config{}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = rec.Run(ctx) }()
	routes := []Route{{Pattern: pattern, Handler: h, RPCMethods: methods, Surface: NodeAPI}}
	srv := New(Deps{Store: pinger{}, Progress: status{Running: true}, Routes: routes, Usage: rec})
	const heights = 1024
	bodies := make([][]byte, heights)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"platform.getBlockByHeight","params":{"height":"%d","encoding":"hex"}}`, i, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var start atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(start.Add(7919)) // each client starts elsewhere
		for pb.Next() {
			i = (i + 1) % heights
			req := httptest.NewRequest(http.MethodPost, pattern, bytes.NewReader(bodies[i]))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("HTTP %d: %s", w.Code, w.Body)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(rec.Dropped()), "dropped")
}

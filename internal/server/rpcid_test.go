package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRPCErrorEchoesID: a JSON-RPC call answered before its handler (here
// while the node is not known) carries the request's id, as JSON-RPC
// requires and clients match answers by; null only when the request has no
// usable id.
func TestRPCErrorEchoesID(t *testing.T) {
	h := New(Deps{Store: pinger{}, Waiting: "waiting for the node at http://127.0.0.1:1"})
	for _, tc := range []struct{ body, wantID string }{
		{`{"jsonrpc":"2.0","id":7,"method":"platform.getHeight","params":{}}`, `7`},
		{`{"jsonrpc":"2.0","method":"platform.getHeight","params":{},"id":"call-1"}`, `"call-1"`},
		{`{"jsonrpc":"2.0","ID":12,"method":"platform.getHeight"}`, `12`},
		{`{"jsonrpc":"2.0","method":"platform.getHeight"}`, `null`},
		{`{"jsonrpc":"2.0","id":{"not":"an id"},"method":"platform.getHeight"}`, `null`},
		// Read as far as it goes: a body cut short (or past what is read
		// of it) still has the id it began with.
		{`{"jsonrpc":"2.0","id":7,`, `7`},
		{`{"jsonrpc":"2.0","id":`, `null`},
		{`[{"jsonrpc":"2.0","id":7}]`, `null`},
		{``, `null`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ext/bc/P", strings.NewReader(tc.body)))
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusServiceUnavailable || got.Error.Code != rpcUnavailableCode || got.JSONRPC != "2.0" {
			t.Errorf("%s: %d %s, want 503 with a JSON-RPC error", tc.body, rec.Code, rec.Body)
			continue
		}
		if string(got.ID) != tc.wantID {
			t.Errorf("%s: id %s, want %s", tc.body, got.ID, tc.wantID)
		}
	}
}

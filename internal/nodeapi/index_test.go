package nodeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestEncodeHexIsFormattingEncode(t *testing.T) {
	inputs := [][]byte{nil, {}, {0}, []byte("avalanche"), bytes.Repeat([]byte{0xff, 0x01}, 5000)}
	for _, enc := range []formatting.Encoding{formatting.Hex, formatting.HexNC, formatting.HexC, formatting.JSON, 17} {
		for _, in := range inputs {
			want, wantErr := formatting.Encode(enc, in)
			got, gotErr := encodeHex(enc, in)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("encodeHex(%d, %d bytes) = %.40q, %v; want %.40q, %v", enc, len(in), got, gotErr, want, wantErr)
			}
		}
	}
}

// call posts one request to h and returns the HTTP status, the result and
// the error message.
func call(t *testing.T, h http.Handler, method, params string) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	body, _ := io.ReadAll(w.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatalf("%s: %v in %s", method, err, body)
		}
	}
	msg := ""
	if env.Error != nil {
		msg = env.Error.Message
	}
	return w.Code, string(env.Result), msg
}

func TestIndexHandler(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	handler := func(name string) http.Handler {
		h, err := NewIndexHandler(st, name, NewReplyCache(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	xtx, pblk := handler("X/tx"), handler("P/block")

	// Not known yet, or served by the node but empty: an empty index.
	for _, src := range []store.IndexSource{store.SourceUnknown, store.SourceNode} {
		if src != store.SourceUnknown {
			if err := st.SetIndexSource(ctx, "X/tx", src); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct{ method, params, want string }{
			{"index.getLastAccepted", `{}`, "no containers have been accepted"},
			{"index.getContainerByIndex", `{"index":0}`, "no container at index 0"},
			{"index.getContainerRange", `{"startIndex":0,"numToFetch":1}`, "no containers have been accepted"},
			{"index.getContainerRange", `{"startIndex":0,"numToFetch":1025}`, "numToFetch must be in [1,1024] but is 1025"},
			{"index.getIndex", fmt.Sprintf(`{"id":%q}`, ids.GenerateTestID()), "not found"},
			{"index.getContainerByID", fmt.Sprintf(`{"id":%q}`, ids.GenerateTestID()), "not found"},
		} {
			if code, _, msg := call(t, xtx, c.method, c.params); code != http.StatusOK || msg != c.want {
				t.Errorf("%s %s %s: HTTP %d %q, want %q", src, c.method, c.params, code, msg, c.want)
			}
		}
		// numToFetch 0 is the spec's empty answer, not the node's error.
		if _, res, msg := call(t, xtx, "index.getContainerRange", `{"startIndex":0,"numToFetch":0}`); res != `{"containers":null}` || msg != "" {
			t.Errorf("%s getContainerRange(numToFetch 0) = %s %q; want {\"containers\":null}", src, res, msg)
		}
		if _, res, msg := call(t, xtx, "index.isAccepted", fmt.Sprintf(`{"id":%q}`, ids.GenerateTestID())); res != `{"isAccepted":false}` || msg != "" {
			t.Errorf("isAccepted(unknown) = %s %q", res, msg)
		}
	}

	// Mirrored containers are served with the node's timestamp text.
	ts := "2025-01-02T03:04:05.000000006+01:00"
	c := store.Container{Index: 0, ID: ids.GenerateTestID(), Bytes: []byte{1, 2, 3}, Timestamp: ts}
	if err := st.ApplyContainers(ctx, "X/tx", []store.Container{c}); err != nil {
		t.Fatal(err)
	}
	hexBytes, _ := formatting.Encode(formatting.Hex, c.Bytes)
	want := fmt.Sprintf(`{"id":%q,"bytes":%q,"timestamp":%q,"encoding":"hex","index":"0"}`, c.ID, hexBytes, ts)
	if _, res, msg := call(t, xtx, "index.getLastAccepted", `{}`); res != want {
		t.Errorf("getLastAccepted = %s %q; want %s", res, msg, want)
	}
	if _, _, msg := call(t, xtx, "index.getContainerByIndex", `{"index":0,"encoding":"json"}`); msg != "unsupported encoding in method" {
		t.Errorf("json encoding: %q", msg)
	}
	if _, _, msg := call(t, xtx, "index.getContainerRange", `{"startIndex":1,"numToFetch":1}`); msg != "start index (1) > last accepted index (0)" {
		t.Errorf("range beyond: %q", msg)
	}
	for _, params := range []string{`{"startIndex":0,"numToFetch":0}`, `{"startIndex":5,"numToFetch":0}`, `{}`} {
		if _, res, msg := call(t, xtx, "index.getContainerRange", params); res != `{"containers":null}` || msg != "" {
			t.Errorf("getContainerRange(%s) = %s %q; want {\"containers\":null}", params, res, msg)
		}
	}

	// The node has no index: 404, except P/block, served from p_blocks.
	if err := st.SetIndexSource(ctx, "X/block", store.SourceNone); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := call(t, handler("X/block"), "index.getLastAccepted", `{}`); code != http.StatusNotFound {
		t.Errorf("X/block without a node index: HTTP %d", code)
	}
	if err := st.SetIndexSource(ctx, "P/block", store.SourceNone); err != nil {
		t.Fatal(err)
	}
	if code, _, msg := call(t, pblk, "index.getLastAccepted", `{}`); code != http.StatusOK || msg != "no containers have been accepted" {
		t.Errorf("P/block fallback without blocks: HTTP %d %q", code, msg)
	}
}

package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/jsonrpc"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// fuzzStore is a SQLite store holding the local network's P-chain genesis
// block (its UTXOs, validators, subnet) and one mirrored X/tx container;
// it returns the genesis block's id and the container's.
func fuzzStore(f *testing.F) (store.Store, ids.ID, ids.ID) {
	ctx := context.Background()
	st, err := store.Open(ctx, dbtest.SQLite(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	gb, _, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		f.Fatal(err)
	}
	blk, err := block.NewApricotCommitBlock(hashing.ComputeHash256Array(gb), 0)
	if err != nil {
		f.Fatal(err)
	}
	b0, err := pchain.Decode(0, blk.Bytes())
	if err != nil {
		f.Fatal(err)
	}
	batch, err := pchain.Batch([]*pchain.Block{b0})
	if err != nil {
		f.Fatal(err)
	}
	if err := st.ApplyPBlocks(ctx, batch, pstate.Apply[*store.PTx]); err != nil {
		f.Fatal(err)
	}
	c := store.Container{Index: 0, ID: ids.ID{0xc}, Bytes: []byte{1, 2, 3}, Timestamp: "2025-01-02T03:04:05Z"}
	if err := st.ApplyContainers(ctx, "X/tx", []store.Container{c}); err != nil {
		f.Fatal(err)
	}
	return st, b0.ID, c.ID
}

// refusingPass is a node that never answers.
type refusingPass struct{}

func (refusingPass) Forward(context.Context, string, string, []byte) (*node.Forwarded, error) {
	return nil, errors.New("refused")
}

func (refusingPass) ForwardURL(context.Context, string, string, []byte) (*node.Forwarded, error) {
	return nil, errors.New("refused")
}

// wantRPCAnswer requires the answer to a JSON-RPC request to be what the
// node answers: an envelope with a result or an error with a code and a
// message, nothing for a notification, or (for a request that is not
// JSON-RPC at all) a 4xx; never a 5xx.
func wantRPCAnswer(t *testing.T, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s: HTTP %d %s", body, rec.Code, rec.Body)
	}
	if rec.Code != http.StatusOK {
		if rec.Code < 400 || rec.Body.Len() == 0 {
			t.Fatalf("%s: HTTP %d %q", body, rec.Code, rec.Body)
		}
		return
	}
	if rec.Body.Len() == 0 {
		// A notification (a request without an id) gets no answer, as
		// JSON-RPC 2.0 and the node say; the codec reads the body's first
		// JSON value.
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if json.NewDecoder(strings.NewReader(body)).Decode(&req) != nil || len(req.ID) != 0 && string(req.ID) != "null" {
			t.Fatalf("%s: empty answer to a request with an id", body)
		}
		return
	}
	var env struct {
		Version string           `json:"jsonrpc"`
		Result  *json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		ID *json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", body, err, rec.Body)
	}
	if env.Version != "2.0" || (env.Result == nil) == (env.Error == nil) || env.Error != nil && (env.Error.Code == nil || env.Error.Message == "") {
		t.Fatalf("%s: not a JSON-RPC envelope: %s", body, rec.Body)
	}
}

// FuzzRequest posts arbitrary bodies to the platform service and a
// container index over a store with the local genesis: each answer is a
// well-formed JSON-RPC envelope or the node's HTTP error, never a 5xx or
// a panic.
func FuzzRequest(f *testing.F) {
	st, genesisID, containerID := fuzzStore(f)
	fm, err := pchain.NewFormatter(constants.LocalID)
	if err != nil {
		f.Fatal(err)
	}
	network := &internal.Network{ID: constants.LocalID, Name: "local", HRP: "local", XChainID: ids.ID{0xa}, CChainID: ids.ID{0xb}}
	platform, err := NewPlatformHandler(st, fm, network, fakeUpstream{})
	if err != nil {
		f.Fatal(err)
	}
	index, err := NewIndexHandler(st, "X/tx", NewReplyCache(1<<20))
	if err != nil {
		f.Fatal(err)
	}
	pblock, err := NewIndexHandler(st, "P/block", NewReplyCache(1<<20))
	if err != nil {
		f.Fatal(err)
	}
	const ewoq = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	envelope := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	}
	for _, s := range []struct{ method, params string }{
		{"platform.getHeight", `{}`},
		{"platform.getBlock", fmt.Sprintf(`{"blockID":%q,"encoding":"json"}`, genesisID)},
		{"platform.getBlock", fmt.Sprintf(`{"blockID":%q,"encoding":"hex"}`, genesisID)},
		{"platform.getBlockByHeight", `{"height":"0","encoding":"hex"}`},
		{"platform.getBlockByHeight", `{"height":"18446744073709551615","encoding":"json"}`},
		{"platform.getBalance", fmt.Sprintf(`{"addresses":[%q]}`, ewoq)},
		{"platform.getBalance", `{"addresses":["X-local1x"]}`},
		{"platform.getRewardUTXOs", fmt.Sprintf(`{"txID":%q,"encoding":"hex"}`, genesisID)},
		{"platform.getBlockchains", `{}`},
		{"platform.getBlockchainStatus", `{"blockchainID":"X"}`},
		{"platform.getCurrentSupply", `{"subnetID":"11111111111111111111111111111111LpoYY"}`},
		{"platform.getCurrentValidators", `{"subnetID":null,"nodeIDs":["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"]}`},
		{"platform.getCurrentValidators", `{}`},
		{"index.getLastAccepted", `{"encoding":"hex"}`},
		{"index.getContainerByIndex", `{"index":0}`},
		{"index.getContainerRange", `{"startIndex":0,"numToFetch":1024}`},
		{"index.getIndex", fmt.Sprintf(`{"id":%q}`, containerID)},
		{"index.isAccepted", fmt.Sprintf(`{"id":%q}`, containerID)},
		{"index.getContainerByID", fmt.Sprintf(`{"id":%q,"encoding":"json"}`, containerID)},
	} {
		f.Add(envelope(s.method, s.params))
	}
	for _, s := range []string{``, `{`, `[]`, `null`, `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight"}`, `{"method":"x.y"}`,
		envelope("platform.getBalance", `{"addresses":"x"}`), envelope("platform.getBlockByHeight", `{"height":-1}`),
		envelope("index.getContainerRange", `{"startIndex":"18446744073709551615","numToFetch":1}`), strings.Repeat("[", 5000)} {
		f.Add(s)
	}
	// The forward handler in front of platform, as the service mounts it
	// (without a reply cache, whose answers TestLocalReplyCache checks).
	fwd := NewForwardHandler(refusingPass{}, nil, Forward{Path: "/ext/bc/P", Local: platform, Service: "platform",
		Served: []string{"platform.getHeight", "platform.getBlock", "platform.getBlockByHeight", "platform.getBalance"}})
	f.Fuzz(func(t *testing.T, body string) {
		for _, h := range []http.Handler{platform, index, pblock} {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			wantRPCAnswer(t, body, rec)
		}
		// The body read by the forward handler, or parsed by the server's
		// instrumentation and handed down: the same answer.
		var answers [2]*httptest.ResponseRecorder
		for i := range answers {
			req := httptest.NewRequest(http.MethodPost, "/ext/bc/P", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if i == 1 {
				reqs, batch := jsonrpc.Parse([]byte(body))
				req = req.WithContext(jsonrpc.WithBody(req.Context(), &jsonrpc.Body{Raw: []byte(body), Reqs: reqs, Batch: batch}))
			}
			answers[i] = httptest.NewRecorder()
			fwd.ServeHTTP(answers[i], req)
			wantRPCAnswer(t, body, answers[i])
		}
		if answers[0].Code != answers[1].Code || answers[0].Body.String() != answers[1].Body.String() {
			t.Fatalf("%q: read, HTTP %d %s; handed down, HTTP %d %s", body,
				answers[0].Code, answers[0].Body, answers[1].Code, answers[1].Body)
		}
	})
}

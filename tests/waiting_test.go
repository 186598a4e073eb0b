package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// localNetwork is the local network as avalanchego's genesis defines it.
func localNetwork(t *testing.T) *internal.Network {
	t.Helper()
	gb, avax, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	x, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := genesis.VMGenesis(gb, constants.EVMID)
	if err != nil {
		t.Fatal(err)
	}
	return &internal.Network{
		ID: constants.LocalID, Name: constants.LocalName, HRP: constants.LocalHRP,
		PChainID: constants.PlatformChainID, XChainID: x.ID(), CChainID: c.ID(), AVAXAssetID: avax,
	}
}

// TestListensWhileNodeIsDown starts avaindex against a node that does not
// answer: it listens at once, says why it is not ready, answers the API
// surfaces with 503 and their error bodies, serves a network its store
// holds, and stops cleanly while it waits.
func TestListensWhileNodeIsDown(t *testing.T) {
	doc := openapitest.Default(t)
	nodeURL := testnet.ClosedURL(t)
	reason := "waiting for the node at " + nodeURL
	blocks := "/v1/networks/local/blockchains/p-chain/blocks"

	t.Run("empty store", func(t *testing.T) {
		base, stop := runService(t, 10*time.Second, nodeURL, dbtest.SQLite(t))
		if status, body, _ := get(t, base+"/healthz"); status != http.StatusOK {
			t.Errorf("/healthz = %d %s", status, body)
		}
		status, body, _ := get(t, base+"/readyz")
		var ready struct {
			Ready  bool   `json:"ready"`
			Reason string `json:"reason"`
			Store  string `json:"store"`
		}
		if err := json.Unmarshal(body, &ready); err != nil {
			t.Fatalf("/readyz: %v in %s", err, body)
		}
		if status != http.StatusServiceUnavailable || ready.Ready || ready.Reason != reason || ready.Store != "ok" {
			t.Errorf("/readyz = %d %s, want 503 not ready, reason %q, store ok", status, body, reason)
		}
		if status, body, _ := get(t, base+"/metrics"); status != http.StatusOK || !bytes.Contains(body, []byte("avaindex_http_requests_total")) {
			t.Errorf("/metrics = %d", status)
		}

		status, body, hdr := get(t, base+blocks)
		if status != http.StatusServiceUnavailable || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s = %d %s %s, want 503 JSON", blocks, status, hdr.Get("Content-Type"), body)
		}
		doc.ValidateResponse(t, "GET", blocks, status, body)
		var eb struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
			Error      string `json:"error"`
		}
		if err := json.Unmarshal(body, &eb); err != nil || eb.Message != reason || eb.StatusCode != 503 || eb.Error != "Service Unavailable" {
			t.Errorf("GET %s body = %s (%v), want the message %q", blocks, body, err, reason)
		}

		status, body = post(t, base+"/ext/bc/P", `{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}`)
		var rpcErr struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &rpcErr); err != nil || status != http.StatusServiceUnavailable || rpcErr.Error.Message != reason {
			t.Errorf("platform.getHeight = %d %s (%v), want 503 with a JSON-RPC error %q", status, body, err, reason)
		}

		// A stop while waiting is not an error.
		if err := stop(); err != nil {
			t.Errorf("service.Run stopped while waiting for the node: %v, want nil", err)
		}
	})

	t.Run("store holds a network", func(t *testing.T) {
		dsn := dbtest.SQLite(t)
		st, err := store.Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(localNetwork(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutSettingIfAbsent(t.Context(), store.NetworkSetting, b); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		base, stop := runService(t, 10*time.Second, nodeURL, dsn)
		status, body, _ := get(t, base+blocks)
		var page struct {
			Blocks []json.RawMessage `json:"blocks"`
		}
		if err := json.Unmarshal(body, &page); status != http.StatusOK || err != nil || page.Blocks == nil {
			t.Errorf("GET %s = %d %s, want 200 and the store's (no) blocks", blocks, status, body)
		}
		if _, body, _ := get(t, base+"/readyz"); bytes.Contains(body, []byte("waiting for the node")) {
			t.Errorf("/readyz = %s: still waiting with a network in the store", body)
		}
		// The node API is instrumented per JSON-RPC method.
		for _, m := range []string{"platform.getHeight", "platform.noSuchMethod"} {
			if status, body := post(t, base+"/ext/bc/P", `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{}}`); status != http.StatusOK {
				t.Errorf("%s = %d %s", m, status, body)
			}
		}
		_, metrics, _ := get(t, base+"/metrics")
		for _, want := range []string{
			`avaindex_http_requests_total{route="/ext/bc/P platform.getHeight",status="200"}`,
			`avaindex_http_requests_total{route="/ext/bc/P unknown",status="200"}`,
		} {
			if !bytes.Contains(metrics, []byte(want)) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		if err := stop(); err != nil {
			t.Errorf("service.Run: %v", err)
		}
	})
}

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkUsageFacts are what tests/sdk/usage.test.mjs checks the SDK's
// answers against: the calls made here with the key.
type sdkUsageFacts struct {
	Network string `json:"network"`
	Usage   struct {
		APIKey  string `json:"apiKey"`
		KeyName string `json:"keyName"`
		KeyID   string `json:"keyId"`
		Route   string `json:"route"`
		Start   int64  `json:"start"`
		Blocks  int    `json:"blocks"`
		RPC     int    `json:"rpc"`
	} `json:"usage"`
}

// TestSDKUsage runs the real @avalanche-sdk/chainkit client's usage
// operations against avaindex after calls made with one key.
func TestSDKUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	n := testnet.Get(t)
	dsn := dbtest.SQLite(t)
	var facts sdkUsageFacts
	facts.Network = "testnet"
	u := &facts.Usage
	u.KeyName, u.Route, u.Blocks, u.RPC = "sdk-usage", "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks", 3, 2
	u.APIKey = createKey(t, dsn, u.KeyName, ratelimit.Standard)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	waitIndexed(t, base, 0, time.Minute)
	u.Start = time.Now().Unix()
	for range u.Blocks {
		if status, body, _ := get(t, base+"/v1/networks/testnet/blockchains/p-chain/blocks?pageSize=1", "x-glacier-api-key", u.APIKey); status != http.StatusOK {
			t.Fatalf("blocks: %d %s", status, body)
		}
	}
	for range u.RPC {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/ext/bc/P",
			bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-glacier-api-key", u.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// Wait for the recorder's worker to write them; the key's ID is in
	// its logs.
	deadline := time.Now().Add(30 * time.Second)
	for {
		q := url.Values{"startTimestamp": {strconv.FormatInt(u.Start, 10)}, "pageSize": {"100"}}
		status, body, _ := get(t, base+"/v1/apiLogs?"+q.Encode(), "x-glacier-api-key", u.APIKey)
		var page struct {
			Logs []struct {
				APIKeyID string `json:"apiKeyId"`
			} `json:"logs"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &page) != nil {
			t.Fatalf("apiLogs: %d %s", status, body)
		}
		if len(page.Logs) >= u.Blocks+u.RPC {
			u.KeyID = page.Logs[0].APIKeyID
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d logs after 30 s, want %d", len(page.Logs), u.Blocks+u.RPC)
		}
		time.Sleep(200 * time.Millisecond)
	}
	runSDK(t, ctx, base, writeFacts(t, facts), "usage.test.mjs")
}

package tests

import (
	"context"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestSDKWebhooks calls the ten webhook operations through the real
// @avalanche-sdk/chainkit (tests/sdk/webhooks.test.mjs) with two API keys.
func TestSDKWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	n := testnet.Get(t)
	dsn := dbtest.SQLite(t)
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	known := func(string) bool { return true }
	alice, err := apikeys.Create(ctx, st, "alice", "standard", known, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	bob, err := apikeys.Create(ctx, st, "bob", "standard", known, time.Now())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	var facts struct {
		Network  string `json:"network"`
		Webhooks struct {
			Key       string   `json:"key"`
			OtherKey  string   `json:"otherKey"`
			URL       string   `json:"url"`
			ChainID   string   `json:"chainId"`
			Addresses []string `json:"addresses"`
			Signature string   `json:"signature"`
		} `json:"webhooks"`
	}
	facts.Network = "testnet"
	w := &facts.Webhooks
	w.Key, w.OtherKey, w.URL, w.ChainID = alice, bob, "https://example.org/avaindex-hook", "43112"
	w.Addresses = []string{"0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", "0x71C7656EC7ab88b098defB751B7401B5f6d8976F",
		"0x0000000000000000000000000000000000000abc"}
	w.Signature = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
	runSDK(t, ctx, base, writeFacts(t, facts), "webhooks.test.mjs")
}

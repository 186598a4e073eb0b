package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/nodeapi"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestWalletReadsWhenNodeIsDown indexes the issued network, then restarts
// avaindex on the same store pointed at a node that does not answer: the
// read methods a wallet makes that avaindex serves answer as the node
// answered, and the calls it forwards (issueTx, info, the X-chain, the
// C-chain's RPC, a batch) are JSON-RPC errors saying the node is
// unreachable, each with its request's id.
func TestWalletReadsWhenNodeIsDown(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx := t.Context()
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	xTip, err := avm.NewClient(n.URL, "X").GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recipient := n.FormatAddress("P", issued.Recipient)
	calls := []struct {
		path   string
		method string
		params map[string]any
	}{
		{"/ext/bc/P", "platform.getHeight", map[string]any{}},
		{"/ext/bc/P", "platform.getTimestamp", map[string]any{}},
		{"/ext/bc/P", "platform.getTx", map[string]any{"txID": issued.PBaseTx}},
		{"/ext/bc/P", "platform.getTx", map[string]any{"txID": issued.RewardValidatorTx, "encoding": "json"}},
		{"/ext/bc/P", "platform.getTx", map[string]any{"txID": n.XChainID}},
		{"/ext/bc/P", "platform.getTx", map[string]any{"txID": ids.GenerateTestID()}},
		{"/ext/bc/P", "platform.getTxStatus", map[string]any{"txID": issued.AddDelegatorTx}},
		{"/ext/bc/P", "platform.getTxStatus", map[string]any{"txID": ids.GenerateTestID()}},
		{"/ext/bc/P", "platform.getUTXOs", map[string]any{"addresses": []string{recipient}}},
		{"/ext/bc/P", "platform.getUTXOs", map[string]any{"addresses": []string{recipient}, "sourceChain": "P", "limit": 1}},
		{"/ext/bc/P", "platform.getStakingAssetID", map[string]any{"subnetID": constants.PrimaryNetworkID}},
		{"/ext/bc/P", "platform.getStakingAssetID", map[string]any{"subnetID": issued.SubnetID}},
		{"/ext/bc/P", "platform.getSubnet", map[string]any{"subnetID": issued.SubnetID}},
		{"/ext/bc/P", "platform.getStake", map[string]any{"addresses": []string{n.FormatAddress("P", n.Addr)}}},
		{"/ext/bc/P", "platform.getTotalStake", map[string]any{"subnetID": issued.SubnetID}},
		{"/ext/bc/P", "platform.getSubnets", map[string]any{"ids": []ids.ID{issued.SubnetID, constants.PrimaryNetworkID}}},
		{"/ext/bc/P", "platform.getValidatorsAt", map[string]any{"height": tip}},
		{"/ext/bc/P", "platform.getValidatorsAt", map[string]any{"height": 1, "subnetID": constants.PrimaryNetworkID}},
		{"/ext/bc/P", "platform.getAllValidatorsAt", map[string]any{"height": 1}},
		// After the conversion to an L1: its set, and every set at once.
		{"/ext/bc/P", "platform.getValidatorsAt", map[string]any{"height": tip, "subnetID": issued.SubnetID}},
		{"/ext/bc/P", "platform.getAllValidatorsAt", map[string]any{"height": tip}},
		{"/ext/bc/X", "avm.getHeight", map[string]any{}},
		{"/ext/bc/X", "avm.getBlockByHeight", map[string]any{"height": 1}},
		{"/ext/bc/X", "avm.getTx", map[string]any{"txID": issued.XImportFromP, "encoding": "hexnc"}},
		{"/ext/bc/X", "avm.getTxStatus", map[string]any{"txID": issued.XBaseTx}},
		{"/ext/bc/X", "avm.getBalance", map[string]any{"address": n.FormatAddress("X", issued.Recipient), "assetID": "AVAX"}},
		{"/ext/bc/X", "avm.getAssetDescription", map[string]any{"assetID": issued.AssetID}},
		{"/ext/bc/X", "avm.getAssetDescription", map[string]any{"assetID": "AVAX"}},
	}
	type answer struct{ res, err json.RawMessage }
	want := make([]answer, len(calls))
	for i, c := range calls {
		want[i].res, want[i].err = rpc(t, n.URL+c.path, c.method, c.params)
	}

	dsn := dbtest.SQLite(t)
	t.Run("index", func(t *testing.T) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if h, err := avm.NewClient(base, "X").GetHeight(ctx); err == nil && h >= xTip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("avaindex did not index X-chain height %d", xTip)
			}
		}
	})
	base := startService(t, testnet.ClosedURL(t), dsn)
	for i, c := range calls {
		res, rpcErr := rpc(t, base+c.path, c.method, c.params)
		if !jsonEqual(res, want[i].res) || !jsonEqual(rpcErr, want[i].err) {
			t.Errorf("with the node down, %s %v:\n node:     result=%s error=%s\n avaindex: result=%s error=%s",
				c.method, c.params, clip(want[i].res), want[i].err, clip(res), rpcErr)
		}
	}
	// A tx the index does not hold: nobody can say more than Unknown.
	res, _ := rpc(t, base+"/ext/bc/P", "platform.getTxStatus", map[string]any{"txID": ids.GenerateTestID()})
	if !jsonEqual(res, json.RawMessage(`{"status":"Unknown"}`)) {
		t.Errorf("with the node down, getTxStatus of an unknown tx: %s", res)
	}

	for _, c := range []struct{ path, body, want string }{
		{"/ext/bc/P", `{"jsonrpc":"2.0","id":"w-1","method":"platform.issueTx","params":{"tx":"0x00","encoding":"hex"}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":"w-1"}`},
		{"/ext/bc/P", `{"jsonrpc":"2.0","id":2,"method":"platform.getFeeState","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":2}`},
		{"/ext/bc/P", `{"jsonrpc":"2.0","id":3,"method":"platform.getUTXOs","params":{"addresses":["` + recipient + `"],"sourceChain":"X"}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `","data":null},"id":3}`},
		{"/ext/info", `{"jsonrpc":"2.0","id":4,"method":"info.getNetworkID"}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":4}`},
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":5,"method":"avm.issueTx","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":5}`},
		{"/ext/bc/X", `{"jsonrpc":"2.0","id":9,"method":"avm.getTx","params":{"txID":"` + issued.XBaseTx.String() + `","encoding":"json"}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":9}`},
		{"/ext/bc/C/rpc", `[{"jsonrpc":"2.0","id":6,"method":"eth_chainId"},{"jsonrpc":"2.0","id":"7","method":"eth_blockNumber"}]`,
			`[{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":6},` +
				`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":"7"}]`},
		{"/ext/bc/C/avax", `{"jsonrpc":"2.0","id":8,"method":"avax.getUTXOs","params":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + nodeapi.ErrNodeUnreachable + `"},"id":8}`},
	} {
		resp, err := http.Post(base+c.path, "application/json", bytes.NewReader([]byte(c.body)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !jsonEqual(got, json.RawMessage(c.want)) {
			t.Errorf("with the node down, POST %s %s: HTTP %d %s, want %s", c.path, c.body, resp.StatusCode, got, c.want)
		}
	}
}

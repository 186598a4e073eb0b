package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestXReadsMatchNode compares the X-chain reads at /ext/bc/X (avm.getHeight,
// getBlock, getBlockByHeight, getTx, getTxStatus, getAssetDescription,
// getBalance and getAllBalances, served from the store; the json encoding,
// passed to the node) on avaindex and on the node: every block, the issued
// txs and assets, funded and empty addresses, bad inputs.
func TestXReadsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx := t.Context()
	xc := avm.NewClient(n.URL, "X")
	tip, err := xc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var blockIDs []ids.ID
	for h := uint64(0); h <= tip; h++ {
		b, err := xc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blockIDs = append(blockIDs, hashing.ComputeHash256Array(b))
	}
	txIDs := []ids.ID{issued.XBaseTx, issued.CreateAssetTx, issued.XImportFromP, issued.XExportToP, issued.PBaseTx, ids.GenerateTestID(), ids.Empty}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, 0, time.Minute)
		ours := avm.NewClient(base, "X")
		for deadline := time.Now().Add(time.Minute); ; {
			if h, err := ours.GetHeight(ctx); err == nil && h >= tip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("avaindex did not index X-chain height %d", tip)
			}
			time.Sleep(50 * time.Millisecond)
		}
		encodings := []any{nil, "hex", "hexnc", "hexc", "json", "JSON", "nope"}
		for _, path := range []string{"/ext/bc/X", "/ext/X", "/ext/bc/" + n.XChainID.String()} {
			same := sameAsNode(t, n.URL+path, base+path, t.Errorf)
			same("avm.getHeight", map[string]any{})
			same("avm.getTxFee", map[string]any{})
			same("avm.getTxFee", nil)
			for h := uint64(0); h <= tip+1; h++ {
				for _, enc := range encodings {
					same("avm.getBlockByHeight", withEncoding(map[string]any{"height": h}, enc))
				}
			}
			for _, id := range append(blockIDs, ids.GenerateTestID()) {
				for _, enc := range encodings {
					same("avm.getBlock", withEncoding(map[string]any{"blockID": id}, enc))
				}
			}
			for _, id := range txIDs {
				same("avm.getTxStatus", map[string]any{"txID": id})
				for _, enc := range encodings {
					same("avm.getTx", withEncoding(map[string]any{"txID": id}, enc))
				}
			}
			for _, bad := range []map[string]any{{}, {"txID": "nope"}, {"blockID": 1}, {"height": "-1"}} {
				same("avm.getTx", bad)
				same("avm.getTxStatus", bad)
				same("avm.getBlock", bad)
				same("avm.getBlockByHeight", bad)
			}
			for _, asset := range []any{issued.AssetID, "AVAX", n.AVAXAssetID, issued.XBaseTx, ids.GenerateTestID(), "", "nope", "avax", 1} {
				same("avm.getAssetDescription", map[string]any{"assetID": asset})
			}
			same("avm.getAssetDescription", map[string]any{})
			for _, addr := range xAddresses(t, n, issued) {
				for _, partial := range []any{nil, false, true} {
					for _, asset := range []any{"AVAX", n.AVAXAssetID, issued.AssetID, ids.GenerateTestID(), "", "nope"} {
						same("avm.getBalance", withPartial(map[string]any{"address": addr, "assetID": asset}, partial))
					}
					sameBalances(t, n.URL+path, base+path, withPartial(map[string]any{"address": addr}, partial))
				}
			}
			same("avm.getBalance", map[string]any{})
			sameBalances(t, n.URL+path, base+path, map[string]any{})
			sameBalances(t, n.URL+path, base+path, []int{1})
		}
		// A method of no service is answered as the node answers it.
		res, rpcErr := rpc(t, base+"/ext/bc/X", "nope.nope", map[string]any{})
		if len(res) > 0 || !json.Valid(rpcErr) {
			t.Errorf("nope.nope: result %s error %s", res, rpcErr)
		}
	})
}

// xAddresses returns the X-chain addresses getBalance and getAllBalances
// are compared on, in each form the node parses, and bad ones.
func xAddresses(t *testing.T, n *testnet.Network, issued *testnet.Issued) []any {
	t.Helper()
	var out []any
	for _, a := range []ids.ShortID{n.Addr, issued.Recipient, ids.GenerateTestShortID()} {
		for _, chain := range []string{"X", "avm", n.XChainID.String()} {
			s, err := address.Format(chain, n.HRP, a[:])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		out = append(out, a.String())
	}
	p, err := address.Format("P", n.HRP, n.Addr[:])
	if err != nil {
		t.Fatal(err)
	}
	return append(out, p, "X-"+n.Address+"x", "nope", "", 7)
}

func withPartial(params map[string]any, partial any) map[string]any {
	if partial != nil {
		params["includePartial"] = partial
	}
	return params
}

// sameBalances compares avm.getAllBalances on the node and on avaindex,
// the balances as a set: the node lists them in Go map order.
func sameBalances(t *testing.T, nodeEP, ourEP string, params any) {
	t.Helper()
	sorted := func(res json.RawMessage) json.RawMessage {
		var r avm.GetAllBalancesReply
		if len(res) == 0 || json.Unmarshal(res, &r) != nil {
			return res
		}
		slices.SortFunc(r.Balances, func(a, b avm.Balance) int { return strings.Compare(a.AssetID, b.AssetID) })
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	wantRes, wantErr := rpc(t, nodeEP, "avm.getAllBalances", params)
	gotRes, gotErr := rpc(t, ourEP, "avm.getAllBalances", params)
	if !jsonEqual(sorted(wantRes), sorted(gotRes)) || !jsonEqual(wantErr, gotErr) {
		t.Errorf("%s avm.getAllBalances %v:\n node:     result=%s error=%s\n avaindex: result=%s error=%s",
			ourEP, params, clip(wantRes), wantErr, clip(gotRes), gotErr)
	}
}

func withEncoding(params map[string]any, enc any) map[string]any {
	if enc != nil {
		params["encoding"] = enc
	}
	return params
}

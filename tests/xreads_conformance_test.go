package tests

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestXReadsMatchNode compares the X-chain reads at /ext/bc/X (avm.getHeight,
// getBlock, getBlockByHeight, getTx and getTxStatus, served from the store;
// the json encoding and avm.getAssetDescription, passed to the node) on
// avaindex and on the node: every block, the issued txs, bad inputs.
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
			// Passed through to the node.
			same("avm.getAssetDescription", map[string]any{"assetID": issued.AssetID})
			same("avm.getAssetDescription", map[string]any{"assetID": "AVAX"})
		}
		// A method of no service is answered as the node answers it.
		res, rpcErr := rpc(t, base+"/ext/bc/X", "nope.nope", map[string]any{})
		if len(res) > 0 || !json.Valid(rpcErr) {
			t.Errorf("nope.nope: result %s error %s", res, rpcErr)
		}
	})
}

func withEncoding(params map[string]any, enc any) map[string]any {
	if enc != nil {
		params["encoding"] = enc
	}
	return params
}

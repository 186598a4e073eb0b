package tests

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/avm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestXAndCChainsIndexed checks that avaindex stores every X-chain block
// exactly as the node has it, with every tx the scenario issued, and finds
// the scenario's atomic txs in the C-chain's blocks.
func TestXAndCChainsIndexed(t *testing.T) {
	n, issued := issuedNetwork(t)
	ctx := context.Background()
	nc := node.New(n.URL)
	xTip, err := nc.XHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cTip, err := nc.CHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		startService(t, n.URL, dsn)
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		waitCursor(t, st, internal.XChain, xTip)
		waitCursor(t, st, internal.CChain, cTip)

		xTxs := map[ids.ID]string{}
		xc := avm.NewClient(n.URL, "X")
		for h := uint64(0); h <= xTip; h++ {
			want, err := xc.GetBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.XBlockByHeight(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes, want) {
				t.Fatalf("X-chain block %d differs from the node's", h)
			}
			for _, tx := range got.Txs {
				xTxs[tx.ID] = tx.Type
			}
		}
		for id, typ := range map[ids.ID]string{
			issued.XBaseTx:       "BaseTx",
			issued.CreateAssetTx: "CreateAssetTx",
			issued.XImportFromP:  "ImportTx",
			issued.XExportToP:    "ExportTx",
		} {
			if xTxs[id] != typ {
				t.Errorf("X-chain tx %s stored as %q, want %s", id, xTxs[id], typ)
			}
		}

		atomic, _, err := readsOf(t, st).CAtomicTxs(ctx, 0, cTip)
		if err != nil {
			t.Fatal(err)
		}
		found := map[ids.ID]string{}
		for _, tx := range atomic {
			found[tx.ID] = tx.Type
		}
		if found[issued.CExportToP] != "ExportTx" || found[issued.CImportFromP] != "ImportTx" {
			t.Errorf("C-chain atomic txs %v lack export %s / import %s", found, issued.CExportToP, issued.CImportFromP)
		}
	})
}

func waitCursor(t *testing.T, st store.Store, chain internal.Chain, height uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		h, ok, err := st.Cursor(context.Background(), store.ChainCursor(chain))
		if err != nil {
			t.Fatal(err)
		}
		if ok && h >= height {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s-chain cursor did not reach %d (at %d, %t)", chain, height, h, ok)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package tests

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

const historyPath = "/v1/networks/{network}/blockchains/{blockchainId}/transactions"

// historyTx is what the checks read of a listed tx of any chain.
type historyTx struct {
	TxHash, TxType, BlockNumber string
	BlockTimestamp, Timestamp   int64
	BlockHeight                 uint64
}

func (h historyTx) time() int64 { return max(h.BlockTimestamp, h.Timestamp) }

// history pages through chain's list with query q (pageSize 100) and
// returns its txs, each page validated against the reference.
func (c *txChecker) history(chain, q string) []historyTx {
	c.t.Helper()
	path := chain + "/transactions"
	if q != "" {
		path += "?" + q
	}
	var out []historyTx
	for _, raw := range c.pageAll(path, historyPath, "transactions", 100) {
		var h historyTx
		if err := json.Unmarshal(raw, &h); err != nil {
			c.t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

func txHashes(hs []historyTx) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.TxHash)
	}
	return out
}

// TestAddressHistoryDataAPI checks listLatestPrimaryNetworkTransactions
// on the network where every tx type was issued, on both stores: each
// chain's whole list against the node's blocks, the histories of the
// funded key and of the recipient of the two BaseTxs against the txs that
// were issued for them, every filter, both orders and paging.
func TestAddressHistoryDataAPI(t *testing.T) {
	n, issued := issuedNetwork(t)
	view := readNodeView(t, n)
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		waitCursor(t, st, internal.PChain, view.pTip)
		waitCursor(t, st, internal.XChain, view.xTip)
		waitCursor(t, st, internal.CChain, view.cTip)
		c := &txChecker{t: t, n: n, issued: issued, view: view, doc: doc,
			api: base + "/v1/networks/testnet/blockchains/"}
		checkHistory(t, c, n, issued, view)
	})
}

func checkHistory(t *testing.T, c *txChecker, n *testnet.Network, issued *testnet.Issued, view *nodeView) {
	ewoq, recipient := c.bech32(n.Addr), c.bech32(issued.Recipient)

	// The whole P- and X-chain lists are the node's blocks' txs, where the
	// node accepted them, newest first.
	for _, tc := range []struct {
		chain string
		of    map[ids.ID]blockRef
	}{{"p-chain", view.pBlockOf}, {"x-chain", view.xBlockOf}} {
		all := c.history(tc.chain, "")
		if len(all) != len(tc.of) {
			t.Errorf("%s: %d txs listed, the node's blocks hold %d", tc.chain, len(all), len(tc.of))
		}
		for i, h := range all {
			id, err := ids.FromString(h.TxHash)
			if err != nil {
				t.Fatal(err)
			}
			ref, ok := tc.of[id]
			if !ok {
				t.Errorf("%s: listed tx %s is in no block of the node", tc.chain, id)
				continue
			}
			if h.BlockNumber != "" && h.BlockNumber != strconv.FormatUint(ref.height, 10) || h.time() != ref.time {
				t.Errorf("%s: tx %s at block %s time %d, the node accepted it at %d time %d", tc.chain, id, h.BlockNumber, h.time(), ref.height, ref.time)
			}
			if i > 0 && h.time() > all[i-1].time() {
				t.Errorf("%s: tx %d (%s) is newer than the one before it", tc.chain, i, id)
			}
		}
		asc := c.history(tc.chain, "sortOrder=asc")
		if !slices.Equal(txHashes(asc), reversed(txHashes(all))) {
			t.Errorf("%s: the ascending list is not the descending one reversed", tc.chain)
		}
	}

	// The recipient of the two BaseTxs has those alone.
	if got := txHashes(c.history("p-chain", "addresses=P-"+recipient)); !slices.Equal(got, []string{issued.PBaseTx.String()}) {
		t.Errorf("the recipient's P-chain history is %v, want [%s]", got, issued.PBaseTx)
	}
	if got := txHashes(c.history("x-chain", "addresses="+recipient)); !slices.Equal(got, []string{issued.XBaseTx.String()}) {
		t.Errorf("the recipient's X-chain history is %v, want [%s]", got, issued.XBaseTx)
	}

	// The funded key paid for every tx issued.
	want := map[string][]ids.ID{
		"p-chain": {issued.PBaseTx, issued.CreateSubnetTx, issued.CreateChainTx, issued.ConvertSubnetToL1.TxID,
			issued.AddValidatorTx, issued.AddDelegatorTx, issued.PExportToX, issued.PImportFromX, issued.PExportToC, issued.PImportFromC},
		"x-chain": {issued.XBaseTx, issued.CreateAssetTx, issued.XImportFromP, issued.XExportToP},
		"c-chain": {issued.CExportToP, issued.CImportFromP},
	}
	for chain, ws := range want {
		got := c.history(chain, "addresses="+ewoq+","+recipient)
		hs := txHashes(got)
		for _, w := range ws {
			if !slices.Contains(hs, w.String()) {
				t.Errorf("%s: the funded key's history %v lacks %s", chain, hs, w)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(hs)))) != len(hs) {
			t.Errorf("%s: a tx is listed twice: %v", chain, hs)
		}
		// Paging in pages of 1 gives the same list.
		var paged []string
		for _, raw := range c.pageAll(chain+"/transactions?addresses="+ewoq+","+recipient, historyPath, "transactions", 1) {
			var h historyTx
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			paged = append(paged, h.TxHash)
		}
		if !slices.Equal(paged, hs) {
			t.Errorf("%s: paging by 1 gives %v, one page %v", chain, paged, hs)
		}
	}
	// On the C-chain the EVM address the export debited finds it too.
	if got := txHashes(c.history("c-chain", "addresses="+n.EthAddr.Hex())); !slices.Contains(got, issued.CExportToP.String()) {
		t.Errorf("the funded EVM address's atomic txs %v lack the export %s", got, issued.CExportToP)
	}

	// txTypes.
	imports := c.history("p-chain", "addresses="+ewoq+"&txTypes=ImportTx")
	if got := slices.Sorted(slices.Values(txHashes(imports))); !slices.Equal(got, sorted([]string{issued.PImportFromX.String(), issued.PImportFromC.String()})) {
		t.Errorf("the funded key's P-chain ImportTxs are %v, want %s and %s", got, issued.PImportFromX, issued.PImportFromC)
	}
	// The time range: the second the PBaseTx's block was made.
	ts := view.pBlockOf[issued.PBaseTx].time
	q := "addresses=" + ewoq + "&startTimestamp=" + strconv.FormatInt(ts, 10) + "&endTimestamp=" + strconv.FormatInt(ts, 10)
	inRange := c.history("p-chain", q)
	if !slices.Contains(txHashes(inRange), issued.PBaseTx.String()) {
		t.Errorf("the txs of time %d lack the PBaseTx %s", ts, issued.PBaseTx)
	}
	for _, h := range inRange {
		if h.time() != ts {
			t.Errorf("tx %s of time %d listed for [%d, %d]", h.TxHash, h.time(), ts, ts)
		}
	}
	// The L1 validator the conversion created.
	conv := issued.ConvertSubnetToL1
	l1 := c.history("p-chain", "l1ValidationId="+conv.ValidationID.String())
	if len(l1) == 0 || l1[len(l1)-1].TxHash != conv.TxID.String() {
		t.Errorf("the L1 validator %s's txs are %v, want the conversion %s first", conv.ValidationID, txHashes(l1), conv.TxID)
	}
	if got := c.history("p-chain", "l1ValidationId="+conv.ValidationID.String()+"&addresses="+recipient); len(got) != 0 {
		t.Errorf("the recipient's txs of the L1 validator are %v, want none", txHashes(got))
	}

	// Bad input names the parameter.
	for _, bad := range []struct{ path, param string }{
		{"x-chain/transactions?l1ValidationId=" + conv.ValidationID.String(), "l1ValidationId"},
		{"p-chain/transactions?l1ValidationId=nope", "l1ValidationId"},
		{"p-chain/transactions?addresses=" + n.EthAddr.Hex(), "addresses"},
		{"p-chain/transactions?addresses=local1nope", "addresses"},
		{"p-chain/transactions?txTypes=Nope", "txTypes"},
		{"p-chain/transactions?startTimestamp=5&endTimestamp=4", "startTimestamp"},
		{"p-chain/transactions?sortOrder=up", "sortOrder"},
		{"p-chain/transactions?pageToken=abc", "pageToken"},
	} {
		status, body, _ := get(t, c.api+bad.path)
		if status != http.StatusBadRequest || !strings.Contains(string(body), bad.param) {
			t.Errorf("GET %s: %d %s, want 400 naming %s", bad.path, status, body, bad.param)
		}
	}
}

// TestAddressHistoryBackfill takes an indexed store back to what an
// avaindex before migration 0029 left (no history rows, the migration's
// backfill asked for), reopens it, runs the C-chain rederive the backfill
// asks for, and compares the history with the one indexed from scratch.
// On both stores.
func TestAddressHistoryBackfill(t *testing.T) {
	n, _ := issuedNetwork(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, want := indexedStore(t, n, dsn)
		if len(want["address_txs"]) == 0 {
			t.Fatal("the indexed store has no address_txs rows")
		}
		for _, q := range []string{"DELETE FROM address_txs", "INSERT INTO settings (key, value) VALUES ('backfill:address_txs', '')"} {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := derive.RunBackfills(ctx, st, log, derive.BackfillOptions{Chunk: 5}); err != nil {
			t.Fatal(err)
		}
		pending, err := st.PendingRederives(ctx)
		if err != nil || len(pending) != 1 || pending[0].Chain != internal.CChain {
			t.Fatalf("after the backfill the pending rederives are %+v (%v), want the C-chain's", pending, err)
		}
		if err := derive.RunPendingRederives(ctx, st, log, derive.RederiveOptions{}); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if diff := diffDumps(want, dumpTables(t, db, derivedTables)); len(diff) > 0 {
			t.Fatalf("the backfilled store differs from the one indexed from scratch:\n%s", strings.Join(diff, "\n"))
		}
	})
}

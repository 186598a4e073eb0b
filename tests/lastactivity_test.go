package tests

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestLastActivityMatchesNode checks getLastActivityTimestampByAddresses
// (GET and POST) on the P-chain, on both stores: the latest event is
// worked out here from the addresses' UTXO list (spent included: the
// latest creation on the P-chain or consumption there), and its tx is in
// the node's block of that height, at that block's time.
func TestLastActivityMatchesNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	k1, k2 := issueUTXOExtras(t, n, issued)
	doc := openapitest.Default(t)
	bech := func(a ids.ShortID) string { return bech32Of(t, n, a)[0] }
	const path = "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses"
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet") + "/v1/networks/testnet/blockchains/p-chain"
		waitAllIndexed(t, n, dsn)
		for _, addrs := range []string{bech(k1) + "," + bech(k2), n.Address} {
			// The UTXO list, spent included, every page.
			utxos := pageAll[api.PChainUtxo](t, doc, "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
				base+"/utxos?includeSpent=true&addresses="+addrs, "utxos", 100)
			var want api.LastActivityTimestamp
			var wantHeight int64 = -1
			later := func(ts, h int64, consumed bool) bool {
				return ts > want.Timestamp || (ts == want.Timestamp && (h > wantHeight || (h == wantHeight && consumed && !want.IsConsumed)))
			}
			for _, u := range utxos {
				h, _ := strconv.ParseInt(u.BlockNumber, 10, 64)
				if u.CreatedOnChainID == n.PChainID.String() && later(u.BlockTimestamp, h, false) {
					want = api.LastActivityTimestamp{Timestamp: u.BlockTimestamp, BlockNumber: u.BlockNumber, TxHash: u.TxHash, UtxoID: u.UtxoID}
					wantHeight = h
				}
				if u.ConsumingTxHash != "" && u.ConsumedOnChainID == n.PChainID.String() {
					ch, _ := strconv.ParseInt(u.ConsumingBlockNumber, 10, 64)
					if later(*u.ConsumingBlockTimestamp, ch, true) {
						want = api.LastActivityTimestamp{Timestamp: *u.ConsumingBlockTimestamp, BlockNumber: u.ConsumingBlockNumber,
							TxHash: u.ConsumingTxHash, UtxoID: u.UtxoID, IsConsumed: true}
						wantHeight = ch
					}
				}
			}
			want.ChainName, want.Network = "p-chain", "fuji"
			if wantHeight < 0 {
				t.Fatalf("%s: no UTXO listed", addrs)
			}
			// One tx may create or consume several of the UTXOs: any of
			// them names the event.
			utxoIDs := map[string]bool{}
			for _, u := range utxos {
				if (!want.IsConsumed && u.TxHash == want.TxHash) || (want.IsConsumed && u.ConsumingTxHash == want.TxHash) {
					utxoIDs[u.UtxoID] = true
				}
			}
			var got api.LastActivityTimestamp
			st := getJSON(t, doc, path, base+"/lastActivityTimestampByAddresses?addresses="+addrs, &got)
			if gotID := got.UtxoID; st != 200 || !utxoIDs[gotID] {
				t.Errorf("%s: last activity %d names UTXO %s, not one of %v", addrs, st, gotID, utxoIDs)
			}
			if got.UtxoID = want.UtxoID; got != want {
				t.Errorf("%s: last activity %d %+v; from the UTXO list %+v", addrs, st, got, want)
			}
			status, body := post(t, base+"/lastActivityTimestampByAddresses", `{"addresses":"`+addrs+`"}`)
			doc.ValidateResponse(t, "POST", path, status, body)
			var gotPost api.LastActivityTimestamp
			err := json.Unmarshal(body, &gotPost)
			if postID := gotPost.UtxoID; status != 200 || err != nil || !utxoIDs[postID] {
				t.Errorf("%s: POST %d %s names none of %v", addrs, status, body, utxoIDs)
			}
			if gotPost.UtxoID = got.UtxoID; gotPost != got {
				t.Errorf("%s: POST %d %s; GET %+v", addrs, status, body, got)
			}
			// The node's block at that height holds the tx, at that time.
			raw, err := platformvm.NewClient(n.URL).GetBlockByHeight(context.Background(), uint64(wantHeight))
			if err != nil {
				t.Fatal(err)
			}
			blk, err := pblock.Parse(pblock.Codec, raw)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tx := range blk.Txs() {
				found = found || tx.ID().String() == got.TxHash
			}
			if bb, ok := blk.(pblock.BanffBlock); !found || !ok || bb.Timestamp().Unix() != got.Timestamp {
				t.Errorf("%s: tx %s not in the node's block %d at %d", addrs, got.TxHash, wantHeight, got.Timestamp)
			}
		}
		fresh, err := testnet.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			query  string
			status int
			param  string
		}{
			{"?addresses=" + bech(fresh.Address()), 404, "activity"},
			{"?addresses=" + bech(k1) + "&minUtxoAmount=1000000000000000000", 404, "activity"},
			{"", 400, "addresses"},
			{"?addresses=nope", 400, "addresses"},
			{"?addresses=" + bech(k1) + "&minUtxoAmount=-1", 400, "minUtxoAmount"},
		} {
			status, body, _ := get(t, base+"/lastActivityTimestampByAddresses"+tc.query)
			doc.ValidateResponse(t, "GET", path, status, body)
			if status != tc.status || !strings.Contains(string(body), tc.param) {
				t.Errorf("GET%s = %d %s; want %d naming %s", tc.query, status, body, tc.status, tc.param)
			}
		}
		if status, body := post(t, base+"/lastActivityTimestampByAddresses", `{}`); status != 400 || !strings.Contains(string(body), "addresses") {
			t.Errorf("POST {} = %d %s", status, body)
		}
	})
}

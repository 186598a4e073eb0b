package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/xchain"
)

// fakeSource serves canned UTXOs and rewards in the order given, and
// records the queries.
type fakeSource struct {
	DataSource
	utxos   []*store.ListedUTXO
	rewards []*store.HistoricalReward
	assets  map[ids.ID][]byte
	queries []store.UTXOQuery
	rq      []store.RewardQuery
}

func (f *fakeSource) ListUTXOs(_ context.Context, q store.UTXOQuery, after *store.UTXOKey, limit int) ([]*store.ListedUTXO, error) {
	f.queries = append(f.queries, q)
	var out []*store.ListedUTXO
	started := after == nil
	for _, u := range f.utxos {
		if !started {
			started = u.Key(q.ByAmount) == *after
			continue
		}
		if len(out) < limit {
			out = append(out, u)
		}
	}
	return out, nil
}

func (f *fakeSource) HistoricalRewards(_ context.Context, q store.RewardQuery, after *store.RewardKey, limit int) ([]*store.HistoricalReward, error) {
	f.rq = append(f.rq, q)
	var out []*store.HistoricalReward
	started := after == nil
	for _, h := range f.rewards {
		if !started {
			started = h.Key() == *after
			continue
		}
		if len(out) < limit {
			out = append(out, h)
		}
	}
	return out, nil
}

// XTx answers the CreateAssetTxs of f.assets, by which amounts find their
// assets' names.
func (f *fakeSource) XTx(_ context.Context, id ids.ID) (*store.TxRecord, error) {
	if b, ok := f.assets[id]; ok {
		return &store.TxRecord{ID: id, Type: "CreateAssetTx", Bytes: b}, nil
	}
	return nil, derrors.NotFound
}

var (
	testNet = &internal.Network{ID: 12345, Name: "local", HRP: "local", PChainID: constants.PlatformChainID,
		XChainID: ids.ID{'x'}, CChainID: ids.ID{'c'}, AVAXAssetID: ids.ID{'a', 'v', 'a', 'x'}}
	ownerA = ids.ShortID{0xa}
	ownerB = ids.ShortID{0xb}
)

func bech(t *testing.T, a ids.ShortID) string {
	t.Helper()
	s, err := address.FormatBech32("local", a[:])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTestDataAPI(t *testing.T, src *fakeSource, prices PriceSource) http.Handler {
	t.Helper()
	a, err := New(Deps{Store: src, Network: testNet, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32), Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return mux
}

// testUTXOs are one UTXO of each shape a list holds.
func testUTXOs(t *testing.T, asset ids.ID) []*store.ListedUTXO {
	return []*store.ListedUTXO{
		// A P-chain stake output, stakeable-locked, still staked.
		{ID: ids.ID{1}, TxID: ids.ID{11}, OutputIndex: 2, Origin: internal.PChain, Kind: pchain.KindStake,
			AssetID: testNet.AVAXAssetID, Amount: 2_000_000_000_000, Threshold: 1, StakeableLocktime: 1_900_000_000,
			Owners: []ids.ShortID{ownerA}, Bytes: []byte{1, 2}, CreatedTxID: ids.ID{11}, CreatedHeight: 7, CreatedTime: 1_700_000_000,
			Staked: true, StakeStart: 1_700_000_000, StakeEnd: 1_800_000_000},
		// An X-chain export to the P-chain, imported.
		{ID: ids.ID{2}, TxID: ids.ID{12}, Origin: internal.XChain, Kind: "exported", PeerChain: testNet.PChainID,
			AssetID: testNet.AVAXAssetID, Amount: 5, Threshold: 1, Owners: []ids.ShortID{ownerA, ownerB}, Bytes: []byte{3},
			CreatedTxID: ids.ID{12}, CreatedHeight: 3, CreatedTime: 1_600_000_000,
			ConsumedTxID: ids.ID{13}, ConsumedHeight: 9, ConsumedTime: 1_700_000_100},
		// An X-chain output of a created asset.
		{ID: ids.ID{3}, TxID: ids.ID{14}, OutputIndex: 1, Origin: internal.XChain, Kind: xchain.KindRegular,
			AssetID: asset, Amount: 1000, Threshold: 1, Owners: []ids.ShortID{ownerB}, Bytes: []byte{4},
			CreatedTxID: ids.ID{14}, CreatedHeight: 4, CreatedTime: 1_500_000_000},
	}
}

// createAsset returns the bytes and id of an X-chain CreateAssetTx.
func createAsset(t *testing.T) ([]byte, ids.ID) {
	t.Helper()
	tx := &txs.Tx{Unsigned: &txs.CreateAssetTx{Name: "Test Coin", Symbol: "TST", Denomination: 3,
		States: []*txs.InitialState{{FxIndex: 0, Outs: []verify.State{&secp256k1fx.TransferOutput{Amt: 1,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ownerA}}}}}}}}
	if err := tx.Initialize(builder.Parser.Codec()); err != nil {
		t.Fatal(err)
	}
	return tx.Bytes(), tx.ID()
}

func TestUTXOListsResponses(t *testing.T) {
	doc := openapitest.Default(t)
	raw, asset := createAsset(t)
	src := &fakeSource{utxos: testUTXOs(t, asset), assets: map[ids.ID][]byte{asset: raw}}
	h := newTestDataAPI(t, src, nil)
	const path = "/v1/networks/{network}/blockchains/{blockchainId}/utxos"
	addrs := bech(t, ownerA) + ",P-" + bech(t, ownerB) + "," + bech(t, ownerA)

	for _, chain := range []string{"p-chain", "x-chain", "c-chain", testNet.XChainID.String()} {
		for _, method := range []string{"GET", "POST"} {
			target := "/v1/networks/testnet/blockchains/" + chain + "/utxos?pageSize=2&includeSpent=true"
			body := ""
			if method == "GET" {
				target += "&addresses=" + url.QueryEscape(addrs)
			} else {
				body = `{"addresses": "` + addrs + `"}`
			}
			var items []map[string]any
			for pages := 0; target != ""; pages++ {
				if pages > 3 {
					t.Fatal("pages do not end")
				}
				rec := do(t, h, method, target, body)
				if rec.Code != 200 {
					t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
				}
				b := rec.Body.Bytes()
				doc.ValidateResponse(t, method, path, 200, b)
				schema := "ListUtxosResponse"
				if chain == "p-chain" {
					schema = "ListPChainUtxosResponse"
				}
				doc.ValidateSchema(t, schema, b)
				if strings.Contains(string(b), "null") {
					t.Errorf("%s: null in %s", chain, b)
				}
				var page struct {
					NextPageToken string           `json:"nextPageToken"`
					Utxos         []map[string]any `json:"utxos"`
					ChainInfo     ChainInfo        `json:"chainInfo"`
				}
				if err := json.Unmarshal(b, &page); err != nil {
					t.Fatal(err)
				}
				if page.ChainInfo.Network != Testnet || page.ChainInfo.ChainName == "" {
					t.Errorf("chainInfo %+v", page.ChainInfo)
				}
				items = append(items, page.Utxos...)
				target = ""
				if page.NextPageToken != "" {
					u, _ := url.Parse("/v1/networks/testnet/blockchains/" + chain + "/utxos?pageSize=2&includeSpent=true")
					q := u.Query()
					if method == "GET" {
						q.Set("addresses", addrs)
					}
					q.Set("pageToken", page.NextPageToken)
					u.RawQuery = q.Encode()
					target = u.String()
				}
			}
			if len(items) != 3 {
				t.Fatalf("%s %s: %d items, want 3", method, chain, len(items))
			}
			// The queried addresses reach the store once each.
			q := src.queries[len(src.queries)-1]
			if len(q.Addresses) != 2 || !q.IncludeSpent || q.ByAmount || !q.Desc {
				t.Errorf("store query %+v", q)
			}
			if chain != "p-chain" {
				continue
			}
			stake, export, coin := items[0], items[1], items[2]
			want := map[string]any{
				"utxoType": "STAKE", "staked": true, "stakeableLocktime": 1.9e9, "platformLocktime": 0.0,
				"utxoStartTimestamp": 1.7e9, "utxoEndTimestamp": 1.8e9, "outputIndex": 2.0, "blockNumber": "7",
				"amount": "2000000000000", "txHash": (ids.ID{11}).String(), "utxoBytes": "0x0102",
				"createdOnChainId": testNet.PChainID.String(), "consumedOnChainId": testNet.PChainID.String(),
			}
			for k, v := range want {
				if stake[k] != v {
					t.Errorf("stake %s = %v, want %v", k, stake[k], v)
				}
			}
			if a := stake["asset"].(map[string]any); a["symbol"] != "AVAX" || a["denomination"] != 9.0 || a["name"] != "Avalanche" {
				t.Errorf("AVAX = %v", a)
			}
			if export["createdOnChainId"] != testNet.XChainID.String() || export["consumingTxHash"] != (ids.ID{13}).String() ||
				export["consumingBlockNumber"] != "9" || export["utxoType"] != "TRANSFER" || export["staked"] != false {
				t.Errorf("export = %v", export)
			}
			if as := export["addresses"].([]any); len(as) != 2 || as[0] != bech(t, ownerA) {
				t.Errorf("export addresses %v", as)
			}
			if a := coin["asset"].(map[string]any); a["symbol"] != "TST" || a["denomination"] != 3.0 || a["name"] != "Test Coin" || a["assetId"] != asset.String() {
				t.Errorf("created asset = %v", a)
			}
			for _, absent := range []string{"consumingTxHash", "stakeableLocktime", "utxoStartTimestamp", "rewardType"} {
				if _, ok := coin[absent]; ok {
					t.Errorf("unspent transfer has %s", absent)
				}
			}
		}
	}
	// X-chain items: outputIndex a string, lowercase type.
	rec := do(t, h, "GET", "/v1/networks/testnet/blockchains/x-chain/utxos?addresses="+bech(t, ownerA)+"&pageSize=3", "")
	var page ListUtxosResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page.Utxos) != 3 {
		t.Fatalf("%v %s", err, rec.Body)
	}
	if u := page.Utxos[1]; u.OutputIndex != "0" || u.UtxoType != "transfer" || u.ConsumingTxTimestamp == nil ||
		*u.ConsumingTxTimestamp != 1_700_000_100 || u.Timestamp != 1_600_000_000 || u.CreationTxHash != (ids.ID{12}).String() {
		t.Errorf("X item %+v", u)
	}
}

func TestUTXOListsParams(t *testing.T) {
	captureLog(t)
	doc := openapitest.Default(t)
	src := &fakeSource{utxos: testUTXOs(t, ids.ID{9})}
	h := newTestDataAPI(t, src, nil)
	const path = "/v1/networks/{network}/blockchains/{blockchainId}/utxos"
	base := "/v1/networks/testnet/blockchains/p-chain/utxos"
	a := bech(t, ownerA)
	many := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, bech(t, ids.ShortID{byte(i), byte(i >> 8), 1}))
		}
		return strings.Join(s, ",")
	}
	fuji, _ := address.FormatBech32("fuji", ownerA[:])

	// A valid page token for one query.
	rec := do(t, h, "GET", base+"?addresses="+a+"&pageSize=1", "")
	var first ListPChainUtxosResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &first); err != nil || first.NextPageToken == "" {
		t.Fatalf("%v %s", err, rec.Body)
	}
	tok := url.QueryEscape(first.NextPageToken)

	for _, tc := range []struct {
		method, target, body, param string
	}{
		{"GET", base, "", "addresses"},
		{"GET", base + "?addresses=", "", "addresses"},
		{"GET", base + "?addresses=nope", "", "addresses"},
		{"GET", base + "?addresses=" + fuji, "", "addresses"},
		{"GET", base + "?addresses=" + many(65), "", "addresses"},
		{"GET", base + "?addresses=" + a + "&assetId=nope", "", "assetId"},
		{"GET", base + "?addresses=" + a + "&minUtxoAmount=-1", "", "minUtxoAmount"},
		{"GET", base + "?addresses=" + a + "&minUtxoAmount=1e3", "", "minUtxoAmount"},
		{"GET", base + "?addresses=" + a + "&minUtxoAmount=18446744073709551616", "", "minUtxoAmount"},
		{"GET", base + "?addresses=" + a + "&includeSpent=yes", "", "includeSpent"},
		{"GET", base + "?addresses=" + a + "&sortBy=size", "", "sortBy"},
		{"GET", base + "?addresses=" + a + "&sortOrder=up", "", "sortOrder"},
		{"GET", base + "?addresses=" + a + "&pageSize=101", "", "pageSize"},
		{"GET", base + "?addresses=" + a + "&pageSize=0", "", "pageSize"},
		{"GET", base + "?addresses=" + a + "&pageToken=junk", "", "pageToken"},
		// The token of A's list does not continue B's, another order's,
		// another chain's or the POST form's.
		{"GET", base + "?addresses=" + bech(t, ownerB) + "&pageToken=" + tok, "", "pageToken"},
		{"GET", base + "?addresses=" + a + "&sortBy=amount&pageToken=" + tok, "", "pageToken"},
		{"GET", base + "?addresses=" + a + "&includeSpent=true&pageToken=" + tok, "", "pageToken"},
		{"GET", "/v1/networks/testnet/blockchains/x-chain/utxos?addresses=" + a + "&pageToken=" + tok, "", "pageToken"},
		{"POST", base + "?pageToken=" + tok, `{"addresses":"` + a + `"}`, "pageToken"},
		{"GET", "/v1/networks/testnet/blockchains/q-chain/utxos?addresses=" + a, "", "blockchainId"},
		{"GET", "/v1/networks/mainnet/blockchains/p-chain/utxos?addresses=" + a, "", "network"},
		{"POST", base, "", "request body"},
		{"POST", base, `{}`, "addresses"},
		{"POST", base, `{"addresses": 5}`, "addresses"},
		{"POST", base, `{"addresses": "` + many(1025) + `"}`, "addresses"},
		{"POST", base, `{"addresses": "` + a + `"} x`, "request body"},
		{"POST", base + "?addresses=" + a, `{"addresses": "` + a + `"}`, "addresses"},
		{"POST", base + "?pageSize=1025", `{"addresses": "` + a + `"}`, "pageSize"},
	} {
		rec := do(t, h, tc.method, tc.target, tc.body)
		e := decodeError(t, rec, 400)
		if !strings.Contains(e.Message, tc.param) {
			t.Errorf("%s %s %s: message %q does not name %s", tc.method, tc.target, tc.body, e.Message, tc.param)
		}
		doc.ValidateResponse(t, tc.method, path, 400, rec.Body.Bytes())
	}
	// The limits themselves are fine, and so is a page of 1024 on POST.
	for _, tc := range []struct{ method, target, body string }{
		{"GET", base + "?addresses=" + many(64), ""},
		{"POST", base + "?pageSize=1024", `{"addresses": "` + many(1024) + `"}`},
		{"GET", base + "?addresses=" + a + "&minUtxoAmount=1.5&assetId=" + (ids.ID{9}).String(), ""},
	} {
		if rec := do(t, h, tc.method, tc.target, tc.body); rec.Code != 200 {
			t.Errorf("%s %s: %d %s", tc.method, tc.target, rec.Code, rec.Body)
		}
	}
	if q := src.queries[len(src.queries)-1]; q.MinAmount != 2 || q.AssetID == nil || *q.AssetID != (ids.ID{9}) {
		t.Errorf("minUtxoAmount 1.5 and assetId reached the store as %+v", q)
	}
}

// recordingPrices knows one price and records what it was asked.
type recordingPrices struct {
	NoPrices
	asked []string
}

func (p *recordingPrices) HistoricalPrice(_ context.Context, _ ids.ID, at time.Time, currency string) (float64, bool, error) {
	p.asked = append(p.asked, currency)
	return 12.5, true, nil
}

func TestRewardsResponses(t *testing.T) {
	captureLog(t)
	doc := openapitest.Default(t)
	old := time.Now().Add(-48 * time.Hour).Unix()
	src := &fakeSource{rewards: []*store.HistoricalReward{
		{UTXOID: ids.ID{1}, OutputIndex: 3, Type: pchain.RewardValidator, AssetID: testNet.AVAXAssetID, Amount: 77,
			Owners: []ids.ShortID{ownerA}, RewardTxID: ids.ID{2}, StakerTxID: ids.ID{3}, NodeID: ids.NodeID{4},
			Weight: 2000, StartTime: 100, EndTime: uint64(time.Now().Unix())},
		{UTXOID: ids.ID{5}, OutputIndex: 1, Type: pchain.RewardValidatorFee, AssetID: testNet.AVAXAssetID, Amount: 1,
			Owners: []ids.ShortID{ownerA, ownerB}, RewardTxID: ids.ID{6}, StakerTxID: ids.ID{7}, NodeID: ids.NodeID{4},
			Weight: 3000, StartTime: 100, EndTime: uint64(old)},
	}}
	prices := &recordingPrices{}
	h := newTestDataAPI(t, src, prices)
	const path = "/v1/networks/{network}/rewards"
	var got []HistoricalReward
	next := "/v1/networks/testnet/rewards?pageSize=1&currency=eur&addresses=" + bech(t, ownerA) + "&nodeIds=" + (ids.NodeID{4}).String()
	for next != "" {
		rec := do(t, h, "GET", next, "")
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", next, rec.Code, rec.Body)
		}
		doc.ValidateResponse(t, "GET", path, 200, rec.Body.Bytes())
		doc.ValidateSchema(t, "ListHistoricalRewardsResponse", rec.Body.Bytes())
		var page ListHistoricalRewardsResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			t.Fatal(err)
		}
		got = append(got, page.HistoricalRewards...)
		next = ""
		if page.NextPageToken != "" {
			next = "/v1/networks/testnet/rewards?pageSize=1&currency=eur&addresses=" + bech(t, ownerA) + "&nodeIds=" +
				(ids.NodeID{4}).String() + "&pageToken=" + url.QueryEscape(page.NextPageToken)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d rewards", len(got))
	}
	r0, r1 := got[0], got[1]
	if r0.RewardType != "VALIDATOR" || r0.AmountStaked != "2000" || r0.NodeID != (ids.NodeID{4}).String() ||
		r0.TxHash != (ids.ID{3}).String() || r0.RewardTxHash != (ids.ID{2}).String() || r0.Reward.Amount != "77" ||
		r0.Reward.Symbol != "AVAX" || r0.OutputIndex != 3 || r0.Reward.HistoricalPrice != nil {
		t.Errorf("first reward %+v", r0)
	}
	// Only the reward older than a day is priced, in the asked currency.
	if r1.Reward.HistoricalPrice == nil || *r1.Reward.HistoricalPrice != (Money{CurrencyCode: "eur", Value: 12.5}) ||
		len(prices.asked) != 1 || len(r1.Addresses) != 2 {
		t.Errorf("second reward %+v (asked %v)", r1, prices.asked)
	}
	if q := src.rq[0]; len(q.Addresses) != 1 || len(q.NodeIDs) != 1 || !q.Desc {
		t.Errorf("store query %+v", q)
	}
	// Without a price source, no price.
	h2 := newTestDataAPI(t, src, nil)
	rec := do(t, h2, "GET", "/v1/networks/testnet/rewards?nodeIds="+(ids.NodeID{4}).String(), "")
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "historicalPrice") {
		t.Errorf("no prices: %d %s", rec.Code, rec.Body)
	}

	base := "/v1/networks/testnet/rewards"
	for _, tc := range []struct{ target, param string }{
		{base, "addresses or nodeIds"},
		{base + "?addresses=nope", "addresses"},
		{base + "?nodeIds=nope", "nodeIds"},
		{base + "?nodeIds=" + (ids.NodeID{4}).String() + "&sortOrder=sideways", "sortOrder"},
		{base + "?nodeIds=" + (ids.NodeID{4}).String() + "&currency=xyz", "currency"},
		{base + "?nodeIds=" + (ids.NodeID{4}).String() + "&pageSize=101", "pageSize"},
		{"/v1/networks/nowhere/rewards?nodeIds=" + (ids.NodeID{4}).String(), "network"},
	} {
		rec := do(t, h, "GET", tc.target, "")
		e := decodeError(t, rec, 400)
		if !strings.Contains(e.Message, tc.param) {
			t.Errorf("%s: message %q does not name %s", tc.target, e.Message, tc.param)
		}
		doc.ValidateResponse(t, "GET", path, 400, rec.Body.Bytes())
	}
}

// deadlinePrices knows no price and records the deadline of each lookup.
type deadlinePrices struct {
	NoPrices
	deadlines []time.Time
}

func (p *deadlinePrices) HistoricalPrice(ctx context.Context, _ ids.ID, _ time.Time, _ string) (float64, bool, error) {
	d, _ := ctx.Deadline()
	p.deadlines = append(p.deadlines, d)
	return 0, false, nil
}

// TestRewardsPricesShareADeadline: the price lookups of one page share
// one deadline, priceWait from the request, so a slow feed slows the page
// by priceWait at most, not priceWait per reward; unknown prices are
// omitted.
func TestRewardsPricesShareADeadline(t *testing.T) {
	captureLog(t)
	old := uint64(time.Now().Add(-48 * time.Hour).Unix())
	src := &fakeSource{}
	for i := range 5 {
		src.rewards = append(src.rewards, &store.HistoricalReward{UTXOID: ids.ID{byte(i + 1)}, Type: pchain.RewardValidator,
			AssetID: testNet.AVAXAssetID, Amount: 1, Owners: []ids.ShortID{ownerA}, NodeID: ids.NodeID{4}, EndTime: old - uint64(i)*86400})
	}
	prices := &deadlinePrices{}
	h := newTestDataAPI(t, src, prices)
	start := time.Now()
	rec := do(t, h, "GET", "/v1/networks/testnet/rewards?pageSize=10&addresses="+bech(t, ownerA), "")
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "historicalPrice") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if len(prices.deadlines) != 5 {
		t.Fatalf("%d lookups", len(prices.deadlines))
	}
	for _, d := range prices.deadlines {
		if d.IsZero() || d != prices.deadlines[0] || d.Before(start.Add(priceWait)) || d.After(time.Now().Add(priceWait)) {
			t.Errorf("deadlines %v, request at %s", prices.deadlines, start)
			break
		}
	}
}

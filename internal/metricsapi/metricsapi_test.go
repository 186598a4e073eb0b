package metricsapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/derive/pstate"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

var _ Source = store.Store(nil)

// utc is a time of 2024-03, UTC.
func utc(day, hour, minute, sec int) time.Time {
	return time.Date(2024, 3, day, hour, minute, sec, 0, time.UTC)
}

// pBlocks builds a P-chain with avalanchego's constructors: block 0 an
// Apricot block (the genesis slot), block i a Banff standard block at
// times[i-1] with counts[i-1] txs.
func pBlocks(t *testing.T, times []time.Time, counts []int) []*pchain.Block {
	t.Helper()
	parent := ids.ID{'g'}
	var out []*pchain.Block
	for h := 0; h <= len(times); h++ {
		var (
			blk block.Block
			err error
		)
		if h == 0 {
			blk, err = block.NewApricotStandardBlock(parent, 0, nil)
		} else {
			var ts []*txs.Tx
			for j := range counts[h-1] {
				tx, err := txs.NewSigned(&txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.UnitTestID,
					BlockchainID: constants.PlatformChainID, Memo: fmt.Appendf(nil, "%d/%d", h, j)}}, txs.Codec, nil)
				if err != nil {
					t.Fatal(err)
				}
				ts = append(ts, tx)
			}
			blk, err = block.NewBanffStandardBlock(times[h-1], parent, uint64(h), ts)
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := pchain.Decode(uint64(h), blk.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		parent = blk.ID()
	}
	return out
}

var testNetwork = &internal.Network{ID: constants.LocalID, Name: "local", HRP: "local", PChainID: constants.PlatformChainID, XChainID: ids.ID{'x'}}

// The blocks of the hand-computed series: 3 txs on the 9th (the first day
// after the genesis), 3 on the 10th (across midnight from the 9th), none
// on the 11th, 5 on the 12th; "now" is on the 13th.
var (
	seriesTimes = []time.Time{
		utc(9, 22, 0, 0), utc(9, 23, 59, 50), utc(10, 0, 0, 10), utc(10, 12, 0, 0),
		utc(12, 6, 0, 0), utc(12, 6, 0, 0), utc(12, 6, 59, 59),
	}
	seriesCounts = []int{2, 1, 3, 0, 4, 1, 0}
)

type fixture struct {
	t   *testing.T
	h   http.Handler
	now time.Time
	doc *openapitest.Doc
}

func newFixture(t *testing.T, dsn string) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	batch, err := pchain.Batch(pBlocks(t, seriesTimes, seriesCounts))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ApplyPBlocks(context.Background(), batch, pstate.Apply[*store.PTx]); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, now: utc(13, 10, 0, 0), doc: openapitest.Metrics(t)}
	a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	f.h = mux
	return f
}

// get answers path, checks the status and validates the body against the
// reference schema of the operation at template.
func (f *fixture) get(path string, status int, v any) []byte {
	f.t.Helper()
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != status {
		f.t.Fatalf("GET %s: %d %s, want %d", path, rec.Code, rec.Body, status)
	}
	f.doc.ValidateResponse(f.t, "GET", strings.Split(path, "?")[0], rec.Code, rec.Body.Bytes())
	if v != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			f.t.Fatal(err)
		}
	}
	return rec.Body.Bytes()
}

func day(d int) int64 { return utc(d, 0, 0, 0).Unix() }

func TestAvgTPS(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := newFixture(t, dsn)
		p := "/v1/avg_tps/" + constants.PlatformChainID.String()
		// Worked by hand: the 9th, 3 txs from its first block (22:00:00)
		// to its last (23:59:50); the 10th, 3 txs from 23:59:50 on the 9th
		// to 12:00:00; the 12th, 5 txs from 12:00:00 on the 10th to
		// 06:59:59; the 11th and the 13th (today) have no blocks.
		want := []LegacyMetric{
			{day(13), 0}, {day(12), 5.0 / 154799}, {day(11), 0}, {day(10), 3.0 / 43210}, {day(9), 3.0 / 7190},
		}
		var res LegacyMetricsResponse
		f.get(p, 200, &res)
		if fmt.Sprint(res.Results) != fmt.Sprint(want) || res.Status != 200 || res.NextPageToken != "" || res.NextPageStartKey != "" || res.LastRun == 0 {
			t.Errorf("avg_tps = %+v, want results %v", res, want)
		}

		// Pages of 2, followed by pageToken, then by startKey.
		for _, param := range []string{"pageToken", "startKey"} {
			var got []LegacyMetric
			q := "?pageSize=2"
			for pages := 0; ; pages++ {
				var page LegacyMetricsResponse
				f.get(p+q, 200, &page)
				got = append(got, page.Results...)
				if page.NextPageToken != page.NextPageStartKey {
					t.Fatalf("nextPageToken %q != nextPageStartKey %q", page.NextPageToken, page.NextPageStartKey)
				}
				if page.NextPageToken == "" {
					if pages != 2 {
						t.Errorf("%s: %d pages, want 3", param, pages+1)
					}
					break
				}
				q = "?pageSize=2&" + param + "=" + url.QueryEscape(page.NextPageToken)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: paged %v, want %v", param, got, want)
			}
		}

		// from and to bound the days: from on the 10th at 05:00 starts at
		// the 11th, its first whole day; to at the 12th's midnight keeps it.
		f.get(p+fmt.Sprintf("?from=%d&to=%d", utc(10, 5, 0, 0).Unix(), day(12)), 200, &res)
		if fmt.Sprint(res.Results) != fmt.Sprint(want[1:3]) {
			t.Errorf("from/to: %v, want %v", res.Results, want[1:3])
		}

		// "total" sums the chains; only the P-chain has blocks here.
		f.get("/v1/avg_tps/total", 200, &res)
		if fmt.Sprint(res.Results) != fmt.Sprint(want) {
			t.Errorf("total: %v, want %v", res.Results, want)
		}
		// The X-chain is served, without blocks yet.
		f.get("/v1/avg_tps/"+testNetwork.XChainID.String(), 200, &res)
		if len(res.Results) != 0 {
			t.Errorf("X-chain: %v, want none", res.Results)
		}
	})
}

func TestV1Family(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := newFixture(t, dsn)
		chain := constants.PlatformChainID.String()
		for _, c := range []struct {
			path string
			want []LegacyMetric
		}{
			{"tx_count", []LegacyMetric{{day(13), 0}, {day(12), 5}, {day(11), 0}, {day(10), 3}, {day(9), 3}}},
			// Per block: 2 txs over 1 s (the first block); 3 over 20 s;
			// 4 over 151200 s then 1 in the same second (over 1 s).
			{"max_tps", []LegacyMetric{{day(13), 0}, {day(12), 1}, {day(11), 0}, {day(10), 0.15}, {day(9), 2}}},
			{"cumulative/tx_count", []LegacyMetric{{day(13), 11}, {day(12), 11}, {day(11), 6}, {day(10), 6}, {day(9), 3}}},
			{"gas_used", []LegacyMetric{{day(13), 0}, {day(12), 0}, {day(11), 0}, {day(10), 0}, {day(9), 0}}},
		} {
			var res LegacyMetricsResponse
			f.get("/v1/"+c.path+"/"+chain, 200, &res)
			if fmt.Sprint(res.Results) != fmt.Sprint(c.want) {
				t.Errorf("%s: %v, want %v", c.path, res.Results, c.want)
			}
		}
		// The cumulative count carries over a page boundary on a day
		// without blocks.
		var res LegacyMetricsResponse
		f.get("/v1/cumulative/tx_count/"+chain+"?pageSize=2", 200, &res)
		f.get("/v1/cumulative/tx_count/"+chain+"?pageSize=1&pageToken="+res.NextPageToken, 200, &res)
		if fmt.Sprint(res.Results) != fmt.Sprint([]LegacyMetric{{day(11), 6}}) {
			t.Errorf("cumulative second page: %v", res.Results)
		}
		// Hourly transaction counts of the 12th.
		f.get(fmt.Sprintf("/v1/tx_count/%s?interval=hour&from=%d&to=%d", chain, day(12), utc(12, 7, 0, 0).Unix()), 200, &res)
		if len(res.Results) != 8 || res.Results[1] != (LegacyMetric{utc(12, 6, 0, 0).Unix(), 5}) || res.Results[0].Value != 0 {
			t.Errorf("hourly: %v", res.Results)
		}
	})
}

func TestV2ChainMetrics(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := newFixture(t, dsn)
		chain := constants.PlatformChainID.String()
		var res MetricsResponse
		f.get("/v2/chains/"+chain+"/metrics/txCount?timeInterval=week", 200, &res)
		// Weeks from Monday: the 4th (the 9th and 10th), the 11th.
		if want := []MetricsValue{{5, day(11)}, {6, day(4)}}; fmt.Sprint(res.Results) != fmt.Sprint(want) {
			t.Errorf("weekly txCount %v, want %v", res.Results, want)
		}
		f.get("/v2/chains/"+chain+"/metrics/avgTps?startTimestamp="+fmt.Sprint(day(10))+"&endTimestamp="+fmt.Sprint(day(10)), 200, &res)
		if want := []MetricsValue{{3.0 / 43210, day(10)}}; fmt.Sprint(res.Results) != fmt.Sprint(want) {
			t.Errorf("avgTps of the 10th %v, want %v", res.Results, want)
		}
		f.get("/v2/chains/total/metrics/cumulativeTxCount?pageSize=3", 200, &res)
		if want := []MetricsValue{{11, day(13)}, {11, day(12)}, {6, day(11)}}; fmt.Sprint(res.Results) != fmt.Sprint(want) || res.NextPageToken == "" {
			t.Errorf("cumulativeTxCount %+v, want %v and a next page", res, want)
		}
		var chains ListChainsResponse
		f.get("/v2/chains", 200, &chains)
		if len(chains.Chains) != 0 {
			t.Errorf("chains %v, want none (no EVM chain indexed)", chains.Chains)
		}
	})
}

func TestErrors(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := newFixture(t, dsn)
		p := "/v1/avg_tps/" + constants.PlatformChainID.String()
		var first LegacyMetricsResponse
		f.get(p+"?pageSize=2", 200, &first)
		var other LegacyMetricsResponse
		f.get("/v1/tx_count/total?pageSize=2", 200, &other)
		tok := first.NextPageToken
		altered := []byte(tok)
		altered[20] ^= 1
		if altered[20] == '-' || altered[20] == '_' {
			altered[20] = 'A'
		}
		for _, c := range []struct {
			path   string
			status int
			msg    string
		}{
			{"/v1/avg_tps/43114", 404, "chain \"43114\""},
			{"/v1/avg_tps/mainnet", 404, "chain \"mainnet\""},
			{p + "?from=yesterday", 400, "from must be"},
			{p + "?from=20&to=10", 400, "from (20) is after to (10)"},
			{p + "?interval=week", 400, "interval week is not supported for avgTps"},
			{p + "?pageSize=0", 400, "pageSize"},
			{p + "?limit=3", 400, "unknown query parameter"},
			{p + "?pageToken=" + string(altered), 400, "invalid page token"},
			{p + "?pageToken=not-a-token", 400, "invalid page token"},
			// Another query's token, or another chain's.
			{p + "?pageToken=" + other.NextPageToken, 400, "invalid page token"},
			{"/v1/avg_tps/total?pageToken=" + tok, 400, "invalid page token"},
			{p + "?pageSize=2&from=1&pageToken=" + tok, 400, "invalid page token"},
			{p + "?pageToken=" + tok + "&startKey=" + other.NextPageToken, 400, "pageToken and startKey"},
			{"/v2/chains/" + constants.PlatformChainID.String() + "/metrics/tps", 400, "metric must be one of"},
			{"/v2/chains/" + constants.PlatformChainID.String() + "/metrics/maxTps?timeInterval=hour", 400, "timeInterval hour is not supported"},
			{"/v2/chains/" + constants.PlatformChainID.String() + "/metrics/txCount?timeInterval=year", 400, "timeInterval"},
			{"/v2/chains/" + constants.PlatformChainID.String() + "/metrics/txCount?pageSize=2161", 400, "pageSize"},
			{"/v2/chains/99999", 404, "chainId \"99999\""},
			// The chain list is one page: no token continues it.
			{"/v2/chains?pageToken=" + tok, 400, "invalid page token"},
			{"/v2/chains?pageToken=x", 400, "invalid page token"},
		} {
			var body ErrorBody
			f.get(c.path, c.status, &body)
			if body.StatusCode != c.status || len(body.Message) != 1 || !strings.Contains(body.Message[0], c.msg) {
				t.Errorf("GET %s: %+v, want a message with %q", c.path, body, c.msg)
			}
		}

		// The same token is good for 24 hours, then says to start again.
		f.now = f.now.Add(24 * time.Hour)
		f.get(p+"?pageSize=2&pageToken="+tok, 200, nil)
		f.now = f.now.Add(time.Second)
		var body ErrorBody
		f.get(p+"?pageSize=2&pageToken="+tok, 400, &body)
		if len(body.Message) != 1 || !strings.Contains(body.Message[0], "expired") || !strings.Contains(body.Message[0], "first page") {
			t.Errorf("expired token: %+v", body)
		}
	})
}

// TestErrorsEchoBoundedInput: an error message repeats at most a bounded
// prefix of what the client sent, however long.
func TestErrorsEchoBoundedInput(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t))
	long := strings.Repeat("a", 60_000)
	p := "/v2/chains/" + constants.PlatformChainID.String() + "/metrics/"
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/v1/avg_tps/" + long, 404},
		{"/v2/chains/" + long, 404},
		{p + long, 400},
		{p + "txCount?timeInterval=" + long, 400},
		{p + "txCount?startTimestamp=" + long, 400},
		{p + "txCount?" + long + "=1", 400},
		{"/v2/" + long, 404},
	} {
		h := f.h
		if c.path == "/v2/"+long {
			h = NotFoundHandler()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		var body ErrorBody
		if rec.Code != c.status || json.Unmarshal(rec.Body.Bytes(), &body) != nil || len(body.Message) != 1 {
			t.Errorf("GET %.60s...: %d %.200s, want %d with the error body", c.path, rec.Code, rec.Body, c.status)
			continue
		}
		if rec.Body.Len() > 1024 || !strings.Contains(body.Message[0], "aaaa") {
			t.Errorf("GET %.60s...: a body of %d bytes, want at most 1024 with a prefix of the input: %.200s",
				c.path, rec.Body.Len(), rec.Body)
		}
	}
}

func jsonDecode(b []byte, v any) error { return json.Unmarshal(b, v) }

// An EVM chain of the registry: listed by /v2/chains, its metrics asked by
// EVM chain id or by blockchain id, with gas values worked out by hand.
func TestEVMChain(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := newFixture(t, dsn)
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// Block 0 (the genesis) and blocks 1 and 2 on the 12th, 10 s apart:
		// 2 txs of 21,000 gas at 25 and 35 gwei, then 1 of 50,000 at 30.
		from, to := common.Address{1}, common.Address{2}
		var blocks []*internal.EVMBlockData
		for n, txs := range [][]internal.EVMTx{nil,
			{{From: from, To: &to, GasUsed: 21_000, GasPrice: big.NewInt(25e9)}, {From: to, To: &from, GasUsed: 21_000, GasPrice: big.NewInt(35e9)}},
			{{From: from, GasUsed: 50_000, GasPrice: big.NewInt(30e9)}},
		} {
			b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: uint64(n), Hash: common.Hash{byte(n + 1)},
				Timestamp: utc(12, 8, 0, 10*n), TxCount: len(txs)}, Traced: true}
			if n > 0 {
				b.ParentHash = blocks[n-1].Hash
			}
			for i := range txs {
				txs[i].Hash, txs[i].BlockNumber, txs[i].BlockHash, txs[i].Index, txs[i].Value = common.Hash{byte(n), byte(i), 1}, uint64(n), b.Hash, uint32(i), new(big.Int)
				b.GasUsed += txs[i].GasUsed
			}
			b.Txs = txs
			blocks = append(blocks, b)
		}
		if err := st.ApplyEVMBlocks(context.Background(), 43112, blocks, evmstate.Apply[*store.EVMTx]); err != nil {
			t.Fatal(err)
		}
		cchain := ids.ID{'c'}
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return f.now },
			EVMChains: func() []EVMChain {
				return []EVMChain{{EVMChainID: 43112, Name: "C-Chain", BlockchainID: cchain, SubnetID: constants.PrimaryNetworkID}}
			}})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		f.h = mux

		var chains ListChainsResponse
		f.get("/v2/chains", 200, &chains)
		want := Chain{EVMChainID: 43112, ChainName: "C-Chain", BlockchainID: cchain.String(), SubnetID: constants.PrimaryNetworkID.String(), Network: "testnet"}
		if len(chains.Chains) != 1 || chains.Chains[0] != want {
			t.Errorf("chains %+v, want %+v", chains.Chains, want)
		}
		var one Chain
		f.get("/v2/chains/43112", 200, &one)
		if one != want {
			t.Errorf("chain %+v", one)
		}
		day12 := fmt.Sprintf("?startTimestamp=%d&endTimestamp=%d", day(12), day(12))
		for _, c := range []struct {
			path string
			want float64
		}{
			{"/v2/chains/43112/metrics/gasUsed" + day12, 92_000},
			{"/v2/chains/" + cchain.String() + "/metrics/gasUsed" + day12, 92_000},
			{"/v2/chains/43112/metrics/avgGasPrice" + day12, 30e9},
			{"/v2/chains/43112/metrics/maxGasPrice" + day12, 35e9},
			{"/v2/chains/43112/metrics/feesPaid" + day12, 21_000*25e9 + 21_000*35e9 + 50_000*30e9},
			// 92,000 gas over the 10 s from the first block to the last.
			{"/v2/chains/43112/metrics/avgGps" + day12, 9_200},
			{"/v2/chains/43112/metrics/maxGps" + day12, 42_000},
			{"/v2/chains/43112/metrics/activeSenders" + day12, 2},
			{"/v2/chains/43112/metrics/activeAddresses" + day12, 2},
			// The total adds the P-chain's 5 txs of the 12th.
			{"/v2/chains/total/metrics/txCount" + day12, 8},
		} {
			var res MetricsResponse
			f.get(c.path, 200, &res)
			if len(res.Results) != 1 || res.Results[0].Value != c.want {
				t.Errorf("%s: %+v, want %v", c.path, res.Results, c.want)
			}
		}
	})
}

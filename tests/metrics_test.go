package tests

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

type legacySeries struct {
	Results []struct {
		Timestamp int64   `json:"timestamp"`
		Value     float64 `json:"value"`
	} `json:"results"`
	Status           int    `json:"status"`
	LastRun          int64  `json:"lastRun"`
	NextPageToken    string `json:"nextPageToken"`
	NextPageStartKey string `json:"nextPageStartKey"`
}

// metricsGet answers a Metrics API v1 series and validates it against the
// reference schema.
func metricsGet(t *testing.T, doc *openapitest.Doc, u string) legacySeries {
	t.Helper()
	status, body, _ := get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, body)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	doc.ValidateResponse(t, "GET", parsed.Path, status, body)
	var s legacySeries
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// nodePDays returns, from the node's own P-chain blocks 1..tip, each UTC
// day's tx count and the avg_tps of the day of the tip, by the hosted
// definition (the day's txs over the seconds from the last block before
// the day, or the first block after the genesis, to the day's last block).
func nodePDays(t *testing.T, n *testnet.Network, tip uint64) (counts map[int64]int, today int64, avgTPS float64) {
	t.Helper()
	counts = map[int64]int{}
	var prev, first, last int64
	var todayTxs int
	c := n.PClient()
	for h := uint64(1); h <= tip; h++ {
		raw, err := c.GetBlockByHeight(t.Context(), h)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pchain.Decode(h, raw)
		if err != nil {
			t.Fatal(err)
		}
		ts := b.Timestamp.Unix()
		d := b.Timestamp.UTC().Truncate(24 * time.Hour).Unix()
		if d != today {
			prev, first, todayTxs = last, ts, 0
			today = d
		}
		counts[d] += len(b.Txs)
		todayTxs += len(b.Txs)
		last = ts
	}
	from := prev
	if from == 0 {
		from = first
	}
	return counts, today, float64(todayTxs) / float64(max(1, last-from))
}

// TestMetricsOnLocalNetwork issues P-chain txs on the local network and
// checks the Metrics API's series against the node's blocks on both stores:
// each day's count, today's avg_tps, the count going up by the txs issued,
// the order of the series and paging to its end.
func TestMetricsOnLocalNetwork(t *testing.T) {
	n := testnet.Get(t)
	doc := openapitest.Metrics(t)
	pID := "11111111111111111111111111111111LpoYY"
	dbtest.Run(t, func(t *testing.T, dsn string) {
		// One tx first, so that today has a count before the txs counted.
		if _, err := n.PBaseTx(t.Context(), ids.ShortID{7}, units.MilliAvax); err != nil {
			t.Fatal(err)
		}
		tip, err := n.PClient().GetHeight(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, 2*time.Minute)
		before := metricsGet(t, doc, base+"/v1/tx_count/"+pID)

		const issued = 3
		for range issued {
			if _, err := n.PBaseTx(t.Context(), ids.ShortID{7}, units.MilliAvax); err != nil {
				t.Fatal(err)
			}
		}
		if tip, err = n.PClient().GetHeight(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitIndexed(t, base, tip, 2*time.Minute)
		counts, today, avgTPS := nodePDays(t, n, tip)

		after := metricsGet(t, doc, base+"/v1/tx_count/"+pID)
		if len(after.Results) == 0 || after.Status != 200 {
			t.Fatalf("tx_count: %+v", after)
		}
		// Descending days, one per day from the first block's to today,
		// each the node's count (0 for a day without blocks).
		for i, p := range after.Results {
			if i > 0 && p.Timestamp != after.Results[i-1].Timestamp-86400 {
				t.Errorf("days not consecutive and descending: %d after %d", p.Timestamp, after.Results[i-1].Timestamp)
			}
			if p.Value != float64(counts[p.Timestamp]) {
				t.Errorf("day %d: %v txs, the node's blocks have %d", p.Timestamp, p.Value, counts[p.Timestamp])
			}
		}
		if after.Results[0].Timestamp != today {
			t.Errorf("latest day %d, want today %d", after.Results[0].Timestamp, today)
		}
		if len(before.Results) == 0 {
			t.Errorf("no tx_count before the txs were issued")
		} else if before.Results[0].Timestamp == today { // (not across midnight)
			if got := after.Results[0].Value - before.Results[0].Value; got != issued {
				t.Errorf("today's count went up by %v, want %d", got, issued)
			}
		}
		tps := metricsGet(t, doc, base+"/v1/avg_tps/"+pID)
		t.Logf("today: %d P-chain txs (%d issued), avg_tps %v; %d days", counts[today], issued, tps.Results[0].Value, len(after.Results))
		if tps.Results[0].Timestamp != today || tps.Results[0].Value != avgTPS {
			t.Errorf("avg_tps today = %+v, want %v at %d", tps.Results[0], avgTPS, today)
		}
		total := metricsGet(t, doc, base+"/v1/tx_count/total")
		if total.Results[0].Value < after.Results[0].Value {
			t.Errorf("total today %v < the P-chain's %v", total.Results[0].Value, after.Results[0].Value)
		}

		// Today's hours, a page of 2 at a time, to the end: the same hours
		// as on one page, adding up to today's count.
		hourly := fmt.Sprintf("%s/v1/tx_count/%s?interval=hour&from=%d", base, pID, today)
		all := metricsGet(t, doc, hourly+"&pageSize=2160")
		var paged []float64
		next := hourly + "&pageSize=2"
		for pages := 0; ; pages++ {
			if pages > 30 {
				t.Fatal("paging does not end")
			}
			s := metricsGet(t, doc, next)
			for _, p := range s.Results {
				paged = append(paged, p.Value)
			}
			if s.NextPageToken == "" {
				break
			}
			next = hourly + "&pageSize=2&startKey=" + url.QueryEscape(s.NextPageStartKey)
		}
		var sum float64
		for i, p := range all.Results {
			sum += p.Value
			if i >= len(paged) || paged[i] != p.Value {
				t.Errorf("hour %d: paged %v, one page %v", i, paged, all.Results)
				break
			}
		}
		if len(paged) != len(all.Results) || sum != float64(counts[today]) {
			t.Errorf("%d hours paged, %d on one page, summing to %v; want today's %d", len(paged), len(all.Results), sum, counts[today])
		}
	})
}

// TestMetricsCChainOnLocalNetwork sends EVM txs on the local network's
// C-chain and checks that the Metrics API lists the C-chain and counts
// today's EVM txs and gas as the node's blocks have them.
func TestMetricsCChainOnLocalNetwork(t *testing.T) {
	n := testnet.Get(t)
	doc := openapitest.Metrics(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		base := startService(t, n.URL, dsn)
		for range 2 {
			if _, err := n.SendEVM(ctx, common.Address{9}, big.NewInt(1)); err != nil {
				t.Fatal(err)
			}
		}
		var headHex string
		if err := n.Call(ctx, "/ext/bc/C/rpc", "eth_blockNumber", []any{}, &headHex); err != nil {
			t.Fatal(err)
		}
		head, err := strconv.ParseUint(strings.TrimPrefix(headHex, "0x"), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		hex := func(s string) float64 {
			v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			return float64(v)
		}
		today := time.Now().UTC().Truncate(24 * time.Hour).Unix()
		var txs, gas float64
		type evmBlock struct {
			ts       int64
			txs, gas float64
		}
		var blocks []evmBlock
		for h := uint64(1); h <= head; h++ {
			var b struct {
				Timestamp    string   `json:"timestamp"`
				GasUsed      string   `json:"gasUsed"`
				Transactions []string `json:"transactions"`
			}
			if err := n.Call(ctx, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{fmt.Sprintf("0x%x", h), false}, &b); err != nil {
				t.Fatal(err)
			}
			if int64(hex(b.Timestamp)) >= today {
				txs += float64(len(b.Transactions))
				gas += hex(b.GasUsed)
			}
			blocks = append(blocks, evmBlock{int64(hex(b.Timestamp)), float64(len(b.Transactions)), hex(b.GasUsed)})
		}
		id := fmt.Sprint(n.EVMChainID)
		// The C-chain's blocks are indexed after the P-chain's: wait for
		// today's count to reach the node's.
		deadline := time.Now().Add(2 * time.Minute)
		var got legacySeries
		for {
			status, body, _ := get(t, base+"/v1/tx_count/"+id)
			if status == http.StatusOK {
				doc.ValidateResponse(t, "GET", "/v1/tx_count/"+id, status, body)
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatal(err)
				}
				if len(got.Results) > 0 && got.Results[0].Timestamp == today && got.Results[0].Value >= txs {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("today's C-chain tx_count did not reach the node's %v: %d %s", txs, status, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got.Results[0].Value != txs {
			t.Errorf("today's C-chain tx_count %v, the node's blocks have %v", got.Results[0].Value, txs)
		}
		if g := metricsGet(t, doc, base+"/v1/gas_used/"+id); g.Results[0].Value != gas {
			t.Errorf("today's C-chain gas_used %v, the node's blocks have %v", g.Results[0].Value, gas)
		}
		// The rolling windows of gasUsed and txCount: the node's blocks
		// from each window's first whole hour (all time: every block).
		spans := map[string]int64{"lastHour": 3600, "lastDay": 86400, "lastWeek": 7 * 86400, "lastMonth": 30 * 86400,
			"last90Days": 90 * 86400, "lastYear": 365 * 86400, "allTime": 0}
		for attempt := 0; ; attempt++ {
			before := time.Now().Unix()
			var gasW, txW struct {
				Result map[string]float64 `json:"result"`
			}
			for _, w := range []struct {
				metric string
				v      any
			}{{"gasUsed", &gasW}, {"txCount", &txW}} {
				path := "/v2/chains/" + id + "/rollingWindowMetrics/" + w.metric
				status, body, _ := get(t, base+path)
				doc.ValidateResponse(t, "GET", path, status, body)
				if err := json.Unmarshal(body, w.v); status != 200 || err != nil {
					t.Fatalf("%s: %d %s", path, status, body)
				}
			}
			now := time.Now().Unix()
			if before/3600 != now/3600 && attempt < 3 {
				continue // an hour began between: the windows moved
			}
			for name, span := range spans {
				from := int64(0)
				if span > 0 {
					from = (now - span + 3599) / 3600 * 3600
				}
				var wantGas, wantTxs float64
				for _, b := range blocks {
					if b.ts >= from {
						wantGas += b.gas
						wantTxs += b.txs
					}
				}
				if gasW.Result[name] != wantGas || txW.Result[name] != wantTxs {
					t.Errorf("%s: gasUsed %v, txCount %v; the node's blocks have %v, %v", name, gasW.Result[name], txW.Result[name], wantGas, wantTxs)
				}
			}
			if txW.Result["lastHour"] < 2 {
				t.Errorf("the last hour's txCount %v, though 2 txs were sent", txW.Result["lastHour"])
			}
			break
		}

		status, body, _ := get(t, base+"/v2/chains")
		doc.ValidateResponse(t, "GET", "/v2/chains", status, body)
		var chains struct {
			Chains []struct {
				EVMChainID   uint64 `json:"evmChainId"`
				ChainName    string `json:"chainName"`
				BlockchainID string `json:"blockchainId"`
			} `json:"chains"`
		}
		if err := json.Unmarshal(body, &chains); err != nil {
			t.Fatal(err)
		}
		if status != 200 || len(chains.Chains) != 1 || chains.Chains[0].EVMChainID != n.EVMChainID || chains.Chains[0].ChainName != "c_chain" {
			t.Errorf("/v2/chains: %d %s", status, body)
		}
	})
}

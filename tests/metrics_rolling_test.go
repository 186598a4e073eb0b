package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// metricsJSON answers a Metrics API operation, checks its status,
// validates it against the reference schema and decodes it into v.
func metricsJSON(t *testing.T, doc *openapitest.Doc, u string, v any) {
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
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsWindowsAndStakingOnLocalNetwork checks the rolling windows of
// the P-chain's txCount and maxTps against the node's own blocks, today's
// staking metrics against the node's current validators and delegators,
// and the health check.
func TestMetricsWindowsAndStakingOnLocalNetwork(t *testing.T) {
	n := testnet.Get(t)
	doc := openapitest.Metrics(t)
	pID := constants.PlatformChainID.String()
	ctx := t.Context()
	if _, err := n.PBaseTx(ctx, ids.ShortID{7}, units.MilliAvax); err != nil {
		t.Fatal(err)
	}
	// A validator and a delegator of it, so that the staking metrics have
	// both kinds beside the genesis validators.
	v, err := n.AddValidator(ctx, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddDelegator(ctx, v.NodeID, v.End.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tip, err := n.PClient().GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := startService(t, n.URL, dbtest.SQLite(t), "--network-alias", "testnet")
	waitIndexed(t, base, tip, 2*time.Minute)

	// The node's blocks 1..tip: time and tx count.
	type blk struct {
		ts  int64
		txs int
	}
	var blocks []blk
	for h := uint64(1); h <= tip; h++ {
		raw, err := n.PClient().GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pchain.Decode(h, raw)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, blk{b.Timestamp.Unix(), len(b.Txs)})
	}
	spans := map[string]int64{"lastHour": 3600, "lastDay": 86400, "lastWeek": 7 * 86400, "lastMonth": 30 * 86400,
		"last90Days": 90 * 86400, "lastYear": 365 * 86400, "allTime": 0}
	// window recounts a window from the node's blocks, by its definition:
	// the blocks from the first whole hour at or after now minus its span
	// (all time: every block after the genesis).
	window := func(span, now int64) (txs, maxTPS float64) {
		from := int64(0)
		if span > 0 {
			from = (now - span + 3599) / 3600 * 3600
		}
		for i, b := range blocks {
			if b.ts < from || b.ts > now {
				continue
			}
			txs += float64(b.txs)
			secs := int64(1)
			if i > 0 {
				secs = max(1, b.ts-blocks[i-1].ts)
			}
			maxTPS = max(maxTPS, float64(b.txs)/float64(secs))
		}
		return txs, maxTPS
	}
	for attempt := 0; ; attempt++ {
		before := time.Now().Unix()
		var txCount, maxTps struct {
			Result map[string]float64 `json:"result"`
		}
		metricsJSON(t, doc, base+"/v2/chains/"+pID+"/rollingWindowMetrics/txCount", &txCount)
		metricsJSON(t, doc, base+"/v2/chains/"+pID+"/rollingWindowMetrics/maxTps", &maxTps)
		after := time.Now().Unix()
		if before/3600 != after/3600 && attempt < 3 {
			continue // an hour began between: the windows moved
		}
		for name, span := range spans {
			wantTxs, wantMax := window(span, after)
			if txCount.Result[name] != wantTxs || maxTps.Result[name] != wantMax {
				t.Errorf("%s: txCount %v, maxTps %v; the node's blocks give %v, %v", name,
					txCount.Result[name], maxTps.Result[name], wantTxs, wantMax)
			}
		}
		t.Logf("P-chain txCount windows %v, maxTps %v", txCount.Result, maxTps.Result)
		if txCount.Result["lastHour"] == 0 {
			t.Errorf("no tx in the last hour, though one was issued: %v", txCount.Result)
		}
		break
	}

	// Today's staking metrics: the node's current stakers on at now.
	now := time.Now().Unix()
	validators, err := n.PClient().GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, v := range validators {
		if int64(v.StartTime) <= now && now < int64(v.EndTime) {
			want["validatorCount"]++
			want["validatorWeight"] += float64(v.Weight)
		}
		one, err := n.PClient().GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range one {
			for _, d := range w.Delegators {
				if int64(d.StartTime) <= now && now < int64(d.EndTime) {
					want["delegatorCount"]++
					want["delegatorWeight"] += float64(d.Weight)
				}
			}
		}
	}
	t.Logf("the node's stakers now: %v", want)
	if want["validatorCount"] < 2 || want["delegatorCount"] == 0 {
		t.Fatal("the node has not the validators and delegator the test added")
	}
	for metric, w := range want {
		var res struct {
			Results []struct {
				Timestamp int64   `json:"timestamp"`
				Value     float64 `json:"value"`
			} `json:"results"`
		}
		metricsJSON(t, doc, base+"/v2/networks/testnet/metrics/"+metric+"?pageSize=1", &res)
		if len(res.Results) != 1 || res.Results[0].Timestamp != now/86400*86400 || res.Results[0].Value != w {
			t.Errorf("%s: %+v, want today %d with the node's %v", metric, res.Results, now/86400*86400, w)
		}
	}

	// Looking Glass: the current validators' reward addresses, over the
	// range [now, now], with their start times, as the node tells them.
	type details struct {
		Addresses []string `json:"addresses"`
		SortKey   string   `json:"sortKey"`
	}
	var wantAddrs []string
	for _, v := range validators {
		if int64(v.StartTime) > now || int64(v.EndTime) < now || v.ValidationRewardOwner == nil {
			continue
		}
		var as []string
		for _, a := range v.ValidationRewardOwner.Addresses {
			s, err := address.FormatBech32(n.HRP, a[:])
			if err != nil {
				t.Fatal(err)
			}
			as = append(as, s)
		}
		wantAddrs = append(wantAddrs, fmt.Sprintf("%d %v", v.StartTime, as))
	}
	var lg struct {
		Addresses []details `json:"addresses"`
	}
	metricsJSON(t, doc, fmt.Sprintf("%s/v2/subnets/%s/validators:getAddresses?startTimestamp=%d&endTimestamp=%d", base,
		constants.PrimaryNetworkID, now, now), &lg)
	var gotAddrs []string
	for _, d := range lg.Addresses {
		gotAddrs = append(gotAddrs, d.SortKey+" "+fmt.Sprint(d.Addresses))
	}
	slices.Sort(wantAddrs)
	slices.Sort(gotAddrs)
	if len(wantAddrs) < 2 || !slices.Equal(gotAddrs, wantAddrs) {
		t.Errorf("validators:getAddresses: %q, the node's validators: %q", gotAddrs, wantAddrs)
	}

	var health struct {
		Status  string `json:"status"`
		Details map[string]struct {
			Status string `json:"status"`
		} `json:"details"`
	}
	metricsJSON(t, doc, base+"/v2/health-check", &health)
	if health.Status != "ok" || health.Details["database"].Status != "up" {
		t.Errorf("health check: %+v", health)
	}
}

package tests

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// nodePending is a current staker as the node tells it.
type nodePending struct {
	typ, node      string
	weight, reward uint64
	start, end     uint64
	owners         []ids.ShortID
}

// TestPendingRewardsMatchNode compares listPendingPrimaryNetworkRewards
// with platform.getCurrentValidators on both stores: by node (every
// current validator's node) and by reward owner address, every current
// validator and delegator once with its weight, period, owners and
// potentialReward; progress as worked out here from the period and the
// time of the request.
func TestPendingRewardsMatchNode(t *testing.T) {
	n, _ := issuedNetwork(t)
	doc := openapitest.Default(t)
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	const path = "/v1/networks/{network}/rewards:listPending"
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet") + "/v1/networks/testnet/rewards:listPending"
		var problems []string
		for attempt := 0; attempt < 3 && (attempt == 0 || len(problems) > 0); attempt++ {
			problems = nil
			waitAllIndexed(t, n, dsn)
			vs, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]nodePending{}
			var nodes []string
			for _, v := range vs {
				nodes = append(nodes, v.NodeID.String())
				p := nodePending{typ: "VALIDATOR", node: v.NodeID.String(), weight: v.Weight, start: v.StartTime, end: v.EndTime}
				if v.PotentialReward != nil {
					p.reward = *v.PotentialReward
				}
				if v.ValidationRewardOwner != nil {
					p.owners = v.ValidationRewardOwner.Addresses
				}
				want[v.TxID.String()] = p
				one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range one[0].Delegators {
					p := nodePending{typ: "DELEGATOR", node: d.NodeID.String(), weight: d.Weight, start: d.StartTime, end: d.EndTime}
					if d.PotentialReward != nil {
						p.reward = *d.PotentialReward
					}
					if d.RewardOwner != nil {
						p.owners = d.RewardOwner.Addresses
					}
					want[d.TxID.String()] = p
				}
			}
			if len(vs) == 0 {
				t.Fatal("no current validator")
			}
			check := func(query string, keep func(nodePending) bool) {
				before := time.Now().Unix()
				got := pageAll[api.PendingReward](t, doc, path, base+"?"+query, "pendingRewards", 2)
				after := time.Now().Unix()
				seen := map[string]bool{}
				for i, g := range got {
					w, ok := want[g.TxHash]
					if seen[g.TxHash] || !ok || !keep(w) {
						problems = append(problems, fmt.Sprintf("%s: %s listed (once before: %t, current: %t)", query, g.TxHash, seen[g.TxHash], ok))
						continue
					}
					seen[g.TxHash] = true
					if i > 0 && (got[i-1].StartTimestamp < g.StartTimestamp || (got[i-1].StartTimestamp == g.StartTimestamp && ids.FromStringOrPanic(got[i-1].TxHash).Compare(ids.FromStringOrPanic(g.TxHash)) < 0)) {
						// Ties of start time by tx id, descending.
						problems = append(problems, fmt.Sprintf("%s: not newest first at %d", query, i))
					}
					var owners []string
					for _, o := range w.owners {
						owners = append(owners, bech32Of(t, n, o)...)
					}
					if g.RewardType != w.typ || g.NodeID != w.node || g.AmountStaked != fmt.Sprint(w.weight) || g.StartTimestamp != w.start ||
						g.EndTimestamp != w.end || g.EstimatedReward.Amount != fmt.Sprint(w.reward) || g.EstimatedReward.AssetID != n.AVAXAssetID.String() ||
						strings.Join(g.Addresses, ",") != strings.Join(owners, ",") {
						problems = append(problems, fmt.Sprintf("%s: %+v; node %+v", query, g, w))
					}
					// Progress: the share of the period elapsed, between
					// the request's start and end.
					lo, hi := progressAt(w, before), progressAt(w, after)
					if g.Progress < lo-0.01 || g.Progress > hi+0.01 {
						problems = append(problems, fmt.Sprintf("%s: %s progress %v, not in [%v, %v]", query, g.TxHash, g.Progress, lo, hi))
					}
				}
				for tx, w := range want {
					if keep(w) && !seen[tx] {
						problems = append(problems, fmt.Sprintf("%s: %s (%+v) not listed", query, tx, w))
					}
				}
			}
			check("nodeIds="+strings.Join(nodes, ","), func(nodePending) bool { return true })
			check("nodeIds="+nodes[0], func(p nodePending) bool { return p.node == nodes[0] })
			owner := n.Addr
			check("addresses="+n.Address, func(p nodePending) bool { return slices.Contains(p.owners, owner) })
		}
		for _, p := range problems {
			t.Error(p)
		}
		for _, tc := range []struct{ query, param string }{
			{"", "addresses or nodeIds"},
			{"?addresses=nope", "addresses"},
			{"?nodeIds=NodeID-nope", "nodeIds"},
			{"?addresses=" + n.Address + "&sortOrder=newest", "sortOrder"},
		} {
			status, body, _ := get(t, base+tc.query)
			doc.ValidateResponse(t, "GET", path, status, body)
			if status != 400 || !strings.Contains(string(body), tc.param) {
				t.Errorf("GET %s = %d %s; want 400 naming %s", tc.query, status, body, tc.param)
			}
		}
	})
}

// progressAt is the percent of p's period elapsed at now, to 1/100.
func progressAt(p nodePending, now int64) float64 {
	if p.end <= p.start {
		return 100
	}
	elapsed := math.Min(math.Max(float64(now)-float64(p.start), 0), float64(p.end-p.start))
	return math.Round(elapsed/float64(p.end-p.start)*10000) / 100
}

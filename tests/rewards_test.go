package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// wantReward is a historical reward as the node's blocks and reward UTXOs
// tell it.
type wantReward struct {
	Addresses      []string `json:"addresses"`
	TxHash         string   `json:"txHash"`
	AmountStaked   string   `json:"amountStaked"`
	NodeID         string   `json:"nodeId"`
	StartTimestamp uint64   `json:"startTimestamp"`
	EndTimestamp   uint64   `json:"endTimestamp"`
	RewardType     string   `json:"rewardType"`
	UtxoID         string   `json:"utxoId"`
	OutputIndex    uint32   `json:"outputIndex"`
	Reward         struct {
		AssetID      string `json:"assetId"`
		Name         string `json:"name"`
		Symbol       string `json:"symbol"`
		Denomination int    `json:"denomination"`
		Type         string `json:"type"`
		Amount       string `json:"amount"`
	} `json:"reward"`
	RewardTxHash string `json:"rewardTxHash"`
}

// nodeRewards reads every reward UTXO off the node's P-chain: each
// RewardValidatorTx's staker, its decision, and getRewardUTXOs. A reward's
// type follows from the staker and the decision: a committed staker's own
// reward comes first (VALIDATOR, DELEGATOR), then the delegation fees its
// validator is paid (VALIDATOR_FEE); an aborted validator is paid only its
// fees.
func nodeRewards(t *testing.T, n *testnet.Network) (rewards []wantReward, tip uint64) {
	t.Helper()
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blocks := make([]*pchain.Block, tip+1)
	accepted := map[ids.ID]int64{} // tx id -> time of its block
	for h := uint64(0); h <= tip; h++ {
		raw, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if blocks[h], err = pchain.Decode(h, raw); err != nil {
			t.Fatal(err)
		}
		for _, tx := range blocks[h].Txs {
			accepted[tx.ID] = blocks[h].Timestamp.Unix()
		}
	}
	for h, b := range blocks {
		for _, tx := range b.Txs {
			r, ok := tx.Tx.Unsigned.(*ptxs.RewardValidatorTx)
			if !ok || uint64(h) == tip {
				continue // undecided at the tip: its outcome is not known yet
			}
			committed := blocks[h+1].Committed()
			sb, err := pc.GetTx(ctx, r.TxID)
			if err != nil {
				t.Fatal(err)
			}
			stx, err := ptxs.Parse(ptxs.Codec, sb)
			if err != nil {
				t.Fatal(err)
			}
			st, ok := stx.Unsigned.(ptxs.Staker)
			if !ok {
				t.Fatalf("rewarded tx %s is a %T", r.TxID, stx.Unsigned)
			}
			_, delegator := stx.Unsigned.(*ptxs.AddPermissionlessDelegatorTx)
			if _, ok := stx.Unsigned.(*ptxs.AddDelegatorTx); ok {
				delegator = true
			}
			raws, err := pc.GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: r.TxID})
			if err != nil {
				t.Fatal(err)
			}
			us := make([]*avax.UTXO, len(raws))
			for i, rb := range raws {
				us[i] = &avax.UTXO{}
				if _, err := ptxs.Codec.Unmarshal(rb, us[i]); err != nil {
					t.Fatal(err)
				}
			}
			slices.SortFunc(us, func(a, b *avax.UTXO) int { return int(a.OutputIndex) - int(b.OutputIndex) })
			for i, u := range us {
				w := wantReward{
					Addresses:      bech32Of(t, n, ownersOf(u.Out).Addrs...),
					TxHash:         r.TxID.String(),
					AmountStaked:   strconv.FormatUint(st.Weight(), 10),
					NodeID:         st.NodeID().String(),
					StartTimestamp: uint64(accepted[r.TxID]),
					EndTimestamp:   uint64(st.EndTime().Unix()),
					RewardType:     "VALIDATOR_FEE",
					UtxoID:         u.InputID().String(),
					OutputIndex:    u.OutputIndex,
					RewardTxHash:   tx.ID.String(),
				}
				if i == 0 && committed {
					w.RewardType = "VALIDATOR"
					if delegator {
						w.RewardType = "DELEGATOR"
					}
				}
				w.Reward.AssetID, w.Reward.Name, w.Reward.Symbol = u.AssetID().String(), "Avalanche", "AVAX"
				w.Reward.Denomination, w.Reward.Type = 9, "secp256k1"
				w.Reward.Amount = strconv.FormatUint(u.Out.(avax.TransferableOut).Amount(), 10)
				rewards = append(rewards, w)
			}
		}
	}
	return rewards, tip
}

// sortRewards orders rewards by end time, then UTXO id (bytes), in the
// direction asked.
func sortRewards(rs []wantReward, desc bool) {
	slices.SortFunc(rs, func(a, b wantReward) int {
		c := 0
		switch {
		case a.EndTimestamp < b.EndTimestamp:
			c = -1
		case a.EndTimestamp > b.EndTimestamp:
			c = 1
		default:
			ia, _ := ids.FromString(a.UtxoID)
			ib, _ := ids.FromString(b.UtxoID)
			c = bytes.Compare(ia[:], ib[:])
		}
		if desc {
			return -c
		}
		return c
	})
}

// TestHistoricalRewardsMatchNode compares avaindex's historical rewards
// (GET /v1/networks/{network}/rewards) with the reward UTXOs the node
// reports for every staker it rewarded, by owner and by node, in both
// orders and page sizes, on both stores.
func TestHistoricalRewardsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		key := apiKey(t, dsn)
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		var problems []string
		for attempt := 0; attempt < 3; attempt++ {
			want, tip := nodeRewards(t, n)
			waitAllIndexed(t, n, dsn)
			problems = compareRewards(t, n, doc, base, key, want, issued)
			now, err := platformvm.NewClient(n.URL).GetHeight(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) == 0 || now == tip {
				break
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
		for _, tc := range []struct{ query, param string }{
			{"", "addresses or nodeIds"},
			{"?addresses=nope", "addresses"},
			{"?nodeIds=NodeID-nope", "nodeIds"},
			{"?addresses=" + n.Address + "&sortOrder=newest", "sortOrder"},
			{"?addresses=" + n.Address + "&currency=btc", "currency"},
			{"?addresses=" + n.Address + "&pageSize=101", "pageSize"},
		} {
			status, body, _ := get(t, base+"/v1/networks/testnet/rewards"+tc.query)
			if status != 400 || !strings.Contains(string(body), tc.param) {
				t.Errorf("GET rewards%s = %d %s; want 400 naming %s", tc.query, status, body, tc.param)
			}
			doc.ValidateResponse(t, "GET", "/v1/networks/{network}/rewards", status, body)
		}
	})
}

// rewardsPage fetches every page of the rewards of query.
func rewardsPage(t *testing.T, doc *openapitest.Doc, base, key string, query url.Values, pageSize int) []wantReward {
	t.Helper()
	var out []wantReward
	token := ""
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("the rewards do not end")
		}
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set("pageSize", strconv.Itoa(pageSize))
		if token != "" {
			q.Set("pageToken", token)
		}
		status, body, _ := get(t, base+"/v1/networks/testnet/rewards?"+q.Encode(), "x-glacier-api-key", key)
		if status != 200 {
			t.Fatalf("GET rewards?%s: %d %s", q.Encode(), status, body)
		}
		doc.ValidateResponse(t, "GET", "/v1/networks/{network}/rewards", status, body)
		doc.ValidateSchema(t, "ListHistoricalRewardsResponse", body)
		var page struct {
			NextPageToken     string       `json:"nextPageToken"`
			HistoricalRewards []wantReward `json:"historicalRewards"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.HistoricalRewards...)
		if page.NextPageToken == "" {
			return out
		}
		token = page.NextPageToken
	}
}

func compareRewards(t *testing.T, n *testnet.Network, doc *openapitest.Doc, base, key string, all []wantReward, issued *testnet.Issued) []string {
	var problems []string
	types := map[string]int{}
	byAddr, byNode := map[string][]wantReward{}, map[string][]wantReward{}
	for _, w := range all {
		types[w.RewardType]++
		for _, a := range w.Addresses {
			byAddr[a] = append(byAddr[a], w)
		}
		byNode[w.NodeID] = append(byNode[w.NodeID], w)
	}
	for _, typ := range []string{"VALIDATOR", "DELEGATOR", "VALIDATOR_FEE"} {
		if types[typ] == 0 {
			problems = append(problems, fmt.Sprintf("no %s reward on the node: the comparison would not cover it (%v)", typ, types))
		}
	}
	check := func(what string, q url.Values, want []wantReward) {
		for _, desc := range []bool{true, false} {
			w := slices.Clone(want)
			sortRewards(w, desc)
			qq := url.Values{}
			for k, v := range q {
				qq[k] = v
			}
			if !desc {
				qq.Set("sortOrder", "asc")
			}
			for _, size := range []int{100, 1} {
				got := rewardsPage(t, doc, base, key, qq, size)
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(w)
				if !bytes.Equal(gb, wb) {
					problems = append(problems, fmt.Sprintf("%s, desc %t, pages of %d:\n got  %s\n want %s", what, desc, size, gb, wb))
				}
			}
		}
	}
	for a, want := range byAddr {
		check("rewards of "+a, url.Values{"addresses": {"P-" + a}}, want)
	}
	for node, want := range byNode {
		check("rewards of "+node, url.Values{"nodeIds": {node}}, want)
	}
	// The scenario's validator: by node and owner together, and the
	// delegator's node given twice.
	vNode := issued.Validator.NodeID.String()
	var mine []wantReward
	for _, w := range byNode[vNode] {
		if slices.Contains(w.Addresses, n.Address) {
			mine = append(mine, w)
		}
	}
	if len(mine) < 3 {
		problems = append(problems, fmt.Sprintf("the scenario's validator node has %d rewards of the local key, want its validator's, fee's and delegator's", len(mine)))
	}
	check("rewards of the local key on the scenario's node", url.Values{"addresses": {"X-" + n.Address}, "nodeIds": {vNode + "," + vNode}}, mine)
	check("rewards of nobody", url.Values{"addresses": {bech32Of(t, n, ids.ShortID{1, 2, 3})[0]}}, nil)
	t.Logf("compared %d rewards (%v) of %d owners and %d nodes", len(all), types, len(byAddr), len(byNode))
	return problems
}

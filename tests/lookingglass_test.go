package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	libevm "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// lgTransferTopic is the ERC-20 and ERC-721 Transfer event's topic.
var lgTransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// TestLookingGlassOnLocalNetwork checks the Looking Glass operations over
// the EVM scenario's contracts on the local network's C-chain, on both
// stores, against what the test reads from the node: the ERC-721's
// holders from its Transfer logs, the ERC-20's holders over a range from
// balanceOf at every block of the scenario, their composite (AND, OR),
// and the BTC.b route's 404 without --btcb-bridge. Every body is
// validated against the reference; chainkit's listBTCbBridgersAboveThreshold
// (tests/sdk/lookingglass.test.mjs) gets the same 404.
func TestLookingGlassOnLocalNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n, sc := evmScenario(t)
	s := sc.s
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()

	// The scenario's blocks and their times, from the node.
	times := map[uint64]int64{}
	for h := s.First - 1; h <= s.Last; h++ {
		hd, err := ec.HeaderByNumber(ctx, new(big.Int).SetUint64(h))
		if err != nil {
			t.Fatal(err)
		}
		times[h] = int64(hd.Time)
	}
	from, to := times[s.First+(s.Last-s.First)/2], times[s.Last]
	// states are the blocks whose states make the range [from, to]: the
	// last at or before from, and those after it up to to.
	var states []uint64
	for h := s.First - 1; h <= s.Last; h++ {
		switch {
		case times[h] <= from:
			states = []uint64{h}
		case times[h] <= to:
			states = append(states, h)
		}
	}

	// The ERC-721's holders now and at each state, from its logs.
	logs, err := ec.FilterLogs(ctx, libevm.FilterQuery{FromBlock: new(big.Int).SetUint64(s.First - 1), ToBlock: new(big.Int).SetUint64(s.Last),
		Addresses: []common.Address{s.NFT721.Address, s.Token20.Address}, Topics: [][]common.Hash{{lgTransferTopic}}})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[common.Hash]common.Address{}
	nftHeld := map[uint64]map[common.Address]int{} // after block: tokens held
	tokenHolders := map[common.Address]bool{}
	held := func() map[common.Address]int {
		m := map[common.Address]int{}
		for _, o := range owner {
			if o != (common.Address{}) {
				m[o]++
			}
		}
		return m
	}
	for _, l := range logs {
		if l.Address == s.Token20.Address {
			for _, a := range []common.Address{common.BytesToAddress(l.Topics[1][12:]), common.BytesToAddress(l.Topics[2][12:])} {
				if a != (common.Address{}) {
					tokenHolders[a] = true
				}
			}
			continue
		}
		if len(l.Topics) == 4 {
			owner[l.Topics[3]] = common.BytesToAddress(l.Topics[2][12:])
			nftHeld[l.BlockNumber] = held()
		}
	}
	heldAfter := func(h uint64) map[common.Address]int {
		var m map[common.Address]int
		for b := s.First - 1; b <= h; b++ {
			if nftHeld[b] != nil {
				m = nftHeld[b]
			}
		}
		return m
	}
	nowHeld := held()
	if len(nowHeld) < 2 {
		t.Fatalf("the scenario's ERC-721 has %d holders", len(nowHeld))
	}
	nftAny := map[string]bool{}
	for _, h := range states {
		for a, c := range heldAfter(h) {
			if c > 0 {
				nftAny[a.Hex()] = true
			}
		}
	}

	// The ERC-20's balances at each state, by balanceOf.
	rpc := node.NewEVM(n.URL + "/ext/bc/C/rpc")
	holders := make([]common.Address, 0, len(tokenHolders))
	for a := range tokenHolders {
		holders = append(holders, a)
	}
	maxBal := map[common.Address]*big.Int{}
	var last []*big.Int
	for _, h := range states {
		_, bals, err := rpc.ERC20State(ctx, s.Token20.Address, holders, &h)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range holders {
			if maxBal[a] == nil || bals[i].Cmp(maxBal[a]) > 0 {
				maxBal[a] = bals[i]
			}
		}
		last = bals
	}
	// A threshold some holders reached and some did not.
	var maxes []*big.Int
	for _, v := range maxBal {
		maxes = append(maxes, v)
	}
	slices.SortFunc(maxes, func(x, y *big.Int) int { return x.Cmp(y) })
	threshold := maxes[len(maxes)/2]
	if threshold.Sign() == 0 {
		threshold = big.NewInt(1)
	}
	wantBalances := map[string]string{}
	for i, a := range holders {
		if maxBal[a].Cmp(threshold) >= 0 {
			wantBalances[a.Hex()] = last[i].String()
		}
	}
	if len(wantBalances) == 0 || len(wantBalances) == len(holders) {
		t.Logf("the threshold %s splits no holders: %d of %d", threshold, len(wantBalances), len(holders))
	}

	doc := openapitest.Metrics(t)
	chain := strconv.FormatUint(n.EVMChainID, 10)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		waitEVMIndexed(t, dsn, n.EVMChainID, s.Last)

		// nfts:listHolders, in pages of one.
		type page struct {
			NextPageToken string `json:"nextPageToken"`
			Addresses     []struct {
				Address string `json:"address"`
				SortKey string `json:"sortKey"`
			} `json:"addresses"`
			TotalHolders float64 `json:"totalHolders"`
			TotalTokens  float64 `json:"totalTokens"`
		}
		list := func(path, q string) (map[string]string, page) {
			got := map[string]string{}
			var first page
			next := q
			for i := 0; ; i++ {
				var p page
				metricsJSON(t, doc, base+path+"?"+next, &p)
				if i == 0 {
					first = p
				}
				for _, a := range p.Addresses {
					got[a.Address] = a.SortKey
				}
				if p.NextPageToken == "" || i > 50 {
					return got, first
				}
				next = q + "&pageToken=" + url.QueryEscape(p.NextPageToken)
			}
		}
		got, first := list("/v2/chains/"+chain+"/contracts/"+s.NFT721.Address.Hex()+"/nfts:listHolders", "pageSize=1")
		want := map[string]string{}
		tokens := 0
		for a, c := range nowHeld {
			want[a.Hex()] = strconv.Itoa(c)
			tokens += c
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || first.TotalHolders != float64(len(want)) || first.TotalTokens != float64(tokens) {
			t.Errorf("nfts:listHolders = %v (%v holders, %v tokens), want %v (%d tokens)", got, first.TotalHolders, first.TotalTokens, want, tokens)
		}

		// balances: held at least the threshold at some time of the range.
		got, _ = list("/v2/chains/"+chain+"/contracts/"+s.Token20.Address.Hex()+"/balances",
			fmt.Sprintf("threshold=%s&startTimestamp=%d&endTimestamp=%d&pageSize=2", threshold, from, to))
		if fmt.Sprint(got) != fmt.Sprint(wantBalances) {
			t.Errorf("balances = %v, want %v", got, wantBalances)
		}

		// The composite of both, AND and OR.
		for _, op := range []string{"AND", "OR"} {
			body, _ := json.Marshal(map[string]any{"operator": op, "pageSize": 1, "queries": []any{
				map[string]any{"id": "nft", "type": "AnyTimeNftHolders", "params": map[string]any{"evmChainId": chain,
					"contractAddress": s.NFT721.Address.Hex(), "startTs": from, "endTs": to}},
				map[string]any{"id": "erc20", "type": "AnyTimeErc20Balance", "params": map[string]any{"evmChainId": chain,
					"contractAddress": s.Token20.Address.Hex(), "minBalance": threshold.String(),
					"firstDate": time.Unix(from, 0).UTC().Format(time.RFC3339), "lastDate": time.Unix(to, 0).UTC().Format(time.RFC3339)}},
			}})
			var wantAddrs []string
			for a := range nftAny {
				if _, ok := wantBalances[a]; ok || op == "OR" {
					wantAddrs = append(wantAddrs, a)
				}
			}
			for a := range wantBalances {
				if op == "OR" && !nftAny[a] {
					wantAddrs = append(wantAddrs, a)
				}
			}
			slices.SortFunc(wantAddrs, func(x, y string) int {
				return bytes.Compare(common.HexToAddress(x).Bytes(), common.HexToAddress(y).Bytes())
			})
			var addrs []string
			token := ""
			for i := 0; i < 50; i++ {
				var req map[string]any
				_ = json.Unmarshal(body, &req)
				if token != "" {
					req["pageToken"] = token
				}
				b, _ := json.Marshal(req)
				status, out := post(t, base+"/v2/lookingGlass/compositeQuery", string(b))
				doc.ValidateResponse(t, "POST", "/v2/lookingGlass/compositeQuery", status, out)
				var res struct {
					NextPageToken  string             `json:"nextPageToken"`
					SubQueryCounts map[string]float64 `json:"subQueryCounts"`
					TotalCount     float64            `json:"totalCount"`
					Addresses      []string           `json:"addresses"`
				}
				if status != http.StatusOK || json.Unmarshal(out, &res) != nil {
					t.Fatalf("compositeQuery %s: %d %s", op, status, out)
				}
				if res.TotalCount != float64(len(wantAddrs)) || res.SubQueryCounts["nft"] != float64(len(nftAny)) ||
					res.SubQueryCounts["erc20"] != float64(len(wantBalances)) {
					t.Errorf("compositeQuery %s: %s, want %d addresses, %d and %d", op, out, len(wantAddrs), len(nftAny), len(wantBalances))
				}
				addrs = append(addrs, res.Addresses...)
				if token = res.NextPageToken; token == "" {
					break
				}
			}
			if !slices.Equal(addrs, wantAddrs) {
				t.Errorf("compositeQuery %s = %v, want %v", op, addrs, wantAddrs)
			}
		}

		// BTC.b without --btcb-bridge: a 404 saying so.
		status, out, _ := get(t, base+"/v2/chains/43114/btcb/bridged:getAddresses?threshold=1")
		doc.ValidateResponse(t, "GET", "/v2/chains/43114/btcb/bridged:getAddresses", status, out)
		if status != http.StatusNotFound || !strings.Contains(string(out), "--btcb-bridge") {
			t.Errorf("btcb without a bridge: %d %s", status, out)
		}
		// chainkit (0.3.13 has no call for the other Looking Glass
		// operations), once: last, as it skips without Node.js.
		if strings.HasPrefix(dsn, "sqlite") {
			installSDK(t)
			runSDK(t, ctx, base, writeFacts(t, map[string]any{"network": "testnet", "lookingGlass": map[string]any{"btcbChainId": "43114"}}), "lookingglass.test.mjs")
		}
	})
}

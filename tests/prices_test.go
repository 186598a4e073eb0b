package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/pricetest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// pricedTokenTx is a token the test deployed on the C-chain whose
// constructor minted tokenMint to the local key: a deployment tx with an
// ERC-20 transfer.
type pricedTokenTx struct {
	Address common.Address
	TxHash  common.Hash
	Block   uint64
	Time    time.Time
}

var pricedToken struct {
	once sync.Once
	tok  pricedTokenTx
	err  error
}

// tokenMint is what the priced token's constructor mints.
var tokenMint = new(big.Int).Mul(big.NewInt(1234), big.NewInt(1e18))

// deployPricedToken deploys the priced token, once per process.
func deployPricedToken(t *testing.T, n *testnet.Network) pricedTokenTx {
	t.Helper()
	pricedToken.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := n.SendEVMTx(ctx, nil, nil, evmcode.MintInit(n.EthAddr, tokenMint, evmcode.Emitter), 300_000)
		if err != nil {
			pricedToken.err = err
			return
		}
		ec, err := n.EthClient(ctx)
		if err != nil {
			pricedToken.err = err
			return
		}
		hdr, err := ec.HeaderByNumber(ctx, r.BlockNumber)
		if err != nil {
			pricedToken.err = err
			return
		}
		if len(r.Logs) != 1 {
			pricedToken.err = fmt.Errorf("the token's deployment logged %d logs", len(r.Logs))
			return
		}
		pricedToken.tok = pricedTokenTx{Address: r.ContractAddress, TxHash: r.TxHash, Block: r.BlockNumber.Uint64(),
			Time: time.Unix(int64(hdr.Time), 0).UTC()}
	})
	if pricedToken.err != nil {
		t.Fatalf("deploying the priced token: %v", pricedToken.err)
	}
	return pricedToken.tok
}

// The feed's prices: AVAX's and the token's current ones, and AVAX's daily
// ones, a different one each day (dailyAVAX).
var (
	currentAVAX  = map[string]float64{"usd": 21.5, "eur": 19.75}
	currentToken = map[string]float64{"usd": 2.5, "eur": 2.25}
	tokenCoin    = "avaindex-test-token"
)

// dailyAVAX is AVAX's price on day in the feed.
func dailyAVAX(day time.Time, currency string) float64 {
	d := day.UTC()
	v := 30 + float64(d.YearDay())/8
	if currency == "eur" {
		v = 27 + float64(d.YearDay())/16
	}
	return v
}

// newPriceFeed starts the loopback feed with those prices, the daily ones
// for the days around now.
func newPriceFeed(t *testing.T) *pricetest.Feed {
	f := pricetest.New(t)
	f.Current["avalanche-2"] = currentAVAX
	f.Current[tokenCoin] = currentToken
	f.History["avalanche-2"] = map[string]map[string]float64{}
	for d := -10; d <= 1; d++ {
		day := time.Now().UTC().AddDate(0, 0, d)
		f.History["avalanche-2"][day.Format("02-01-2006")] = map[string]float64{"usd": dailyAVAX(day, "usd"), "eur": dailyAVAX(day, "eur")}
	}
	return f
}

// priceFlags serve prices from f, the token mapped to its coin, every tx
// and reward old enough for its historical price.
func priceFlags(f *pricetest.Feed, n *testnet.Network, tok pricedTokenTx) []string {
	return []string{"--price-api-url", f.URL, "--price-api-key", "test-key",
		"--price-coin", strconv.FormatUint(n.EVMChainID, 10) + ":" + tok.Address.Hex() + "=" + tokenCoin,
		"--historical-price-min-age", "0s", "--price-rate-limit", "6000"}
}

// near tells whether got is want up to float64 rounding.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// wholeValue is amount of an 18-decimal token at price.
func wholeValue(amount *big.Int, price float64) float64 {
	whole, _ := new(big.Float).Quo(new(big.Float).SetInt(amount), big.NewFloat(1e18)).Float64()
	return whole * price
}

type money struct {
	CurrencyCode string  `json:"currencyCode"`
	Value        float64 `json:"value"`
}

// TestPrices serves prices from a loopback CoinGecko-compatible feed, on
// both stores, in two currencies: the native balance's price and value
// (A6), a deployment tx's current and historical AVAX price and its ERC-20
// token's price (A7), and the rewards' historical prices (A19), each as
// the feed tells for the day of the tx or reward; then, with no feed
// configured, every price field is absent (not null).
func TestPrices(t *testing.T) {
	n, issued := issuedNetwork(t)
	tok := deployPricedToken(t, n)
	doc := openapitest.Default(t)
	ctx := context.Background()
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	balance, err := ec.BalanceAt(ctx, n.EthAddr, new(big.Int).SetUint64(tok.Block))
	if err != nil {
		t.Fatal(err)
	}
	nodeID := issued.Validator.NodeID.String()
	all, _ := nodeRewards(t, n)
	var rewards []wantReward
	for _, r := range all {
		if r.NodeID == nodeID {
			rewards = append(rewards, r)
		}
	}
	if len(rewards) == 0 {
		t.Fatal("the validator node was paid no reward")
	}
	chain := "/v1/chains/" + strconv.FormatUint(n.EVMChainID, 10)
	balanceURL := chain + "/addresses/" + n.EthAddr.Hex() + "/balances:getNative?blockNumber=" + strconv.FormatUint(tok.Block, 10)
	deploymentURL := chain + "/contracts/" + tok.Address.Hex() + "/transactions:getDeployment"
	rewardsURL := "/v1/networks/testnet/rewards?pageSize=100&nodeIds=" + url.QueryEscape(nodeID)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		feed := newPriceFeed(t)
		base := startService(t, n.URL, dsn, append([]string{"--network-alias", "testnet"}, priceFlags(feed, n, tok)...)...)
		waitAllIndexed(t, n, dsn)
		waitEVMIndexed(t, dsn, n.EVMChainID, tok.Block)
		fetch := func(path, pattern string, dst any) {
			t.Helper()
			status, body, _ := get(t, base+path)
			if status != 200 {
				t.Fatalf("GET %s: %d %s", path, status, body)
			}
			doc.ValidateResponse(t, "GET", pattern, status, body)
			if err := json.Unmarshal(body, dst); err != nil {
				t.Fatal(err)
			}
		}
		for _, cur := range []string{"usd", "eur"} {
			var b struct {
				NativeTokenBalance struct {
					Balance      string `json:"balance"`
					Price        *money `json:"price"`
					BalanceValue *money `json:"balanceValue"`
				} `json:"nativeTokenBalance"`
			}
			fetch(balanceURL+"&currency="+cur, "/v1/chains/{chainId}/addresses/{address}/balances:getNative", &b)
			nb := b.NativeTokenBalance
			if nb.Balance != balance.String() || nb.Price == nil || *nb.Price != (money{cur, currentAVAX[cur]}) ||
				nb.BalanceValue == nil || nb.BalanceValue.CurrencyCode != cur || !near(nb.BalanceValue.Value, wholeValue(balance, currentAVAX[cur])) {
				t.Errorf("%s: native balance %+v (price %+v, value %+v); want %s at %v", cur, nb, nb.Price, nb.BalanceValue, balance, currentAVAX[cur])
			}

			var d struct {
				NetworkTokenDetails struct {
					CurrentPrice    *money `json:"currentPrice"`
					HistoricalPrice *money `json:"historicalPrice"`
				} `json:"networkTokenDetails"`
				NativeTransaction struct {
					TxHash string `json:"txHash"`
				} `json:"nativeTransaction"`
				Erc20Transfers []struct {
					Value      string `json:"value"`
					Erc20Token struct {
						Address string `json:"address"`
						Price   *money `json:"price"`
					} `json:"erc20Token"`
				} `json:"erc20Transfers"`
			}
			fetch(deploymentURL+"?currency="+cur, "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", &d)
			nt := d.NetworkTokenDetails
			if d.NativeTransaction.TxHash != tok.TxHash.Hex() || nt.CurrentPrice == nil || *nt.CurrentPrice != (money{cur, currentAVAX[cur]}) ||
				nt.HistoricalPrice == nil || *nt.HistoricalPrice != (money{cur, dailyAVAX(tok.Time, cur)}) {
				t.Errorf("%s: deployment %s: current %+v, historical %+v; want %v and %v (%s)", cur, d.NativeTransaction.TxHash,
					nt.CurrentPrice, nt.HistoricalPrice, currentAVAX[cur], dailyAVAX(tok.Time, cur), tok.Time)
			}
			if len(d.Erc20Transfers) != 1 || d.Erc20Transfers[0].Value != tokenMint.String() || d.Erc20Transfers[0].Erc20Token.Address != tok.Address.Hex() ||
				d.Erc20Transfers[0].Erc20Token.Price == nil || *d.Erc20Transfers[0].Erc20Token.Price != (money{cur, currentToken[cur]}) {
				t.Errorf("%s: the deployment's ERC-20 transfers %+v", cur, d.Erc20Transfers)
			}

			var rs struct {
				HistoricalRewards []struct {
					UtxoID       string `json:"utxoId"`
					EndTimestamp int64  `json:"endTimestamp"`
					Reward       struct {
						HistoricalPrice *money `json:"historicalPrice"`
					} `json:"reward"`
				} `json:"historicalRewards"`
			}
			fetch(rewardsURL+"&currency="+cur, "/v1/networks/{network}/rewards", &rs)
			if len(rs.HistoricalRewards) != len(rewards) {
				t.Errorf("%s: %d rewards, the node tells %d", cur, len(rs.HistoricalRewards), len(rewards))
			}
			for _, w := range rewards {
				found := false
				for _, r := range rs.HistoricalRewards {
					if r.UtxoID != w.UtxoID {
						continue
					}
					found = true
					want := money{cur, dailyAVAX(time.Unix(int64(w.EndTimestamp), 0), cur)}
					if p := r.Reward.HistoricalPrice; p == nil || *p != want {
						t.Errorf("%s: reward %s (ended %d): historicalPrice %+v, want %+v", cur, w.UtxoID, w.EndTimestamp, p, want)
					}
				}
				if !found {
					t.Errorf("reward %s is not served", w.UtxoID)
				}
			}
		}
		// Each answer was asked of the feed once, with the key: the two
		// currencies came from one request.
		feed.Lock()
		seen := map[string]int{}
		for _, r := range feed.Requests {
			seen[r]++
			if seen[r] > 1 {
				t.Errorf("the feed was asked %s %d times", r, seen[r])
			}
		}
		if len(feed.Requests) == 0 || len(feed.Keys) != len(feed.Requests) || feed.Keys[0] != "x-cg-demo-api-key: test-key" {
			t.Errorf("keys sent %v for %d requests", feed.Keys, len(feed.Requests))
		}
		feed.Unlock()
	})

	// Without a feed, no price field is in the answers, not even null;
	// nor with a feed that fails, whose failure fails no request.
	failing := newPriceFeed(t)
	failing.Status = 503
	for name, flags := range map[string][]string{"offline": nil, "failing feed": priceFlags(failing, n, tok)} {
		t.Run(name, func(t *testing.T) {
			checkNoPrices(t, n, tok, doc, flags, balanceURL, deploymentURL, rewardsURL, balance)
		})
	}
	if failing.Count() == 0 {
		t.Error("the failing feed was never asked")
	}
}

// checkNoPrices checks that avaindex with flags answers no price field.
func checkNoPrices(t *testing.T, n *testnet.Network, tok pricedTokenTx, doc *openapitest.Doc, flags []string, balanceURL, deploymentURL, rewardsURL string, balance *big.Int) {
	dsn := dbtest.SQLite(t)
	base := startService(t, n.URL, dsn, append([]string{"--network-alias", "testnet"}, flags...)...)
	waitAllIndexed(t, n, dsn)
	waitEVMIndexed(t, dsn, n.EVMChainID, tok.Block)
	for _, tc := range []struct{ path, pattern, holder string }{
		{balanceURL + "&currency=eur", "/v1/chains/{chainId}/addresses/{address}/balances:getNative", `"balance":"` + balance.String()},
		{deploymentURL + "?currency=eur", "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", `"erc20Token":{`},
		{rewardsURL + "&currency=eur", "/v1/networks/{network}/rewards", `"reward":{`},
	} {
		status, body, _ := get(t, base+tc.path)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", tc.path, status, body)
		}
		doc.ValidateResponse(t, "GET", tc.pattern, status, body)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		if keys := priceKeys(v, ""); len(keys) != 0 {
			t.Errorf("GET %s has price fields %v", tc.path, keys)
		}
		// What carries a price with a feed is there, without it.
		if !strings.Contains(string(body), tc.holder) {
			t.Errorf("GET %s has no %s: %s", tc.path, tc.holder, body)
		}
	}
}

// priceKeys returns the paths of v's members named as the price fields.
func priceKeys(v any, at string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "price", "balanceValue", "currentPrice", "historicalPrice":
				out = append(out, at+"."+k)
			}
			out = append(out, priceKeys(e, at+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, priceKeys(e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	return out
}

package api

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// spamLists deny and allow one token each.
type spamLists struct{ deny, allow common.Address }

func (s spamLists) Allowed(_ uint64, t common.Address) bool { return t == s.allow }
func (s spamLists) Denied(_ uint64, t common.Address) bool  { return t == s.deny }

func newERC20TestAPI(t *testing.T, dsn string, prices PriceSource, spam SpamLists) http.Handler {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.ApplyEVMBlocks(ctx, evmTestChain, evmTestBlocks(), evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
	a, err := New(Deps{Store: st, EVM: st, Health: st, Chains: evmTestChains(), Catalog: testCatalog(t), Network: testNet,
		Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32), Prices: prices, Spam: spam})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return mux
}

// TestERC20BalancesEndpoint checks listErc20Balances over evmTestBlocks:
// token20 minted 1000 to alice at block 1, alice sent bob 10 at block 3.
func TestERC20BalancesEndpoint(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newERC20TestAPI(t, dsn, nil, nil)
		base := "/v1/chains/99999/addresses/"
		balances := func(target string) []string {
			t.Helper()
			var r ListErc20BalancesResponse
			getOK(t, h, target, &r)
			var out []string
			for _, b := range r.Erc20TokenBalances {
				out = append(out, b.Address+" "+b.Balance)
			}
			return out
		}
		tok := token20.Hex()
		for target, want := range map[string][]string{
			base + alice.Hex() + "/balances:listErc20":                                            {tok + " 990"},
			base + alice.Hex() + "/balances:listErc20?blockNumber=2":                              {tok + " 1000"},
			base + alice.Hex() + "/balances:listErc20?blockNumber=0":                              nil,
			base + bob.Hex() + "/balances:listErc20?blockNumber=3":                                {tok + " 10"},
			base + bob.Hex() + "/balances:listErc20?blockNumber=2":                                nil,
			base + alice.Hex() + "/balances:listErc20?contractAddresses=" + bob.Hex():             nil,
			base + alice.Hex() + "/balances:listErc20?contractAddresses=" + bob.Hex() + "," + tok: {tok + " 990"},
		} {
			jsonEqual(t, target, balances(target), want)
		}
		var r ListErc20BalancesResponse
		getOK(t, h, base+alice.Hex()+"/balances:listErc20?blockNumber=1", &r)
		jsonEqual(t, "alice's balances at 1", r, ListErc20BalancesResponse{
			NativeTokenBalance: NativeTokenBalance{Name: "Test", Symbol: "TST", Decimals: 18, LogoURI: "https://example.org/tst.png",
				ChainID: "99999", Balance: "9000000000000000000"},
			Erc20TokenBalances: []Erc20TokenBalance{{Erc20Token: Erc20Token{Address: tok, Name: "Curated Token", Symbol: "CUR",
				Decimals: 18, LogoURI: "https://example.org/cur.png", ERCType: "ERC-20"}, ChainID: "99999", Balance: "1000", TokenReputation: "Benign"}},
		})
		getError(t, h, base+alice.Hex()+"/balances:listErc20?blockNumber=5", 404, "blockNumber 5 is not indexed yet")
		getError(t, h, base+alice.Hex()+"/balances:listErc20?contractAddresses=0x12", 400, "contractAddresses")
		getError(t, h, base+alice.Hex()+"/balances:listErc20?contractAddresses=,", 400, "contractAddresses")
		getError(t, h, base+alice.Hex()+"/balances:listErc20?filterSpamTokens=yes", 400, "filterSpamTokens")
		getError(t, h, base+alice.Hex()+"/balances:listErc20?pageSize=501", 400, "pageSize")
		getError(t, h, base+alice.Hex()+"/balances:listErc20?pageToken=abc", 400, "pageToken")
		getError(t, h, "/v1/chains/7/addresses/"+alice.Hex()+"/balances:listErc20", 404, "no block of chain 7 is indexed")

		// Priced: the token's price and the balance's value.
		h = newERC20TestAPI(t, dbtest.SQLite(t), &knownPrices{}, nil)
		getOK(t, h, base+alice.Hex()+"/balances:listErc20?currency=eur", &r)
		b := r.Erc20TokenBalances[0]
		if b.Price == nil || b.Price.Value != 2.5 || b.BalanceValue == nil || b.BalanceValue.Value != 990*2.5/1e18 ||
			r.NativeTokenBalance.BalanceValue == nil || r.NativeTokenBalance.BalanceValue.Value != 20 {
			t.Errorf("priced: %+v %+v", b, r.NativeTokenBalance)
		}

		// The deny list beats the curated catalog; the reputation says so.
		h = newERC20TestAPI(t, dbtest.SQLite(t), nil, spamLists{deny: token20})
		jsonEqual(t, "denied token filtered", balances(base+alice.Hex()+"/balances:listErc20"), []string(nil))
		getOK(t, h, base+alice.Hex()+"/balances:listErc20?filterSpamTokens=false", &r)
		if len(r.Erc20TokenBalances) != 1 || r.Erc20TokenBalances[0].TokenReputation != "Malicious" {
			t.Errorf("denied token unfiltered: %+v", r.Erc20TokenBalances)
		}
	})
}

// TestSpamHeuristics checks isSpam's rule on described tokens.
func TestSpamHeuristics(t *testing.T) {
	eighteen := 18
	for _, c := range []struct {
		name, symbol string
		decimals     *int
		want         bool
	}{
		{"Wrapped AVAX", "WAVAX", &eighteen, false},
		{"", "TOK", &eighteen, true},
		{"Token", "", &eighteen, true},
		{"Token", "TOK", nil, true},
		{"Visit avax-gift.xyz to claim", "GIFT", &eighteen, true},
		{"Reward Token", "RWD", &eighteen, true},
		{"Token\x07", "TOK", &eighteen, true},
	} {
		if got := spamText(c.name, c.symbol, c.decimals); got != c.want {
			t.Errorf("%q %q %v: spam %t, want %t", c.name, c.symbol, c.decimals, got, c.want)
		}
	}
}

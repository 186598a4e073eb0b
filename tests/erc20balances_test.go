package tests

import (
	"context"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// erc20Run is what runERC20Tokens did on the local network's C-chain,
// after the EVM scenarios: three more tokens, one whose Transfer logs do
// not explain its balances (TestFeeToken20, a 10% unlogged fee), one
// named as spam, one with 6 decimals, held by Carol and Dave (new to
// each run) and the key.
type erc20Run struct {
	fee, spam, second common.Address
	carol, dave       common.Address
	first, last       uint64
}

var erc20RunOnce struct {
	once sync.Once
	run  erc20Run
	err  error
}

func runERC20Tokens(t *testing.T, n *testnet.Network) *erc20Run {
	t.Helper()
	o := &erc20RunOnce
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		r := &o.run
		send := func(to *common.Address, data []byte) (common.Address, uint64) {
			if o.err != nil {
				return common.Address{}, 0
			}
			rc, err := n.SendEVMTx(ctx, to, nil, data, 0)
			if err != nil {
				o.err = err
				return common.Address{}, 0
			}
			if rc.Status != 1 {
				o.err = errFailed(rc.TxHash.Hex())
			}
			if r.first == 0 {
				r.first = rc.BlockNumber.Uint64()
			}
			r.last = rc.BlockNumber.Uint64()
			return rc.ContractAddress, rc.BlockNumber.Uint64()
		}
		r.fee, _ = send(nil, contracts.FeeToken20.Deploy("Avaindex Fee Token", "AFT", uint8(18), uint8(10)))
		r.carol = common.BytesToAddress(crypto.Keccak256([]byte("carol"), r.fee[:]))
		r.dave = common.BytesToAddress(crypto.Keccak256([]byte("dave"), r.fee[:]))
		r.spam, _ = send(nil, contracts.Token20.Deploy("Claim your airdrop at avaindex-rewards.xyz", "VISIT", uint8(18)))
		r.second, _ = send(nil, contracts.Token20.Deploy("Avaindex Second Token", "AST", uint8(6)))
		me := n.EthAddr
		for _, c := range []struct {
			to   common.Address
			data []byte
		}{
			{r.fee, contracts.MintERC20(me, big.NewInt(1_000_000))},
			{r.fee, contracts.TransferERC20(r.carol, big.NewInt(1000))},
			{r.spam, contracts.MintERC20(r.carol, big.NewInt(5))},
			{r.second, contracts.MintERC20(me, big.NewInt(500))},
			{r.fee, contracts.TransferERC20(r.dave, big.NewInt(300))},
			{r.second, contracts.TransferERC20(r.carol, big.NewInt(40))},
			{r.second, contracts.TransferERC20(r.dave, big.NewInt(460))},
		} {
			send(&c.to, c.data)
		}
	})
	if o.err != nil {
		t.Fatalf("the ERC-20 tokens' txs: %v", o.err)
	}
	return &o.run
}

type errFailed string

func (e errFailed) Error() string { return "tx " + string(e) + " reverted" }

// TestERC20BalancesMatchNode runs the EVM scenarios and three more tokens
// (runERC20Tokens) and checks listErc20Balances on both stores: for every
// test token and every holder, at every block since the scenarios began,
// the listed balance equals the node's balanceOf at that block (the fee
// token's included, which the index answers from balanceOf once it has
// found that its logs do not explain it); the spam token is filtered
// unless filterSpamTokens=false; pages of one give the same list; bad
// parameters are 4xx. Every body is validated against the reference.
func TestERC20BalancesMatchNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n, sc := evmScenario(t)
	r := runERC20Tokens(t, n)
	doc := openapitest.Default(t)
	s := sc.s
	tokens := []common.Address{s.Token20.Address, r.fee, r.spam, r.second}
	holders := []common.Address{n.EthAddr, s.Alice, s.Bob, r.carol, r.dave}
	rpc := node.NewEVM(n.URL + "/ext/bc/C/rpc")
	// The node's balanceOf of every holder, by token, block.
	nodeBal := map[common.Address]map[uint64][]*big.Int{}
	for _, tok := range tokens {
		nodeBal[tok] = map[uint64][]*big.Int{}
		for h := s.First - 1; h <= r.last; h++ {
			_, bals, err := rpc.ERC20State(t.Context(), tok, holders, &h)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range bals {
				if b == nil {
					bals[i] = new(big.Int) // not deployed yet
				}
			}
			nodeBal[tok][h] = bals
		}
	}
	// The expectations can fail: the fee token's logs say Dave got 300,
	// the node 270.
	if got := nodeBal[r.fee][r.last][4]; got.Int64() != 270 {
		t.Fatalf("Dave's fee-token balance at the node = %s, want 270", got)
	}
	chainID := strconv.FormatUint(n.EVMChainID, 10)
	contractsParam := make([]string, len(tokens))
	for i, tok := range tokens {
		contractsParam[i] = tok.Hex()
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitEVMIndexed(t, dsn, n.EVMChainID, r.last)
		waitERC20Flagged(t, dsn, n.EVMChainID, r.fee)
		getJSON := apiGetter(t, base, doc)
		list := func(holder common.Address, q url.Values) []api.Erc20TokenBalance {
			t.Helper()
			var out []api.Erc20TokenBalance
			for range 50 {
				var page api.ListErc20BalancesResponse
				getJSON("/v1/chains/"+chainID+"/addresses/"+holder.Hex()+"/balances:listErc20", q, &page)
				out = append(out, page.Erc20TokenBalances...)
				if page.NextPageToken == "" {
					return out
				}
				q.Set("pageToken", page.NextPageToken)
			}
			t.Fatal("more than 50 pages")
			return nil
		}
		for h := s.First - 1; h <= r.last; h++ {
			for hi, holder := range holders {
				got := map[common.Address]string{}
				for _, b := range list(holder, url.Values{"blockNumber": {strconv.FormatUint(h, 10)},
					"contractAddresses": {strings.Join(contractsParam, ",")}, "filterSpamTokens": {"false"}, "pageSize": {"2"}}) {
					if b.ChainID != chainID || b.ERCType != "ERC-20" || (b.TokenReputation == "Malicious") != (b.Address == r.spam.Hex()) {
						t.Errorf("block %d, %s: %+v", h, holder, b)
					}
					got[common.HexToAddress(b.Address)] = b.Balance
				}
				for _, tok := range tokens {
					want := nodeBal[tok][h][hi].String()
					if want == "0" {
						want = "" // zero balances are not listed
					}
					if got[tok] != want {
						t.Errorf("block %d: %s's balance of %s = %q, the node's balanceOf %q", h, holder, tok, got[tok], want)
					}
				}
			}
		}
		// Carol at the latest block: metadata, the spam filter by default.
		bs := list(r.carol, url.Values{})
		var syms []string
		for _, b := range bs {
			syms = append(syms, b.Symbol+" "+b.Balance+" "+strconv.Itoa(b.Decimals)+" "+b.Name)
		}
		slices.Sort(syms)
		if want := []string{"AFT 900 18 Avaindex Fee Token", "AST 40 6 Avaindex Second Token"}; !slices.Equal(syms, want) {
			t.Errorf("Carol's latest balances: %q, want %q", syms, want)
		}
		all := list(r.carol, url.Values{"filterSpamTokens": {"false"}, "pageSize": {"1"}})
		if len(all) != 3 || !slices.ContainsFunc(all, func(b api.Erc20TokenBalance) bool { return b.Address == r.spam.Hex() && b.Balance == "5" }) {
			t.Errorf("Carol's balances with spam: %+v", all)
		}
		var page api.ListErc20BalancesResponse
		getJSON("/v1/chains/"+chainID+"/addresses/"+r.carol.Hex()+"/balances:listErc20", nil, &page)
		if page.NativeTokenBalance.Symbol != "AVAX" || page.NativeTokenBalance.ChainID != chainID {
			t.Errorf("nativeTokenBalance: %+v", page.NativeTokenBalance)
		}
		for q, want := range map[string]int{
			"contractAddresses=0x12":      http.StatusBadRequest,
			"blockNumber=x":               http.StatusBadRequest,
			"filterSpamTokens=maybe":      http.StatusBadRequest,
			"pageSize=501":                http.StatusBadRequest,
			"currency=xyz":                http.StatusBadRequest,
			"blockNumber=999999999999999": http.StatusNotFound,
		} {
			status, body, _ := get(t, base+"/v1/chains/"+chainID+"/addresses/"+r.carol.Hex()+"/balances:listErc20?"+q)
			if status != want {
				t.Errorf("?%s: %d %s, want %d", q, status, body, want)
			}
		}
	})
}

// waitERC20Flagged waits until the store at dsn has found that token's
// logs do not explain its balances.
func waitERC20Flagged(t *testing.T, dsn string, chainID uint64, token common.Address) {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		toks, err := st.EVMERC20Tokens(context.Background(), chainID, []common.Address{token})
		if err != nil {
			t.Fatal(err)
		}
		if toks[token].Unexplained {
			t.Logf("token %s flagged: %s", token, toks[token].Reason)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("token %s was not found unexplained within a minute (%+v)", token, toks[token])
		}
	}
}

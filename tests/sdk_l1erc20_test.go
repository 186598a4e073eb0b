package tests

import (
	"context"
	"strconv"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/node"
)

// sdkL1ERC20Facts is what tests/sdk/l1.test.mjs checks listErc20Balances
// on the L1 against: the L1 scenarios' two tokens, as deployed, and the
// L1 node's balanceOf of their holders.
type sdkL1ERC20Facts struct {
	Tokens []sdkL1ERC20Token `json:"tokens"`
	// Fresh are holders new to this run (the scenarios' Alices and Bob),
	// who hold no other token on the L1: listed without
	// contractAddresses, they show exactly their Checks' last balances.
	Fresh  []string        `json:"fresh"`
	Checks []sdkERC20Check `json:"checks"`
	// Only are checks with contractAddresses naming one token.
	Only []sdkL1ERC20Only `json:"only"`
}

type sdkL1ERC20Token struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

type sdkL1ERC20Only struct {
	sdkERC20Check
	Token string `json:"token"`
}

// readSDKL1ERC20Facts asks the L1's node the balanceOf of both L1 tokens
// (RunL1's and the contracts scenario's) for the local key, the two
// Alices and Bob, at every block from the one before RunL1 to the
// contracts scenario's last ERC-20 tx, and at the head (recorded as the
// last block: nothing else moves these tokens).
func readSDKL1ERC20Facts(ctx context.Context, t *testing.T, r *l1Run) *sdkL1ERC20Facts {
	t.Helper()
	s := r.nfts
	f := &sdkL1ERC20Facts{Tokens: []sdkL1ERC20Token{
		// RunL1 deploys its token as "L1 Token", "L1T", 18 decimals.
		{Address: r.sc.Token.Hex(), Name: "L1 Token", Symbol: "L1T", Decimals: 18},
		{Address: s.Token20.Address.Hex(), Name: s.Token20.Name, Symbol: s.Token20.Symbol, Decimals: int(s.Token20.Decimals)},
	}}
	tokens := []common.Address{r.sc.Token, s.Token20.Address}
	holders := []common.Address{r.l.Net.EthAddr, r.sc.Alice, s.Alice, s.Bob}
	for _, h := range holders[1:] {
		f.Fresh = append(f.Fresh, h.Hex())
	}
	rpc := node.NewEVM(r.l.RPCURL())
	// balances are the node's non-zero balanceOf of h at block at.
	balances := func(h common.Address, at uint64, of []common.Address) map[string]string {
		out := map[string]string{}
		for _, tok := range of {
			_, bals, err := rpc.ERC20State(ctx, tok, []common.Address{h}, &at)
			if err != nil {
				t.Fatal(err)
			}
			if bals[0] != nil && bals[0].Sign() != 0 {
				out[tok.Hex()] = bals[0].String()
			}
		}
		return out
	}
	last := s.Receipts["transferFrom erc20"].BlockNumber.Uint64()
	for at := r.sc.First - 1; at <= last; at++ {
		for _, h := range holders {
			f.Checks = append(f.Checks, sdkERC20Check{Holder: h.Hex(), BlockNumber: strconv.FormatUint(at, 10), Balances: balances(h, at, tokens)})
		}
	}
	for _, h := range holders {
		f.Checks = append(f.Checks, sdkERC20Check{Holder: h.Hex(), Balances: balances(h, r.head, tokens)})
	}
	// The local key holds both: naming one lists that one alone, at the
	// head and at the block of the contracts scenario's mint to it.
	me := r.l.Net.EthAddr
	mid := s.Receipts["mint erc20"].BlockNumber.Uint64()
	for _, tok := range tokens {
		for _, at := range []uint64{mid, r.head} {
			c := sdkERC20Check{Holder: me.Hex(), Balances: balances(me, at, []common.Address{tok})}
			if at != r.head {
				c.BlockNumber = strconv.FormatUint(at, 10)
			}
			if len(c.Balances) != 1 {
				t.Fatalf("the local key holds no %s at %d: the check would prove nothing", tok.Hex(), at)
			}
			f.Only = append(f.Only, sdkL1ERC20Only{sdkERC20Check: c, Token: tok.Hex()})
		}
	}
	return f
}

package tests

import (
	"context"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// sdkERC20Facts is what tests/sdk/erc20balances.test.mjs checks the SDK's
// answers against: the node's balanceOf.
type sdkERC20Facts struct {
	Network string `json:"network"`
	ERC20   struct {
		ChainID string   `json:"chainId"`
		Tokens  []string `json:"tokens"`
		// The fee, spam and 6-decimal tokens, and Carol, who holds them.
		Fee    string          `json:"fee"`
		Spam   string          `json:"spam"`
		Second string          `json:"second"`
		Carol  string          `json:"carol"`
		Checks []sdkERC20Check `json:"checks"`
	} `json:"erc20"`
}

type sdkERC20Check struct {
	Holder      string `json:"holder"`
	BlockNumber string `json:"blockNumber"` // "" for the last block
	// Balances are the node's non-zero balanceOf, by token address.
	Balances map[string]string `json:"balances"`
}

// TestSDKERC20Balances runs the real @avalanche-sdk/chainkit client's
// address.balances.listErc20 against avaindex indexing the local network
// after runERC20Tokens, and compares it with the node's balanceOf.
func TestSDKERC20Balances(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	n, sc := evmScenario(t)
	r := runERC20Tokens(t, n)
	var facts sdkERC20Facts
	facts.Network = "testnet"
	f := &facts.ERC20
	f.ChainID = strconv.FormatUint(n.EVMChainID, 10)
	tokens := []common.Address{sc.s.Token20.Address, r.fee, r.spam, r.second}
	for _, tok := range tokens {
		f.Tokens = append(f.Tokens, tok.Hex())
	}
	f.Fee, f.Spam, f.Second, f.Carol = r.fee.Hex(), r.spam.Hex(), r.second.Hex(), r.carol.Hex()
	rpc := node.NewEVM(n.URL + "/ext/bc/C/rpc")
	holders := []common.Address{n.EthAddr, r.carol, r.dave}
	mid := (r.first + r.last) / 2
	for _, at := range []uint64{mid, r.last} {
		for _, h := range holders {
			c := sdkERC20Check{Holder: h.Hex(), Balances: map[string]string{}}
			if at != r.last {
				c.BlockNumber = strconv.FormatUint(at, 10)
			}
			for _, tok := range tokens {
				_, bals, err := rpc.ERC20State(ctx, tok, []common.Address{h}, &at)
				if err != nil {
					t.Fatal(err)
				}
				if bals[0] != nil && bals[0].Cmp(new(big.Int)) != 0 {
					c.Balances[tok.Hex()] = bals[0].String()
				}
			}
			f.Checks = append(f.Checks, c)
		}
	}
	factsFile := writeFacts(t, facts)
	dsn := dbtest.SQLite(t)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	// The last block: r.last is the head only while nothing else runs.
	waitEVMIndexed(t, dsn, n.EVMChainID, r.last)
	waitERC20Flagged(t, dsn, n.EVMChainID, r.fee)
	runSDK(t, ctx, base, factsFile, "erc20balances.test.mjs")
}

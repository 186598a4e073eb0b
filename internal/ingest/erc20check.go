package ingest

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/node"
)

// The ERC-20 balances are kept from the Transfer logs (store,
// evmerc20.go). A token whose logs do not explain its balances (a fee
// taken on transfer, a rebase, a mint without an event) is detected by
// two rules:
//
//   - in the store, without the node: a transfer that debits more than
//     the logs gave the sender, or burns more than the logged supply;
//   - here, against the node, after a batch is committed: a token with
//     transfers in the batch is checked at the batch's last block, on each
//     of its first erc20FirstChecks batches and then once every
//     erc20CheckEvery blocks at most: its totalSupply() against the supply
//     its logs tell (mints less burns), and the balanceOf of the sender
//     and recipient of its last transfer in the batch against their kept
//     balances.
//
// Any disagreement flags the token for good (store.FlagERC20Token), and
// listErc20Balances answers it with balanceOf at the block asked. A check
// costs one batched eth_call per checked token, made after the batch is
// committed; a node that no longer keeps the block's state, or any
// failure, leaves the token to a later check and never fails ingestion.
const (
	erc20FirstChecks = 8
	erc20CheckEvery  = 1024
	// erc20MaxChecks bounds the tokens checked per batch; the others are
	// checked with a later batch.
	erc20MaxChecks = 32
	// maxERC20Checked bounds the tokens remembered; past it the memory
	// starts over (every token is checked again once).
	maxERC20Checked = 100_000
)

// erc20Checked is what the follower remembers of a token's checks.
type erc20Checked struct {
	times uint32
	last  uint64
}

// erc20Holders is a token's last transfer in a batch: its two parties.
type erc20Holders struct{ from, to common.Address }

// checkERC20 checks the tokens of the committed batch's ERC-20
// transfers that are due (see above).
func (e *evmFollower) checkERC20(ctx context.Context, blocks []*evm.Block) {
	if len(blocks) == 0 {
		return
	}
	last := blocks[len(blocks)-1].Number
	due := map[common.Address]erc20Holders{}
	var order []common.Address
	for _, b := range blocks {
		for i := range b.Transfers {
			t := &b.Transfers[i]
			if t.Type != internal.ERC20 {
				continue
			}
			if _, ok := due[t.Token]; !ok {
				c := e.erc20Checks[t.Token]
				if c.times >= erc20FirstChecks && last < c.last+erc20CheckEvery {
					continue
				}
				order = append(order, t.Token)
			}
			due[t.Token] = erc20Holders{t.From, t.To}
		}
	}
	if len(order) > erc20MaxChecks {
		order = order[:erc20MaxChecks]
	}
	if len(order) == 0 {
		return
	}
	states, err := e.ix.store.EVMERC20Tokens(ctx, e.chain.ChainID, order)
	if err != nil {
		e.ix.log.Warn("checking ERC-20 balances", "chain", e.name, "err", err)
		return
	}
	for _, token := range order {
		st, ok := states[token]
		if !ok {
			continue
		}
		if !st.Unexplained {
			reason, err := e.checkToken(ctx, token, due[token], st.Supply, last)
			if err != nil {
				if !node.IsStateUnavailable(err) {
					e.ix.log.Warn("checking an ERC-20 token's balances", "chain", e.name, "token", token, "err", err)
				}
				continue
			}
			if reason != "" {
				if err := e.ix.store.FlagERC20Token(ctx, e.chain.ChainID, token, reason); err != nil {
					e.ix.log.Warn("flagging an ERC-20 token", "chain", e.name, "token", token, "err", err)
					continue
				}
				e.ix.log.Info("an ERC-20 token's logs do not explain its balances: they are answered by balanceOf",
					"chain", e.name, "token", token, "reason", reason)
			}
		}
		if len(e.erc20Checks) >= maxERC20Checked {
			clear(e.erc20Checks)
		}
		c := e.erc20Checks[token]
		e.erc20Checks[token] = erc20Checked{times: c.times + 1, last: last}
	}
}

// checkToken compares the token's totalSupply and the holders' balanceOf
// at block n with what the logs tell; it returns why they disagree, ""
// when they agree.
func (e *evmFollower) checkToken(ctx context.Context, token common.Address, h erc20Holders, supply *big.Int, n uint64) (string, error) {
	var holders []common.Address
	for _, a := range []common.Address{h.from, h.to} {
		if a != (common.Address{}) && (len(holders) == 0 || holders[0] != a) {
			holders = append(holders, a)
		}
	}
	nodeSupply, bals, err := e.client.ERC20State(ctx, token, holders, &n)
	if err != nil {
		return "", err
	}
	if nodeSupply != nil && nodeSupply.Cmp(supply) != 0 {
		return fmt.Sprintf("block %d: totalSupply() is %s, the logs tell %s", n, nodeSupply, supply), nil
	}
	for i, a := range holders {
		kept, err := e.ix.store.EVMERC20Balances(ctx, e.chain.ChainID, a, n, []common.Address{token}, nil, 1)
		if err != nil {
			return "", err
		}
		logged := new(big.Int)
		if len(kept) == 1 {
			logged = kept[0].Balance
		}
		if bals[i] != nil && bals[i].Cmp(logged) != 0 {
			return fmt.Sprintf("block %d: balanceOf(%s) is %s, the logs tell %s", n, a.Hex(), bals[i], logged), nil
		}
	}
	return "", nil
}

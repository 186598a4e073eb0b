package evmchains

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
)

// maxTokenBalanceCache bounds the balances kept; past it the cache
// starts over.
const maxTokenBalanceCache = 100_000

type tokenBalanceKey struct {
	chainID       uint64
	token, holder common.Address
	block         uint64
}

// tokenBalances caches balanceOf answers: a balance at a block never
// changes (blocks are final), so entries need no expiry.
type tokenBalances struct {
	mu sync.Mutex
	m  map[tokenBalanceKey]*big.Int
}

// TokenBalance asks the chain's RPC for holder's balanceOf of the ERC-20
// token at block number (eth_call), for the tokens whose Transfer logs do
// not explain their balances; answers are cached. A contract that does
// not answer balanceOf holds nothing for holder (zero); the RPC's refusal
// (a pruned block's state) is a derrors.Unavailable for the client.
func (r *Registry) TokenBalance(ctx context.Context, chainID uint64, token, holder common.Address, number uint64) (*big.Int, error) {
	key := tokenBalanceKey{chainID, token, holder, number}
	c := &r.tokenBals
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return new(big.Int).Set(v), nil
	}
	rpc, ok := r.rpcOf(chainID)
	if !ok {
		return nil, fmt.Errorf("EVM chain %d: %w", chainID, derrors.NotFound)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	_, bals, err := rpc.ERC20State(ctx, token, []common.Address{holder}, &number)
	var rpcErr *node.RPCError
	if errors.As(err, &rpcErr) {
		msg := rpcErr.Message
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, derrors.Client(derrors.Unavailable, "the RPC of chain %d cannot tell the balanceOf token %s at block %d: %s",
			chainID, token.Hex(), number, msg)
	}
	if err != nil {
		return nil, fmt.Errorf("balanceOf %s of token %s at block %d: %w", holder.Hex(), token.Hex(), number, err)
	}
	bal := bals[0]
	if bal == nil {
		bal = new(big.Int)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxTokenBalanceCache {
		c.m = map[tokenBalanceKey]*big.Int{}
	}
	c.m[key] = bal
	c.mu.Unlock()
	return new(big.Int).Set(bal), nil
}

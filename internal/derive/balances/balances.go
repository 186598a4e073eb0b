// Package balances derives the native balances of an EVM chain's
// addresses: each address's balance after each block that changed it,
// from the changes evm decodes (a balance read from the block's trace, or
// a delta).
package balances

import (
	"context"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// NativeWriter is what Native reads and writes in the batch's
// transaction (store.EVMTx).
type NativeWriter interface {
	// NativeBalanceBefore is addr's stored balance after the last block
	// before number that changed it; zero when none did.
	NativeBalanceBefore(ctx context.Context, addr common.Address, number uint64) (*big.Int, error)
	// UntrustBalances records that the chain's balances are no longer
	// exact.
	UntrustBalances(ctx context.Context) error
	WriteNativeBalances(ctx context.Context, bals []internal.EVMNativeBalance) error
}

// Native writes each address's balance after each block of blocks that
// changed it. A change the block gives as a delta (an atomic import or
// export no tx touched) applies to the balance after the previous block:
// the batch's own, or the stored one. A delta that would make a balance
// negative means the chain moved balances some other way avaindex does not
// see: the balance is kept at zero and the chain's balances are no longer
// trusted (the node answers them).
func Native(ctx context.Context, w NativeWriter, blocks []*internal.EVMBlockData) error {
	var bals []internal.EVMNativeBalance
	latest := map[common.Address]*big.Int{}
	untrusted := false
	for _, b := range blocks {
		for _, c := range b.Balances {
			bal := c.Balance
			if bal == nil {
				prev, ok := latest[c.Address]
				if !ok {
					var err error
					if prev, err = w.NativeBalanceBefore(ctx, c.Address, b.Number); err != nil {
						return err
					}
				}
				bal = new(big.Int).Add(prev, c.Delta)
				if bal.Sign() < 0 {
					bal.SetUint64(0)
					untrusted = true
				}
			}
			latest[c.Address] = bal
			bals = append(bals, internal.EVMNativeBalance{Address: c.Address, Block: b.Number, Balance: bal})
		}
	}
	if untrusted {
		if err := w.UntrustBalances(ctx); err != nil {
			return err
		}
	}
	return w.WriteNativeBalances(ctx, bals)
}

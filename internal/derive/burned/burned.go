// Package burned derives what a chain burns, summed by the store: on an
// EVM chain, every tx's gas used times its effective gas price, which the
// coinbase (on the C-chain the blackhole address) never spends.
package burned

import (
	"context"
	"math/big"

	"github.com/avaindex/avaindex/internal"
)

// EVMWriter adds to an EVM chain's burned sum (store.EVMTx).
type EVMWriter interface {
	// AddBurned adds fees[i], burned in block heights[i] (ascending),
	// skipping the blocks the sum holds already.
	AddBurned(ctx context.Context, heights []uint64, fees []*big.Int) error
}

// EVM adds the fees the blocks' txs paid to the chain's burned sum.
func EVM(ctx context.Context, w EVMWriter, blocks []*internal.EVMBlockData) error {
	heights := make([]uint64, len(blocks))
	fees := make([]*big.Int, len(blocks))
	for i, b := range blocks {
		heights[i], fees[i] = b.Number, internal.FeesSpent(b.Txs)
	}
	return w.AddBurned(ctx, heights, fees)
}

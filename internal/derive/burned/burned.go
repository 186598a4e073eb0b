// Package burned derives what a chain burns, summed by the store: on an
// EVM chain, every tx's gas used times its effective gas price, which the
// coinbase (on the C-chain the blackhole address) never spends; on the
// P-, X- and C-chains (atomic txs), the AVAX a tx's inputs bring in
// beyond its outputs.
package burned

import (
	"context"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"

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

// UTXOWriter adds to the X- or C-chain's burned sum (store.XTx, CTx).
type UTXOWriter interface {
	// AVAXAssetID is the network's AVAX asset; false when the store holds
	// no network (then it keeps no burned sums).
	AVAXAssetID(ctx context.Context) (ids.ID, bool, error)
	// AddBurned adds amounts[i], burned in block heights[i] (ascending),
	// skipping the blocks the sum holds already.
	AddBurned(ctx context.Context, heights []uint64, amounts []*big.Int) error
}

// X adds what the X-chain blocks' txs burn: the AVAX their inputs bring
// in beyond their outputs.
func X(ctx context.Context, w UTXOWriter, blocks []*internal.XBlockData) error {
	avax, ok, err := w.AVAXAssetID(ctx)
	if err != nil || !ok {
		return err
	}
	heights := make([]uint64, len(blocks))
	amounts := make([]*big.Int, len(blocks))
	for i, b := range blocks {
		sum := new(big.Int)
		for _, t := range b.Txs {
			if t.UTXOs != nil {
				sum.Add(sum, t.UTXOs.Burned(avax, 0))
			}
		}
		heights[i], amounts[i] = b.Height, sum
	}
	return w.AddBurned(ctx, heights, amounts)
}

// XDAG adds what a batch of the X-chain's DAG txs burns, by tx: the sum's
// heights are the txs' indices in the node's X/tx index.
func XDAG(ctx context.Context, w UTXOWriter, dtxs []*internal.XDAGTxData) error {
	avax, ok, err := w.AVAXAssetID(ctx)
	if err != nil || !ok {
		return err
	}
	idx := make([]uint64, len(dtxs))
	amounts := make([]*big.Int, len(dtxs))
	for i, t := range dtxs {
		idx[i], amounts[i] = t.Index, new(big.Int)
		if t.UTXOs != nil {
			amounts[i] = t.UTXOs.Burned(avax, 0)
		}
	}
	return w.AddBurned(ctx, idx, amounts)
}

// C adds what the C-chain's atomic txs burn: the AVAX they import or
// debit from EVM accounts beyond what they export or credit. Only the
// blocks with atomic txs count, as a rederive hands them: the sum's next
// is then the same after either.
func C(ctx context.Context, w UTXOWriter, blocks []*internal.CBlockData) error {
	avax, ok, err := w.AVAXAssetID(ctx)
	if err != nil || !ok {
		return err
	}
	var (
		heights []uint64
		amounts []*big.Int
	)
	for _, b := range blocks {
		if len(b.AtomicTxs) == 0 {
			continue
		}
		sum := new(big.Int)
		for _, t := range b.AtomicTxs {
			e := internal.UTXOEffects{Imported: t.Imported, Produced: t.Exported}
			for _, c := range t.EVM {
				if c.AssetID != avax {
					continue
				}
				if c.Debit {
					e.Consumed = append(e.Consumed, internal.UTXOInput{AssetID: avax, Amount: c.Amount})
				} else {
					e.Produced = append(e.Produced, &internal.UTXOOutput{AssetID: avax, Amount: c.Amount})
				}
			}
			sum.Add(sum, e.Burned(avax, 0))
		}
		heights, amounts = append(heights, b.Height), append(amounts, sum)
	}
	return w.AddBurned(ctx, heights, amounts)
}

// PWriter adds to the P-chain's burned sum and to what its txs moved into
// L1 validators' balances (store.PTx).
type PWriter interface {
	AVAXAssetID(ctx context.Context) (ids.ID, bool, error)
	// AddBurned adds burns[i] and deposits[i] of block heights[i]
	// (ascending), skipping the blocks the sums hold already.
	AddBurned(ctx context.Context, heights []uint64, burns, deposits []*big.Int) error
}

// P adds what the P-chain blocks' txs burn, as their values count it
// (internal.PTxValue: a staking's outputs are no UTXOs until it ends):
// the AVAX in beyond the AVAX out and the L1 validators' deposits; and
// the deposits themselves.
func P(ctx context.Context, w PWriter, blocks []*internal.PBlockData) error {
	avax, ok, err := w.AVAXAssetID(ctx)
	if err != nil || !ok {
		return err
	}
	heights := make([]uint64, len(blocks))
	burns, deposits := make([]*big.Int, len(blocks)), make([]*big.Int, len(blocks))
	for i, b := range blocks {
		heights[i], burns[i], deposits[i] = b.Height, new(big.Int), new(big.Int)
		for _, t := range b.Txs {
			if t.Value == nil {
				continue
			}
			burns[i].Add(burns[i], t.Value.Burned(avax))
			deposits[i].Add(deposits[i], new(big.Int).SetUint64(t.Value.L1Balance))
		}
	}
	return w.AddBurned(ctx, heights, burns, deposits)
}

// Package metrics derives what the chain metrics roll up of a batch of
// blocks: each block as chainmetrics sees it (its txs, gas, fees, the
// addresses that took part, the senders and the deployers), which the
// store adds to its rollups. EVM chains' blocks tell all of it; a P- or
// X-chain block's senders are the owners of the UTXOs it spends, which
// the store is asked for.
package metrics

import (
	"context"
	"math/big"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
)

// EVMWriter adds blocks to an EVM chain's rollups (store.EVMTx).
type EVMWriter interface {
	RollupMetrics(ctx context.Context, blocks []chainmetrics.Block) error
}

// EVM rolls an EVM chain's blocks up.
func EVM(ctx context.Context, w EVMWriter, blocks []*internal.EVMBlockData) error {
	return w.RollupMetrics(ctx, EVMBlocks(blocks))
}

// EVMBlocks returns the metrics' view of EVM blocks: their txs with the
// effective gas prices and fees of their receipts, the addresses of the
// txs' from and to and of the token transfers (senders: the txs' from and
// the transfers' from), and the contracts deployed with their deployers.
func EVMBlocks(blocks []*internal.EVMBlockData) []chainmetrics.Block {
	out := make([]chainmetrics.Block, len(blocks))
	for i, b := range blocks {
		mb := chainmetrics.Block{Height: b.Number, Time: unixSeconds(b.Timestamp), Txs: len(b.Txs), GasUsed: b.GasUsed,
			Contracts: len(b.Contracts)}
		for _, t := range b.Txs {
			var price float64
			if t.GasPrice != nil {
				price, _ = new(big.Float).SetInt(t.GasPrice).Float64()
			}
			mb.GasPriceSum += price
			mb.GasPriceMax = max(mb.GasPriceMax, price)
			mb.Fees += price * float64(t.GasUsed)
			mb.Senders = append(mb.Senders, t.From.Bytes())
			if t.To != nil {
				mb.Addresses = append(mb.Addresses, t.To.Bytes())
			}
		}
		for _, tr := range b.Transfers {
			mb.Senders = append(mb.Senders, tr.From.Bytes())
			mb.Addresses = append(mb.Addresses, tr.To.Bytes())
		}
		for _, c := range b.Contracts {
			mb.Deployers = append(mb.Deployers, c.Deployer.Bytes())
		}
		out[i] = mb
	}
	return out
}

// unixSeconds is a block's time in Unix seconds, 0 for none (as the
// store keeps block times).
func unixSeconds(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

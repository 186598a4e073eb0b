// Package utxoset derives the changes to a chain's UTXO set: each tx's
// UTXO effects (which the chain's decoder reads from the tx) at its
// position in the chain, and the genesis outputs a chain's first block
// brings, which the store writes as the UTXOs created and spent there.
package utxoset

import (
	"context"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// XWriter is what the X-chain's UTXO changes write in the batch's
// transaction (store.XTx).
type XWriter interface {
	// WriteUTXOChanges writes what txs (in chain order) do to the
	// X-chain's UTXOs: outputs produced, inputs consumed (matched with
	// their UTXOs whichever is stored first), exported outputs kept as
	// such, imported inputs matched with the exporting chain's rows.
	// Idempotent.
	WriteUTXOChanges(ctx context.Context, txs []internal.UTXOTx) error
}

// X writes what an X-chain batch's txs do to its UTXOs, as the avm's
// executor makes them (see xchain.UTXOsOfTx). Block 0 of a chain linear
// from its genesis brings the genesis UTXOs, each at index -1 of its
// genesis tx (a DAG chain's genesis goes with its DAG txs).
func X(ctx context.Context, w XWriter, blocks []*internal.XBlockData) error {
	var txs []internal.UTXOTx
	for _, b := range blocks {
		if b.Genesis != nil {
			txs = appendGenesis(txs, b.Genesis, b.Timestamp)
		}
		for j, t := range b.Txs {
			if t.UTXOs == nil {
				return fmt.Errorf("block %d: tx %s has no UTXO effects", b.Height, t.ID)
			}
			txs = append(txs, internal.UTXOTx{
				Pos:     internal.TxAt(t.ID, b.Height, j, b.Timestamp),
				Effects: t.UTXOs,
			})
		}
	}
	if len(txs) == 0 {
		return nil
	}
	return w.WriteUTXOChanges(ctx, txs)
}

// XDAG writes what a batch of the X-chain's pre-Cortina DAG txs does to
// its UTXOs, each tx at its index in the node's X/tx index (height 0);
// container 0 of a chain that ran as a DAG brings the genesis UTXOs, each
// at index -1 of its genesis tx.
func XDAG(ctx context.Context, w XWriter, dtxs []*internal.XDAGTxData) error {
	var txs []internal.UTXOTx
	for _, t := range dtxs {
		if g := t.Genesis; g != nil {
			txs = appendGenesis(txs, g, time.Unix(int64(g.Timestamp), 0))
		}
		if t.UTXOs == nil {
			return fmt.Errorf("DAG tx %d (%s) has no UTXO effects", t.Index, t.ID)
		}
		txs = append(txs, internal.UTXOTx{Pos: internal.TxAt(t.ID, 0, int(t.Index), t.Timestamp), Effects: t.UTXOs})
	}
	if len(txs) == 0 {
		return nil
	}
	return w.WriteUTXOChanges(ctx, txs)
}

// appendGenesis appends g's UTXOs to txs, each produced at index -1 of
// its genesis tx, at time at.
func appendGenesis(txs []internal.UTXOTx, g *internal.XGenesisData, at time.Time) []internal.UTXOTx {
	for _, p := range g.UTXOs {
		txs = append(txs, internal.UTXOTx{
			Pos:     internal.TxAt(p.UTXO.TxID, 0, -1, at),
			Effects: &internal.UTXOEffects{Produced: []*internal.UTXOOutput{p}},
		})
	}
	return txs
}

// PWriter is what the P-chain's UTXO changes write in the batch's
// transaction (store.PTx).
type PWriter interface {
	// WriteUTXOChanges writes what txs (in chain order) do to the
	// P-chain's UTXOs (stake outputs staked, exported ones kept as such,
	// the others spendable from their tx's height; the reward UTXOs
	// spendable from theirs), and the stakes released. Idempotent.
	WriteUTXOChanges(ctx context.Context, txs []internal.PUTXOTx, released []internal.StakeRelease) error
}

// P writes what a P-chain batch does to the UTXO set: what each tx
// consumes and produces (see pchain.UTXOsOfTx), the reward UTXOs the node
// reported (internal.PBlockData.Rewards), the stakes released by
// RewardValidatorTxs and by aborted pre-Banff staker proposals and, at
// height 0, the genesis allocations and the genesis validators' stake.
// A RewardValidatorTx of a block fetched with rewards whose staker's
// reward UTXOs were not fetched is an error: they would be lost.
func P(ctx context.Context, w PWriter, blocks []*internal.PBlockData) error {
	var (
		txs      []internal.PUTXOTx
		released []internal.StakeRelease
	)
	for _, b := range blocks {
		if g := b.Genesis; g != nil {
			at := time.Unix(int64(g.Timestamp), 0)
			txs = append(txs, internal.PUTXOTx{
				Pos:     internal.TxAt(ids.Empty, 0, -1, at),
				Effects: &internal.PTxUTXOs{Produced: g.UTXOs},
			})
			// Genesis validators reward no one: no reward UTXOs.
			for _, eff := range g.Stakes {
				txs = append(txs, internal.PUTXOTx{Pos: internal.TxAt(eff.TxID, 0, -1, at), Effects: eff})
			}
		}
		for j, t := range b.Txs {
			if t.UTXOs == nil {
				return fmt.Errorf("block %d: tx %s has no UTXO effects", b.Height, t.ID)
			}
			x := internal.PUTXOTx{Pos: internal.TxAt(t.ID, b.Height, j, b.Timestamp), Effects: t.UTXOs}
			if staker := t.UTXOs.RewardedStaker; staker != ids.Empty {
				released = append(released, internal.StakeRelease{Staker: staker, By: t.ID, Height: b.Height})
				if b.Rewards != nil {
					rewards, ok := b.Rewards[staker]
					if !ok {
						return fmt.Errorf("block %d: the reward UTXOs of staker %s were not fetched", b.Height, staker)
					}
					x.Rewards = rewards
				}
			}
			txs = append(txs, x)
		}
		// An aborted pre-Banff staker proposal returns its stake at once.
		if st := b.AbortedStaker; st != ids.Empty {
			released = append(released, internal.StakeRelease{Staker: st, By: st, Height: b.Height})
		}
	}
	if len(txs) == 0 && len(released) == 0 {
		return nil
	}
	return w.WriteUTXOChanges(ctx, txs, released)
}

package pchain

import (
	"fmt"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
)

// Batch returns blocks (consecutive heights, ascending, option blocks
// linked to their proposals: see LinkProposals) as the store applies
// them: each block's data, the staking and subnet changes derived from
// them (DeriveStaking, ExtractState), and the replays of the L1 fees and
// staking rewards over them. A nil block is passed on as nil, for the
// store to refuse.
func Batch(blocks []*Block) (*internal.PBatch, error) {
	out := &internal.PBatch{Blocks: make([]*internal.PBlockData, len(blocks))}
	for i, b := range blocks {
		if b == nil {
			return out, nil
		}
		d, err := b.Data()
		if err != nil {
			return nil, err
		}
		out.Blocks[i] = d
	}
	var err error
	if out.Staking, err = DeriveStaking(blocks); err != nil {
		return nil, err
	}
	if out.State, err = ExtractState(blocks); err != nil {
		return nil, err
	}
	out.Replay = &replayer{blocks: blocks, ch: out.Staking}
	return out, nil
}

// Data returns b as the store keeps it.
func (b *Block) Data() (*internal.PBlockData, error) {
	d := &internal.PBlockData{Height: b.Height, ID: b.ID, ParentID: b.ParentID, Type: b.Type,
		Timestamp: b.Timestamp, Bytes: b.Bytes, Txs: make([]internal.PTxData, len(b.Txs)), Rewards: b.Rewards}
	for i, t := range b.Txs {
		d.Txs[i] = internal.PTxData{PTx: t.PTx, UTXOs: t.UTXOs}
		if t.Tx == nil {
			continue
		}
		desc, err := DescribeParsedTx(t.Tx, b.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("block %d: tx %s: %w", b.Height, t.ID, err)
		}
		v := &internal.PTxValue{In: desc.In, Out: map[ids.ID]uint64{}, L1Balance: desc.L1Balance}
		for _, m := range []map[ids.ID]uint64{desc.Out, desc.Staked, desc.Exported} {
			for asset, amount := range m {
				v.Out[asset] += amount
			}
		}
		d.Txs[i].Value = v
	}
	if g := b.Genesis; g != nil {
		d.Genesis = &internal.PGenesisData{Timestamp: g.Timestamp, UTXOs: g.UTXOs, Stakes: g.Stakes}
	}
	if b.Height > 0 && (b.Type == "ApricotAbortBlock" || b.Type == "BanffAbortBlock") {
		prop := b.Proposal
		if prop == nil {
			return nil, fmt.Errorf("%s %s at height %d: its proposal block is not linked", b.Type, b.ID, b.Height)
		}
		// An aborted pre-Banff staker proposal returns its stake at once;
		// a RewardValidatorTx returned it already either way.
		if n := len(prop.Txs); n > 0 && prop.Txs[n-1].UTXOs.HasStake {
			d.AbortedStaker = prop.Txs[n-1].ID
		}
	}
	return d, nil
}

// replayer is the batch's internal.PReplay.
type replayer struct {
	blocks []*Block
	ch     *StakingChanges
}

func (r *replayer) L1Fees(s *internal.L1Fees, n *internal.Network) ([]internal.L1Refund, error) {
	return (*L1Fees)(s).ApplyBlocks(n.ID, n.AVAXAssetID, r.blocks, r.ch.L1Events)
}

func (r *replayer) Rewards(s *internal.RewardState, n *internal.Network, book internal.RewardBook) ([]internal.SupplyChange, error) {
	primary := DefaultRewardConfig(n.ID)
	if n.RewardConfig != nil {
		primary = *n.RewardConfig
	}
	return (*RewardState)(s).ApplyBlocks(n.ID, primary, r.blocks, r.ch, book)
}

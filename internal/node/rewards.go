package node

import (
	"context"
	"fmt"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
)

// RewardUTXOs returns the reward UTXOs (avax.UTXO bytes) the node reports
// for the staker tx stakerTxID (platform.getRewardUTXOs).
func (c *Client) RewardUTXOs(ctx context.Context, stakerTxID ids.ID) ([][]byte, error) {
	var reply platformvm.GetRewardUTXOsReply
	args := api.GetTxArgs{TxID: stakerTxID, Encoding: formatting.HexNC}
	if err := c.call(ctx, "/ext/bc/P", "platform.getRewardUTXOs", args, &reply); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(reply.UTXOs))
	for i, s := range reply.UTXOs {
		b, err := formatting.Decode(formatting.HexNC, s)
		if err != nil {
			return nil, fmt.Errorf("platform.getRewardUTXOs(%s): utxo %d: %w: %w", stakerTxID, i, derrors.BadGateway, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// AttachRewardUTXOs sets the reward UTXOs of each block that holds a
// RewardValidatorTx (pchain.Block.Rewards). A block is fetchable by height
// only once its whole decision (a proposal block and its commit or abort
// option) is committed by the node, with the reward UTXOs, so they are
// complete here.
func (c *Client) AttachRewardUTXOs(ctx context.Context, blocks []*pchain.Block) error {
	for _, b := range blocks {
		for _, s := range b.RewardedStakers() {
			utxos, err := c.RewardUTXOs(ctx, s)
			if err != nil {
				return fmt.Errorf("reward UTXOs of staker %s (block %d): %w", s, b.Height, err)
			}
			if err := b.SetRewardUTXOs(s, utxos); err != nil {
				return fmt.Errorf("platform.getRewardUTXOs(%s): %w: %w", s, derrors.BadGateway, err)
			}
		}
	}
	return nil
}

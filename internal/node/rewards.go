package node

import (
	"context"
	"fmt"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/derrors"
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

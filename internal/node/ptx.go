package node

import (
	"context"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
)

// PTxStatus returns the node's status of the P-chain tx txID
// (platform.getTxStatus): what its mempool knows of a tx not yet
// accepted (processing, dropped and why, unknown).
func (c *Client) PTxStatus(ctx context.Context, txID ids.ID) (*platformvm.GetTxStatusResponse, error) {
	var reply platformvm.GetTxStatusResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getTxStatus", platformvm.GetTxStatusArgs{TxID: txID}, &reply); err != nil {
		return nil, err
	}
	return &reply, nil
}

// PUTXOs returns the node's answer to platform.getUTXOs with args: the
// atomic UTXOs other chains exported to the P-chain, in its shared memory.
func (c *Client) PUTXOs(ctx context.Context, args *api.GetUTXOsArgs) (*api.GetUTXOsReply, error) {
	var reply api.GetUTXOsReply
	if err := c.call(ctx, "/ext/bc/P", "platform.getUTXOs", args, &reply); err != nil {
		return nil, err
	}
	return &reply, nil
}

// XUTXOs returns the node's answer to avm.getUTXOs with args: the atomic
// UTXOs other chains exported to the X-chain, in its shared memory.
func (c *Client) XUTXOs(ctx context.Context, args *api.GetUTXOsArgs) (*api.GetUTXOsReply, error) {
	var reply api.GetUTXOsReply
	if err := c.call(ctx, "/ext/bc/X", "avm.getUTXOs", args, &reply); err != nil {
		return nil, err
	}
	return &reply, nil
}

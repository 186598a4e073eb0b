package node

import (
	"context"
	"fmt"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
)

// The node's names for chains, which the EVM chain registry resolves
// configured chains with.

// BlockchainID returns the id of the chain the node knows by alias (e.g.
// "C", or a chain id in cb58), from info.getBlockchainID.
func (c *Client) BlockchainID(ctx context.Context, alias string) (ids.ID, error) {
	var reply info.GetBlockchainIDReply
	if err := c.call(ctx, "/ext/info", "info.getBlockchainID", info.GetBlockchainIDArgs{Alias: alias}, &reply); err != nil {
		return ids.Empty, fmt.Errorf("blockchain id of %q: %w", alias, err)
	}
	return reply.BlockchainID, nil
}

// Blockchains returns every blockchain the node's P-chain knows, with its
// subnet and VM, the primary network's X- and C-chains included
// (platform.getBlockchains).
func (c *Client) Blockchains(ctx context.Context) ([]platformvm.APIBlockchain, error) {
	var reply platformvm.GetBlockchainsResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getBlockchains", struct{}{}, &reply); err != nil {
		return nil, err
	}
	return reply.Blockchains, nil
}

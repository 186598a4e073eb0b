package node

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"

	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
)

// The calls warp signature aggregation makes: validator sets at a P-chain
// height, the chain-to-subnet mapping, and where the node and its peers
// can be reached on the peer-to-peer network.

// ValidatorsAt returns the validators of subnetID at P-chain height, with
// their BLS keys (platform.getValidatorsAt).
func (c *Client) ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) (map[ids.NodeID]*validators.GetValidatorOutput, error) {
	var reply platformvm.GetValidatorsAtReply
	args := platformvm.GetValidatorsAtArgs{SubnetID: subnetID, Height: platformapi.Height(height)}
	if err := c.call(ctx, "/ext/bc/P", "platform.getValidatorsAt", args, &reply); err != nil {
		return nil, fmt.Errorf("validators of subnet %s at height %d: %w", subnetID, height, err)
	}
	return reply.Validators, nil
}

// ProposedHeight returns the P-chain height the node's proposervm would
// reference in a block proposed now (platform.getProposedHeight).
func (c *Client) ProposedHeight(ctx context.Context) (uint64, error) {
	var reply api.GetHeightResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.getProposedHeight", struct{}{}, &reply); err != nil {
		return 0, err
	}
	return uint64(reply.Height), nil
}

// ValidatedBy returns the subnet that validates the blockchain chainID
// (platform.validatedBy). A chain the P-chain does not know is the node's
// error, for which IsNotFound holds.
func (c *Client) ValidatedBy(ctx context.Context, chainID ids.ID) (ids.ID, error) {
	var reply platformvm.ValidatedByResponse
	if err := c.call(ctx, "/ext/bc/P", "platform.validatedBy", platformvm.ValidatedByArgs{BlockchainID: chainID}, &reply); err != nil {
		return ids.Empty, fmt.Errorf("subnet validating %s: %w", chainID, err)
	}
	return reply.SubnetID, nil
}

// NodeID returns the node's id and its BLS key's proof of possession
// (info.getNodeID).
func (c *Client) NodeID(ctx context.Context) (ids.NodeID, *signer.ProofOfPossession, error) {
	var reply info.GetNodeIDReply
	if err := c.call(ctx, "/ext/info", "info.getNodeID", struct{}{}, &reply); err != nil {
		return ids.EmptyNodeID, nil, err
	}
	return reply.NodeID, reply.NodePOP, nil
}

// NodeIP returns the node's own staking (peer-to-peer) address
// (info.getNodeIP).
func (c *Client) NodeIP(ctx context.Context) (netip.AddrPort, error) {
	var reply info.GetNodeIPReply
	if err := c.call(ctx, "/ext/info", "info.getNodeIP", struct{}{}, &reply); err != nil {
		return netip.AddrPort{}, err
	}
	return reply.IP, nil
}

// Peers returns the peers the node is connected to (info.peers).
func (c *Client) Peers(ctx context.Context) ([]info.Peer, error) {
	var reply info.PeersReply
	if err := c.call(ctx, "/ext/info", "info.peers", info.PeersArgs{}, &reply); err != nil {
		return nil, err
	}
	return reply.Peers, nil
}

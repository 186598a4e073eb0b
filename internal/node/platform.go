package node

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
)

// The platform.* calls the node API relays for what only a live node knows,
// and the supply the ingester observes.

// CurrentValidator holds the fields of one validator of the node's
// platform.getCurrentValidators reply that avaindex takes from the node:
// the node-local ones (uptime, connected) and the ones its VM computes
// (rewards). platformvm.GetCurrentValidatorsReply lists validators as
// untyped values of several shapes, so only these fields are decoded. A
// field the node did not send is nil.
type CurrentValidator struct {
	TxID   ids.ID     `json:"txID"`
	NodeID ids.NodeID `json:"nodeID"`
	// ValidationID is set for L1 validators only.
	ValidationID           *ids.ID          `json:"validationID"`
	PotentialReward        *avajson.Uint64  `json:"potentialReward"`
	AccruedDelegateeReward *avajson.Uint64  `json:"accruedDelegateeReward"`
	Uptime                 *avajson.Float32 `json:"uptime"`
	Connected              *bool            `json:"connected"`
	Delegators             []struct {
		TxID            ids.ID          `json:"txID"`
		PotentialReward *avajson.Uint64 `json:"potentialReward"`
	} `json:"delegators"`
}

// CurrentValidators returns the node's current validators for args
// (platform.getCurrentValidators). A validator whose fields do not decode
// is left out rather than failing the call, so that one entry of an
// unexpected shape does not lose the node's fields of every other.
func (c *Client) CurrentValidators(ctx context.Context, args platformvm.GetCurrentValidatorsArgs) ([]CurrentValidator, error) {
	var reply struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := c.call(ctx, "/ext/bc/P", "platform.getCurrentValidators", args, &reply); err != nil {
		return nil, fmt.Errorf("current validators of subnet %s: %w", args.SubnetID, err)
	}
	out := make([]CurrentValidator, 0, len(reply.Validators))
	for _, raw := range reply.Validators {
		var v CurrentValidator
		if err := json.Unmarshal(raw, &v); err != nil {
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// BlockchainStatus returns the node's status of the chain named by
// blockchainID, an id or an alias (platform.getBlockchainStatus).
func (c *Client) BlockchainStatus(ctx context.Context, blockchainID string) (status.BlockchainStatus, error) {
	var reply platformvm.GetBlockchainStatusReply
	args := platformvm.GetBlockchainStatusArgs{BlockchainID: blockchainID}
	if err := c.call(ctx, "/ext/bc/P", "platform.getBlockchainStatus", args, &reply); err != nil {
		return 0, fmt.Errorf("status of chain %q: %w", blockchainID, err)
	}
	return reply.Status, nil
}

// CurrentSupply returns the node's current supply of subnetID and the
// height it was read at (platform.getCurrentSupply). An error object of the
// node is an *RPCError, whose message is the node's own words.
func (c *Client) CurrentSupply(ctx context.Context, subnetID ids.ID) (*platformvm.GetCurrentSupplyReply, error) {
	var reply platformvm.GetCurrentSupplyReply
	args := platformvm.GetCurrentSupplyArgs{SubnetID: subnetID}
	if err := c.call(ctx, "/ext/bc/P", "platform.getCurrentSupply", args, &reply); err != nil {
		return nil, fmt.Errorf("current supply of subnet %s: %w", subnetID, err)
	}
	return &reply, nil
}

package service

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/node"
)

// nodeUptimes reads the primary-network validators' uptimes from the
// indexed node's platform.getCurrentValidators: what the node observes,
// which no chain holds.
type nodeUptimes struct{ client *node.Client }

func (u nodeUptimes) Uptimes(ctx context.Context) (map[ids.NodeID]api.Uptime, error) {
	vdrs, err := u.client.CurrentValidators(ctx, platformvm.GetCurrentValidatorsArgs{SubnetID: constants.PrimaryNetworkID})
	if err != nil {
		return nil, err
	}
	out := make(map[ids.NodeID]api.Uptime, len(vdrs))
	for _, v := range vdrs {
		if v.NodeID == ids.EmptyNodeID || v.Uptime == nil {
			continue
		}
		up := api.Uptime{Percent: float64(*v.Uptime)}
		if v.Connected != nil {
			up.Connected = *v.Connected
		}
		out[v.NodeID] = up
	}
	return out, nil
}

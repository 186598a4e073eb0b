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
// which no chain holds; and, from info.peers, each validator's version
// and the chains the node benches it on (the node's own version for
// itself, which it never benches).
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
	// The peers' part is best effort: the uptimes stand without it (the
	// versions are then left out, nothing reads as benched).
	peers, err := u.client.Peers(ctx)
	if err != nil {
		return out, nil
	}
	for _, p := range peers {
		up, ok := out[p.ID]
		if !ok {
			continue
		}
		up.Version, up.BenchedOn = p.Version, p.Benched
		out[p.ID] = up
	}
	if self, _, err := u.client.NodeID(ctx); err == nil {
		if up, ok := out[self]; ok {
			if up.Version, err = u.client.NodeVersion(ctx); err == nil {
				out[self] = up
			}
		}
	}
	return out, nil
}

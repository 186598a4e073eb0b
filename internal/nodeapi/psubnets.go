package nodeapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
)

// GetSubnets answers the subnets of args.IDs (unknown ids left out), or
// every subnet then the primary network. A subnet made permissionless
// shows no control keys, as on the node.
//
// The node lists every subnet in the order of a list it caches (see
// GetBlockchains): creation order on a node run from genesis, which is
// avaindex's order.
func (p *Platform) GetSubnets(r *http.Request, args *platformvm.GetSubnetsArgs, reply *platformvm.GetSubnetsResponse) error {
	ctx := r.Context()
	if len(args.IDs) == 0 {
		subnets, err := p.store.Subnets(ctx)
		if err != nil {
			return storeError("error getting subnets from database", err)
		}
		reply.Subnets = make([]platformvm.APISubnet, 0, len(subnets)+1)
		for _, s := range subnets {
			a, err := p.apiSubnet(s)
			if err != nil {
				return err
			}
			reply.Subnets = append(reply.Subnets, a)
		}
		reply.Subnets = append(reply.Subnets, primaryAPISubnet())
		return nil
	}
	seen := set.NewSet[ids.ID](len(args.IDs))
	for _, id := range args.IDs {
		if seen.Contains(id) {
			continue
		}
		seen.Add(id)
		if id == constants.PrimaryNetworkID {
			reply.Subnets = append(reply.Subnets, primaryAPISubnet())
			continue
		}
		s, err := p.store.Subnet(ctx, id)
		if errors.Is(err, derrors.NotFound) {
			if err := p.notASubnet(ctx, id); err != nil {
				return err
			}
			continue // no such tx: left out
		}
		if err != nil {
			return storeError("couldn't get subnet", err)
		}
		a, err := p.apiSubnet(s)
		if err != nil {
			return err
		}
		reply.Subnets = append(reply.Subnets, a)
	}
	return nil
}

// notASubnet is the node's error for an id that is an accepted tx other
// than a CreateSubnetTx; nil when no accepted tx has the id.
func (p *Platform) notASubnet(ctx context.Context, id ids.ID) error {
	_, _, err := p.acceptedTx(ctx, id)
	switch {
	case errors.Is(err, derrors.NotFound):
		return nil
	case err != nil:
		return storeError("couldn't get subnet", err)
	}
	return fmt.Errorf("%q is not a subnet", id)
}

func primaryAPISubnet() platformvm.APISubnet {
	return platformvm.APISubnet{ID: constants.PrimaryNetworkID, ControlKeys: []string{}}
}

// apiSubnet is s as getSubnets shows it: no control keys once it was made
// permissionless, else its current owner.
func (p *Platform) apiSubnet(s *pchain.Subnet) (platformvm.APISubnet, error) {
	if s.TransformTxID != ids.Empty {
		return platformvm.APISubnet{ID: s.ID, ControlKeys: []string{}}, nil
	}
	keys, err := p.controlKeys(s.Owner.Addresses)
	if err != nil {
		return platformvm.APISubnet{}, err
	}
	return platformvm.APISubnet{ID: s.ID, ControlKeys: keys, Threshold: avajson.Uint32(s.Owner.Threshold)}, nil
}

// controlKeys formats a subnet owner's addresses as the node does.
func (p *Platform) controlKeys(addrs []ids.ShortID) ([]string, error) {
	keys := make([]string, len(addrs))
	for i, a := range addrs {
		var err error
		if keys[i], err = address.Format("P", p.network.HRP, a[:]); err != nil {
			return nil, fmt.Errorf("problem formatting address: %w", err)
		}
	}
	return keys, nil
}

package warpagg

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/node"
)

// NodeSource answers the aggregator's P-chain questions and tells where
// validators are, from an avalanchego node:
//
//   - validator sets from platform.getValidatorsAt: exactly the sets warp
//     verification reads (validators.State.GetValidatorSet), with BLS keys,
//     at any height the node keeps, for the primary network and L1s alike;
//     the aggregator caches them per subnet and height;
//   - a chain's subnet from platform.validatedBy;
//   - addresses from info.peers (each peer's signed public IP) and the
//     node's own info.getNodeID and info.getNodeIP.
type NodeSource struct {
	Client *node.Client
}

var (
	_ ValidatorSource = NodeSource{}
	_ PeerSource      = NodeSource{}
)

// SubnetOf returns the subnet validating chainID.
func (s NodeSource) SubnetOf(ctx context.Context, chainID ids.ID) (ids.ID, error) {
	id, err := s.Client.ValidatedBy(ctx, chainID)
	if node.IsNotFound(err) {
		return ids.Empty, fmt.Errorf("%w: %w", ErrUnknownChain, err)
	}
	return id, upstream(err)
}

// Height returns the P-chain's last accepted height.
func (s NodeSource) Height(ctx context.Context) (uint64, error) {
	h, err := s.Client.PHeight(ctx)
	return h, upstream(err)
}

// ProposedHeight returns the node's proposed P-chain height.
func (s NodeSource) ProposedHeight(ctx context.Context) (uint64, error) {
	h, err := s.Client.ProposedHeight(ctx)
	return h, upstream(err)
}

// ValidatorsAt returns subnetID's validators at height.
func (s NodeSource) ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) (map[ids.NodeID]*validators.GetValidatorOutput, error) {
	vdrs, err := s.Client.ValidatorsAt(ctx, subnetID, height)
	return vdrs, upstream(err)
}

// upstream gives an error the node answered (which carries no kind) the
// kind BadGateway; transport failures are already Unavailable.
func upstream(err error) error {
	if err == nil || derrors.ToStatus(err) != http.StatusInternalServerError {
		return err
	}
	return fmt.Errorf("%w: %w", derrors.BadGateway, err)
}

// PeerAddrs returns the node's address and its peers' public addresses.
func (s NodeSource) PeerAddrs(ctx context.Context) (map[ids.NodeID]netip.AddrPort, error) {
	peers, err := s.Client.Peers(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[ids.NodeID]netip.AddrPort, len(peers)+1)
	for _, p := range peers {
		// IP is the connection's remote end, an ephemeral port for an
		// inbound connection; PublicIP is the address the peer signed.
		if dialable(p.PublicIP) {
			out[p.ID] = p.PublicIP
		}
	}
	id, _, err := s.Client.NodeID(ctx)
	if err != nil {
		return nil, err
	}
	ip, err := s.Client.NodeIP(ctx)
	if err != nil {
		return nil, err
	}
	if dialable(ip) {
		out[id] = ip
	}
	return out, nil
}

func dialable(a netip.AddrPort) bool {
	return a.IsValid() && !a.Addr().IsUnspecified() && a.Port() != 0
}

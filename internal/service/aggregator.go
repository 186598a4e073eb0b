package service

import (
	"fmt"
	"log/slog"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/warpagg"
	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
)

// newAggregator starts the warp signature aggregator of network: an
// outbound-only peer of the network with a fresh TLS identity, reaching the
// validators the node knows (info.peers) and reading validator sets from
// the node. stop closes the peer.
func newAggregator(network *internal.Network, client *node.Client, log *slog.Logger) (_ *warpagg.Aggregator, stop func(), err error) {
	peer, err := p2pnet.New(p2pnet.Config{NetworkID: network.ID})
	if err != nil {
		return nil, nil, fmt.Errorf("signature aggregator: %w", err)
	}
	src := warpagg.NodeSource{Client: client}
	agg, err := warpagg.New(warpagg.Config{
		NetworkID:  network.ID,
		Validators: src,
		Peers:      src,
		Net:        peer,
		Registerer: instrument.Registerer(),
		Log:        log,
	})
	if err != nil {
		peer.Close()
		return nil, nil, fmt.Errorf("signature aggregator: %w", err)
	}
	log.Info("signature aggregator ready", "nodeID", peer.NodeID())
	return agg, peer.Close, nil
}

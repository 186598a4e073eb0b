package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
)

// evmChains builds the registry of the EVM chains network serves (its
// C-chain, the configured ones and those discovered on the P-chain), whose
// Chains() the indexer follows, new ones too, and the curated contract
// metadata. The registry's status checks are a worker (Registry.Run).
func evmChains(ctx context.Context, st store.Store, client *node.Client, network *internal.Network, cfg *config.Config, log *slog.Logger) (*evmchains.Registry, *evmchains.Catalog, error) {
	catalog, err := evmchains.LoadCatalog(cfg.ContractMetadataFiles...)
	if err != nil {
		return nil, nil, err
	}
	reg, err := evmchains.New(ctx, evmchains.Options{
		Network: network,
		Node:    client,
		CChain:  cfg.CChain,
		Chains:  cfg.EVMChains,
		// Chains the P-chain created and the node serves are discovered.
		DiscoverVMIDs: cfg.DiscoverEVMVMIDs,
		PChain:        st,
		Cursors:       st,
		Settings:      st,
		Log:           log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("EVM chains: %w", err)
	}
	for _, c := range reg.Chains() {
		log.Info("EVM chain", "chainId", c.ChainID, "blockchainId", c.BlockchainID, "rpcUrl", c.RPCURL)
	}
	return reg, catalog, nil
}

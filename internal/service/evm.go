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
// Chains() the indexer follows, new ones too,
// and the curated contract metadata, and starts the registry's status
// checks until ctx is done or stop is called.
func evmChains(ctx context.Context, st store.Store, client *node.Client, network *internal.Network, cfg *config.Config, log *slog.Logger) (_ *evmchains.Registry, _ *evmchains.Catalog, stop func(), err error) {
	catalog, err := evmchains.LoadCatalog(cfg.ContractMetadataFiles...)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
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
		cancel()
		return nil, nil, nil, fmt.Errorf("EVM chains: %w", err)
	}
	for _, c := range reg.Chains() {
		log.Info("EVM chain", "chainId", c.ChainID, "blockchainId", c.BlockchainID, "rpcUrl", c.RPCURL)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.Run(ctx)
	}()
	return reg, catalog, func() { cancel(); <-done }, nil
}

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
// C-chain and the configured ones), whose Chains() the indexer follows,
// and the curated contract metadata. The registry's status checks are a
// worker (Registry.Run).
func evmChains(ctx context.Context, st store.Store, client *node.Client, network *internal.Network, cfg *config.Config, log *slog.Logger) (*evmchains.Registry, *evmchains.Catalog, error) {
	catalog, err := evmchains.LoadCatalog(cfg.ContractMetadataFiles...)
	if err != nil {
		return nil, nil, err
	}
	reg, err := evmchains.New(ctx, evmchains.Options{
		Network:  network,
		Node:     client,
		CChain:   cfg.CChain,
		Chains:   cfg.EVMChains,
		PChain:   st,
		Cursors:  st,
		Settings: st,
		Log:      log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("EVM chains: %w", err)
	}
	for _, c := range reg.Chains() {
		log.Info("EVM chain", "chainId", c.ChainID, "blockchainId", c.BlockchainID, "rpcUrl", c.RPCURL)
	}
	return reg, catalog, nil
}

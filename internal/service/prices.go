package service

import (
	"github.com/ava-labs/avalanchego/ids"

	"log/slog"
	"strings"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/prices"
)

var _ api.PriceSource = (*prices.Source)(nil)

// priceSource is the Data API's prices: none without --price-api-url
// (every price field omitted), else the configured feed's, for AVAX, the
// native token of each EVM chain whose symbol is AVAX, and the
// --price-coin entries (which may replace those defaults).
func priceSource(cfg config.Prices, network *internal.Network, chains *evmchains.Registry, log *slog.Logger) (api.PriceSource, error) {
	if cfg.APIURL == "" {
		return api.NoPrices{}, nil
	}
	feed, err := prices.NewCoinGecko(prices.Options{
		URL:               cfg.APIURL,
		APIKey:            cfg.APIKey,
		KeyHeader:         cfg.APIKeyHeader,
		Currencies:        api.Currencies,
		RequestsPerMinute: cfg.RequestsPerMinute,
		CurrentTTL:        cfg.CacheTTL,
		Registerer:        instrument.Registerer(),
		Log:               log,
	})
	if err != nil {
		return nil, err
	}
	avax := network.AVAXAssetID
	coins := prices.Coins{
		Assets: map[ids.ID]string{avax: prices.AVAXCoin},
		Tokens: map[prices.Token]string{},
		// A chain's native token not configured is AVAX's when its
		// symbol says so (the C-chain's).
		Native: func(chainID uint64) (string, bool) {
			c, ok := chains.ByChainID(chainID)
			return prices.AVAXCoin, ok && strings.EqualFold(c.NetworkToken.Symbol, "AVAX")
		},
	}
	for _, c := range cfg.Coins {
		switch {
		case c.AVAX:
			coins.Assets[avax] = c.Coin
		case c.ChainID == 0:
			coins.Assets[c.Asset] = c.Coin
		default:
			coins.Tokens[prices.Token{ChainID: c.ChainID, Address: c.Token}] = c.Coin
		}
	}
	log.Info("prices", "url", cfg.APIURL, "coins", len(coins.Assets)+len(coins.Tokens))
	return prices.NewSource(feed, coins), nil
}

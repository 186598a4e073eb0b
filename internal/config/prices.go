package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// Prices configures the price feed: a CoinGecko-compatible API, and the
// coin ids of what the Data API prices. Without APIURL no price is
// served (every price field is omitted).
type Prices struct {
	APIURL       string
	APIKey       string
	APIKeyHeader string
	// Coins are the --price-coin entries (after the config file's
	// price-coins map), in order: a later one for the same key wins.
	Coins []PriceCoin
	// RequestsPerMinute limits the requests made to the API.
	RequestsPerMinute float64
	// CacheTTL is how long a current price is kept.
	CacheTTL time.Duration
	// HistoricalMinAge is how long ago a transaction or reward must be
	// for its historicalPrice.
	HistoricalMinAge time.Duration

	// fileCoins are the config file's price-coins, as KEY=COIN.
	fileCoins []string
}

// PriceCoin is the coin id of one asset or token: the network's AVAX
// (AVAX), an X-chain asset (Asset), or an EVM chain's token (ChainID and
// Token, the zero address for the chain's native token).
type PriceCoin struct {
	AVAX    bool
	Asset   ids.ID
	ChainID uint64
	Token   common.Address
	Coin    string
}

// parse reads the KEY=COIN entries.
func (p *Prices) parse(entries []string) error {
	for _, e := range entries {
		c, err := parsePriceCoin(e)
		if err != nil {
			return fmt.Errorf("--price-coin %q: %w", e, err)
		}
		p.Coins = append(p.Coins, c)
	}
	return nil
}

func parsePriceCoin(e string) (PriceCoin, error) {
	key, coin, ok := strings.Cut(e, "=")
	key, coin = strings.TrimSpace(key), strings.TrimSpace(coin)
	if !ok || key == "" || coin == "" {
		return PriceCoin{}, fmt.Errorf("must be KEY=COIN")
	}
	if strings.ContainsAny(coin, "/?#%, ") {
		return PriceCoin{}, fmt.Errorf("coin id %q has a character no coin id has", coin)
	}
	c := PriceCoin{Coin: coin}
	if strings.EqualFold(key, "avax") {
		c.AVAX = true
		return c, nil
	}
	chain, token, ok := strings.Cut(key, ":")
	if !ok {
		id, err := ids.FromString(key)
		if err != nil {
			return PriceCoin{}, fmt.Errorf("key %q is not avax, an asset id, CHAINID:native or CHAINID:0xTOKEN", key)
		}
		c.Asset = id
		return c, nil
	}
	n, err := strconv.ParseUint(chain, 10, 64)
	if err != nil || n == 0 {
		return PriceCoin{}, fmt.Errorf("chain id %q is not a positive decimal number", chain)
	}
	c.ChainID = n
	switch {
	case strings.EqualFold(token, "native"):
	case hexAddress.MatchString(token):
		c.Token = common.HexToAddress(token)
	default:
		return PriceCoin{}, fmt.Errorf("token %q is not native or a 0x-prefixed 20-byte hex address", token)
	}
	return c, nil
}

func (p *Prices) validate() error {
	if p.APIURL != "" {
		u, err := url.Parse(p.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			return fmt.Errorf("--price-api-url must be an http(s) URL without a query, got %q", p.APIURL)
		}
	}
	if p.APIKeyHeader != "" && strings.ContainsAny(p.APIKeyHeader, " :\r\n") {
		return fmt.Errorf("--price-api-key-header %q is not a header name", p.APIKeyHeader)
	}
	if p.RequestsPerMinute <= 0 {
		return fmt.Errorf("--price-rate-limit must be positive, got %v", p.RequestsPerMinute)
	}
	if p.CacheTTL <= 0 {
		return fmt.Errorf("--price-cache-ttl must be positive, got %s", p.CacheTTL)
	}
	if p.HistoricalMinAge < 0 {
		return fmt.Errorf("--historical-price-min-age must not be negative, got %s", p.HistoricalMinAge)
	}
	return nil
}

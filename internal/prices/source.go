package prices

import (
	"context"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// AVAXCoin is the feed's coin id of AVAX (CoinGecko's).
const AVAXCoin = "avalanche-2"

// Token is an EVM token: a contract of a chain, or the chain's native
// token at the zero address.
type Token struct {
	ChainID uint64
	Address common.Address
}

// Coins maps what the Data API prices to the feed's coin ids.
type Coins struct {
	// Assets are primary-network assets (AVAX, for the rewards).
	Assets map[ids.ID]string
	// Tokens are EVM tokens; an entry at the zero address names a
	// chain's native token.
	Tokens map[Token]string
	// Native, when set, gives the coin of a chain's native token that
	// Tokens does not name.
	Native func(chainID uint64) (coin string, ok bool)
}

// Source tells the prices of the assets and tokens Coins maps, from a
// feed: the Data API's PriceSource. It never returns an error: a feed's
// failure is logged and counted by the feed, and the price is unknown.
type Source struct {
	feed  *CoinGecko
	coins Coins
}

// NewSource returns the prices of coins from feed.
func NewSource(feed *CoinGecko, coins Coins) *Source {
	return &Source{feed: feed, coins: coins}
}

// HistoricalPrice returns the price of one whole unit of assetID in
// currency on at's day.
func (s *Source) HistoricalPrice(ctx context.Context, assetID ids.ID, at time.Time, currency string) (float64, bool, error) {
	coin, ok := s.coins.Assets[assetID]
	if !ok {
		return 0, false, nil
	}
	v, ok := s.feed.Historical(ctx, coin, at, currency)
	return v, ok, nil
}

// TokenPrice returns the price of one whole token in currency: the
// current one when at is zero, else the one of at's day.
func (s *Source) TokenPrice(ctx context.Context, chainID uint64, token common.Address, at time.Time, currency string) (float64, bool, error) {
	coin, ok := s.coins.Tokens[Token{ChainID: chainID, Address: token}]
	if !ok && token == (common.Address{}) && s.coins.Native != nil {
		coin, ok = s.coins.Native(chainID)
	}
	if !ok {
		return 0, false, nil
	}
	var v float64
	if at.IsZero() {
		v, ok = s.feed.Current(ctx, coin, currency)
	} else {
		v, ok = s.feed.Historical(ctx, coin, at, currency)
	}
	return v, ok, nil
}

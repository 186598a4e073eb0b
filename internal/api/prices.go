package api

import (
	"context"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// PriceSource tells prices: of primary-network assets, for the
// historicalPrice of rewards, and of EVM tokens, for balances and
// transfers. It is the one price seam: internal/prices implements it over
// a CoinGecko-compatible feed; without a feed the default, NoPrices, knows
// none, and every price field is omitted (never null). An implementation
// should not turn a feed's failure into an error (which fails the
// request): the price is then unknown.
type PriceSource interface {
	// HistoricalPrice returns the price of one whole unit of assetID (its
	// denomination applied) in currency (a Currencies value) at time at;
	// ok is false when it is not known.
	HistoricalPrice(ctx context.Context, assetID ids.ID, at time.Time, currency string) (value float64, ok bool, err error)
	// TokenPrice returns the price of one whole token (its decimals
	// applied) of the EVM chain chainID in currency: the contract at
	// token, or the chain's native token when token is the zero address;
	// at time at, or the current price when at is zero. ok is false when
	// it is not known.
	TokenPrice(ctx context.Context, chainID uint64, token common.Address, at time.Time, currency string) (value float64, ok bool, err error)
}

// NoPrices is the PriceSource that knows no price.
type NoPrices struct{}

// HistoricalPrice knows no price.
func (NoPrices) HistoricalPrice(context.Context, ids.ID, time.Time, string) (float64, bool, error) {
	return 0, false, nil
}

// TokenPrice knows no price.
func (NoPrices) TokenPrice(context.Context, uint64, common.Address, time.Time, string) (float64, bool, error) {
	return 0, false, nil
}

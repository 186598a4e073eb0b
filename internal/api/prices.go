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

// priceWait is how long one response waits for prices in all: a price the
// source has not told by then is omitted (a feed's answer still comes, for
// the next request), so that a slow feed slows no response more than this.
const priceWait = 2 * time.Second

// boundedPrices is the PriceSource of one response: its lookups end by the
// response's deadline.
type boundedPrices struct {
	src      PriceSource
	deadline time.Time
}

// responsePrices returns the prices of a response starting now.
func (a *API) responsePrices() *boundedPrices {
	return &boundedPrices{src: a.prices, deadline: time.Now().Add(priceWait)}
}

// HistoricalPrice is PriceSource.HistoricalPrice by the deadline.
func (p *boundedPrices) HistoricalPrice(ctx context.Context, assetID ids.ID, at time.Time, currency string) (float64, bool, error) {
	ctx, cancel := context.WithDeadline(ctx, p.deadline)
	defer cancel()
	return p.src.HistoricalPrice(ctx, assetID, at, currency)
}

// TokenPrice is PriceSource.TokenPrice by the deadline.
func (p *boundedPrices) TokenPrice(ctx context.Context, chainID uint64, token common.Address, at time.Time, currency string) (float64, bool, error) {
	// Without a feed there is nothing to wait for: no timer a token (a
	// page of 500 balances asks 500 times).
	if _, none := p.src.(NoPrices); none {
		return 0, false, nil
	}
	ctx, cancel := context.WithDeadline(ctx, p.deadline)
	defer cancel()
	return p.src.TokenPrice(ctx, chainID, token, at, currency)
}

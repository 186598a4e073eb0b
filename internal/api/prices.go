package api

import (
	"context"
	"time"

	"github.com/ava-labs/avalanchego/ids"
)

// PriceSource tells the historical price of an asset. The Data API asks it
// for the historicalPrice of rewards; avaindex has no price feed yet, so
// the default, NoPrices, knows none and the field is omitted.
type PriceSource interface {
	// HistoricalPrice returns the price of one whole unit of assetID (its
	// denomination applied) in currency (a Currencies value) at time at;
	// ok is false when it is not known.
	HistoricalPrice(ctx context.Context, assetID ids.ID, at time.Time, currency string) (value float64, ok bool, err error)
}

// NoPrices is the PriceSource that knows no price.
type NoPrices struct{}

// HistoricalPrice knows no price.
func (NoPrices) HistoricalPrice(context.Context, ids.ID, time.Time, string) (float64, bool, error) {
	return 0, false, nil
}

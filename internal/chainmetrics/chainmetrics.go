// Package chainmetrics holds what the Metrics API computes, with no I/O:
// the UTC periods a chain's blocks are rolled up into, the rollup of one
// period, and each metric's value from a period's rollup. The store keeps
// the rollups (store/metrics.go) and the Metrics API reads them
// (internal/metricsapi); both follow the definitions here.
package chainmetrics

import (
	"time"
)

// Period is a rollup granularity, named as the Metrics API's timeInterval.
type Period string

const (
	Hour  Period = "hour"
	Day   Period = "day"
	Week  Period = "week" // from Monday 00:00 UTC
	Month Period = "month"
)

// Periods are every period a chain is rolled up into.
var Periods = []Period{Hour, Day, Week, Month}

// Start returns the start (unix seconds, UTC) of the period holding ts.
func (p Period) Start(ts int64) int64 {
	// Unix time has no leap seconds: hours, days and weeks are fixed
	// spans from the epoch, and only months need the calendar. The rollup
	// calls this for every block and address, so the fixed ones skip it.
	switch p {
	case Hour:
		return floorTo(ts, 0, 3600)
	case Day:
		return floorTo(ts, 0, 86400)
	case Week:
		return floorTo(ts, mondayEpoch, 7*86400)
	case Month:
		t := time.Unix(ts, 0).UTC()
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	return floorTo(ts, 0, 86400) // Day
}

// mondayEpoch is 1970-01-05 00:00 UTC, the first Monday after the epoch.
const mondayEpoch = 4 * 86400

// floorTo returns the latest origin + k*unit (k an integer) at or before ts.
func floorTo(ts, origin, unit int64) int64 {
	r := (ts - origin) % unit
	if r < 0 {
		r += unit
	}
	return ts - r
}

// Prev returns the start of the period before the one starting at start.
func (p Period) Prev(start int64) int64 {
	t := time.Unix(start, 0).UTC()
	switch p {
	case Hour:
		return start - 3600
	case Week:
		return start - 7*86400
	case Month:
		return t.AddDate(0, -1, 0).Unix()
	default:
		return t.AddDate(0, 0, -1).Unix()
	}
}

// Block is one block as the metrics see it, decoded by its chain.
type Block struct {
	Height uint64
	// Time is the block's timestamp in unix seconds; 0 when the block
	// carries none (pre-Banff P-chain blocks), and then it is not counted.
	Time int64
	Txs  int
	// The gas of EVM blocks; zero on the P- and X-chains.
	GasUsed     uint64
	GasPriceSum float64 // the txs' effective gas prices (wei), summed
	GasPriceMax float64
	Fees        float64 // gas used times gas price, summed over the txs (wei)
	Contracts   int     // contracts the block's txs created
	// Addresses are those its txs touch, Senders those that send (spend)
	// and Deployers those that create contracts; they may repeat.
	Addresses, Senders, Deployers [][]byte
}

// Rollup is what a chain's blocks of one period add up to. The distinct
// counts and the cumulative totals are the store's to set: they depend on
// every block before.
type Rollup struct {
	Start                 int64
	Blocks, Txs           int64
	GasUsed               int64
	GasPriceSum, GasPrice float64 // GasPrice is the maximum
	Fees                  float64
	MaxTPS, MaxGPS        float64
	// FirstTS and LastTS are the period's first and last blocks' times,
	// PrevTS the time of the block before its first (0 when that is the
	// genesis, which no period counts).
	FirstTS, LastTS, PrevTS                          int64
	Addresses, Senders, Contracts, Deployers         int64
	CumTxs, CumAddresses, CumContracts, CumDeployers int64
}

// Add counts block b, which follows a block at prevTS (0: b is the first
// after the genesis), into r.
func (r *Rollup) Add(b *Block, prevTS int64) {
	if r.Blocks == 0 {
		r.FirstTS, r.PrevTS = b.Time, prevTS
	}
	r.Blocks++
	r.Txs += int64(b.Txs)
	r.GasUsed += int64(b.GasUsed)
	r.GasPriceSum += b.GasPriceSum
	r.GasPrice = max(r.GasPrice, b.GasPriceMax)
	r.Fees += b.Fees
	r.Contracts += int64(b.Contracts)
	r.LastTS = b.Time
	// A block's rate is over the seconds since the block before it, at
	// least one; the first block after the genesis has none before it.
	secs := int64(1)
	if prevTS > 0 {
		secs = max(1, b.Time-prevTS)
	}
	r.MaxTPS = max(r.MaxTPS, float64(b.Txs)/float64(secs))
	r.MaxGPS = max(r.MaxGPS, float64(b.GasUsed)/float64(secs))
}

// Seconds is the span the period's averages are over: from the block
// before the period's first (from its first block, after the genesis) to
// its last, at least one second.
func (r *Rollup) Seconds() int64 {
	from := r.PrevTS
	if from == 0 {
		from = r.FirstTS
	}
	return max(1, r.LastTS-from)
}

// Metric is a chain metric, named as the Metrics API's ChainMetric.
type Metric string

const (
	ActiveAddresses     Metric = "activeAddresses"
	ActiveSenders       Metric = "activeSenders"
	CumulativeTxCount   Metric = "cumulativeTxCount"
	CumulativeAddresses Metric = "cumulativeAddresses"
	CumulativeContracts Metric = "cumulativeContracts"
	CumulativeDeployers Metric = "cumulativeDeployers"
	Contracts           Metric = "contracts"
	Deployers           Metric = "deployers"
	GasUsed             Metric = "gasUsed"
	TxCount             Metric = "txCount"
	AvgGps              Metric = "avgGps"
	MaxGps              Metric = "maxGps"
	AvgTps              Metric = "avgTps"
	MaxTps              Metric = "maxTps"
	AvgGasPrice         Metric = "avgGasPrice"
	MaxGasPrice         Metric = "maxGasPrice"
	FeesPaid            Metric = "feesPaid"
)

// Metrics are every chain metric, in the schema's order.
var Metrics = []Metric{ActiveAddresses, ActiveSenders, CumulativeTxCount, CumulativeAddresses,
	CumulativeContracts, CumulativeDeployers, Contracts, Deployers, GasUsed, TxCount, AvgGps,
	MaxGps, AvgTps, MaxTps, AvgGasPrice, MaxGasPrice, FeesPaid}

// ParseMetric returns the metric named s.
func ParseMetric(s string) (Metric, bool) {
	for _, m := range Metrics {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// DayOnly reports whether m is defined over days only (the averages,
// maxima, cumulative counts, contracts, deployers and fees).
func (m Metric) DayOnly() bool {
	switch m {
	case ActiveAddresses, ActiveSenders, GasUsed, TxCount:
		return false
	}
	return true
}

// Cumulative reports whether m counts from the genesis, so that a period
// without blocks carries the value of the last one with blocks.
func (m Metric) Cumulative() bool {
	switch m {
	case CumulativeTxCount, CumulativeAddresses, CumulativeContracts, CumulativeDeployers:
		return true
	}
	return false
}

// Value is m over the period whose rollup is r, nil when the period has
// no blocks; for a cumulative metric such a period answers last, the
// rollup of the last period before it with blocks (nil when none).
func Value(m Metric, r, last *Rollup) float64 {
	if r == nil {
		if m.Cumulative() && last != nil {
			return Value(m, last, nil)
		}
		return 0
	}
	switch m {
	case ActiveAddresses:
		return float64(r.Addresses)
	case ActiveSenders:
		return float64(r.Senders)
	case CumulativeTxCount:
		return float64(r.CumTxs)
	case CumulativeAddresses:
		return float64(r.CumAddresses)
	case CumulativeContracts:
		return float64(r.CumContracts)
	case CumulativeDeployers:
		return float64(r.CumDeployers)
	case Contracts:
		return float64(r.Contracts)
	case Deployers:
		return float64(r.Deployers)
	case GasUsed:
		return float64(r.GasUsed)
	case TxCount:
		return float64(r.Txs)
	case AvgGps:
		return float64(r.GasUsed) / float64(r.Seconds())
	case MaxGps:
		return r.MaxGPS
	case AvgTps:
		return float64(r.Txs) / float64(r.Seconds())
	case MaxTps:
		return r.MaxTPS
	case AvgGasPrice:
		if r.Txs == 0 {
			return 0
		}
		return r.GasPriceSum / float64(r.Txs)
	case MaxGasPrice:
		return r.GasPrice
	case FeesPaid:
		return r.Fees
	}
	return 0
}

// Next returns the start of the period after the one starting at start.
func (p Period) Next(start int64) int64 {
	t := time.Unix(start, 0).UTC()
	switch p {
	case Hour:
		return start + 3600
	case Week:
		return start + 7*86400
	case Month:
		return t.AddDate(0, 1, 0).Unix()
	default:
		return t.AddDate(0, 0, 1).Unix()
	}
}

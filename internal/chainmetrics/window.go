package chainmetrics

// Rolling windows (getEvmChainRollingWindowMetrics): a metric over the
// last hour, day, week, month, 90 days, year and all time, up to now.

// Window is a rolling window, named as the Metrics API's
// ChainRollingWindowMetricsValue field.
type Window struct {
	Name string
	// Span is the window's length in seconds; 0 for all time.
	Span int64
}

// Windows are every rolling window, in the schema's order.
var Windows = []Window{
	{"lastHour", 3600},
	{"lastDay", 86400},
	{"lastWeek", 7 * 86400},
	{"lastMonth", 30 * 86400},
	{"last90Days", 90 * 86400},
	{"lastYear", 365 * 86400},
	{"allTime", 0},
}

// WindowMetrics are the metrics served over rolling windows, in the
// schema's order (ChainRollingWindowMetric).
var WindowMetrics = []Metric{GasUsed, TxCount, AvgGps, MaxGps, AvgTps, MaxTps, AvgGasPrice, MaxGasPrice,
	FeesPaid, Contracts, Deployers, ActiveAddresses, ActiveSenders}

// HasWindow reports whether m is defined over w: the active addresses and
// senders only over the last hour, day and week (the reference's rule).
func (m Metric) HasWindow(w Window) bool {
	if m == ActiveAddresses || m == ActiveSenders {
		return w.Span > 0 && w.Span <= 7*86400
	}
	return true
}

// Distinct reports whether m counts distinct addresses, which no sum of
// rollups gives: the store counts them over a window.
func (m Metric) Distinct() bool {
	return m == ActiveAddresses || m == ActiveSenders || m == Deployers
}

// WindowStart returns the start of w up to now: the first UTC hour that
// starts at or after now − Span. A window is whole hours, the rollups'
// finest period, so that it is the same sum however it is read.
func (w Window) WindowStart(now int64) int64 {
	from := now - w.Span
	s := Hour.Start(from)
	if s < from {
		s += 3600
	}
	return s
}

// Spans splits the hours from from (an hour's start) to now into what the
// rollups hold: the hours before the first whole day, the whole days, and
// the hours of the last day, each as [start, end) of period starts.
func Spans(from, now int64) (headHours, days, tailHours [2]int64) {
	today := Day.Start(now)
	firstDay := Day.Start(from)
	if firstDay < from {
		firstDay += 86400
	}
	if firstDay >= today {
		// Within one day (or two partial ones): hours only.
		return [2]int64{from, now + 1}, [2]int64{}, [2]int64{}
	}
	return [2]int64{from, firstDay}, [2]int64{firstDay, today}, [2]int64{today, now + 1}
}

// Merge adds r, a period's rollup, into w, the sum of a window's periods.
// The averages of the sum are over its FirstTS to LastTS: the caller sets
// them to the window's bounds.
func (w *Rollup) Merge(r *Rollup) {
	w.Blocks += r.Blocks
	w.Txs += r.Txs
	w.GasUsed += r.GasUsed
	w.GasPriceSum += r.GasPriceSum
	w.GasPrice = max(w.GasPrice, r.GasPrice)
	w.Fees += r.Fees
	w.MaxTPS = max(w.MaxTPS, r.MaxTPS)
	w.MaxGPS = max(w.MaxGPS, r.MaxGPS)
	w.Contracts += r.Contracts
}

// WindowValue is m over a window whose periods add up to sum, from its
// start from to now: the averages are per second of that span, at least
// one.
func WindowValue(m Metric, sum Rollup, from, now int64) float64 {
	sum.FirstTS, sum.PrevTS, sum.LastTS = from, 0, now
	return Value(m, &sum, nil)
}

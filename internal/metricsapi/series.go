package metricsapi

import (
	"context"
	"math"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/store"
)

// seriesQuery is one page of a metric's series over some chains.
type seriesQuery struct {
	chains []store.MetricChain
	metric chainmetrics.Metric
	period chainmetrics.Period
	// from and to bound the periods' starts (inclusive); the series never
	// runs past the current period, nor before the period of the chains'
	// first block after the genesis.
	from, to int64
	// next, when set (from a page token), is the start of the page's first
	// period.
	next *int64
	size int
}

// point is one value of a series.
type point struct {
	Timestamp int64
	Value     float64
}

// series returns one page of q's points, the latest first: each period
// from the last one down, periods without blocks answering 0 (a
// cumulative metric, its last value), and the start of the next page's
// first period when there is one (more).
func (a *API) series(ctx context.Context, q seriesQuery, now int64) (points []point, next int64, more bool, err error) {
	if len(q.chains) == 0 {
		return nil, 0, false, nil
	}
	p := q.period
	first := int64(math.MaxInt64)
	for _, c := range q.chains {
		first = min(first, p.Start(c.FirstTS))
	}
	hi := p.Start(min(q.to, now))
	if q.next != nil {
		hi = min(hi, p.Start(*q.next))
	}
	lo := max(first, q.from)
	var starts []int64
	for s := hi; s >= lo && len(starts) <= q.size; s = p.Prev(s) {
		starts = append(starts, s)
	}
	if len(starts) == 0 {
		return nil, 0, false, nil
	}
	if len(starts) > q.size {
		next, more = starts[q.size], true
		starts = starts[:q.size]
	}
	pageLo := starts[len(starts)-1]
	values := make([]float64, len(starts))
	for _, c := range q.chains {
		rows, err := a.store.MetricRollups(ctx, c.Key, p, pageLo, hi)
		if err != nil {
			return nil, 0, false, err
		}
		byStart := make(map[int64]*chainmetrics.Rollup, len(rows))
		for i := range rows {
			byStart[rows[i].Start] = &rows[i]
		}
		// A cumulative metric carries its last value over the periods
		// without blocks, from before the page too.
		var last *chainmetrics.Rollup
		if q.metric.Cumulative() && byStart[pageLo] == nil {
			r, ok, err := a.store.MetricRollupBefore(ctx, c.Key, p, pageLo)
			if err != nil {
				return nil, 0, false, err
			}
			if ok {
				last = &r
			}
		}
		for i := len(starts) - 1; i >= 0; i-- {
			r := byStart[starts[i]]
			values[i] += chainmetrics.Value(q.metric, r, last)
			if r != nil {
				last = r
			}
		}
	}
	points = make([]point, len(starts))
	for i, s := range starts {
		points[i] = point{Timestamp: s, Value: values[i]}
	}
	return points, next, more, nil
}

// lastRun is when the chains' metrics last changed (unix seconds); now
// when none has any.
func lastRun(chains []store.MetricChain, now int64) int64 {
	var t int64
	for _, c := range chains {
		t = max(t, c.UpdatedAt)
	}
	if t == 0 {
		return now
	}
	return t
}

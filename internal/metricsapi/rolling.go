package metricsapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// rollingWindow serves GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}:
// the metric over each rolling window (chainmetrics.Windows) up to now,
// summed over the chains chainId names.
func (a *API) rollingWindow(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r); err != nil {
		return err
	}
	m, ok := chainmetrics.Metric(""), false
	for _, x := range chainmetrics.WindowMetrics {
		if string(x) == r.PathValue("metric") {
			m, ok = x, true
		}
	}
	if !ok {
		names := make([]string, len(chainmetrics.WindowMetrics))
		for i, x := range chainmetrics.WindowMetrics {
			names[i] = string(x)
		}
		return derrors.Invalid("metric must be one of %s, got %s", strings.Join(names, ", "), derrors.Echo(r.PathValue("metric")))
	}
	chains, err := a.chains(r.Context(), r.PathValue("chainId"), "chainId")
	if err != nil {
		return err
	}
	values, err := a.windows(r.Context(), chains, m, a.now().Unix())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, RollingWindowResponse{Result: values})
	return nil
}

// windows returns m over every window it has, up to now, over chains.
func (a *API) windows(ctx context.Context, chains []store.MetricChain, m chainmetrics.Metric, now int64) (map[string]float64, error) {
	var windows []chainmetrics.Window
	for _, w := range chainmetrics.Windows {
		if m.HasWindow(w) {
			windows = append(windows, w)
		}
	}
	sums := make([]chainmetrics.Rollup, len(windows))
	from := make([]int64, len(windows))
	firstTS := int64(0)
	for _, c := range chains {
		if firstTS == 0 || c.FirstTS < firstTS {
			firstTS = c.FirstTS
		}
	}
	for i, w := range windows {
		if w.Span == 0 {
			from[i] = firstTS
		} else {
			from[i] = w.WindowStart(now)
		}
	}
	for _, c := range chains {
		if err := a.chainWindows(ctx, c, m, windows, from, sums, now); err != nil {
			return nil, err
		}
	}
	out := make(map[string]float64, len(windows))
	for i, w := range windows {
		out[w.Name] = chainmetrics.WindowValue(m, sums[i], from[i], now)
	}
	return out, nil
}

// chainWindows adds chain c's periods of each window to sums.
func (a *API) chainWindows(ctx context.Context, c store.MetricChain, m chainmetrics.Metric, windows []chainmetrics.Window,
	from []int64, sums []chainmetrics.Rollup, now int64) error {
	// The days of the longest window hold those of every other: one read.
	var (
		days      []chainmetrics.Rollup
		daysFrom  int64
		haveDays  bool
		distinctT []int64
		distinctI []int
	)
	for i, w := range windows {
		if w.Span == 0 {
			continue
		}
		if _, d, _ := chainmetrics.Spans(from[i], now); d[1] > d[0] && (!haveDays || d[0] < daysFrom) {
			daysFrom, haveDays = d[0], true
		}
	}
	if haveDays {
		var err error
		if days, err = a.store.MetricRollups(ctx, c.Key, chainmetrics.Day, daysFrom, chainmetrics.Day.Start(now)-1); err != nil {
			return err
		}
	}
	// The hours of today, which every window ends with.
	today := chainmetrics.Day.Start(now)
	tail, err := a.store.MetricRollups(ctx, c.Key, chainmetrics.Hour, today, now)
	if err != nil {
		return err
	}
	for i, w := range windows {
		if w.Span == 0 {
			// All time: every month.
			months, err := a.store.MetricRollups(ctx, c.Key, chainmetrics.Month, 0, now)
			if err != nil {
				return err
			}
			for j := range months {
				sums[i].Merge(&months[j])
			}
			if n := len(months); n > 0 {
				// The last month's cumulative counts are the chain's.
				sums[i].Deployers += months[n-1].CumDeployers
			}
			continue
		}
		head, d, t := chainmetrics.Spans(from[i], now)
		hours, err := a.store.MetricRollups(ctx, c.Key, chainmetrics.Hour, head[0], head[1]-1)
		if err != nil {
			return err
		}
		if t[1] > t[0] {
			hours = append(hours, tail...)
		}
		for j := range hours {
			if hours[j].Start >= from[i] && hours[j].Start <= now {
				sums[i].Merge(&hours[j])
			}
		}
		for j := range days {
			if days[j].Start >= d[0] && days[j].Start < d[1] {
				sums[i].Merge(&days[j])
			}
		}
		if m.Distinct() {
			distinctT = append(distinctT, from[i])
			distinctI = append(distinctI, i)
		}
	}
	if len(distinctT) > 0 {
		counts, err := a.store.MetricActiveCounts(ctx, c.Key, distinctT)
		if err != nil {
			return err
		}
		for k, i := range distinctI {
			sums[i].Addresses += counts[k].Addresses
			sums[i].Senders += counts[k].Senders
			sums[i].Deployers += counts[k].Deployers
		}
	}
	return nil
}

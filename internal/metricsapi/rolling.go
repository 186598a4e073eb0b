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

// chainWindows adds chain c's periods of each window to sums: the hours
// at each window's ends and the days between (all time: the months),
// summed by the store in one round trip, and the distinct counts in
// another.
func (a *API) chainWindows(ctx context.Context, c store.MetricChain, m chainmetrics.Metric, windows []chainmetrics.Window,
	from []int64, sums []chainmetrics.Rollup, now int64) error {
	ranges := make([][]store.RollupRange, len(windows))
	for i, w := range windows {
		if w.Span == 0 {
			ranges[i] = []store.RollupRange{{Period: chainmetrics.Month, From: 0, To: now}}
			continue
		}
		h, d, t := chainmetrics.Spans(from[i], now)
		ranges[i] = []store.RollupRange{{Period: chainmetrics.Hour, From: h[0], To: h[1] - 1}}
		if d[1] > d[0] {
			ranges[i] = append(ranges[i], store.RollupRange{Period: chainmetrics.Day, From: d[0], To: d[1] - 1})
		}
		if t[1] > t[0] {
			ranges[i] = append(ranges[i], store.RollupRange{Period: chainmetrics.Hour, From: t[0], To: t[1] - 1})
		}
	}
	got, err := a.store.MetricRollupSums(ctx, c.Key, ranges)
	if err != nil {
		return err
	}
	var (
		distinctT []int64
		distinctI []int
	)
	for i, w := range windows {
		sums[i].Merge(&got[i])
		if w.Span == 0 {
			// The last month's cumulative count is the chain's.
			sums[i].Deployers += got[i].CumDeployers
			continue
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

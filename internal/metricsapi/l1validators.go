package metricsapi

import (
	"net/http"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The L1 Validator Metrics: the continuous fees L1 validators paid, per
// UTC day, from the L1 validator-fee state's history (store.
// L1FeeHistoryStore) — of all of them, of one validation, of a node's
// validations, of a subnet's.

// l1Value is what an L1 validator metric reads of a day.
type l1Value int

const (
	l1Fees       l1Value = iota // the fees charged on the day
	l1Cumulative                // all fees up to the day's end
	l1Paying                    // the validators that paid any fee on the day
)

// l1Metric is an L1 validator metric: its name and what it reads.
type l1Metric struct {
	name  string
	value l1Value
}

// The metrics of each operation, in the reference's order.
var (
	l1TotalMetrics = []l1Metric{
		{"totalCumulativeFeesDaily", l1Cumulative}, {"totalValidatorFeesDaily", l1Fees}, {"totalPayingValidatorsDaily", l1Paying},
	}
	l1ValidationMetrics = []l1Metric{{"validationCumulativeFeesDaily", l1Cumulative}, {"validationFeesDaily", l1Fees}}
	l1NodeMetrics       = []l1Metric{{"perNodeCumulativeFeesPaid", l1Cumulative}, {"perNodeDailyFeesPaid", l1Fees}}
	l1SubnetMetrics     = []l1Metric{
		{"perSubnetDailyFeesPaid", l1Fees}, {"perSubnetCumulativeFeesPaid", l1Cumulative}, {"perSubnetPayingValidators", l1Paying},
	}
)

// totalL1Metrics serves GET /v2/validators/metrics/{metric}.
func (a *API) totalL1Metrics(w http.ResponseWriter, r *http.Request) error {
	return a.l1Series(w, r, l1TotalMetrics, store.L1ValidatorFilter{}, "")
}

// validationL1Metrics serves GET /v2/validation/{l1ValidationId}/metrics/{metric}.
func (a *API) validationL1Metrics(w http.ResponseWriter, r *http.Request) error {
	v := r.PathValue("l1ValidationId")
	id, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("l1ValidationId must be a validation id (cb58), got %s", derrors.Echo(v))
	}
	return a.l1Series(w, r, l1ValidationMetrics, store.L1ValidatorFilter{ValidationID: &id}, v)
}

// nodeL1Metrics serves GET /v2/validator/{nodeId}/metrics/{metric}: the
// L1 validations of the node, together.
func (a *API) nodeL1Metrics(w http.ResponseWriter, r *http.Request) error {
	v := r.PathValue("nodeId")
	id, err := ids.NodeIDFromString(v)
	if err != nil {
		return derrors.Invalid("nodeId must be a node id (NodeID-...), got %s", derrors.Echo(v))
	}
	return a.l1Series(w, r, l1NodeMetrics, store.L1ValidatorFilter{NodeID: &id}, "")
}

// subnetL1Metrics serves GET /v2/subnet/{subnetId}/metrics/{metric}: the
// L1 validators of the subnet, together.
func (a *API) subnetL1Metrics(w http.ResponseWriter, r *http.Request) error {
	v := r.PathValue("subnetId")
	id, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("subnetId must be a subnet id (cb58), got %s", derrors.Echo(v))
	}
	return a.l1Series(w, r, l1SubnetMetrics, store.L1ValidatorFilter{SubnetID: &id}, "")
}

// l1Series answers one of metrics over the validators f selects: one
// point per UTC day whose start is in [startTimestamp, endTimestamp], the
// latest first, from the day of the first balance change of those
// validators to today (up to the last indexed block). A validation id
// that is no L1 validator's (validation, when set) is a 404; a node or
// subnet without L1 validators has no points.
func (a *API) l1Series(w http.ResponseWriter, r *http.Request, metrics []l1Metric, f store.L1ValidatorFilter, validation string) error {
	if err := param.OnlyParams(r, "startTimestamp", "endTimestamp"); err != nil {
		return err
	}
	name := r.PathValue("metric")
	var m *l1Metric
	names := make([]string, len(metrics))
	for i := range metrics {
		names[i] = metrics[i].name
		if metrics[i].name == name {
			m = &metrics[i]
		}
	}
	if m == nil {
		return derrors.Invalid("metric must be one of %s, got %s", strings.Join(names, ", "), derrors.Echo(name))
	}
	from, to, err := rangeParams(r, "startTimestamp", "endTimestamp")
	if err != nil {
		return err
	}
	ctx := r.Context()
	changes, err := a.store.L1BalanceChanges(ctx, f)
	if err != nil {
		return err
	}
	if len(changes) == 0 && validation != "" {
		return derrors.Client(derrors.NotFound, "l1ValidationId %s is not an L1 validator's validation id", derrors.Echo(validation))
	}
	res := MetricsResponse{Results: []MetricsValue{}}
	if len(changes) == 0 {
		writeJSON(w, http.StatusOK, res)
		return nil
	}
	p := chainmetrics.Day
	first := int64(changes[0].Time)
	in := make([]chainmetrics.L1Change, len(changes))
	v := 0
	for i, c := range changes {
		if i > 0 && c.ValidationID != changes[i-1].ValidationID {
			v++
		}
		in[i] = chainmetrics.L1Change{Validator: v, Accrued: c.Accrued, End: c.End}
		first = min(first, int64(c.Time))
	}
	// The days whose start is in [from, to] (from the first whole one),
	// from the first change's day to today.
	lo := p.Start(from)
	if lo < from {
		lo = p.Next(lo)
	}
	lo = max(lo, p.Start(first))
	hi := p.Start(min(to, a.now().Unix()))
	var days []int64
	for d := hi; d >= lo; d = p.Prev(d) {
		days = append(days, d)
	}
	if len(days) == 0 {
		writeJSON(w, http.StatusOK, res)
		return nil
	}
	hist, err := a.store.L1FeeDays(ctx, days[len(days)-1], days[0])
	if err != nil {
		return err
	}
	values := chainmetrics.L1FeeValues(hist, chainmetrics.L1Spans(in), days)
	for i, d := range days {
		var x float64
		switch m.value {
		case l1Fees:
			x = float64(values[i].Fees)
		case l1Cumulative:
			x = float64(values[i].Cumulative)
		case l1Paying:
			x = float64(values[i].Paying)
		}
		res.Results = append(res.Results, MetricsValue{Timestamp: d, Value: x})
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

package metricsapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

// stakingMetrics serves GET /v2/networks/{network}/metrics/{metric}: a
// subnet's validators' or delegators' count or weight, one point per UTC
// day (the set at the day's end; today, now), the latest first, from the
// day of the subnet's first staker.
func (a *API) stakingMetrics(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "startTimestamp", "endTimestamp", "pageToken", "pageSize", "subnetId"); err != nil {
		return err
	}
	name := r.PathValue("metric")
	var m chainmetrics.NetworkMetric
	for _, x := range chainmetrics.NetworkMetrics {
		if string(x) == name {
			m = x
		}
	}
	if m == "" {
		names := make([]string, len(chainmetrics.NetworkMetrics))
		for i, x := range chainmetrics.NetworkMetrics {
			names[i] = string(x)
		}
		return derrors.Invalid("metric must be one of %s, got %s", strings.Join(names, ", "), derrors.Echo(name))
	}
	if err := a.checkNetwork(r.PathValue("network")); err != nil {
		return err
	}
	subnet := constants.PrimaryNetworkID
	if v, ok, err := param.QueryValue(r, "subnetId"); err != nil {
		return err
	} else if ok && v != "" {
		if subnet, err = ids.FromString(v); err != nil {
			return derrors.Invalid("subnetId must be a subnet id (cb58), got %s", derrors.Echo(v))
		}
	}
	from, to, err := rangeParams(r, "startTimestamp", "endTimestamp")
	if err != nil {
		return err
	}
	size, err := param.PageSize(r, defaultPageSize, maxPageSize)
	if err != nil {
		return err
	}
	token, err := param.PageToken(r)
	if err != nil {
		return err
	}
	now := a.now()
	scope := param.Scope("v2/networks/metrics", string(m), subnet.String(), strconv.FormatInt(from, 10), strconv.FormatInt(to, 10))
	p := chainmetrics.Day
	hi := p.Start(min(to, now.Unix()))
	if token != "" {
		next, err := a.tokens.decode(token, scope, now)
		if err != nil {
			return err
		}
		hi = min(hi, p.Start(next))
	}
	// The days whose start is in [from, to], from the first whole one.
	lo := p.Start(from)
	if lo < from {
		lo = p.Next(lo)
	}
	// At the day's end: the last second of a past day, now for today.
	at := func(day int64) int64 { return min(p.Next(day)-1, now.Unix()) }
	var days []int64
	for d := hi; d >= lo && len(days) <= size; d = p.Prev(d) {
		days = append(days, d)
	}
	res := MetricsResponse{Results: []MetricsValue{}}
	if len(days) == 0 {
		writeJSON(w, http.StatusOK, res)
		return nil
	}
	stakers, first, err := a.store.StakingIntervals(r.Context(), subnet, at(days[len(days)-1]), at(days[0]))
	if err != nil {
		return err
	}
	// The series starts on the day of the subnet's first staker.
	for len(days) > 0 && (first == 0 || days[len(days)-1] < p.Start(first)) {
		days = days[:len(days)-1]
	}
	if len(days) > size {
		res.NextPageToken = a.tokens.encode(scope, days[size], now)
		days = days[:size]
	}
	set := make([]chainmetrics.Staker, len(stakers))
	for i, s := range stakers {
		set[i] = chainmetrics.Staker{Start: s.Start, End: s.End, Weight: s.Weight, Delegator: s.Delegator}
	}
	for _, d := range days {
		res.Results = append(res.Results, MetricsValue{Timestamp: d, Value: chainmetrics.StakingValue(m, set, at(d))})
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// checkNetwork checks that network (the path's Network: mainnet, fuji or
// testnet) is the indexed network: mainnet on mainnet, fuji or testnet on
// any other (as networkName calls it).
func (a *API) checkNetwork(network string) error {
	switch network {
	case "mainnet", "fuji", "testnet":
	default:
		return derrors.Invalid("network must be one of mainnet, fuji, testnet, got %s", derrors.Echo(network))
	}
	if (network == "mainnet") != (a.networkName() == "mainnet") {
		return derrors.Client(derrors.NotFound, "network %s is not the network this service indexes (%s)", network, a.networkName())
	}
	return nil
}

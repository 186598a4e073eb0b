package metricsapi

import (
	"net/http"
	"strconv"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

const (
	defaultPageSize = 100
	maxPageSize     = 2160
	// maxTimestamp is 9999-12-31T23:59:59Z.
	maxTimestamp = 253402300799
)

// pageQuery is what the v1 and v2 series share: the range, the interval
// and the page.
type pageQuery struct {
	metric   chainmetrics.Metric
	period   chainmetrics.Period
	from, to int64
	size     int
	token    string
}

// scope names the query a page token continues.
func (q pageQuery) scope(route, chain string) string {
	return param.Scope(route, chain, string(q.metric), string(q.period),
		strconv.FormatInt(q.from, 10), strconv.FormatInt(q.to, 10))
}

// rangeParams reads the range parameters from and to (named by the
// version) and checks them.
func rangeParams(r *http.Request, fromName, toName string) (from, to int64, err error) {
	from, _, err = param.OptionalUint(r, fromName)
	if err != nil {
		return 0, 0, err
	}
	to, ok, err := param.OptionalUint(r, toName)
	if err != nil {
		return 0, 0, err
	}
	// Times past the year 9999 are no period's: the range stops there.
	if !ok || to > maxTimestamp {
		to = maxTimestamp
	}
	from = min(from, maxTimestamp)
	if from > to {
		return 0, 0, derrors.Invalid("%s (%d) is after %s (%d)", fromName, from, toName, to)
	}
	return from, to, nil
}

// interval reads the interval parameter name (default day) and checks that
// metric is defined over it.
func interval(r *http.Request, name string, m chainmetrics.Metric) (chainmetrics.Period, error) {
	v, err := param.Enum(r, name, "day", "hour", "day", "week", "month")
	if err != nil {
		return "", err
	}
	p := chainmetrics.Period(v)
	if p != chainmetrics.Day && m.DayOnly() {
		return "", derrors.Invalid("%s %s is not supported for %s: only %s=day is", name, v, m, name)
	}
	return p, nil
}

// page answers one page of q over the chains chain names.
func (a *API) page(r *http.Request, route, chain, param string, q pageQuery) ([]point, string, int64, error) {
	ctx := r.Context()
	now := a.now()
	// The range starts at its first whole period.
	from := q.period.Start(q.from)
	if from < q.from {
		from = q.period.Next(from)
	}
	sq := seriesQuery{metric: q.metric, period: q.period, from: from, to: q.to, size: q.size}
	scope := q.scope(route, chain)
	if q.token != "" {
		next, err := a.tokens.decode(q.token, scope, now)
		if err != nil {
			return nil, "", 0, err
		}
		sq.next = &next
	}
	chains, err := a.chains(ctx, chain, param)
	if err != nil {
		return nil, "", 0, err
	}
	sq.chains = chains
	points, next, more, err := a.series(ctx, sq, now.Unix())
	if err != nil {
		return nil, "", 0, err
	}
	tok := ""
	if more {
		tok = a.tokens.encode(scope, next, now)
	}
	return points, tok, lastRun(chains, now.Unix()), nil
}

// v1 serves a v1 series: GET /v1/{path}/{chain}.
func (a *API) v1(path string, m chainmetrics.Metric) func(w http.ResponseWriter, r *http.Request) error {
	route := "v1/" + path
	return func(w http.ResponseWriter, r *http.Request) error {
		// pageSize is an extension: the hosted v1 takes none (its pages
		// have 100 points, as ours by default).
		if err := param.OnlyParams(r, "from", "to", "interval", "startKey", "pageToken", "pageSize"); err != nil {
			return err
		}
		var (
			q   = pageQuery{metric: m}
			err error
		)
		if q.from, q.to, err = rangeParams(r, "from", "to"); err != nil {
			return err
		}
		if q.period, err = interval(r, "interval", m); err != nil {
			return err
		}
		if q.size, err = param.PageSize(r, defaultPageSize, maxPageSize); err != nil {
			return err
		}
		// The cursor is pageToken (the spec) or startKey (the hosted v1).
		tok, _, err := param.QueryValue(r, "pageToken")
		if err != nil {
			return err
		}
		key, _, err := param.QueryValue(r, "startKey")
		if err != nil {
			return err
		}
		if tok != "" && key != "" && tok != key {
			return derrors.Invalid("pageToken and startKey are the same cursor; give one of them")
		}
		if q.token = tok; q.token == "" {
			q.token = key
		}
		points, next, run, err := a.page(r, route, r.PathValue("chain"), "chain", q)
		if err != nil {
			return err
		}
		res := LegacyMetricsResponse{Results: make([]LegacyMetric, len(points)), Status: http.StatusOK, LastRun: run,
			NextPageToken: next, NextPageStartKey: next}
		for i, p := range points {
			res.Results[i] = LegacyMetric{Timestamp: p.Timestamp, Value: p.Value}
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// chainMetrics serves GET /v2/chains/{chainId}/metrics/{metric}.
func (a *API) chainMetrics(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "startTimestamp", "endTimestamp", "timeInterval", "pageToken", "pageSize"); err != nil {
		return err
	}
	m, ok := chainmetrics.ParseMetric(r.PathValue("metric"))
	if !ok {
		return derrors.Invalid("metric must be one of %s, got %s", metricNames(), derrors.Echo(r.PathValue("metric")))
	}
	var (
		q   = pageQuery{metric: m}
		err error
	)
	if q.from, q.to, err = rangeParams(r, "startTimestamp", "endTimestamp"); err != nil {
		return err
	}
	if q.period, err = interval(r, "timeInterval", m); err != nil {
		return err
	}
	if q.size, err = param.PageSize(r, defaultPageSize, maxPageSize); err != nil {
		return err
	}
	if q.token, err = param.PageToken(r); err != nil {
		return err
	}
	points, next, _, err := a.page(r, "v2/metrics", r.PathValue("chainId"), "chainId", q)
	if err != nil {
		return err
	}
	res := MetricsResponse{Results: make([]MetricsValue, len(points)), NextPageToken: next}
	for i, p := range points {
		res.Results[i] = MetricsValue{Value: p.Value, Timestamp: p.Timestamp}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func metricNames() string {
	s := ""
	for i, m := range chainmetrics.Metrics {
		if i > 0 {
			s += ", "
		}
		s += string(m)
	}
	return s
}

// networkName is the Metrics API's NetworkType of the indexed network:
// mainnet, or testnet for every other.
func (a *API) networkName() string {
	if a.network.ID == 1 {
		return "mainnet"
	}
	return "testnet"
}

func (a *API) wireChain(c EVMChain) Chain {
	return Chain{EVMChainID: c.EVMChainID, ChainName: c.Name, BlockchainID: c.BlockchainID.String(),
		SubnetID: c.SubnetID.String(), Network: a.networkName()}
}

// listChains serves GET /v2/chains: the indexed EVM chains (the schema's
// chains all have an EVM chain id), on one page.
func (a *API) listChains(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "pageToken", "network"); err != nil {
		return err
	}
	network, err := param.Enum(r, "network", "", "mainnet", "fuji", "testnet")
	if err != nil {
		return err
	}
	// The list is one page, so no page token was ever issued for it.
	if tok, err := param.PageToken(r); err != nil || tok != "" {
		if err == nil {
			err = errInvalidToken
		}
		return err
	}
	res := ListChainsResponse{Chains: []Chain{}}
	if network == "" || (network == "mainnet") == (a.networkName() == "mainnet") {
		for _, c := range a.evm() {
			res.Chains = append(res.Chains, a.wireChain(c))
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// getChain serves GET /v2/chains/{chainId}.
func (a *API) getChain(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r); err != nil {
		return err
	}
	id := r.PathValue("chainId")
	for _, c := range a.evm() {
		if strconv.FormatUint(c.EVMChainID, 10) == id || c.BlockchainID.String() == id {
			writeJSON(w, http.StatusOK, a.wireChain(c))
			return nil
		}
	}
	return derrors.Client(derrors.NotFound, "chainId %s is not an EVM chain this service indexes", derrors.Echo(id))
}

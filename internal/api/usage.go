package api

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The Data API Usage Metrics tag: the requests internal/usage recorded,
// as metrics by time interval and as logs. A key sees its own requests,
// an admin key (ratelimit.Admin) everyone's; calls without a key see
// none. avaindex knows no organizations, regions, countries or user
// agents: orgId is echoed, and the groupings by country or continent
// answer "XX" (the reference's "no country data"), by user agent "".

// UsageSource is what the usage operations read (store.APIRequestStore).
type UsageSource interface {
	APIRequests(ctx context.Context, f store.APIRequestFilter, after *store.APIRequestCursor, limit int) ([]internal.APIRequest, error)
	ScanAPIRequests(ctx context.Context, f store.APIRequestFilter, fn func(*internal.APIRequest) error) error
}

// maxUsageScan bounds the requests one metrics call aggregates: past it,
// the caller is asked to narrow the range.
const maxUsageScan = 1_000_000

// defaultOrgID is the orgId answered when the call names none.
const defaultOrgID = "avaindex"

// usageScope checks the caller may read usage and returns the filter of
// the requests it may see, narrowed to the key named by keyParam when
// given.
func usageScope(r *http.Request, keyParam string) (store.APIRequestFilter, error) {
	c := CallerOf(r.Context())
	if c == nil || c.KeyID == "" {
		return store.APIRequestFilter{}, derrors.Client(derrors.Unauthenticated, "usage is reported per API key: send one in the %s header", HeaderDataAPIKey)
	}
	key, given, err := param.QueryValue(r, keyParam)
	if err != nil {
		return store.APIRequestFilter{}, err
	}
	switch {
	case c.Admin && given:
		return store.APIRequestFilter{KeyID: key, OnlyKey: true}, nil
	case c.Admin:
		return store.APIRequestFilter{}, nil
	case given && key != c.KeyID:
		return store.APIRequestFilter{}, derrors.Client(derrors.PermissionDenied, "%s %s is not the calling key's ID; only an admin key sees other keys' usage", keyParam, param.Quote(key))
	}
	return store.APIRequestFilter{KeyID: c.KeyID, OnlyKey: true}, nil
}

// usageFilters adds the common filters of r to f: the time range
// (startTimestamp and endTimestamp, Unix seconds, inclusive; the last day
// by default) and those of names among chainId, responseCode,
// requestType, requestPath and rpcMethod.
func usageFilters(r *http.Request, f *store.APIRequestFilter, names ...string) error {
	start, hasStart, err := param.OptionalUint(r, "startTimestamp")
	if err != nil {
		return err
	}
	end, hasEnd, err := param.OptionalUint(r, "endTimestamp")
	if err != nil {
		return err
	}
	if !hasEnd {
		end = time.Now().Unix()
	}
	if !hasStart {
		start = max(0, end-86400)
	}
	if start > end {
		return derrors.Invalid("startTimestamp %d is after endTimestamp %d", start, end)
	}
	const maxUnix = 1 << 40 // far past any request, and safe in microseconds
	f.From, f.To = time.Unix(min(start, maxUnix), 0), time.Unix(min(end, maxUnix), 0).Add(time.Second-time.Microsecond)
	for _, n := range names {
		v, given, err := param.QueryValue(r, n)
		if err != nil || !given {
			if err != nil {
				return err
			}
			continue
		}
		if len(v) > 256 {
			return derrors.Invalid("%s is longer than 256 characters", n)
		}
		switch n {
		case "chainId":
			f.ChainID = v
		case "requestPath":
			f.Route = v
		case "rpcMethod":
			f.RPCMethod = v
		case "requestType":
			if v != internal.RequestTypeData && v != internal.RequestTypeRPC {
				return derrors.Invalid("requestType must be one of data, rpc, got %s", param.Quote(v))
			}
			f.Type = v
		case "responseCode":
			code, ok := param.ParseInt(v)
			if !ok || code < 100 || code > 599 {
				return derrors.Invalid("responseCode must be an HTTP status code (100 to 599), got %s", param.Quote(v))
			}
			f.Status = int(code)
		}
	}
	return nil
}

func orgID(r *http.Request) (string, error) {
	v, given, err := param.QueryValue(r, "orgId")
	if err != nil || !given {
		return defaultOrgID, err
	}
	return param.Clip(v, 64), nil
}

// interval is a timeInterval: its name and the start of the interval
// holding t.
type interval struct {
	name  string
	start func(t time.Time) time.Time
	// seconds is its length, for requestsPerSecond (a month's is its
	// own, see length).
	length func(start time.Time) time.Duration
}

func fixedInterval(name string, d time.Duration) interval {
	return interval{name: name, start: func(t time.Time) time.Time { return t.Truncate(d) }, length: func(time.Time) time.Duration { return d }}
}

var intervals = map[string]interval{
	"minute": fixedInterval("minute", time.Minute),
	"hourly": fixedInterval("hourly", time.Hour),
	"daily":  fixedInterval("daily", 24*time.Hour),
	// Weeks start on Monday (Unix time 0 was a Thursday).
	"weekly": {name: "weekly", start: func(t time.Time) time.Time {
		d := (int(t.Weekday()) + 6) % 7
		y, m, day := t.Date()
		return time.Date(y, m, day-d, 0, 0, 0, 0, time.UTC)
	}, length: func(time.Time) time.Duration { return 7 * 24 * time.Hour }},
	"monthly": {name: "monthly", start: func(t time.Time) time.Time {
		y, m, _ := t.Date()
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	}, length: func(s time.Time) time.Duration { return s.AddDate(0, 1, 0).Sub(s) }},
}

// aggregateDuration names an interval as the hosted API does.
var aggregateDuration = map[string]string{"minute": "1m", "hourly": "1h", "daily": "24h", "weekly": "168h", "monthly": "1mo"}

// usageStats are one group's requests in one interval.
type usageStats struct {
	total, success, invalid int
	durations               []time.Duration
}

// usageValue is the wire form of one group's metrics, for both value
// schemas (UsageMetricsValueDTO and RpcUsageMetricsValueAggregated).
type usageValue struct {
	GroupedBy               string  `json:"groupedBy"`
	GroupValue              any     `json:"groupValue,omitempty"`
	TotalRequests           int     `json:"totalRequests"`
	RequestsPerSecond       float64 `json:"requestsPerSecond"`
	SuccessRatePercent      float64 `json:"successRatePercent"`
	MedianResponseTimeMsecs float64 `json:"medianResponseTimeMsecs"`
	InvalidRequests         int     `json:"invalidRequests"`
	APICreditsUsed          int     `json:"apiCreditsUsed"`
	APICreditsWasted        int     `json:"apiCreditsWasted"`
}

type usageMetric struct {
	Timestamp int64        `json:"timestamp"`
	Values    []usageValue `json:"values"`
}

// aggregateUsage scans f's requests into metrics by iv, grouped by
// groupBy (its value read by groupOf; "None" for one group).
func (a *API) aggregateUsage(ctx context.Context, f store.APIRequestFilter, iv interval, groupBy string, groupOf func(*internal.APIRequest) any) ([]usageMetric, error) {
	type bucket struct {
		start  time.Time
		groups map[any]*usageStats
		order  []any
	}
	var (
		buckets []*bucket
		n       int
	)
	err := a.usage.ScanAPIRequests(ctx, f, func(req *internal.APIRequest) error {
		if n++; n > maxUsageScan {
			return derrors.Invalid("the range holds more than %d requests: narrow startTimestamp and endTimestamp", maxUsageScan)
		}
		start := iv.start(req.Time.UTC())
		// The scan is in time order, so a request's bucket is the last or a new one.
		if len(buckets) == 0 || !buckets[len(buckets)-1].start.Equal(start) {
			buckets = append(buckets, &bucket{start: start, groups: map[any]*usageStats{}})
		}
		b := buckets[len(buckets)-1]
		var g any = "None"
		if groupOf != nil {
			g = groupOf(req)
		}
		st := b.groups[g]
		if st == nil {
			st = &usageStats{}
			b.groups[g] = st
			b.order = append(b.order, g)
		}
		st.total++
		switch {
		case req.Status < 400:
			st.success++
		case req.Status < 500:
			st.invalid++
		}
		st.durations = append(st.durations, req.Duration)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]usageMetric, 0, len(buckets))
	for _, b := range buckets {
		secs := iv.length(b.start).Seconds()
		m := usageMetric{Timestamp: b.start.Unix(), Values: make([]usageValue, 0, len(b.order))}
		for _, g := range b.order {
			st := b.groups[g]
			v := usageValue{GroupedBy: groupBy, TotalRequests: st.total, RequestsPerSecond: float64(st.total) / secs,
				SuccessRatePercent: 100 * float64(st.success) / float64(st.total), MedianResponseTimeMsecs: median(st.durations),
				InvalidRequests: st.invalid, APICreditsUsed: st.total, APICreditsWasted: st.invalid}
			if groupOf != nil {
				v.GroupValue = g
			}
			m.Values = append(m.Values, v)
		}
		out = append(out, m)
	}
	return out, nil
}

// median is the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return float64(ds[n/2].Microseconds()) / 1000
	}
	return float64((ds[n/2-1] + ds[n/2]).Microseconds()) / 2000
}

// usageGroups are the groupBy values and the request field each groups by.
var usageGroups = map[string]func(*internal.APIRequest) any{
	"requestPath":   func(r *internal.APIRequest) any { return r.Route },
	"responseCode":  func(r *internal.APIRequest) any { return r.Status },
	"chainId":       func(r *internal.APIRequest) any { return r.ChainID },
	"apiKeyId":      func(r *internal.APIRequest) any { return r.KeyID },
	"requestType":   func(r *internal.APIRequest) any { return r.Type },
	"rpcMethod":     func(r *internal.APIRequest) any { return r.RPCMethod },
	"rlBypassToken": func(r *internal.APIRequest) any { return r.KeyID },
	"country":       func(*internal.APIRequest) any { return "XX" },
	"continent":     func(*internal.APIRequest) any { return "XX" },
	"userAgent":     func(*internal.APIRequest) any { return "" },
}

// groupParam reads groupBy, one of allowed or absent ("None").
func groupParam(r *http.Request, allowed ...string) (string, func(*internal.APIRequest) any, error) {
	g, err := param.Enum(r, "groupBy", "", allowed...)
	if err != nil || g == "" {
		return "None", nil, err
	}
	return g, usageGroups[g], nil
}

func (a *API) usageReady() error {
	if a.usage == nil {
		return derrors.Client(derrors.Unavailable, "usage recording is not enabled on this server")
	}
	return nil
}

// getApiUsageMetrics: GET /v1/apiUsageMetrics.
func (a *API) getAPIUsageMetrics(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "orgId", "startTimestamp", "endTimestamp", "timeInterval", "groupBy", "chainId",
		"responseCode", "requestType", "apiKeyId", "requestPath"); err != nil {
		return err
	}
	f, err := usageScope(r, "apiKeyId")
	if err != nil {
		return err
	}
	if err := usageFilters(r, &f, "chainId", "responseCode", "requestType", "requestPath"); err != nil {
		return err
	}
	org, err := orgID(r)
	if err != nil {
		return err
	}
	ivName, err := param.Enum(r, "timeInterval", "daily", "minute", "hourly", "daily", "weekly", "monthly")
	if err != nil {
		return err
	}
	groupBy, groupOf, err := groupParam(r, "requestPath", "responseCode", "chainId", "apiKeyId", "requestType")
	if err != nil {
		return err
	}
	if err := a.usageReady(); err != nil {
		return err
	}
	metrics, err := a.aggregateUsage(r.Context(), f, intervals[ivName], groupBy, groupOf)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, map[string]any{"aggregateDuration": aggregateDuration[ivName], "orgId": org, "metrics": metrics})
	return nil
}

// rpcUsage serves getSubnetRpcUsageMetrics and the deprecated
// getRpcUsageMetrics: the node API's requests, by chainId when given.
func (a *API) rpcUsage(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "timeInterval", "startTimestamp", "endTimestamp", "groupBy", "chainId", "responseCode",
		"rpcMethod", "rlBypassApiToken"); err != nil {
		return err
	}
	f, err := usageScope(r, "rlBypassApiToken")
	if err != nil {
		return err
	}
	if err := usageFilters(r, &f, "chainId", "responseCode", "rpcMethod"); err != nil {
		return err
	}
	f.Type = internal.RequestTypeRPC
	ivName, err := param.Enum(r, "timeInterval", "daily", "hourly", "daily", "weekly", "monthly")
	if err != nil {
		return err
	}
	groupBy, groupOf, err := groupParam(r, "rpcMethod", "responseCode", "rlBypassToken")
	if err != nil {
		return err
	}
	if err := a.usageReady(); err != nil {
		return err
	}
	metrics, err := a.aggregateUsage(r.Context(), f, intervals[ivName], groupBy, groupOf)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, map[string]any{"aggregateDuration": aggregateDuration[ivName], "chainId": f.ChainID, "metrics": metrics})
	return nil
}

// getPrimaryNetworkRpcUsageMetrics: the node API's requests to the
// primary network's chains (P, X and C, by alias or ID).
func (a *API) primaryNetworkRPCUsage(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "timeInterval", "startTimestamp", "endTimestamp", "groupBy", "responseCode", "requestPath",
		"country", "continent", "userAgent", "rpcMethod", "network"); err != nil {
		return err
	}
	netName, given, err := param.QueryValue(r, "network")
	if err != nil {
		return err
	}
	if !given {
		return derrors.Invalid("network is required: one of %s", a.networks)
	}
	network, err := a.networks.Parse(netName)
	if err != nil {
		return err
	}
	f, err := usageScope(r, "")
	if err != nil {
		return err
	}
	if err := usageFilters(r, &f, "responseCode", "requestPath", "rpcMethod"); err != nil {
		return err
	}
	f.Type = internal.RequestTypeRPC
	f.ChainIDs = []string{"P", "X", "C", a.network.PChainID.String(), a.network.XChainID.String(), a.network.CChainID.String()}
	// avaindex records no client location or user agent: "XX" is the
	// reference's value for no country data, which every request has, so
	// any other country, continent or user agent matches none.
	none := false
	for _, n := range []string{"country", "continent", "userAgent"} {
		v, given, err := param.QueryValue(r, n)
		if err != nil {
			return err
		}
		none = none || given && (n == "userAgent" || v != "XX")
	}
	ivName, err := param.Enum(r, "timeInterval", "daily", "hourly", "daily", "weekly", "monthly")
	if err != nil {
		return err
	}
	groupBy, groupOf, err := groupParam(r, "rpcMethod", "requestPath", "responseCode", "country", "continent", "userAgent")
	if err != nil {
		return err
	}
	if err := a.usageReady(); err != nil {
		return err
	}
	metrics := []usageMetric{}
	if !none {
		if metrics, err = a.aggregateUsage(r.Context(), f, intervals[ivName], groupBy, groupOf); err != nil {
			return err
		}
	}
	wire := "testnet"
	if network == Mainnet {
		wire = Mainnet
	}
	WriteJSON(w, http.StatusOK, map[string]any{"aggregateDuration": aggregateDuration[ivName], "network": wire, "metrics": metrics})
	return nil
}

// apiLogsCursor pages getApiLogs.
type apiLogsCursor = store.APIRequestCursor

// getApiLogs: GET /v1/apiLogs, newest first.
func (a *API) getAPILogs(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "orgId", "startTimestamp", "endTimestamp", "chainId", "responseCode", "requestType",
		"apiKeyId", "requestPath", "pageToken", "pageSize"); err != nil {
		return err
	}
	f, err := usageScope(r, "apiKeyId")
	if err != nil {
		return err
	}
	if err := usageFilters(r, &f, "chainId", "responseCode", "requestType", "requestPath"); err != nil {
		return err
	}
	org, err := orgID(r)
	if err != nil {
		return err
	}
	if err := a.usageReady(); err != nil {
		return err
	}
	// The token binds the time range as asked, not as resolved: a default
	// range ends at the current second, which moves between pages.
	q := r.URL.Query()
	spec := listSpec{Op: "getApiLogs", Filters: []string{f.KeyID, strconv.FormatBool(f.OnlyKey), q.Get("startTimestamp"),
		q.Get("endTimestamp"), f.ChainID, strconv.Itoa(f.Status), f.Type, f.Route}}
	items, next, err := listPage(a, r, spec, func(ctx context.Context, after *apiLogsCursor, limit int) ([]internal.APIRequest, error) {
		return a.usage.APIRequests(ctx, f, after, limit)
	}, func(req internal.APIRequest) apiLogsCursor {
		return apiLogsCursor{TimeUs: req.Time.UnixMicro(), ID: req.ID}
	})
	if err != nil {
		return err
	}
	logs := make([]map[string]any, 0, len(items))
	for _, req := range items {
		l := map[string]any{"orgId": org, "logId": req.ID, "eventTimestamp": req.Time.UnixMilli(), "apiKeyId": req.KeyID,
			"apiKeyAlias": req.KeyName, "hostRegion": "", "requestType": req.Type, "requestPath": req.Route, "apiCreditsConsumed": 1,
			"requestDurationMsecs": float64(req.Duration.Microseconds()) / 1000, "responseCode": req.Status,
			// avaindex keeps no client address or user agent.
			"metadata": map[string]string{"ipAddress": "", "host": "", "userAgent": ""}}
		if req.ChainID != "" {
			l["chainId"] = req.ChainID
		}
		if req.RPCMethod != "" {
			l["rpcMethod"] = req.RPCMethod
		}
		logs = append(logs, l)
	}
	body := map[string]any{"orgId": org, "logs": logs}
	if next != "" {
		body["nextPageToken"] = next
	}
	WriteJSON(w, http.StatusOK, body)
	return nil
}

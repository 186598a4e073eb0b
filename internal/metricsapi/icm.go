package metricsapi

import (
	"cmp"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The ICM metrics: how many ICM messages were sent, counted from the
// indexed TeleporterMessenger sends (store.ICMHourlySends) by their block
// times, per source and destination blockchain.

// ICMMetricsValue is one point of /v2/icm/timeseries.
type ICMMetricsValue struct {
	Value            float64 `json:"value"`
	Timestamp        int64   `json:"timestamp"`
	SrcBlockchainID  string  `json:"srcBlockchainId"`
	DestBlockchainID string  `json:"destBlockchainId"`
}

// ICMMetricsResponse is /v2/icm/timeseries (ICMMetricsApiResponse).
type ICMMetricsResponse struct {
	NextPageToken string            `json:"nextPageToken,omitempty"`
	Results       []ICMMetricsValue `json:"results"`
}

// ICMRollingWindow is /v2/icm/summary's result.
type ICMRollingWindow struct {
	LastHour         float64 `json:"lastHour"`
	LastDay          float64 `json:"lastDay"`
	LastWeek         float64 `json:"lastWeek"`
	LastMonth        float64 `json:"lastMonth"`
	Last90Days       float64 `json:"last90Days"`
	LastYear         float64 `json:"lastYear"`
	AllTime          float64 `json:"allTime"`
	SrcBlockchainID  string  `json:"srcBlockchainId"`
	DestBlockchainID string  `json:"destBlockchainId"`
}

// ICMRollingWindowResponse is ICMRollingWindowMetricsApiResponse.
type ICMRollingWindowResponse struct {
	Result ICMRollingWindow `json:"result"`
}

// icmQuery is what both ICM operations filter and group by.
type icmQuery struct {
	src, dest          *ids.ID
	groupSrc, groupDst bool
	// otherNetwork: the network asked for is not the indexed one.
	otherNetwork bool
	groupBy      string
}

func blockchainParam(r *http.Request, name string) (*ids.ID, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	if id, err := ids.FromString(v); err == nil {
		return &id, nil
	}
	if b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")); err == nil && len(b) == ids.IDLen {
		id := ids.ID(b)
		return &id, nil
	}
	return nil, derrors.Invalid("%s must be a blockchain id in cb58 or as 32 hex-encoded bytes, got %s", name, derrors.Echo(v))
}

func (a *API) icmQuery(r *http.Request) (q icmQuery, err error) {
	if q.src, err = blockchainParam(r, "srcBlockchainId"); err != nil {
		return q, err
	}
	if q.dest, err = blockchainParam(r, "destBlockchainId"); err != nil {
		return q, err
	}
	if q.groupBy, err = param.Enum(r, "groupBy", "", "srcBlockchainId", "destBlockchainId", "srcBlockchainId,destBlockchainId"); err != nil {
		return q, err
	}
	q.groupSrc = strings.Contains(q.groupBy, "srcBlockchainId")
	q.groupDst = strings.Contains(q.groupBy, "destBlockchainId")
	network, err := param.Enum(r, "network", "", "mainnet", "fuji", "testnet")
	if err != nil {
		return q, err
	}
	q.otherNetwork = network != "" && (network == "mainnet") != (a.networkName() == "mainnet")
	return q, nil
}

// labels are a group's srcBlockchainId and destBlockchainId: the grouped
// chain, else the filter's, else "".
func (q icmQuery) labels(c store.ICMHourCount) (src, dest string) {
	switch {
	case q.groupSrc:
		src = c.Source.String()
	case q.src != nil:
		src = q.src.String()
	}
	switch {
	case q.groupDst:
		dest = c.Destination.String()
	case q.dest != nil:
		dest = q.dest.String()
	}
	return src, dest
}

// icmTimeseries serves GET /v2/icm/timeseries: the count per period and
// group, the latest period first, periods without messages left out.
func (a *API) icmTimeseries(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "startTimestamp", "endTimestamp", "srcBlockchainId", "destBlockchainId", "timeInterval",
		"pageToken", "pageSize", "groupBy", "network"); err != nil {
		return err
	}
	q, err := a.icmQuery(r)
	if err != nil {
		return err
	}
	from, to, err := rangeParams(r, "startTimestamp", "endTimestamp")
	if err != nil {
		return err
	}
	iv, err := param.Enum(r, "timeInterval", "day", "hour", "day", "week", "month")
	if err != nil {
		return err
	}
	period := chainmetrics.Period(iv)
	size, err := param.PageSize(r, defaultPageSize, maxPageSize)
	if err != nil {
		return err
	}
	now := a.now()
	scope := param.Scope("v2/icm/timeseries", optID(q.src), optID(q.dest), q.groupBy, iv,
		strconv.FormatInt(from, 10), strconv.FormatInt(to, 10))
	offset := int64(0)
	if tok, err := param.PageToken(r); err != nil {
		return err
	} else if tok != "" {
		if offset, err = a.tokens.decode(tok, scope, now); err != nil {
			return err
		}
	}
	res := ICMMetricsResponse{Results: []ICMMetricsValue{}}
	if !q.otherNetwork {
		counts, err := a.store.ICMHourlySends(r.Context(), q.src, q.dest, from, to)
		if err != nil {
			return err
		}
		type key struct {
			ts        int64
			src, dest string
		}
		sums := map[key]float64{}
		for _, c := range counts {
			src, dest := q.labels(c)
			sums[key{period.Start(c.Hour), src, dest}] += float64(c.Count)
		}
		all := make([]ICMMetricsValue, 0, len(sums))
		for k, v := range sums {
			all = append(all, ICMMetricsValue{Value: v, Timestamp: k.ts, SrcBlockchainID: k.src, DestBlockchainID: k.dest})
		}
		slices.SortFunc(all, func(x, y ICMMetricsValue) int {
			if x.Timestamp != y.Timestamp {
				return cmp.Compare(y.Timestamp, x.Timestamp)
			}
			if c := strings.Compare(x.SrcBlockchainID, y.SrcBlockchainID); c != 0 {
				return c
			}
			return strings.Compare(x.DestBlockchainID, y.DestBlockchainID)
		})
		if offset < int64(len(all)) {
			end := min(offset+int64(size), int64(len(all)))
			res.Results = all[offset:end]
			if end < int64(len(all)) {
				res.NextPageToken = a.tokens.encode(scope, end, now)
			}
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// icmWindows are the summary's rolling windows, in seconds back from now.
var icmWindows = []int64{3600, 86400, 7 * 86400, 30 * 86400, 90 * 86400, 365 * 86400}

// icmSummary serves GET /v2/icm/summary: the counts over the rolling
// windows and all time, of the chains the filters select (groupBy names
// the grouped ids only when the filters leave one group).
func (a *API) icmSummary(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "srcBlockchainId", "destBlockchainId", "groupBy", "network"); err != nil {
		return err
	}
	q, err := a.icmQuery(r)
	if err != nil {
		return err
	}
	res := ICMRollingWindowResponse{}
	res.Result.SrcBlockchainID, res.Result.DestBlockchainID = optID(q.src), optID(q.dest)
	if !q.otherNetwork {
		now := a.now().Unix()
		counts, err := a.store.ICMHourlySends(r.Context(), q.src, q.dest, 0, now)
		if err != nil {
			return err
		}
		sums := make([]float64, len(icmWindows))
		for _, c := range counts {
			res.Result.AllTime += float64(c.Count)
			for i, win := range icmWindows {
				// An hour counts when it began within the window.
				if c.Hour > now-win {
					sums[i] += float64(c.Count)
				}
			}
		}
		res.Result.LastHour, res.Result.LastDay, res.Result.LastWeek = sums[0], sums[1], sums[2]
		res.Result.LastMonth, res.Result.Last90Days, res.Result.LastYear = sums[3], sums[4], sums[5]
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func optID(id *ids.ID) string {
	if id == nil {
		return ""
	}
	return id.String()
}

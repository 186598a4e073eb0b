// Package metricsapi serves the Metrics API from the chain metrics the
// store rolls up as blocks are indexed (store.MetricStore): the v1 series
// (GET /v1/avg_tps/{chain} and its family), the v2 chain metrics (GET
// /v2/chains/{chainId}/metrics/{metric}) and the v2 chain list. It has its
// own error body, where message is an array of strings, and its own page
// tokens, valid for 24 hours. No authentication.
package metricsapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// Source is what the Metrics API reads from the store; store.Store
// satisfies it.
type Source interface {
	MetricChains(ctx context.Context) ([]store.MetricChain, error)
	MetricRollups(ctx context.Context, key string, p chainmetrics.Period, from, to int64) ([]chainmetrics.Rollup, error)
	MetricRollupBefore(ctx context.Context, key string, p chainmetrics.Period, ts int64) (chainmetrics.Rollup, bool, error)
	MetricActiveCounts(ctx context.Context, key string, since []int64) ([]store.ActiveCounts, error)
	MetricRollupSums(ctx context.Context, key string, windows [][]store.RollupRange) ([]chainmetrics.Rollup, error)
	StakingIntervals(ctx context.Context, subnetID ids.ID, from, to int64) ([]store.StakingInterval, int64, error)
	ValidatorRewardOwners(ctx context.Context, subnetID ids.ID, from, to int64, offset, limit int) ([]store.ValidatorRewardAddresses, error)
	ICMHourlySends(ctx context.Context, src, dest *ids.ID, from, to int64) ([]store.ICMHourCount, error)
	store.L1FeeHistoryStore
	store.LookingGlassReader
}

// EVMChain is an EVM chain of the registry, for /v2/chains.
type EVMChain struct {
	EVMChainID   uint64
	Name         string
	BlockchainID ids.ID
	SubnetID     ids.ID
}

// Deps are what the Metrics API serves from.
type Deps struct {
	Store   Source
	Network *internal.Network
	// TokenKey signs page tokens; at least 32 bytes.
	TokenKey []byte
	// EVMChains returns the indexed EVM chains, asked on each request (the
	// registry learns chains as it runs); nil for none. Their metrics are
	// keyed by store.EVMMetricKey.
	EVMChains func() []EVMChain
	// BTCbBridges are the BTC.b contracts the bridge mints and burns, by
	// EVM chain id (getAddressesByBtcbBridged).
	BTCbBridges map[uint64]common.Address
	// Now is the clock (time.Now when nil): the series run to its day, and
	// page tokens expire by it.
	Now func() time.Time
}

// API is the Metrics API of one indexed network.
type API struct {
	store   Source
	network *internal.Network
	tokens  *tokens
	evm     func() []EVMChain
	now     func() time.Time
	btcb    map[uint64]common.Address
	lg      lgCache
}

// New returns the Metrics API.
func New(d Deps) (*API, error) {
	if d.Store == nil || d.Network == nil {
		return nil, fmt.Errorf("metricsapi.New: a store and a network are needed")
	}
	t, err := newTokens(d.TokenKey)
	if err != nil {
		return nil, err
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	evm := d.EVMChains
	if evm == nil {
		evm = func() []EVMChain { return nil }
	}
	return &API{store: d.Store, network: d.Network, tokens: t, evm: evm, now: now, btcb: d.BTCbBridges}, nil
}

// Route is one pattern of http.ServeMux and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// v1Series are the v1 series: path name and metric.
var v1Series = []struct {
	path   string
	metric chainmetrics.Metric
}{
	{"avg_tps", chainmetrics.AvgTps},
	{"max_tps", chainmetrics.MaxTps},
	{"tx_count", chainmetrics.TxCount},
	{"gas_used", chainmetrics.GasUsed},
	{"avg_gps", chainmetrics.AvgGps},
	{"max_gps", chainmetrics.MaxGps},
	{"avg_gas_price", chainmetrics.AvgGasPrice},
	{"max_gas_price", chainmetrics.MaxGasPrice},
	{"active_addresses", chainmetrics.ActiveAddresses},
	{"active_senders", chainmetrics.ActiveSenders},
	{"cumulative/addresses", chainmetrics.CumulativeAddresses},
	{"cumulative/contracts", chainmetrics.CumulativeContracts},
	{"cumulative/tx_count", chainmetrics.CumulativeTxCount},
	{"cumulative/deployers", chainmetrics.CumulativeDeployers},
}

// Routes returns the Metrics API's routes.
func (a *API) Routes() []Route {
	var rs []Route
	for _, s := range v1Series {
		rs = append(rs, Route{"GET /v1/" + s.path + "/{chain}", a.handle(a.v1(s.path, s.metric))})
	}
	rs = append(rs,
		Route{"GET /v2/chains", a.handle(a.listChains)},
		Route{"GET /v2/chains/{chainId}", a.handle(a.getChain)},
		Route{"GET /v2/chains/{chainId}/metrics/{metric}", a.handle(a.chainMetrics)},
		Route{"GET /v2/chains/{chainId}/rollingWindowMetrics/{metric}", a.handle(a.rollingWindow)},
		Route{"GET /v2/health-check", a.handle(a.healthCheck)},
		Route{"GET /v2/networks/{network}/metrics/{metric}", a.handle(a.stakingMetrics)},
		Route{"GET /v2/subnets/{subnetId}/validators:getAddresses", a.handle(a.validatorsByDateRange)},
		Route{"GET /v2/icm/timeseries", a.handle(a.icmTimeseries)},
		Route{"GET /v2/icm/summary", a.handle(a.icmSummary)},
		Route{"GET /v2/validators/metrics/{metric}", a.handle(a.totalL1Metrics)},
		Route{"GET /v2/validation/{l1ValidationId}/metrics/{metric}", a.handle(a.validationL1Metrics)},
		Route{"GET /v2/validator/{nodeId}/metrics/{metric}", a.handle(a.nodeL1Metrics)},
		Route{"GET /v2/subnet/{subnetId}/metrics/{metric}", a.handle(a.subnetL1Metrics)},
	)
	rs = append(rs, a.lookingGlassRoutes()...)
	return rs
}

// Patterns are the patterns of the Metrics API's routes, in Routes' order:
// what the served Metrics API document (internal/apidoc) is made for. It
// needs no store: the route table is the same for every network.
func Patterns() []string {
	routes := (&API{}).Routes()
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.Pattern
	}
	return out
}

// handle adapts a handler that returns an error to the error writer.
func (a *API) handle(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	})
}

// chains returns the keys of the chains chain names, as the path's chain
// or chainId: an EVM chain id, the P- or X-chain's blockchain id, or
// "total" (and the network's name on mainnet and Fuji) for every chain.
func (a *API) chains(ctx context.Context, name, param string) ([]store.MetricChain, error) {
	all, err := a.store.MetricChains(ctx)
	if err != nil {
		return nil, err
	}
	if a.isTotal(name) {
		return all, nil
	}
	key := ""
	evm := a.evm()
	switch name {
	case a.network.PChainID.String():
		key = store.PMetricKey
	case a.network.XChainID.String():
		key = store.XMetricKey
	default:
		if id, err := strconv.ParseUint(name, 10, 64); err == nil {
			key = store.EVMMetricKey(id)
		}
		for _, c := range evm {
			if c.BlockchainID.String() == name {
				key = store.EVMMetricKey(c.EVMChainID)
			}
		}
	}
	known := key == store.PMetricKey || key == store.XMetricKey
	for _, c := range evm {
		known = known || key == store.EVMMetricKey(c.EVMChainID)
	}
	for _, c := range all {
		if c.Key == key {
			return []store.MetricChain{c}, nil
		}
	}
	if known {
		return nil, nil // served, with no block rolled up yet
	}
	return nil, derrors.Client(derrors.NotFound, "%s %s is not a chain this service indexes", param, derrors.Echo(name))
}

// isTotal reports whether name asks for every chain together.
func (a *API) isTotal(name string) bool {
	switch name {
	case "total":
		return true
	case "mainnet":
		return a.network.ID == 1
	case "testnet", "fuji":
		return a.network.ID == 5
	}
	return false
}

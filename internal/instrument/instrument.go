// Package instrument holds avaindex's own Prometheus metrics: HTTP requests
// per route and status, indexed height per chain, and calls to the upstream
// node. They are served at /metrics from a registry of their own, so
// nothing a library registers globally leaks into them.
package instrument

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var (
	registry = prometheus.NewRegistry()

	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_http_requests_total",
		Help: "HTTP requests served, by route pattern and status code.",
	}, []string{"route", "status"})
	httpLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "avaindex_http_request_duration_seconds",
		Help:    "Time to serve HTTP requests, by route pattern.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"route"})
	indexedHeight = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "avaindex_indexed_height",
		Help: "Last block height committed to the store, by chain.",
	}, []string{"chain"})
	evmTracer = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "avaindex_evm_tracer_enabled",
		Help: "1 when the node traces the EVM chain's blocks (internal txs and native balances indexed), by chain cursor.",
	}, []string{"chain"})
	nodeHeight = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "avaindex_node_height",
		Help: "The node's last accepted height, as last seen by the indexer, by chain.",
	}, []string{"chain"})
	applied = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_ingest_applied_total",
		Help: "Blocks (containers, for an index; txs, for X/dag) committed to the store, by chain.",
	}, []string{"chain"})
	upstreamCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_upstream_rpc_calls_total",
		Help: "JSON-RPC calls made to the upstream avalanchego node, by method.",
	}, []string{"method"})
	upstreamErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_upstream_rpc_errors_total",
		Help: "JSON-RPC calls to the upstream node that failed, by method.",
	}, []string{"method"})
	upstreamLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "avaindex_upstream_rpc_duration_seconds",
		Help:    "Duration of JSON-RPC calls to the upstream node, by method.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"method"})
)

func init() {
	registry.MustRegister(
		httpRequests, httpLatency, indexedHeight, evmTracer, nodeHeight, applied,
		upstreamCalls, upstreamErrors, upstreamLatency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
}

// Registerer returns the registry served at /metrics, for the metrics of
// avaindex's own libraries (e.g. warpagg).
func Registerer() prometheus.Registerer { return registry }

// Handler serves the metrics in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(registry, promhttp.HandlerOpts{})
}

// ObserveRequest records one served HTTP request.
func ObserveRequest(route string, status int, start time.Time) {
	httpRequests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	httpLatency.WithLabelValues(route).Observe(time.Since(start).Seconds())
}

// SetIndexedHeight records the last height committed for chain.
func SetIndexedHeight(chain string, height uint64) {
	indexedHeight.WithLabelValues(chain).Set(float64(height))
}

// SetEVMTracer records whether the node traces the EVM chain followed
// under the cursor key chain.
func SetEVMTracer(chain string, on bool) {
	v := 0.0
	if on {
		v = 1
	}
	evmTracer.WithLabelValues(chain).Set(v)
}

// SetNodeHeight records the node's height of chain.
func SetNodeHeight(chain string, height uint64) {
	nodeHeight.WithLabelValues(chain).Set(float64(height))
}

// AddApplied counts n blocks of chain committed.
func AddApplied(chain string, n int) {
	applied.WithLabelValues(chain).Add(float64(n))
}

// ObserveUpstream records one call to the upstream node.
func ObserveUpstream(method string, start time.Time, err error) {
	upstreamCalls.WithLabelValues(method).Inc()
	upstreamLatency.WithLabelValues(method).Observe(time.Since(start).Seconds())
	if err != nil {
		upstreamErrors.WithLabelValues(method).Inc()
	}
}

package warpagg

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal/derrors"
)

// Stages of an aggregation, timed separately.
const (
	stageValidators = "validators" // resolving the subnet, height and validator set
	stageConnect    = "connect"    // waiting for validators' connections
	stageQuorum     = "quorum"     // from the first request to the quorum
	stageBuffer     = "buffer"     // from the quorum to the end of the buffer window
	stageVerify     = "verify"     // verifying signatures (batches and bisection)
	stageAggregate  = "aggregate"  // aggregating the signatures into the message
	stageTotal      = "total"      // the whole Aggregate call
)

// metrics are the aggregator's Prometheus metrics.
type metrics struct {
	stage       *prometheus.HistogramVec
	aggregates  *prometheus.CounterVec
	requests    *prometheus.CounterVec
	cache       *prometheus.CounterVec
	shared      prometheus.Counter
	inFlight    prometheus.Gauge
	signedRatio prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "avaindex_warp_stage_duration_seconds",
			Help:    "Time spent in each stage of a warp signature aggregation.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"stage"}),
		aggregates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avaindex_warp_aggregations_total",
			Help: "Warp signature aggregations, by outcome (ok, cached, invalid, unavailable, error).",
		}, []string{"outcome"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avaindex_warp_signature_requests_total",
			Help: "ACP-118 signature requests sent to validators, by outcome.",
		}, []string{"outcome"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avaindex_warp_signature_cache_total",
			Help: "Validator signatures taken from the cache (hit) or asked for (miss).",
		}, []string{"result"}),
		shared: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "avaindex_warp_shared_collections_total",
			Help: "Aggregations that joined a collection already running for the same message.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "avaindex_warp_collections_in_flight",
			Help: "Signature collections running now.",
		}),
		signedRatio: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "avaindex_warp_signed_weight_ratio",
			Help:    "Share of the signing subnet's weight in each aggregated signature.",
			Buckets: []float64{0.5, 0.6, 0.67, 0.7, 0.8, 0.9, 0.95, 0.99, 1},
		}),
	}
	if reg == nil {
		return m, nil
	}
	// Aggregators of one process (a test starting the service again)
	// share the registered collectors.
	var err error
	if m.stage, err = register(reg, m.stage); err != nil {
		return nil, err
	}
	if m.aggregates, err = register(reg, m.aggregates); err != nil {
		return nil, err
	}
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.cache, err = register(reg, m.cache); err != nil {
		return nil, err
	}
	if m.shared, err = register(reg, m.shared); err != nil {
		return nil, err
	}
	if m.inFlight, err = register(reg, m.inFlight); err != nil {
		return nil, err
	}
	if m.signedRatio, err = register(reg, m.signedRatio); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the collector already registered in
// its place.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

func (m *metrics) observe(stage string, d time.Duration) {
	m.stage.WithLabelValues(stage).Observe(d.Seconds())
}

// outcome names an Aggregate call's result for the aggregations counter.
func outcome(err error, cached bool) string {
	switch {
	case err == nil && cached:
		return "cached"
	case err == nil:
		return "ok"
	case errors.Is(err, derrors.InvalidArgument):
		return "invalid"
	case errors.Is(err, derrors.Unavailable):
		return "unavailable"
	}
	return "error"
}

package prices

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the price feed's: its requests by outcome, their latency,
// and the lookups the caches answered.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	lookups  *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avaindex_price_feed_requests_total",
			Help: "Requests to the price feed, by endpoint and outcome (ok, not_found, error, rate_limited: refused by the outgoing rate limit, not made).",
		}, []string{"endpoint", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "avaindex_price_feed_request_duration_seconds",
			Help:    "Duration of the requests made to the price feed, by endpoint.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
		}, []string{"endpoint"}),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avaindex_price_lookups_total",
			Help: "Price lookups, by kind (current, historical) and whether the cache answered (hit, miss).",
		}, []string{"kind", "result"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.lookups, err = register(reg, m.lookups); err != nil {
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

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
	// counted are lookups' counters by kind and hit, resolved once.
	counted map[[2]string]prometheus.Counter
}

// lookup is the counter of the lookups of kind that hit the cache or
// not.
func (m *metrics) lookup(kind string, hit bool) prometheus.Counter {
	result := "miss"
	if hit {
		result = "hit"
	}
	return m.counted[[2]string{kind, result}]
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
		return m.resolve(), nil
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
	return m.resolve(), nil
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

func (m *metrics) resolve() *metrics {
	m.counted = map[[2]string]prometheus.Counter{}
	for _, kind := range []string{"current", "historical"} {
		for _, result := range []string{"hit", "miss"} {
			m.counted[[2]string{kind, result}] = m.lookups.WithLabelValues(kind, result)
		}
	}
	return m
}

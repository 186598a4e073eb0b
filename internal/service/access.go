package service

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/config"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/store"
)

// With --rate-limit-redis, which limiter decided each request, and whether
// the shared one answered last: a Redis that is down shows as requests
// limited in memory and avaindex_rate_limit_shared 0.
var (
	limitDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_rate_limit_decisions_total",
		Help: "Requests rate-limited with --rate-limit-redis, by the limiter that decided: shared (Redis) or memory (Redis down).",
	}, []string{"limiter"})
	limitShared = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "avaindex_rate_limit_shared",
		Help: "1 while the rate limits are shared through --rate-limit-redis, 0 while Redis is down and each instance limits in memory.",
	})
)

func init() {
	instrument.Registerer().MustRegister(limitDecisions, limitShared)
}

func observeLimiter(shared bool) {
	if shared {
		limitDecisions.WithLabelValues("shared").Inc()
		limitShared.Set(1)
		return
	}
	limitDecisions.WithLabelValues("memory").Inc()
	limitShared.Set(0)
}

// newAccess returns what guards the API surfaces for cfg: API keys read
// from st, limits in memory or shared through Redis, CORS. A Redis that
// does not answer at start is only warned about: the limits stay in
// memory until it does.
func newAccess(ctx context.Context, cfg *config.Config, st store.Store, log *slog.Logger) (_ *server.Access, closeFn func(), err error) {
	var limiter ratelimit.Limiter = ratelimit.NewMemory()
	closeFn = func() {}
	if u := cfg.Access.RateLimitRedis; u != "" {
		client, err := ratelimit.DialRedis(u)
		if err != nil {
			return nil, nil, err
		}
		closeFn = func() { _ = client.Close() }
		where := redactedRedis(u)
		if err := client.Ping(ctx).Err(); err != nil {
			log.Warn("the rate-limit Redis does not answer; limiting in memory until it does", "redis", where, "err", err)
			limitShared.Set(0)
		} else {
			limitShared.Set(1)
			log.Info("rate limits shared through Redis", "redis", where, "prefix", cfg.Access.RateLimitRedisPrefix)
		}
		limiter = &ratelimit.Fallback{
			Primary:   ratelimit.NewRedis(client, cfg.Access.RateLimitRedisPrefix),
			Secondary: limiter,
			Log:       log.With("component", "ratelimit"),
			Observe:   observeLimiter,
		}
	}
	access, err := server.NewAccess(server.AccessConfig{
		Keys:           apikeys.NewCache(st, 0, log.With("component", "apikeys")),
		Limiter:        limiter,
		Tiers:          cfg.Access.Tiers,
		Weights:        cfg.Access.Weights,
		Policies:       server.DefaultPolicies(cfg.Access.RequireAPIKey),
		CORSOrigins:    cfg.Access.CORSOrigins,
		TrustedProxies: cfg.Access.TrustedProxies,
	})
	if err != nil {
		closeFn()
		return nil, nil, fmt.Errorf("configuring access: %w", err)
	}
	return access, closeFn, nil
}

// redactedRedis is a Redis URL without its password, for logs.
func redactedRedis(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable)"
	}
	return p.Redacted()
}

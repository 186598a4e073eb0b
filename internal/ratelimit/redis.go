package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis limits across every avaindex instance that uses the same Redis and
// prefix, with redis_rate's GCRA: one Lua script per request that reads
// and updates the bucket atomically with Redis's own clock, so instances
// need no synchronized clocks, and buckets expire when they refill.
type Redis struct {
	limiter *redis_rate.Limiter
	prefix  string
}

// NewRedis returns a Limiter over client whose bucket keys start with
// prefix (redis_rate adds its own "rate:" in front).
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{limiter: redis_rate.NewLimiter(client), prefix: prefix}
}

// DialRedis opens a client to the Redis at url (redis://[user:pass@]host:port[/db]
// or rediss:// for TLS).
func DialRedis(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--rate-limit-redis: %w", err)
	}
	// A limit check must not hold a request up for long: past these the
	// request is limited in memory instead (see Fallback).
	opts.DialTimeout = time.Second
	opts.DialerRetries = 1
	opts.MaxRetries = -1
	opts.ReadTimeout = 500 * time.Millisecond
	opts.WriteTimeout = 500 * time.Millisecond
	// Fallback logs the failures, once in a while; the library would log
	// each failed dial, on every request while Redis is down.
	redis.SetLogger(quietLogger{})
	return redis.NewClient(opts), nil
}

func (r *Redis) Allow(ctx context.Context, bucket string, t Tier, cost int) (Result, error) {
	if t.Unlimited() {
		return unlimited, nil
	}
	cost = clampCost(t, cost)
	limit := redis_rate.Limit{Rate: t.Limit, Burst: t.Limit, Period: t.Period}
	res, err := r.limiter.AllowN(ctx, r.prefix+bucket, limit, cost)
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	out := Result{
		Allowed:    res.Allowed > 0,
		Limit:      t.Limit,
		Remaining:  max(0, res.Remaining),
		ResetAfter: max(0, res.ResetAfter),
	}
	if !out.Allowed {
		out.RetryAfter = max(0, res.RetryAfter)
	}
	return out, nil
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// Fallback limits with Primary, and with Secondary when Primary fails: a
// shared Redis that is down leaves each instance limiting on its own,
// rather than failing requests or not limiting at all. After a failure,
// Primary is left alone for retryPrimary, so that requests are not each
// held up by a Redis that does not answer. Failures are logged at most
// once per logEvery, and Primary's return once.
type Fallback struct {
	Primary, Secondary Limiter
	Log                *slog.Logger
	// Observe, when set, is told of each request which limiter decided it:
	// shared is false when Secondary did, because Primary was down.
	Observe func(shared bool)

	// downUntil and lastLog are unix nanoseconds; down is whether the last
	// request Primary was asked about failed.
	downUntil, lastLog atomic.Int64
	down               atomic.Bool
}

const (
	retryPrimary = 5 * time.Second
	logEvery     = 30 * time.Second
)

func (f *Fallback) Allow(ctx context.Context, bucket string, t Tier, cost int) (Result, error) {
	now := time.Now().UnixNano()
	if now >= f.downUntil.Load() {
		res, err := f.Primary.Allow(ctx, bucket, t, cost)
		if err == nil {
			if f.down.CompareAndSwap(true, false) && f.Log != nil {
				f.Log.Info("shared rate limit available again; limiting through it")
			}
			f.observe(true)
			return res, nil
		}
		f.down.Store(true)
		f.downUntil.Store(now + int64(retryPrimary))
		if last := f.lastLog.Load(); now-last >= int64(logEvery) && f.lastLog.CompareAndSwap(last, now) && f.Log != nil {
			f.Log.Warn("shared rate limit unavailable; limiting in memory meanwhile", "err", err)
		}
	}
	f.observe(false)
	return f.Secondary.Allow(ctx, bucket, t, cost)
}

func (f *Fallback) observe(shared bool) {
	if f.Observe != nil {
		f.Observe(shared)
	}
}

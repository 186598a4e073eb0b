package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// sweepEvery is how often Memory forgets the buckets that refilled.
const sweepEvery = time.Minute

// Memory limits within this process: one x/time/rate token bucket per
// bucket name, its burst the tier's whole quota.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	buckets   map[string]*memBucket
	lastSweep time.Time
}

type memBucket struct {
	tier Tier
	lim  *rate.Limiter
}

// NewMemory returns an in-memory Limiter.
func NewMemory() *Memory {
	return &Memory{now: time.Now, buckets: map[string]*memBucket{}}
}

// perSecond is t's refill rate in units per second.
func perSecond(t Tier) float64 { return float64(t.Limit) / t.Period.Seconds() }

func (m *Memory) Allow(_ context.Context, bucket string, t Tier, cost int) (Result, error) {
	if t.Unlimited() {
		return unlimited, nil
	}
	cost = clampCost(t, cost)
	now := m.now()
	m.mu.Lock()
	m.sweep(now)
	b := m.buckets[bucket]
	if b == nil || b.tier != t {
		b = &memBucket{tier: t, lim: rate.NewLimiter(rate.Limit(perSecond(t)), t.Limit)}
		m.buckets[bucket] = b
	}
	m.mu.Unlock()

	// AllowN spends nothing when it refuses, as redis_rate does.
	allowed := b.lim.AllowN(now, cost)
	tokens := b.lim.TokensAt(now)
	res := Result{
		Allowed:    allowed,
		Limit:      t.Limit,
		ResetAfter: seconds((float64(t.Limit) - tokens) / perSecond(t)),
	}
	if allowed {
		res.Remaining = max(0, int(math.Floor(tokens)))
	} else {
		res.RetryAfter = seconds((float64(cost) - tokens) / perSecond(t))
	}
	return res, nil
}

// sweep drops, at most once per sweepEvery, the buckets that are full
// again: a full bucket is the same as a new one, so only the callers of
// about the last period are remembered. m.mu is held.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepEvery {
		return
	}
	m.lastSweep = now
	for name, b := range m.buckets {
		if b.lim.TokensAt(now) >= float64(b.tier.Limit) {
			delete(m.buckets, name)
		}
	}
}

// Len is how many buckets m remembers.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.buckets)
}

func seconds(s float64) time.Duration {
	if s <= 0 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

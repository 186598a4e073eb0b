package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestParseTier(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Tier
	}{
		{"pro:60000/1m", Tier{Name: "pro", Limit: 60000, Period: time.Minute}},
		{"dash:10/1s:read-only", Tier{Name: "dash", Limit: 10, Period: time.Second, ReadOnly: true}},
		{"internal:unlimited", Tier{Name: "internal"}},
		{"x.y_z-1:5/2h", Tier{Name: "x.y_z-1", Limit: 5, Period: 2 * time.Hour}},
	} {
		got, err := ParseTier(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseTier(%q) = %+v, %v, want %+v", tc.in, got, err, tc.want)
		}
		if again, err := ParseTier(got.String()); err != nil || again != got {
			t.Errorf("ParseTier(%q.String() = %q) = %+v, %v", tc.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "pro", "pro:", ":1/1m", "pro:0/1m", "pro:-1/1m", "pro:1/0s", "pro:1/500ms", "pro:1/x",
		"pro:1", "pro:1/1m:write", "pro:1/1m:read-only:x", "a b:1/1m", "pro:unlimited:nope"} {
		if tier, err := ParseTier(bad); err == nil {
			t.Errorf("ParseTier(%q) = %+v, want an error", bad, tier)
		}
	}
}

func TestParseWeight(t *testing.T) {
	p, w, err := ParseWeight("GET /v1/networks/{network}/rewards=3")
	if err != nil || p != "GET /v1/networks/{network}/rewards" || w != 3 {
		t.Errorf("ParseWeight = %q %d %v", p, w, err)
	}
	for _, bad := range []string{"", "=3", "GET /x", "GET /x=0", "GET /x=-2", "GET /x=a"} {
		if _, _, err := ParseWeight(bad); err == nil {
			t.Errorf("ParseWeight(%q) did not fail", bad)
		}
	}
}

// limiterContract checks what every backend must do; newBucket returns a
// bucket name no other run used.
func limiterContract(t *testing.T, l Limiter, newBucket func() string) {
	ctx := context.Background()
	tier := Tier{Name: "t", Limit: 10, Period: time.Minute}

	t.Run("quota and weights", func(t *testing.T) {
		b := newBucket()
		for i, want := range []int{7, 4, 1} {
			res, err := l.Allow(ctx, b, tier, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Allowed || res.Limit != 10 || res.Remaining != want {
				t.Fatalf("request %d: %+v, want allowed with %d remaining", i, res, want)
			}
			// 6 s refill one unit: the quota is full again 6 s per unit spent.
			if spent := 10 - want; res.ResetAfter < time.Duration(spent)*6*time.Second-time.Second || res.ResetAfter > time.Duration(spent)*6*time.Second {
				t.Errorf("request %d: reset after %s, want about %ds", i, res.ResetAfter, spent*6)
			}
		}
		res, err := l.Allow(ctx, b, tier, 3)
		if err != nil {
			t.Fatal(err)
		}
		// 1 unit left, 3 needed: 2 more take 12 s to refill.
		if res.Allowed || res.Remaining != 0 || res.RetryAfter < 11*time.Second || res.RetryAfter > 12*time.Second {
			t.Fatalf("over the quota: %+v, want refused, retry after about 12s", res)
		}
		// A refused request spends nothing: the last unit is still there.
		if res, err := l.Allow(ctx, b, tier, 1); err != nil || !res.Allowed || res.Remaining != 0 {
			t.Fatalf("the last unit: %+v, %v", res, err)
		}
	})
	t.Run("buckets are separate", func(t *testing.T) {
		a, b := newBucket(), newBucket()
		if res, _ := l.Allow(ctx, a, tier, 10); !res.Allowed {
			t.Fatalf("a: %+v", res)
		}
		if res, _ := l.Allow(ctx, a, tier, 1); res.Allowed {
			t.Fatalf("a exhausted: %+v", res)
		}
		if res, _ := l.Allow(ctx, b, tier, 1); !res.Allowed || res.Remaining != 9 {
			t.Fatalf("b: %+v", res)
		}
	})
	t.Run("a cost above the quota costs the quota", func(t *testing.T) {
		b := newBucket()
		if res, _ := l.Allow(ctx, b, tier, 50); !res.Allowed || res.Remaining != 0 {
			t.Fatalf("cost 50 on a quota of 10: %+v", res)
		}
	})
	t.Run("refill", func(t *testing.T) {
		fast := Tier{Name: "fast", Limit: 2, Period: time.Second}
		b := newBucket()
		for range 2 {
			if res, _ := l.Allow(ctx, b, fast, 1); !res.Allowed {
				t.Fatalf("%+v", res)
			}
		}
		res, _ := l.Allow(ctx, b, fast, 1)
		if res.Allowed || res.RetryAfter <= 0 || res.RetryAfter > 500*time.Millisecond {
			t.Fatalf("exhausted: %+v, want refused with a retry within 500ms", res)
		}
		time.Sleep(res.RetryAfter + 20*time.Millisecond)
		if res, _ := l.Allow(ctx, b, fast, 1); !res.Allowed {
			t.Fatalf("after its retry-after: %+v", res)
		}
	})
	t.Run("unlimited", func(t *testing.T) {
		b := newBucket()
		for range 100 {
			if res, err := l.Allow(ctx, b, Tier{Name: "u"}, 1000); err != nil || !res.Allowed {
				t.Fatalf("%+v %v", res, err)
			}
		}
	})
}

func uniqueName(t testing.TB) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b) + ":"
}

func TestMemory(t *testing.T) {
	n := 0
	limiterContract(t, NewMemory(), func() string { n++; return "b" + string(rune('a'+n)) })
}

// TestMemorySweep: a bucket that refilled is forgotten; one still in use
// is kept.
func TestMemorySweep(t *testing.T) {
	m := NewMemory()
	now := time.Unix(1_000_000, 0)
	m.now = func() time.Time { return now }
	tier := Tier{Name: "t", Limit: 10, Period: time.Minute}
	ctx := context.Background()
	_, _ = m.Allow(ctx, "idle", tier, 1)
	_, _ = m.Allow(ctx, "busy", tier, 10)
	now = now.Add(sweepEvery + time.Second) // idle refilled; busy did not
	_, _ = m.Allow(ctx, "busy", tier, 10)
	if m.Len() != 1 {
		t.Fatalf("%d buckets after the sweep, want 1 (busy)", m.Len())
	}
	if res, _ := m.Allow(ctx, "busy", tier, 1); res.Allowed {
		t.Errorf("busy was forgotten: %+v", res)
	}
}

// redisURL is the Redis the tests use: AVAINDEX_TEST_REDIS or the local one.
func redisURL() string {
	if u := os.Getenv("AVAINDEX_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	c, err := DialRedis(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s: %v", redisURL(), err)
		}
		t.Skipf("SKIP: Redis not reachable at %s: %v", redisURL(), err)
	}
	return c
}

func TestRedis(t *testing.T) {
	prefix := uniqueName(t)
	n := 0
	limiterContract(t, NewRedis(testRedis(t), prefix), func() string { n++; return "b" + string(rune('a'+n)) })
}

// TestRedisShared: two limiters with their own clients but one prefix
// share each bucket's quota; another prefix does not.
func TestRedisShared(t *testing.T) {
	prefix := uniqueName(t)
	a, b := NewRedis(testRedis(t), prefix), NewRedis(testRedis(t), prefix)
	other := NewRedis(testRedis(t), uniqueName(t))
	ctx := context.Background()
	tier := Tier{Name: "t", Limit: 4, Period: time.Minute}
	for i, l := range []Limiter{a, b, a, b} {
		if res, err := l.Allow(ctx, "k", tier, 1); err != nil || !res.Allowed || res.Remaining != 3-i {
			t.Fatalf("request %d: %+v %v", i, res, err)
		}
	}
	for _, l := range []Limiter{a, b} {
		if res, _ := l.Allow(ctx, "k", tier, 1); res.Allowed {
			t.Errorf("the shared quota is spent, yet %+v", res)
		}
	}
	if res, _ := other.Allow(ctx, "k", tier, 1); !res.Allowed || res.Remaining != 3 {
		t.Errorf("another prefix: %+v, want its own quota", res)
	}
}

// TestFallback: with its Redis down, Fallback limits in memory.
func TestFallback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := DialRedis("redis://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	down := NewRedis(c, "p:")
	ctx := context.Background()
	tier := Tier{Name: "t", Limit: 2, Period: time.Minute}
	if _, err := down.Allow(ctx, "k", tier, 1); err == nil {
		t.Fatal("a Redis that is down answered")
	}
	var shared, local int
	f := &Fallback{Primary: down, Secondary: NewMemory(), Observe: func(s bool) {
		if s {
			shared++
		} else {
			local++
		}
	}}
	start := time.Now()
	for i := range 2 {
		if res, err := f.Allow(ctx, "k", tier, 1); err != nil || !res.Allowed {
			t.Fatalf("request %d: %+v %v", i, res, err)
		}
	}
	if shared != 0 || local != 2 {
		t.Errorf("Observe told of %d shared and %d in-memory decisions, want 0 and 2", shared, local)
	}
	if res, err := f.Allow(ctx, "k", tier, 1); err != nil || res.Allowed {
		t.Fatalf("over the quota in memory: %+v %v", res, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("3 requests with Redis down took %s: each waited for it", d)
	}
	failing := &Fallback{Primary: down, Secondary: down}
	if _, err := failing.Allow(ctx, "k", tier, 1); err == nil {
		t.Error("both failing: no error")
	}
}

package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// benchLimiter measures one Allow, over 1,000 callers' buckets, with a
// quota that never runs out.
func benchLimiter(b *testing.B, l Limiter) {
	ctx := context.Background()
	tier := Tier{Name: "bench", Limit: 1 << 30, Period: time.Second}
	buckets := make([]string, 1000)
	for i := range buckets {
		buckets[i] = "ip:" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if res, err := l.Allow(ctx, buckets[i%len(buckets)], tier, 1); err != nil || !res.Allowed {
				b.Fatalf("%+v %v", res, err)
			}
			i++
		}
	})
}

func BenchmarkMemory(b *testing.B) { benchLimiter(b, NewMemory()) }

func BenchmarkRedis(b *testing.B) {
	c, err := DialRedis(redisURL())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil {
		b.Skipf("SKIP: Redis not reachable at %s: %v", redisURL(), err)
	}
	benchLimiter(b, NewRedis(c, uniqueName(b)))
}

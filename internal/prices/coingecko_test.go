package prices

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal/testing/pricetest"
)

var currencies = []string{"usd", "eur", "jpy"}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newClient(t *testing.T, url string, o Options) (*CoinGecko, *clock, *prometheus.Registry) {
	t.Helper()
	clk := &clock{now: time.Date(2025, 3, 10, 15, 0, 0, 0, time.UTC)}
	reg := prometheus.NewRegistry()
	o.URL, o.Currencies, o.Now, o.Registerer = url, currencies, clk.Now, reg
	if o.RequestsPerMinute == 0 {
		o.RequestsPerMinute = 6000
	}
	c, err := NewCoinGecko(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk, reg
}

func TestCurrentPrices(t *testing.T) {
	f := pricetest.New(t)
	f.Current["avalanche-2"] = map[string]float64{"usd": 21.5, "eur": 19.75, "jpy": 3200}
	c, clk, reg := newClient(t, f.URL, Options{APIKey: "k1", CurrentTTL: time.Minute})
	ctx := context.Background()
	for _, want := range []struct {
		cur string
		v   float64
	}{{"usd", 21.5}, {"eur", 19.75}, {"jpy", 3200}} {
		v, ok := c.Current(ctx, "avalanche-2", want.cur)
		if !ok || v != want.v {
			t.Errorf("Current(%s) = %v, %v; want %v", want.cur, v, ok, want.v)
		}
	}
	// One request answered all three currencies.
	if f.Count() != 1 {
		t.Fatalf("%d requests: %v", f.Count(), f.Requests)
	}
	if got := f.Requests[0]; !strings.HasPrefix(got, "/api/v3/simple/price?") || !strings.Contains(got, "ids=avalanche-2") ||
		!strings.Contains(got, "vs_currencies=usd%2Ceur%2Cjpy") {
		t.Errorf("request %s", got)
	}
	if len(f.Keys) != 1 || f.Keys[0] != "x-cg-demo-api-key: k1" {
		t.Errorf("keys sent %v", f.Keys)
	}
	// A currency the feed does not tell, and a coin it does not know.
	if _, ok := c.Current(ctx, "avalanche-2", "chf"); ok {
		t.Error("a price in chf")
	}
	if _, ok := c.Current(ctx, "nope", "usd"); ok {
		t.Error("a price of an unknown coin")
	}
	if f.Count() != 2 {
		t.Errorf("%d requests", f.Count())
	}
	// The TTL passes: asked again, a new price.
	f.Lock()
	f.Current["avalanche-2"]["usd"] = 30
	f.Unlock()
	clk.add(59 * time.Second)
	if v, _ := c.Current(ctx, "avalanche-2", "usd"); v != 21.5 {
		t.Errorf("within the TTL: %v", v)
	}
	clk.add(2 * time.Second)
	if v, _ := c.Current(ctx, "avalanche-2", "usd"); v != 30 {
		t.Errorf("after the TTL: %v", v)
	}
	if f.Count() != 3 {
		t.Errorf("%d requests", f.Count())
	}
	if n := counter(t, reg, "avaindex_price_lookups_total", "current", "hit"); n != 4 {
		t.Errorf("%v hits", n)
	}
}

// counter is the value of the counter name with labels in reg, 0 when
// it was never counted.
func counter(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			match := len(m.GetLabel()) == len(labels)
			for i, l := range m.GetLabel() {
				match = match && l.GetValue() == labels[i]
			}
			if match {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestHistoricalPrices(t *testing.T) {
	f := pricetest.New(t)
	f.History["avalanche-2"] = map[string]map[string]float64{
		"01-02-2024": {"usd": 35.25, "eur": 32.5},
		"09-03-2025": {"usd": 22},
	}
	c, clk, _ := newClient(t, f.URL, Options{KeyHeader: "x-cg-pro-api-key", APIKey: "k2"})
	ctx := context.Background()
	at := time.Date(2024, 2, 1, 23, 59, 0, 0, time.FixedZone("x", -3600)) // 2 February in UTC
	if _, ok := c.Historical(ctx, "avalanche-2", at, "usd"); ok {
		t.Error("a price on 2 February")
	}
	at = time.Date(2024, 2, 1, 22, 0, 0, 0, time.FixedZone("x", -3600))
	if v, ok := c.Historical(ctx, "avalanche-2", at, "eur"); !ok || v != 32.5 {
		t.Errorf("1 February in eur: %v %v", v, ok)
	}
	if v, ok := c.Historical(ctx, "avalanche-2", at.Add(-time.Hour), "usd"); !ok || v != 35.25 {
		t.Errorf("1 February in usd: %v %v", v, ok)
	}
	want := []string{"/api/v3/coins/avalanche-2/history?date=02-02-2024&localization=false",
		"/api/v3/coins/avalanche-2/history?date=01-02-2024&localization=false"}
	if strings.Join(f.Requests, " ") != strings.Join(want, " ") {
		t.Errorf("requests %v", f.Requests)
	}
	if f.Keys[0] != "x-cg-pro-api-key: k2" {
		t.Errorf("keys %v", f.Keys)
	}
	// Days later the answers, also the empty one about a day long past,
	// are still cached.
	clk.add(30 * 24 * time.Hour)
	c.Historical(ctx, "avalanche-2", at, "usd")
	c.Historical(ctx, "avalanche-2", at.Add(3*time.Hour), "usd")
	if f.Count() != 2 {
		t.Errorf("%d requests: %v", f.Count(), f.Requests)
	}
	// Yesterday's price not in the feed yet: asked again once the
	// failure TTL passed.
	clk.now = time.Date(2025, 3, 11, 1, 0, 0, 0, time.UTC)
	yesterday := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	if _, ok := c.Historical(ctx, "avalanche-2", yesterday, "usd"); ok {
		t.Error("a price of yesterday")
	}
	f.Lock()
	f.History["avalanche-2"]["10-03-2025"] = map[string]float64{"usd": 23}
	f.Unlock()
	if _, ok := c.Historical(ctx, "avalanche-2", yesterday, "usd"); ok {
		t.Error("the empty answer was not cached")
	}
	clk.add(DefaultFailureTTL + time.Second)
	if v, ok := c.Historical(ctx, "avalanche-2", yesterday, "usd"); !ok || v != 23 {
		t.Errorf("yesterday: %v %v", v, ok)
	}
	// An unknown coin (404) is no price.
	if _, ok := c.Historical(ctx, "nope", yesterday, "usd"); ok {
		t.Error("a price of an unknown coin")
	}
}

// TestCoalesced: concurrent lookups of one price make one request.
func TestCoalesced(t *testing.T) {
	f := pricetest.New(t)
	f.Current["avalanche-2"] = map[string]float64{"usd": 10}
	f.Block = make(chan struct{})
	c, _, _ := newClient(t, f.URL, Options{})
	var wg sync.WaitGroup
	got := make([]float64, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = c.Current(context.Background(), "avalanche-2", currencies[i%2])
		}()
	}
	for f.Count() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the others join the flight
	close(f.Block)
	wg.Wait()
	if f.Count() != 1 {
		t.Errorf("%d requests", f.Count())
	}
	for i, v := range got {
		if i%2 == 0 && v != 10 {
			t.Errorf("lookup %d: %v", i, v)
		}
	}
	// A caller that gives up gets no price; the request still fills the
	// cache.
	f.Block = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() {
		_, ok := c.Current(ctx, "other", "usd")
		done <- ok
	}()
	for f.Count() == 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if <-done {
		t.Error("a price after the caller gave up")
	}
	f.Lock()
	f.Current["other"] = map[string]float64{"usd": 4}
	f.Unlock()
	close(f.Block)
	for {
		if e, ok := c.current.Get("other"); ok {
			if e.prices["usd"] != 4 {
				t.Errorf("cached %v", e.prices)
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFailures: a failing, slow, oversized or malformed feed tells no
// price, is counted, and is not asked again within the failure TTL.
func TestFailures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"500", http.StatusInternalServerError, ""},
		{"429", http.StatusTooManyRequests, ""},
		{"oversized", 0, `{"avalanche-2":{"usd":1,"pad":"` + strings.Repeat("x", 2048) + `"}}`},
		{"malformed", 0, `{"avalanche-2":[1,2]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.status != 0 {
					w.WriteHeader(tc.status)
				}
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, clk, reg := newClient(t, srv.URL, Options{MaxResponseBytes: 1024})
			if _, ok := c.Current(ctx, "avalanche-2", "usd"); ok {
				t.Fatal("a price")
			}
			if n := counter(t, reg, "avaindex_price_feed_requests_total", "simple_price", "error"); n != 1 {
				t.Errorf("%v errors counted", n)
			}
			c.Current(ctx, "avalanche-2", "usd")
			clk.add(DefaultFailureTTL + time.Second)
			c.Current(ctx, "avalanche-2", "usd")
			if n := c.Requests(); n != 2 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// TestRateLimit: lookups beyond the outgoing rate tell no price at once,
// without a request.
func TestRateLimit(t *testing.T) {
	f := pricetest.New(t)
	for _, coin := range []string{"a", "b", "c", "d"} {
		f.Current[coin] = map[string]float64{"usd": 1}
	}
	// 10 a minute: a burst of 1, the next in 6s, beyond MaxWait.
	c, _, reg := newClient(t, f.URL, Options{RequestsPerMinute: 10, MaxWait: 100 * time.Millisecond})
	ctx := context.Background()
	ok := 0
	for _, coin := range []string{"a", "b", "c", "d"} {
		if _, known := c.Current(ctx, coin, "usd"); known {
			ok++
		}
	}
	if ok != 1 || f.Count() != 1 {
		t.Errorf("%d prices, %d requests", ok, f.Count())
	}
	if n := counter(t, reg, "avaindex_price_feed_requests_total", "simple_price", "rate_limited"); n != 3 {
		t.Errorf("%v rate limited", n)
	}
}

func TestSource(t *testing.T) {
	f := pricetest.New(t)
	f.Current["avalanche-2"] = map[string]float64{"usd": 20}
	f.Current["usd-coin"] = map[string]float64{"usd": 1.001}
	f.History["avalanche-2"] = map[string]map[string]float64{"01-02-2024": {"eur": 30}}
	c, _, _ := newClient(t, f.URL, Options{})
	avax := ids.ID{9}
	usdc := common.HexToAddress("0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E")
	s := NewSource(c, Coins{
		Assets: map[ids.ID]string{avax: AVAXCoin},
		Tokens: map[Token]string{{ChainID: 43114, Address: usdc}: "usd-coin"},
		Native: func(chainID uint64) (string, bool) { return AVAXCoin, chainID == 43114 },
	})
	ctx := context.Background()
	day := time.Date(2024, 2, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		get  func() (float64, bool, error)
		want float64
		ok   bool
	}{
		{"AVAX reward", func() (float64, bool, error) { return s.HistoricalPrice(ctx, avax, day, "eur") }, 30, true},
		{"other asset", func() (float64, bool, error) { return s.HistoricalPrice(ctx, ids.ID{8}, day, "eur") }, 0, false},
		{"native now", func() (float64, bool, error) { return s.TokenPrice(ctx, 43114, common.Address{}, time.Time{}, "usd") }, 20, true},
		{"native then", func() (float64, bool, error) { return s.TokenPrice(ctx, 43114, common.Address{}, day, "eur") }, 30, true},
		{"other chain's native", func() (float64, bool, error) { return s.TokenPrice(ctx, 7, common.Address{}, time.Time{}, "usd") }, 0, false},
		{"USDC", func() (float64, bool, error) { return s.TokenPrice(ctx, 43114, usdc, time.Time{}, "usd") }, 1.001, true},
		{"USDC elsewhere", func() (float64, bool, error) { return s.TokenPrice(ctx, 7, usdc, time.Time{}, "usd") }, 0, false},
	} {
		v, ok, err := tc.get()
		if err != nil || ok != tc.ok || v != tc.want {
			t.Errorf("%s: %v %v %v; want %v %v", tc.name, v, ok, err, tc.want, tc.ok)
		}
	}
}

func BenchmarkCachedCurrent(b *testing.B) {
	f := pricetest.New(b)
	f.Current["avalanche-2"] = map[string]float64{"usd": 20}
	c, err := NewCoinGecko(Options{URL: f.URL, Currencies: currencies, CurrentTTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	s := NewSource(c, Coins{Native: func(uint64) (string, bool) { return AVAXCoin, true }})
	ctx := context.Background()
	if _, ok, _ := s.TokenPrice(ctx, 1, common.Address{}, time.Time{}, "usd"); !ok {
		b.Fatal("no price")
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, _ := s.TokenPrice(ctx, 1, common.Address{}, time.Time{}, "usd"); !ok {
				b.Fatal("no price")
			}
		}
	})
	if f.Count() != 1 {
		b.Fatalf("%d requests", f.Count())
	}
}

// Package prices tells the prices of coins from a CoinGecko-compatible
// HTTP API (no HTTP handler: a client), with caches, a rate limit on the
// requests it makes and coalesced concurrent requests; Source maps the
// Data API's assets and tokens to the feed's coin ids and is the Data
// API's api.PriceSource. A failure of the feed never fails the caller:
// it is logged, counted, and the price is unknown.
package prices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ava-labs/avalanchego/cache/lru"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// Key headers of CoinGecko's API: the Pro API's and the Demo API's.
const (
	ProKeyHeader  = "x-cg-pro-api-key"
	DemoKeyHeader = "x-cg-demo-api-key"
)

// Defaults of Options.
const (
	DefaultRequestsPerMinute = 30
	DefaultCurrentTTL        = time.Minute
	DefaultFailureTTL        = 30 * time.Second
	DefaultHistorySize       = 16384
	DefaultMaxResponseBytes  = 1 << 20
	DefaultMaxWait           = 2 * time.Second
	DefaultTimeout           = 10 * time.Second
)

// Options configure a CoinGecko client; zero fields take the defaults.
type Options struct {
	// URL is the API's base URL, e.g. https://api.coingecko.com/api/v3;
	// the paths /simple/price and /coins/{id}/history are under it.
	URL string
	// APIKey, when set, is sent in the header KeyHeader (by default the
	// Pro API's for a pro-api.coingecko.com URL, else the Demo API's).
	APIKey    string
	KeyHeader string
	// Currencies are the currencies asked for in every request (each
	// answer caches all of them), lower case.
	Currencies []string
	// RequestsPerMinute limits the requests made to the API (burst: a
	// tenth of a minute's, at least 1); a lookup that would wait more
	// than MaxWait for its turn tells no price.
	RequestsPerMinute float64
	MaxWait           time.Duration
	// CurrentTTL is how long a current price is kept; FailureTTL how
	// long a failed or empty answer is (an empty one about a day older
	// than yesterday is kept for good, as every historical price is).
	CurrentTTL time.Duration
	FailureTTL time.Duration
	// HistorySize bounds the cached historical answers (coin and day).
	HistorySize int
	// MaxResponseBytes bounds an answer's body; Timeout a request.
	MaxResponseBytes int64
	Timeout          time.Duration
	HTTPClient       *http.Client
	// Registerer receives the metrics; none when nil.
	Registerer prometheus.Registerer
	Log        *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// CoinGecko is a client of a CoinGecko-compatible API: the current prices
// of /simple/price and the daily ones of /coins/{id}/history, cached.
type CoinGecko struct {
	o          Options
	base       *url.URL
	currencies string
	limiter    *rate.Limiter
	flight     singleflight.Group
	current    *lru.Cache[string, *entry]
	history    *lru.Cache[string, *entry]
	metrics    *metrics
	requests   atomic.Int64
}

// entry is one cached answer: the coin's price per currency (nil when the
// feed knows none), until expires (never when zero).
type entry struct {
	prices  map[string]float64
	expires time.Time
}

// NewCoinGecko returns a client of the API at o.URL.
func NewCoinGecko(o Options) (*CoinGecko, error) {
	u, err := url.Parse(strings.TrimRight(o.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the price API URL must be an http(s) URL, got %q", o.URL)
	}
	if len(o.Currencies) == 0 {
		return nil, errors.New("prices: no currency")
	}
	if o.KeyHeader == "" {
		o.KeyHeader = DemoKeyHeader
		if strings.HasPrefix(u.Hostname(), "pro-api.") {
			o.KeyHeader = ProKeyHeader
		}
	}
	if o.RequestsPerMinute <= 0 {
		o.RequestsPerMinute = DefaultRequestsPerMinute
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.CurrentTTL <= 0 {
		o.CurrentTTL = DefaultCurrentTTL
	}
	if o.FailureTTL <= 0 {
		o.FailureTTL = DefaultFailureTTL
	}
	if o.HistorySize <= 0 {
		o.HistorySize = DefaultHistorySize
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, err
	}
	burst := max(1, int(o.RequestsPerMinute/10))
	return &CoinGecko{
		o:          o,
		base:       u,
		currencies: strings.Join(o.Currencies, ","),
		limiter:    rate.NewLimiter(rate.Limit(o.RequestsPerMinute/60), burst),
		current:    lru.NewCache[string, *entry](4096),
		history:    lru.NewCache[string, *entry](o.HistorySize),
		metrics:    m,
	}, nil
}

// Requests is how many requests were made to the API.
func (c *CoinGecko) Requests() int64 { return c.requests.Load() }

// Current returns coin's current price in currency; ok is false when the
// feed does not tell it (or failed: logged and counted).
func (c *CoinGecko) Current(ctx context.Context, coin, currency string) (float64, bool) {
	if v, ok, hit := c.cached("current", c.current, coin, currency); hit {
		return v, ok
	}
	return c.lookup(ctx, "current", c.current, coin, coin, currency, func(ctx context.Context) (map[string]float64, bool, error) {
		return c.simplePrice(ctx, coin)
	})
}

// Historical returns coin's price in currency on day (the feed's daily
// price, at 00:00 UTC of day's UTC date).
func (c *CoinGecko) Historical(ctx context.Context, coin string, day time.Time, currency string) (float64, bool) {
	day = day.UTC()
	date := day.Format("02-01-2006")
	if v, ok, hit := c.cached("historical", c.history, coin+"@"+date, currency); hit {
		return v, ok
	}
	return c.lookup(ctx, "historical", c.history, coin+"@"+date, coin, currency, func(ctx context.Context) (map[string]float64, bool, error) {
		p, err := c.coinHistory(ctx, coin, date)
		// An answer about a day before yesterday does not change;
		// a more recent day's may not be in the feed yet.
		final := c.o.Now().UTC().Sub(day) > 48*time.Hour
		return p, final, err
	})
}

// cached returns the price of currency in cache's entry key; hit is
// false when the entry is absent or expired.
func (c *CoinGecko) cached(kind string, cache *lru.Cache[string, *entry], key, currency string) (v float64, ok, hit bool) {
	e, hit := cache.Get(key)
	hit = hit && (e.expires.IsZero() || c.o.Now().Before(e.expires))
	c.metrics.lookup(kind, hit).Inc()
	if !hit {
		return 0, false, false
	}
	v, ok = e.prices[currency]
	return v, ok, true
}

// lookup fetches the entry key of cache once for every concurrent caller
// and returns its price of currency.
func (c *CoinGecko) lookup(ctx context.Context, kind string, cache *lru.Cache[string, *entry], key, coin, currency string,
	fetch func(context.Context) (map[string]float64, bool, error)) (float64, bool) {
	ch := c.flight.DoChan(kind+"|"+key, func() (any, error) {
		// The fetch outlives a caller that gives up: the others, and the
		// cache, still want its answer.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.o.Timeout)
		defer cancel()
		prices, final, err := fetch(fctx)
		var limited *rateLimited
		switch {
		case errors.As(err, &limited):
			// Not cached: the next lookup may get its turn.
			return (*entry)(nil), err
		case err != nil:
			cache.Put(key, &entry{expires: c.o.Now().Add(c.o.FailureTTL)})
			return (*entry)(nil), err
		}
		e := &entry{prices: prices}
		switch {
		case kind == "current":
			e.expires = c.o.Now().Add(c.o.CurrentTTL)
		case prices == nil && !final:
			e.expires = c.o.Now().Add(c.o.FailureTTL)
		}
		cache.Put(key, e)
		return e, nil
	})
	select {
	case <-ctx.Done():
		return 0, false
	case res := <-ch:
		if res.Err != nil {
			// A refused turn is counted, not logged at every lookup.
			level := slog.LevelWarn
			if limited := (*rateLimited)(nil); errors.As(res.Err, &limited) {
				level = slog.LevelDebug
			}
			c.o.Log.Log(ctx, level, "price feed", "kind", kind, "coin", coin, "err", res.Err)
			return 0, false
		}
		v, ok := res.Val.(*entry).prices[currency]
		return v, ok
	}
}

// rateLimited is the error of a request refused its turn.
type rateLimited struct{ wait time.Duration }

func (e *rateLimited) Error() string {
	return fmt.Sprintf("rate limited: the next request may be made in %s", e.wait.Round(time.Millisecond))
}

// simplePrice asks /simple/price for coin's current prices.
func (c *CoinGecko) simplePrice(ctx context.Context, coin string) (map[string]float64, bool, error) {
	q := url.Values{"ids": {coin}, "vs_currencies": {c.currencies}}
	var body map[string]map[string]any
	found, err := c.get(ctx, "simple_price", "/simple/price", q, &body)
	if err != nil || !found {
		return nil, false, err
	}
	return numbers(body[coin]), false, nil
}

// coinHistory asks /coins/{coin}/history for coin's prices on date
// (dd-mm-yyyy).
func (c *CoinGecko) coinHistory(ctx context.Context, coin, date string) (map[string]float64, error) {
	var body struct {
		MarketData *struct {
			CurrentPrice map[string]any `json:"current_price"`
		} `json:"market_data"`
	}
	found, err := c.get(ctx, "coin_history", "/coins/"+url.PathEscape(coin)+"/history", url.Values{"date": {date}, "localization": {"false"}}, &body)
	if err != nil || !found || body.MarketData == nil {
		return nil, err
	}
	return numbers(body.MarketData.CurrentPrice), nil
}

// numbers keeps the numeric members of m (currency → price); nil when
// none is.
func numbers(m map[string]any) map[string]float64 {
	var out map[string]float64
	for k, v := range m {
		if f, ok := v.(float64); ok {
			if out == nil {
				out = make(map[string]float64, len(m))
			}
			out[strings.ToLower(k)] = f
		}
	}
	return out
}

// get makes one request, in its turn, and decodes its JSON answer into
// dst; found is false when the API answered 404 (an unknown coin).
func (c *CoinGecko) get(ctx context.Context, endpoint, path string, q url.Values, dst any) (found bool, err error) {
	defer func() {
		outcome := "ok"
		var limited *rateLimited
		switch {
		case errors.As(err, &limited):
			outcome = "rate_limited"
		case err != nil:
			outcome = "error"
		case !found:
			outcome = "not_found"
		}
		c.metrics.requests.WithLabelValues(endpoint, outcome).Inc()
	}()
	r := c.limiter.Reserve()
	if d := r.Delay(); d > c.o.MaxWait {
		r.Cancel()
		return false, &rateLimited{wait: d}
	} else if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			r.Cancel()
			return false, ctx.Err()
		case <-t.C:
		}
	}
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	if c.o.APIKey != "" {
		req.Header.Set(c.o.KeyHeader, c.o.APIKey)
	}
	c.requests.Add(1)
	start := time.Now()
	resp, err := c.o.HTTPClient.Do(req)
	c.metrics.latency.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxResponseBytes+1))
	if err != nil {
		return false, fmt.Errorf("%s: reading the answer: %w", path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("%s: HTTP %d: %s", path, resp.StatusCode, clip(body, 200))
	case int64(len(body)) > c.o.MaxResponseBytes:
		return false, fmt.Errorf("%s: the answer is larger than %d bytes", path, c.o.MaxResponseBytes)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return false, fmt.Errorf("%s: decoding the answer: %w", path, err)
	}
	return true, nil
}

// clip is the start of b as text, for an error message.
func clip(b []byte, n int) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), n)]), "?")
	return strings.TrimSpace(s)
}

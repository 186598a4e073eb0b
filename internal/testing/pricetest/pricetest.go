// Package pricetest is a loopback price feed for tests: an httptest
// server answering CoinGecko's /simple/price and /coins/{id}/history
// shapes with the prices it is given, recording what it was asked.
package pricetest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Feed is the server's state; set its fields before the first request,
// or under Lock.
type Feed struct {
	// URL is the server's base URL (the --price-api-url).
	URL string
	sync.Mutex
	// Current are the current prices: coin → currency → price.
	Current map[string]map[string]float64
	// History are the daily prices: coin → dd-mm-yyyy → currency →
	// price.
	History map[string]map[string]map[string]float64
	// Status, when not 0, is the status every request is answered with
	// (and an error body).
	Status int
	// Requests are the request URIs served, and Keys the API key headers
	// they came with (name: value).
	Requests []string
	Keys     []string
	// Block, when not nil, is waited on before each answer.
	Block chan struct{}
}

// New starts a feed, closed at the test's end.
func New(tb testing.TB) *Feed {
	f := &Feed{Current: map[string]map[string]float64{}, History: map[string]map[string]map[string]float64{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(srv.Close)
	f.URL = srv.URL + "/api/v3"
	return f
}

// Count returns how many requests were served.
func (f *Feed) Count() int {
	f.Lock()
	defer f.Unlock()
	return len(f.Requests)
}

func (f *Feed) serve(w http.ResponseWriter, r *http.Request) {
	f.Lock()
	f.Requests = append(f.Requests, r.URL.RequestURI())
	for _, h := range []string{"x-cg-pro-api-key", "x-cg-demo-api-key"} {
		if v := r.Header.Get(h); v != "" {
			f.Keys = append(f.Keys, h+": "+v)
		}
	}
	block, status := f.Block, f.Status
	f.Unlock()
	if block != nil {
		<-block
	}
	if status != 0 {
		http.Error(w, `{"error":"the feed fails"}`, status)
		return
	}
	f.Lock()
	defer f.Unlock()
	path, ok := strings.CutPrefix(r.URL.Path, "/api/v3")
	if !ok {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	switch {
	case path == "/simple/price":
		out := map[string]map[string]float64{}
		for _, id := range strings.Split(q.Get("ids"), ",") {
			p, ok := f.Current[id]
			if !ok {
				continue
			}
			out[id] = map[string]float64{}
			for _, c := range strings.Split(q.Get("vs_currencies"), ",") {
				if v, ok := p[c]; ok {
					out[id][c] = v
				}
			}
		}
		writeJSON(w, out)
	case strings.HasPrefix(path, "/coins/") && strings.HasSuffix(path, "/history"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/coins/"), "/history")
		days, ok := f.History[id]
		if !ok {
			http.Error(w, `{"error":"coin not found"}`, http.StatusNotFound)
			return
		}
		out := map[string]any{"id": id, "symbol": id, "name": id}
		if p, ok := days[q.Get("date")]; ok {
			// CoinGecko's answer also has market_cap and total_volume.
			out["market_data"] = map[string]any{"current_price": p, "market_cap": p, "total_volume": p}
		}
		writeJSON(w, out)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

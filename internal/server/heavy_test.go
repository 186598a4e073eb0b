package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestNodeAPISizeCost: a node API call costs rate-limit units by the size
// of its body, so that one client cannot send many large calls at once.
func TestNodeAPISizeCost(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tier := ratelimit.Tier{Name: ratelimit.Node, Limit: 100, Period: time.Minute}
	base := serve(t, st, newAccess(t, AccessConfig{Tiers: testTiers(tier)}))
	body := `{"jsonrpc":"2.0","id":1,"method":"test.method","params":{"x":"` + strings.Repeat("a", 40<<10) + `"}}`
	a := call(t, "POST", base+nodePath, body, "Content-Type", "application/json")
	want := tier.Limit - 1 - len(body)/bytesPerUnit
	if a.status != http.StatusOK || a.header.Get("RateLimit-Remaining") != strconv.Itoa(want) {
		t.Errorf("a call of %d bytes: %d, RateLimit-Remaining %q, want %d", len(body), a.status, a.header.Get("RateLimit-Remaining"), want)
	}
	// A call larger than the quota is refused before it is read.
	huge := strings.Repeat(" ", tier.Limit*bytesPerUnit+1)
	if a := call(t, "POST", base+nodePath, body+huge, "Content-Type", "application/json"); a.status != http.StatusTooManyRequests {
		t.Errorf("a call over the whole quota: %d %s, want 429", a.status, a.body)
	}
}

// TestHeavyLimiter: only heavySlots heavy calls run at once; another waits
// for a slot, and is refused with 503 when none frees in time; light calls
// never wait.
func TestHeavyLimiter(t *testing.T) {
	l := newHeavyLimiter()
	l.wait = 200 * time.Millisecond
	release := make(chan struct{})
	var (
		mu      sync.Mutex
		running int
		peak    int
	)
	h := l.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		if r.Header.Get("Hold") != "" {
			<-release
		}
		mu.Lock()
		running--
		mu.Unlock()
	}), writeRPCError)
	heavyBody := strings.Repeat(" ", heavyBytes+1)
	// do makes a call; with hold, its handler runs until released.
	do := func(body string, hold bool) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/ext/bc/P", strings.NewReader(body))
		if hold {
			r.Header.Set("Hold", "1")
		}
		h.ServeHTTP(rec, r)
		return rec
	}
	var wg sync.WaitGroup
	for range heavySlots {
		wg.Add(1)
		go func() { defer wg.Done(); do(heavyBody, true) }()
	}
	for {
		mu.Lock()
		n := running
		mu.Unlock()
		if n == heavySlots {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if rec := do("{}", false); rec.Code != http.StatusOK {
		t.Errorf("a light call while the slots are taken: %d", rec.Code)
	}
	rec := do(heavyBody, false)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "too many large calls") {
		t.Errorf("a heavy call while the slots are taken: %d %v %s, want 503 with Retry-After", rec.Code, rec.Header(), rec.Body)
	}
	// A waiting call runs once a slot frees.
	waited := make(chan int)
	go func() { waited <- do(heavyBody, false).Code }()
	time.Sleep(50 * time.Millisecond)
	release <- struct{}{}
	if code := <-waited; code != http.StatusOK {
		t.Errorf("a heavy call that waited for a slot: %d", code)
	}
	release <- struct{}{}
	wg.Wait()
	if peak != heavySlots+1 { // the slots' calls and the light one
		t.Errorf("%d calls ran at once, want %d heavy and one light", peak, heavySlots)
	}
}

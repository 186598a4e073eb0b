// Package ratelimit limits how much each caller of avaindex's HTTP surfaces
// may ask: tiers (a quota of units per period), per-route weights in units,
// and two backends behind one Limiter interface: Memory, for one instance,
// and Redis, shared by every instance that uses the same Redis and prefix.
//
// Both backends are libraries' algorithms, not ours: Memory keeps one
// golang.org/x/time/rate token bucket per caller, Redis runs
// github.com/go-redis/redis_rate's GCRA script. A token bucket whose burst
// is its whole quota and GCRA with the same burst admit exactly the same
// requests, so a tier means the same on either backend. Fallback limits in
// memory while Redis is down.
package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Tier is a quota: Limit units per Period, of which the whole Limit may be
// spent at once (the burst), refilled evenly over the Period.
type Tier struct {
	Name   string
	Limit  int
	Period time.Duration
	// ReadOnly tiers are refused write-class operations.
	ReadOnly bool
}

// Unlimited reports whether t limits nothing (a Limit of 0).
func (t Tier) Unlimited() bool { return t.Limit <= 0 }

// String is t in ParseTier's syntax.
func (t Tier) String() string {
	s := t.Name + ":unlimited"
	if !t.Unlimited() {
		s = fmt.Sprintf("%s:%d/%s", t.Name, t.Limit, formatPeriod(t.Period))
	}
	if t.ReadOnly {
		s += ":read-only"
	}
	return s
}

func formatPeriod(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// The tiers avaindex itself uses: Anonymous for Data API calls without a
// key (per client IP), Standard for keys created without --tier, Metrics
// and Node for the Metrics API and the node API (per client IP; neither
// takes keys).
const (
	Anonymous = "anonymous"
	Standard  = "standard"
	ReadOnly  = "read-only"
	Metrics   = "metrics"
	Node      = "node"
	// Admin keys see every key's usage (the usage operations).
	Admin = "admin"
)

// DefaultTiers are the tiers when the configuration names none; a
// configured tier of the same name replaces one. The quotas suit a
// self-hosted service: generous for keys, enough for a dApp's browsers
// and for scripts without one.
func DefaultTiers() map[string]Tier {
	return map[string]Tier{
		Anonymous: {Name: Anonymous, Limit: 1200, Period: time.Minute},
		Standard:  {Name: Standard, Limit: 12000, Period: time.Minute},
		ReadOnly:  {Name: ReadOnly, Limit: 12000, Period: time.Minute, ReadOnly: true},
		Metrics:   {Name: Metrics, Limit: 1200, Period: time.Minute},
		Node:      {Name: Node, Limit: 12000, Period: time.Minute},
		Admin:     {Name: Admin, Limit: 12000, Period: time.Minute},
	}
}

// ParseTier parses NAME:LIMIT/PERIOD[:read-only] (e.g. "pro:60000/1m",
// "dashboard:600/1m:read-only") or NAME:unlimited[:read-only]. PERIOD is a
// Go duration of at least a second.
func ParseTier(s string) (Tier, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return Tier{}, fmt.Errorf("tier %q: want NAME:LIMIT/PERIOD[:read-only]", s)
	}
	t := Tier{Name: parts[0]}
	if !ValidName(t.Name) {
		return Tier{}, fmt.Errorf("tier %q: name %q must be 1 to 64 letters, digits, '.', '_' or '-'", s, t.Name)
	}
	if len(parts) == 3 {
		if parts[2] != "read-only" {
			return Tier{}, fmt.Errorf("tier %q: the third part can only be read-only, got %q", s, parts[2])
		}
		t.ReadOnly = true
	}
	if parts[1] == "unlimited" {
		return t, nil
	}
	limit, period, ok := strings.Cut(parts[1], "/")
	n, err := strconv.Atoi(limit)
	if !ok || err != nil || n < 1 {
		return Tier{}, fmt.Errorf("tier %q: %q is not LIMIT/PERIOD with a positive LIMIT (or unlimited)", s, parts[1])
	}
	d, err := time.ParseDuration(period)
	if err != nil || d < time.Second {
		return Tier{}, fmt.Errorf("tier %q: period %q is not a duration of at least 1s (e.g. 1m)", s, period)
	}
	t.Limit, t.Period = n, d
	return t, nil
}

// ValidName reports whether name can name a tier or an API key: 1 to 64
// ASCII letters, digits, '.', '_' or '-'.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// DefaultWeights are the routes that cost more than 1 unit, by their
// http.ServeMux pattern, as the hosted API weighs its heavy endpoints
// more: aggregating signatures asks the network's validators, a UTXO list
// reads an index range per address (the POST form takes up to 1024
// addresses), and the reward and staking lists do the same per address;
// balances and the last activity read the addresses' whole UTXO lists,
// the network details and the pending rewards by node the current stakers.
func DefaultWeights() map[string]int {
	return map[string]int{
		"POST /v1/signatureAggregator/{network}/aggregateSignatures":                              20,
		"GET /v1/signatureAggregator/{network}/aggregateSignatures/{txHash}":                      20,
		"POST /v1/networks/{network}/blockchains/{blockchainId}/utxos":                            10,
		"GET /v1/networks/{network}/blockchains/{blockchainId}/utxos":                             2,
		"GET /v1/networks/{network}/rewards":                                                      2,
		"GET /v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking":          2,
		"GET /v1/networks/{network}/blockchains/{blockchainId}/balances":                          5,
		"GET /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses":  5,
		"POST /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses": 10,
		"GET /v1/networks/{network}/addresses:listChainIds":                                       2,
		"GET /v1/networks/{network}/rewards:listPending":                                          2,
		"GET /v1/networks/{network}":                                                              2,
	}
}

// ParseWeight parses PATTERN=WEIGHT, a route's http.ServeMux pattern (as
// /metrics labels it) and its cost in units, at least 1.
func ParseWeight(s string) (pattern string, weight int, err error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 {
		return "", 0, fmt.Errorf("weight %q: want PATTERN=WEIGHT, e.g. 'GET /v1/networks/{network}/rewards=2'", s)
	}
	w, err := strconv.Atoi(s[i+1:])
	if err != nil || w < 1 {
		return "", 0, fmt.Errorf("weight %q: %q is not a positive integer", s, s[i+1:])
	}
	return strings.TrimSpace(s[:i]), w, nil
}

// Result is what a Limiter decided about one request.
type Result struct {
	Allowed bool
	// Limit is the tier's quota; Remaining what is left of it after this
	// request, 0 when it is refused (as redis_rate says).
	Limit, Remaining int
	// ResetAfter is when the whole quota is available again.
	ResetAfter time.Duration
	// RetryAfter, when not Allowed, is when the same request would be.
	RetryAfter time.Duration
}

// Limiter spends cost units of bucket's quota under tier t, when they are
// there. A cost above the tier's whole quota costs the whole quota, so
// that a heavy route stays possible on a small tier.
type Limiter interface {
	Allow(ctx context.Context, bucket string, t Tier, cost int) (Result, error)
}

// clampCost keeps cost within [1, t.Limit].
func clampCost(t Tier, cost int) int {
	return max(1, min(cost, t.Limit))
}

// unlimited is the Result of an unlimited tier.
var unlimited = Result{Allowed: true}

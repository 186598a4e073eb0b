// Package progress is how avaindex's background workers tell what they
// are doing. Each worker is a Reporter: /readyz and the status page ask
// every worker of the instance for its part of one Status.
package progress

import (
	"sync"
	"time"
)

// Status is what /readyz reports of the background work (its "indexer"
// field): the indexer's chains and the queues of the other workers.
type Status struct {
	Running bool              `json:"running"`
	Heights map[string]uint64 `json:"heights,omitempty"`
	Tips    map[string]uint64 `json:"tips,omitempty"`
	// Tracers says, for each EVM chain followed (by cursor key), whether
	// its node traces blocks: without, its internal txs and native
	// balances are not indexed.
	Tracers map[string]bool `json:"tracers,omitempty"`
	// BlocksPerSecond is what each applied per second over the last
	// minute.
	BlocksPerSecond map[string]float64 `json:"blocksPerSecond,omitempty"`
	// History is the chains' ingest rate over the last hour.
	History *History `json:"history,omitempty"`
	// Queues are the lengths of work queued behind the chains, by name
	// (nft-metadata: the NFT tokens whose metadata is queued to be
	// fetched; rederive:CHAIN: the blocks a rederive has left), as their
	// workers last told.
	Queues map[string]int64 `json:"queues,omitempty"`
	// Derivations are the finite derivation work that runs before the
	// indexer (the backfills a migration asked for, the metrics'
	// catch-up), each with how far it is.
	Derivations []Step `json:"derivations,omitempty"`
	// LastError lists the loops whose last step failed, and why.
	LastError string `json:"lastError,omitempty"`
}

// History is the ingest rate of the last hour: blocks applied on the chains
// (not the container index mirrors, which copy the same blocks) per
// IntervalSeconds, oldest first, the last interval being the current one.
type History struct {
	IntervalSeconds int      `json:"intervalSeconds"`
	Blocks          []uint64 `json:"blocks"`
}

// SetQueue records the length of the queue name.
func (s *Status) SetQueue(name string, n int64) {
	if s.Queues == nil {
		s.Queues = map[string]int64{}
	}
	s.Queues[name] = n
}

// Reporter is a background worker that tells its progress: Report adds
// its part to s, and must be safe to call while the worker runs.
type Reporter interface {
	Report(s *Status)
}

// Reporters is the workers of an instance, reported in order.
type Reporters []Reporter

// Report asks every reporter in turn.
func (rs Reporters) Report(s *Status) {
	for _, r := range rs {
		r.Report(s)
	}
}

// Queues are the lengths of a worker's queues, by name, reported once
// set. It is safe for concurrent use.
type Queues struct {
	mu sync.Mutex
	n  map[string]int64
}

// Set records the length of the queue name.
func (q *Queues) Set(name string, n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == nil {
		q.n = map[string]int64{}
	}
	q.n[name] = n
}

// Report adds the queues' lengths to s.Queues.
func (q *Queues) Report(s *Status) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for name, n := range q.n {
		s.SetQueue(name, n)
	}
}

// Step is a piece of finite work and how far it is: Done of Total
// positions (heights, indices), at PerSecond since it started.
type Step struct {
	Name      string  `json:"name"`
	Done      int64   `json:"done"`
	Total     int64   `json:"total"`
	PerSecond float64 `json:"perSecond"`

	started   time.Time
	doneStart int64
}

// Start marks the step started at now, with what is done already (by an
// earlier run) left out of its rate.
func (s *Step) Start(now time.Time) { s.started, s.doneStart = now, s.Done }

// Advance records done positions at now.
func (s *Step) Advance(done int64, now time.Time) {
	s.Done = done
	if d := now.Sub(s.started).Seconds(); d > 0 {
		s.PerSecond = float64(done-s.doneStart) / d
	}
}

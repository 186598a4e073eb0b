// Package usage records the requests the Data API and the node API serve,
// off the request path: Record hands a request to a bounded channel and
// never blocks (a request that finds it full is dropped and counted), and
// Run, a background worker, writes what it takes from the channel to the
// store in batches and deletes the requests older than the retention.
package usage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// Config is how a Recorder buffers, writes and forgets.
type Config struct {
	// Buffer is how many requests wait for the worker at most (default
	// 16384); past it, requests are dropped and counted.
	Buffer int
	// BatchSize is the most requests one write holds (default 512), and
	// FlushInterval how often the worker writes what is queued (default
	// 250 ms): the default buffer holds 65536 requests a second.
	BatchSize     int
	FlushInterval time.Duration
	// Retention is how long requests are kept (0: forever); the worker
	// deletes older ones every PruneInterval (default 1 h).
	Retention     time.Duration
	PruneInterval time.Duration
}

// Recorder records requests: Record on the request path, Run in the
// background.
type Recorder struct {
	cfg     Config
	st      store.APIRequestStore
	log     *slog.Logger
	ch      chan internal.APIRequest
	dropped atomic.Int64
	written atomic.Int64
	failed  atomic.Int64
	now     func() time.Time
}

// New returns a Recorder writing to st.
func New(st store.APIRequestStore, cfg Config, log *slog.Logger) *Recorder {
	if cfg.Buffer <= 0 {
		cfg.Buffer = 16384
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 512
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 250 * time.Millisecond
	}
	if cfg.PruneInterval <= 0 {
		cfg.PruneInterval = time.Hour
	}
	return &Recorder{cfg: cfg, st: st, log: log, ch: make(chan internal.APIRequest, cfg.Buffer), now: time.Now}
}

// Record queues r for the worker, or drops it when the buffer is full:
// a slow store must never slow the requests down.
func (rec *Recorder) Record(r internal.APIRequest) {
	select {
	case rec.ch <- r:
	default:
		rec.dropped.Add(1)
	}
}

// Dropped is how many requests found the buffer full.
func (rec *Recorder) Dropped() int64 { return rec.dropped.Load() }

// Written is how many requests the worker has written.
func (rec *Recorder) Written() int64 { return rec.written.Load() }

// Report tells the requests waiting to be written, and those dropped, in
// /readyz's queues.
func (rec *Recorder) Report(s *progress.Status) {
	s.SetQueue("usage", int64(len(rec.ch)))
	if d := rec.dropped.Load(); d > 0 {
		s.SetQueue("usage-dropped", d)
	}
}

// Run writes the queued requests in batches and prunes the old ones until
// ctx ends; what is queued then is written before it returns. A failed
// write is logged and its batch dropped (and counted): usage is an
// account, not a ledger, and the buffer must keep draining.
//
// Run never waits on the channel itself: it drains it every
// FlushInterval. A receiver parked on the channel would be woken by
// every request's send, which costs the request path microseconds; a
// send into a buffer nobody waits on costs tens of nanoseconds.
func (rec *Recorder) Run(ctx context.Context) error {
	flush := time.NewTicker(rec.cfg.FlushInterval)
	defer flush.Stop()
	prune := time.NewTicker(rec.cfg.PruneInterval)
	defer prune.Stop()
	batch := make([]internal.APIRequest, 0, rec.cfg.BatchSize)
	// drain writes everything queued, a batch at a time.
	drain := func(ctx context.Context) {
		for {
			select {
			case r := <-rec.ch:
				batch = append(batch, r)
				if len(batch) < cap(batch) {
					continue
				}
			default:
			}
			if len(batch) == 0 {
				return
			}
			full := len(batch) == cap(batch)
			if err := rec.write(ctx, batch); err != nil {
				rec.failed.Add(int64(len(batch)))
				rec.log.Warn("writing recorded requests failed; they are dropped", "requests", len(batch), "err", err)
			}
			batch = batch[:0]
			if !full {
				return
			}
		}
	}
	rec.prune(ctx)
	for {
		select {
		case <-ctx.Done():
			// Write what is queued, with a short deadline of its own.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			drain(dctx)
			return nil
		case <-flush.C:
			drain(ctx)
		case <-prune.C:
			rec.prune(ctx)
		}
	}
}

// write stores batch, each request given its ID.
func (rec *Recorder) write(ctx context.Context, batch []internal.APIRequest) error {
	ids := make([]byte, 8*len(batch))
	if _, err := rand.Read(ids); err != nil {
		return fmt.Errorf("request IDs: %w", err)
	}
	for i := range batch {
		batch[i].ID = hex.EncodeToString(ids[8*i : 8*i+8])
	}
	if err := rec.st.InsertAPIRequests(ctx, batch); err != nil {
		return err
	}
	rec.written.Add(int64(len(batch)))
	return nil
}

// prune deletes the requests past the retention.
func (rec *Recorder) prune(ctx context.Context) {
	if rec.cfg.Retention <= 0 {
		return
	}
	n, err := rec.st.DeleteAPIRequestsBefore(ctx, rec.now().Add(-rec.cfg.Retention))
	if err != nil {
		if ctx.Err() == nil {
			rec.log.Warn("deleting old recorded requests failed", "err", err)
		}
		return
	}
	if n > 0 {
		rec.log.Debug("deleted recorded requests past the retention", "requests", n)
	}
}

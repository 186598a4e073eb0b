package service

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/server"
	"github.com/avaindex/avaindex/internal/store"
)

// How often an instance without the indexer lease asks for it, and how
// often the holder checks it still has it. A dead holder's PostgreSQL
// session ends with its process, so a standby takes over within about
// leaseRetry.
const (
	leaseRetry = 500 * time.Millisecond
	leaseCheck = time.Second
)

// instance is this avaindex among the instances sharing its store: its
// name, its role, and whether it holds the indexer lease.
type instance struct {
	name, role string
	st         store.Store
	indexing   atomic.Bool
}

// Instance tells /readyz this instance's part, and who indexes.
func (in *instance) Instance(ctx context.Context) server.Instance {
	out := server.Instance{Name: in.name, Role: in.role, Indexing: in.indexing.Load()}
	if holder, since, err := in.st.LeaseHolder(ctx, store.IndexerLease); err == nil && holder != "" {
		out.Indexer, out.IndexerSince = holder, since.Unix()
	}
	return out
}

// lead runs the indexer while this instance holds the store's indexer
// lease, until ctx is done: it asks for the lease every leaseRetry, runs
// index under it (every write transaction fenced by the lease, see
// database.WithLease), checks it every leaseCheck, and stops indexing as
// soon as it is lost.
func (in *instance) lead(ctx context.Context, index func(context.Context) error, log *slog.Logger) {
	logged := false
	for ctx.Err() == nil {
		l, ok, err := in.st.TryLease(ctx, store.IndexerLease, in.name)
		switch {
		case err != nil:
			log.Warn("asking for the indexer lease", "err", err)
		case !ok && !logged:
			log.Info("another instance indexes the store; serving, and standing by to take over")
			logged = true
		}
		if !ok {
			select {
			case <-ctx.Done():
			case <-time.After(leaseRetry):
			}
			continue
		}
		log.Info("took the indexer lease; indexing", "instance", in.name, "epoch", l.Epoch())
		logged = false
		in.indexing.Store(true)
		ictx, cancel := context.WithCancel(database.WithLease(ctx, l))
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = index(ictx)
		}()
		tick := time.NewTicker(leaseCheck)
	watch:
		for {
			select {
			case <-done:
				break watch
			case <-tick.C:
				cctx, ccancel := context.WithTimeout(ctx, leaseCheck)
				err := l.Check(cctx)
				ccancel()
				if err != nil && ctx.Err() == nil {
					log.Warn("lost the indexer lease; stopped indexing", "err", err)
					cancel()
				}
			}
		}
		tick.Stop()
		cancel()
		in.indexing.Store(false)
		l.Release()
	}
}

// indexerStatus is what /readyz reports of indexing: the indexer's own
// status while this instance indexes, else the heights stored by the
// instance that does.
type indexerStatus struct {
	in *instance
	ix *ingest.Indexer
}

func (s indexerStatus) Report(st *progress.Status) {
	if s.in.indexing.Load() {
		s.ix.Report(st)
		return
	}
	// Standing by: the heights are the indexing instance's, as stored.
	st.Running, st.Tracers = false, s.ix.Status().Tracers
	st.Heights = map[string]uint64{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cursors, err := s.in.st.Cursors(ctx)
	if err != nil {
		st.LastError = err.Error()
		return
	}
	for k, h := range cursors {
		st.Heights[string(k)] = h
	}
}

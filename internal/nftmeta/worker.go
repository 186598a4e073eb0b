package nftmeta

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// Store is what the worker needs of the store: its queue.
type Store interface {
	ClaimNFTWork(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.NFTWork, error)
	SaveNFTMetadata(ctx context.Context, results []store.NFTResult) error
	NFTQueueLength(ctx context.Context) (int64, error)
}

// URIReader asks a token's contract its URI now (tokenURI or uri, {id}
// substituted): nil when the contract does not answer. The indexer
// (ingest.Indexer.ReadTokenURI) is one.
type URIReader interface {
	ReadTokenURI(ctx context.Context, chainID uint64, token common.Address, id *big.Int, typ internal.ERCType) (*string, error)
}

// QueueName is the worker's queue in the progress status (/readyz).
const QueueName = "nft-metadata"

// Worker drains the store's queue of tokens whose metadata to fetch.
type Worker struct {
	st    Store
	f     *Fetcher
	cfg   Config
	log   *slog.Logger
	now   func() time.Time
	queue progress.Queues
	uris  URIReader
	// logEvery is the least time between two log lines of the outcomes.
	logEvery time.Duration
}

var (
	metaFetches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_nft_metadata_fetches_total",
		Help: "NFT metadata fetches, by the indexStatus they ended with.",
	}, []string{"status"})
	metaQueue = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "avaindex_nft_metadata_queue",
		Help: "NFT tokens whose metadata is queued to be fetched.",
	})
)

func init() {
	instrument.Registerer().MustRegister(metaFetches, metaQueue)
}

// SetURIReader makes a reindexed token's URI be read from its contract
// again before its metadata is fetched.
func (w *Worker) SetURIReader(r URIReader) { w.uris = r }

// NewWorker returns a worker over st.
func NewWorker(st Store, cfg Config, log *slog.Logger) *Worker {
	cfg.Defaults()
	return &Worker{st: st, f: NewFetcher(cfg), cfg: cfg, log: log, now: time.Now, logEvery: 10 * time.Second}
}

// Report adds the queue's length, as last read, to s (progress.Reporter).
func (w *Worker) Report(s *progress.Status) { w.queue.Report(s) }

// lease is how long a claimed token is hidden from other claims: past it,
// a worker that died with it lets another take it.
func (w *Worker) lease() time.Duration { return 3*w.cfg.Timeout + time.Minute }

// Run fetches until ctx ends: a claimer feeds the fetchers, a saver
// writes their results in batches.
func (w *Worker) Run(ctx context.Context) error {
	work := make(chan store.NFTWork, w.cfg.Concurrency*2)
	results := make(chan store.NFTResult, w.cfg.Concurrency*2)
	var fetchers sync.WaitGroup
	for range w.cfg.Concurrency {
		fetchers.Add(1)
		go func() {
			defer fetchers.Done()
			for t := range work {
				r := w.Process(ctx, t)
				if ctx.Err() != nil && r.Metadata.Status == internal.NFTUnreachableTokenURI {
					// Cut short by the stop: the token's lease lapses and
					// it is fetched again, no attempt spent.
					continue
				}
				results <- r
			}
		}()
	}
	saved := make(chan struct{})
	go func() {
		defer close(saved)
		w.save(ctx, results)
	}()
	w.claim(ctx, work)
	close(work)
	fetchers.Wait()
	close(results)
	<-saved
	return ctx.Err()
}

// claim feeds work with queued tokens until ctx ends.
func (w *Worker) claim(ctx context.Context, work chan<- store.NFTWork) {
	lastLen, idle := time.Time{}, false
	for ctx.Err() == nil {
		// While idle, the queue's length (a read) says whether to claim
		// (a write, which SQLite serializes with the indexer's batches).
		if idle || time.Since(lastLen) > 2*time.Second {
			n, err := w.st.NFTQueueLength(ctx)
			if err == nil {
				w.queue.Set(QueueName, n)
				metaQueue.Set(float64(n))
				lastLen = time.Now()
			}
			if err == nil && n == 0 {
				sleep(ctx, w.cfg.PollInterval)
				continue
			}
		}
		tasks, err := w.st.ClaimNFTWork(ctx, w.now(), w.lease(), cap(work))
		idle = err == nil && len(tasks) == 0
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("nft metadata: claiming queued tokens failed", "err", err)
			}
			sleep(ctx, w.cfg.PollInterval)
			continue
		}
		if len(tasks) == 0 {
			sleep(ctx, w.cfg.PollInterval)
			continue
		}
		for _, t := range tasks {
			select {
			case work <- t:
			case <-ctx.Done():
				return
			}
		}
	}
}

// save writes results in batches, at least every 200ms.
func (w *Worker) save(ctx context.Context, results <-chan store.NFTResult) {
	const maxBatch = 512
	var batch []store.NFTResult
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	lastLog, outcomes := time.Now(), tally{}
	flush := func() {
		// The outcomes since the last line, at most every logEvery: how
		// many fetches succeeded, how many failed and why.
		if outcomes.total > 0 && time.Since(lastLog) >= w.logEvery {
			w.log.Info("nft metadata fetched", outcomes.attrs(time.Since(lastLog))...)
			lastLog, outcomes = time.Now(), tally{}
		}
		if len(batch) == 0 {
			return
		}
		// Written even while stopping: the fetches are done.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		err := w.st.SaveNFTMetadata(wctx, batch)
		cancel()
		if err != nil {
			w.log.Warn("nft metadata: saving results failed (the tokens will be fetched again)", "tokens", len(batch), "err", err)
		} else {
			for _, r := range batch {
				metaFetches.WithLabelValues(string(r.Metadata.Status)).Inc()
				outcomes.add(r)
			}
		}
		batch = batch[:0]
	}
	for {
		select {
		case r, ok := <-results:
			if !ok {
				flush()
				if outcomes.total > 0 {
					w.log.Info("nft metadata fetched", outcomes.attrs(time.Since(lastLog))...)
				}
				return
			}
			batch = append(batch, r)
			if len(batch) >= maxBatch {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// tally counts the fetches saved between two log lines by the indexStatus
// they ended with.
type tally struct {
	total, retrying int
	byStatus        map[internal.NFTStatus]int
}

func (t *tally) add(r store.NFTResult) {
	if t.byStatus == nil {
		t.byStatus = map[internal.NFTStatus]int{}
	}
	t.total++
	t.byStatus[r.Metadata.Status]++
	if !r.RetryAt.IsZero() {
		t.retrying++
	}
}

// attrs are the log line's attributes: the fetches over span, those that
// indexed the metadata and those that failed, with their indexStatus
// counts ("UNREACHABLE_TOKEN_URI=2 INVALID_METADATA_JSON=1", the most
// frequent first) and how many will be fetched again.
func (t *tally) attrs(span time.Duration) []any {
	failed := t.total - t.byStatus[internal.NFTIndexed]
	attrs := []any{"fetches", t.total, "indexed", t.byStatus[internal.NFTIndexed], "failed", failed}
	if failed > 0 {
		statuses := make([]internal.NFTStatus, 0, len(t.byStatus))
		for s := range t.byStatus {
			if s != internal.NFTIndexed {
				statuses = append(statuses, s)
			}
		}
		slices.SortFunc(statuses, func(a, b internal.NFTStatus) int {
			if c := cmp.Compare(t.byStatus[b], t.byStatus[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		why := make([]string, len(statuses))
		for i, s := range statuses {
			why[i] = fmt.Sprintf("%s=%d", s, t.byStatus[s])
		}
		attrs = append(attrs, "failures", strings.Join(why, " "), "retrying", t.retrying)
	}
	return append(attrs, "seconds", int(span.Seconds()))
}

// Process fetches and parses one token's metadata.
func (w *Worker) Process(ctx context.Context, t store.NFTWork) store.NFTResult {
	r := store.NFTResult{Work: t}
	if t.Reread && w.uris != nil {
		uri, err := w.uris.ReadTokenURI(ctx, t.ChainID, t.Token, t.TokenID, t.Type)
		if err != nil {
			// The stored URI is fetched; a later reindex reads it again.
			w.log.Warn("nft metadata: reading the token URI again failed", "chain", t.ChainID, "token", t.Token, "id", t.TokenID, "err", err)
		} else {
			r.URIRead, r.URI, t.URI = true, uri, uri
		}
	}
	if t.URI == nil {
		r.Metadata = internal.NFTMetadata{Status: internal.NFTMissingToken, UpdatedAt: w.now()}
		return r
	}
	doc, out := w.f.Fetch(ctx, *t.URI)
	if out != nil {
		r.Metadata = internal.NFTMetadata{Status: out.Status, UpdatedAt: w.now()}
		if out.Retry && t.Attempts+1 < w.cfg.MaxAttempts {
			r.RetryAt = w.now().Add(max(w.cfg.RetryBase<<min(t.Attempts, 16), out.RetryAfter))
		}
		w.log.Debug("nft metadata not fetched", "chain", t.ChainID, "token", t.Token, "id", t.TokenID,
			"status", out.Status, "retry", !r.RetryAt.IsZero(), "err", out.Err)
		return r
	}
	r.Metadata = Parse(doc)
	r.Metadata.UpdatedAt = w.now()
	return r
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

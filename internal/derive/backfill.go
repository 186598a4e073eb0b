package derive

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/erc20"
	"github.com/avaindex/avaindex/internal/derive/metrics"
	"github.com/avaindex/avaindex/internal/derive/nfts"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// BackfillSource is what the backfills call of the store
// (store.BackfillStore): the backfills asked for, their parts, the fill of
// a range of a part with the cursor, and the metrics' catch-up.
// store.Store satisfies it.
type BackfillSource interface {
	PendingBackfills(ctx context.Context) ([]store.Backfill, error)
	BackfillParts(ctx context.Context, name string, d store.BackfillDerivations) ([]store.BackfillPart, error)
	FillBackfill(ctx context.Context, b store.Backfill, part store.BackfillPart, hi int64) (store.Backfill, error)
	FinishBackfill(ctx context.Context, name string) error
	MetricsLeft(ctx context.Context, chain internal.Chain) (from, to uint64, ok bool, err error)
	CatchUpMetrics(ctx context.Context, chain internal.Chain, from, to uint64, decode store.MetricDecoder, derive store.MetricDerivation) error
}

// backfillDerivations are the derivations the backfills of derived rows
// hand what the store holds: those the indexer runs.
var backfillDerivations = store.BackfillDerivations{
	ERC20:    erc20.ApplyMoves[*store.EVMTx],
	NFTSpans: nfts.ApplySpanMoves[*store.EVMTx],
}

// BackfillOptions tune the backfills.
type BackfillOptions struct {
	// Chunk is the positions (heights, DAG or container indices) a
	// backfill fills per transaction; 0 means 4096.
	Chunk int64
	// MetricsChunk is the blocks the metrics' catch-up rolls up per
	// transaction; 0 means 512.
	MetricsChunk uint64
	// ProgressEvery is how often progress is logged; 0 means 10s.
	ProgressEvery time.Duration
}

// Backfiller runs the derivation work a store's migrations leave: the
// backfills they ask for (store.Backfills, in order), then the metrics'
// catch-up of the P- and X-chains' stored blocks. Each is cut in chunks,
// one transaction each with its cursor, so that work cut short resumes
// where it stopped; it tells its progress (progress.Reporter) as
// Status.Derivations. It must run under the indexer lease, before the
// indexer and the pending rederives: the backfills read what the indexer
// writes, a backfill may ask for a rederive, and the metrics' rollup of
// newer blocks would skip the heights the catch-up has not rolled up.
type Backfiller struct {
	st   BackfillSource
	log  *slog.Logger
	opts BackfillOptions

	mu    sync.Mutex
	steps []*progress.Step
}

// NewBackfiller returns the backfiller of st.
func NewBackfiller(st BackfillSource, log *slog.Logger, opts BackfillOptions) *Backfiller {
	if opts.Chunk <= 0 {
		opts.Chunk = 4096
	}
	if opts.MetricsChunk == 0 {
		opts.MetricsChunk = 512
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10 * time.Second
	}
	return &Backfiller{st: st, log: log, opts: opts}
}

// RunBackfills runs what NewBackfiller(st, log, opts).Run does.
func RunBackfills(ctx context.Context, st BackfillSource, log *slog.Logger, opts BackfillOptions) error {
	return NewBackfiller(st, log, opts).Run(ctx)
}

// Run runs the backfills asked for and the metrics' catch-up to their end,
// and returns; an error leaves what was committed for the next Run.
func (b *Backfiller) Run(ctx context.Context) error {
	b.mu.Lock()
	b.steps = nil // a run after a failure tells its own steps
	b.mu.Unlock()
	pending, err := b.st.PendingBackfills(ctx)
	if err != nil {
		return err
	}
	for _, bf := range pending {
		if err := b.backfill(ctx, bf); err != nil {
			return fmt.Errorf("backfill %s: %w", bf.Name, err)
		}
	}
	for _, c := range store.MetricsCatchUpChains {
		if err := b.catchUpMetrics(ctx, c); err != nil {
			return fmt.Errorf("the %s-chain's metrics catch-up: %w", c, err)
		}
	}
	// Done: nothing left to tell.
	b.mu.Lock()
	b.steps = nil
	b.mu.Unlock()
	return nil
}

// backfill runs bf from its cursor to its end.
func (b *Backfiller) backfill(ctx context.Context, bf store.Backfill) error {
	parts, err := b.st.BackfillParts(ctx, bf.Name, backfillDerivations)
	if err != nil {
		return err
	}
	var total, done int64
	for i, p := range parts {
		n := p.Hi - p.Lo
		total += n
		switch {
		case i < bf.Part:
			done += n
		case i == bf.Part:
			done += min(max(bf.Next-p.Lo, 0), n)
		}
	}
	step := b.start("backfill:"+bf.Name, done, total)
	b.log.Info("backfilling what was stored before a migration", "backfill", bf.Name, "done", done, "total", total)
	start, lastLog := time.Now(), time.Now()
	for ; bf.Part < len(parts); bf.Part, bf.Next = bf.Part+1, 0 {
		p := parts[bf.Part]
		for bf.Next = max(bf.Next, p.Lo); bf.Next < p.Hi; {
			from := bf.Next
			if bf, err = b.st.FillBackfill(ctx, bf, p, from+b.opts.Chunk); err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
			done += bf.Next - from
			b.update(step, done)
			if time.Since(lastLog) >= b.opts.ProgressEvery {
				lastLog = time.Now()
				b.log.Info("backfilling", "backfill", bf.Name, "part", p.Name, "done", done, "total", total)
			}
		}
	}
	if err := b.st.FinishBackfill(ctx, bf.Name); err != nil {
		return err
	}
	b.update(step, total)
	b.log.Info("backfilled", "backfill", bf.Name, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// catchUpMetrics rolls up the blocks of chain its metrics lack, a chunk
// per transaction; the metrics' next height is the cursor.
func (b *Backfiller) catchUpMetrics(ctx context.Context, chain internal.Chain) error {
	from, to, ok, err := b.st.MetricsLeft(ctx, chain)
	if err != nil || !ok {
		return err
	}
	decode := metricDecoders[chain]
	if decode == nil {
		return fmt.Errorf("no decoder of the %s-chain's stored blocks", chain)
	}
	total := int64(to - from + 1)
	step := b.start("metrics:"+string(chain), 0, total)
	b.log.Info("rolling up the chain metrics of the blocks stored before them", "chain", chain, "from", from, "to", to)
	start, lastLog := time.Now(), time.Now()
	for h := from; h <= to; h += b.opts.MetricsChunk {
		last := min(to, h+b.opts.MetricsChunk-1)
		if err := b.st.CatchUpMetrics(ctx, chain, h, last, decode, metrics.UTXOBlocks[*store.MetricsTx]); err != nil {
			return err
		}
		b.update(step, int64(last-from+1))
		if time.Since(lastLog) >= b.opts.ProgressEvery {
			lastLog = time.Now()
			b.log.Info("rolling up the chain metrics", "chain", chain, "height", last, "to", to)
		}
	}
	b.log.Info("rolled up the chain metrics", "chain", chain, "blocks", total, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// start adds a step to what Report tells.
func (b *Backfiller) start(name string, done, total int64) *progress.Step {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &progress.Step{Name: name, Done: done, Total: total}
	s.Start(time.Now())
	b.steps = append(b.steps, s)
	return s
}

func (b *Backfiller) update(s *progress.Step, done int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.Advance(done, time.Now())
}

// Report tells the backfills and catch-ups of this Run: each one's done
// and total positions and its rate.
func (b *Backfiller) Report(s *progress.Status) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, st := range b.steps {
		s.Derivations = append(s.Derivations, *st)
	}
}

// PendingWork names the derivation work the store still lacks
// ("backfill:NAME", "metrics:CHAIN"): the reads that depend on it would
// answer short until it is done (see server.Deps.Pending).
func PendingWork(ctx context.Context, st BackfillSource) ([]string, error) {
	pending, err := st.PendingBackfills(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, bf := range pending {
		out = append(out, "backfill:"+bf.Name)
	}
	for _, c := range store.MetricsCatchUpChains {
		if _, _, ok, err := st.MetricsLeft(ctx, c); err != nil {
			return nil, err
		} else if ok {
			out = append(out, "metrics:"+string(c))
		}
	}
	return out, nil
}

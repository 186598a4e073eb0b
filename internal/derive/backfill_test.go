package derive

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// fakeBackfills is a BackfillSource in memory: one backfill of two parts
// and a P-chain metrics catch-up, recording the ranges filled. Its parts
// carry no fill of the store's, so FillBackfill here moves the cursor by
// itself, as the store's does in its transaction.
type fakeBackfills struct {
	pending   []store.Backfill
	parts     []store.BackfillPart
	filled    [][2]int64
	metrics   [2]uint64 // heights left, from..to; from > to: none
	rolled    [][2]uint64
	failAfter int // FillBackfill fails after that many fills (0: never)
	onFill    func()
	fills     int
	finished  []string
}

func (f *fakeBackfills) PendingBackfills(context.Context) ([]store.Backfill, error) {
	return f.pending, nil
}

func (f *fakeBackfills) BackfillParts(context.Context, string, store.BackfillDerivations) ([]store.BackfillPart, error) {
	return f.parts, nil
}

var errCrash = errors.New("crash")

func (f *fakeBackfills) FillBackfill(_ context.Context, b store.Backfill, p store.BackfillPart, hi int64) (store.Backfill, error) {
	if f.failAfter > 0 && f.fills == f.failAfter {
		return b, errCrash
	}
	f.fills++
	lo := max(b.Next, p.Lo)
	hi = min(hi, p.Hi)
	f.filled = append(f.filled, [2]int64{lo, hi})
	b.Next = hi
	f.pending[0] = b // the committed cursor
	if f.onFill != nil {
		f.onFill()
	}
	return b, nil
}

func (f *fakeBackfills) FinishBackfill(_ context.Context, name string) error {
	f.finished = append(f.finished, name)
	f.pending = nil
	return nil
}

func (f *fakeBackfills) MetricsLeft(_ context.Context, c internal.Chain) (uint64, uint64, bool, error) {
	if c != internal.PChain || f.metrics[0] > f.metrics[1] {
		return 0, 0, false, nil
	}
	return f.metrics[0], f.metrics[1], true, nil
}

func (f *fakeBackfills) CatchUpMetrics(_ context.Context, c internal.Chain, from, to uint64, decode store.MetricDecoder, derive store.MetricDerivation) error {
	if c != internal.PChain || decode == nil || derive == nil {
		return errors.New("unexpected catch-up")
	}
	f.rolled = append(f.rolled, [2]uint64{from, to})
	f.metrics[0] = to + 1
	return nil
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestBackfillerResumes cuts a backfill after each possible chunk and
// checks the next run fills the rest, each position once, in order, and
// then the metrics' catch-up; PendingWork names what is left.
func TestBackfillerResumes(t *testing.T) {
	ctx := context.Background()
	parts := []store.BackfillPart{{Name: "a", Lo: 3, Hi: 10}, {Name: "empty"}, {Name: "b", Lo: 100, Hi: 105}}
	var want [][2]int64
	for _, r := range [][2]int64{{3, 7}, {7, 10}, {100, 104}, {104, 105}} {
		want = append(want, r)
	}
	for crashAfter := 1; crashAfter < len(want); crashAfter++ {
		f := &fakeBackfills{pending: []store.Backfill{{Name: "x"}}, parts: parts, metrics: [2]uint64{5, 9}, failAfter: crashAfter}
		opts := BackfillOptions{Chunk: 4, MetricsChunk: 3}
		if err := RunBackfills(ctx, f, discard(), opts); !errors.Is(err, errCrash) {
			t.Fatalf("crash after %d: %v", crashAfter, err)
		}
		if left, err := PendingWork(ctx, f); err != nil || len(left) != 2 || left[0] != "backfill:x" || left[1] != "metrics:P" {
			t.Fatalf("crash after %d: pending %v (%v)", crashAfter, left, err)
		}
		f.failAfter = 0
		if err := RunBackfills(ctx, f, discard(), opts); err != nil {
			t.Fatal(err)
		}
		// The chunk the crash cut was not committed: filled once.
		if len(f.filled) != len(want) {
			t.Fatalf("crash after %d: filled %v, want %v", crashAfter, f.filled, want)
		}
		for i := range want {
			if f.filled[i] != want[i] {
				t.Fatalf("crash after %d: filled %v, want %v", crashAfter, f.filled, want)
			}
		}
		if len(f.finished) != 1 || len(f.rolled) != 2 || f.rolled[0] != [2]uint64{5, 7} || f.rolled[1] != [2]uint64{8, 9} {
			t.Fatalf("finished %v, rolled up %v", f.finished, f.rolled)
		}
		if left, err := PendingWork(ctx, f); err != nil || len(left) != 0 {
			t.Fatalf("pending after the run: %v (%v)", left, err)
		}
	}
}

// TestBackfillerReports checks what Report tells while a backfill runs:
// its name, the positions done of the total (those of an earlier run
// included) and a rate; and nothing once the run is over.
func TestBackfillerReports(t *testing.T) {
	ctx := context.Background()
	// Resumed in its second part, 2 positions in: 7 + 2 done of 12.
	f := &fakeBackfills{pending: []store.Backfill{{Name: "x", Part: 1, Next: 102}},
		parts: []store.BackfillPart{{Name: "a", Lo: 3, Hi: 10}, {Name: "b", Lo: 100, Hi: 105}}, metrics: [2]uint64{1, 0}}
	b := NewBackfiller(f, discard(), BackfillOptions{Chunk: 1})
	var seen []progress.Step
	f.onFill = func() {
		var s progress.Status
		b.Report(&s)
		if len(s.Derivations) != 1 {
			t.Fatalf("reported %+v", s.Derivations)
		}
		seen = append(seen, s.Derivations[0])
	}
	if err := b.Run(ctx); err != nil {
		t.Fatal(err)
	}
	// Report runs inside the fill, before the backfiller counts it.
	if len(seen) != 3 {
		t.Fatalf("reported %d times: %+v", len(seen), seen)
	}
	for i, st := range seen {
		if st.Name != "backfill:x" || st.Total != 12 || st.Done != int64(9+i) {
			t.Errorf("report %d: %+v, want backfill:x %d of 12", i, st, 9+i)
		}
		if i > 0 && st.PerSecond <= 0 {
			t.Errorf("report %d: no rate: %+v", i, st)
		}
	}
	var s progress.Status
	b.Report(&s)
	if len(s.Derivations) != 0 {
		t.Errorf("after the run, reported %+v", s.Derivations)
	}
}

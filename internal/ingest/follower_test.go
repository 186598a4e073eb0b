package ingest

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestFetchRange checks fetchRange's contract: the heights asked are
// returned in order from the first, at most n are fetched at once, none
// is asked once the blocks fetched hold maxRecords records (past the
// bound, at most the n-1 then in flight), and a failed fetch fails it.
func TestFetchRange(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name             string
		n                int
		from, to         uint64
		maxRecords       int
		wantLen, mostLen int
	}{
		{"all", 3, 10, 29, 1 << 30, 20, 20},
		{"one worker, bound", 1, 0, 99, 5, 5, 5},
		{"workers, bound", 4, 0, 99, 5, 5, 8},
		{"more workers than heights", 8, 5, 6, 1 << 30, 2, 2},
		{"first height alone past the bound", 2, 7, 9, 1, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu             sync.Mutex
				inFlight, most int
			)
			fetch := func(_ context.Context, h uint64) (uint64, error) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
				return h, nil
			}
			got, err := fetchRange(ctx, tc.n, tc.from, tc.to, fetch, func(uint64) int { return 1 }, tc.maxRecords)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < tc.wantLen || len(got) > tc.mostLen {
				t.Errorf("%d heights fetched, want %d to %d", len(got), tc.wantLen, tc.mostLen)
			}
			for i, h := range got {
				if h != tc.from+uint64(i) {
					t.Fatalf("block %d is height %d, want %d", i, h, tc.from+uint64(i))
				}
			}
			if most > tc.n {
				t.Errorf("%d fetches at once, more than %d", most, tc.n)
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		bad := errors.New("no such block")
		_, err := fetchRange(ctx, 3, 0, 50, func(_ context.Context, h uint64) (uint64, error) {
			if h == 17 {
				return 0, bad
			}
			return h, nil
		}, func(uint64) int { return 1 }, 1<<30)
		if !errors.Is(err, bad) {
			t.Errorf("err = %v, want %v", err, bad)
		}
	})
}

// TestFetchRangeCanceled: a context done before the range is fetched
// fails it, rather than returning heights never fetched.
func TestFetchRangeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := fetchRange(ctx, 2, 0, 9, func(_ context.Context, h uint64) (*uint64, error) { return &h, nil },
		func(*uint64) int { return 1 }, 1<<30)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("fetchRange on a canceled context = %v, %v; want context.Canceled", got, err)
	}
}

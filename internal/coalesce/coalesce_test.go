package coalesce

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDoOnce: callers that arrive while a key's computation runs share
// its result; when it fails, each of them computes for itself; other
// keys do not wait.
func TestDoOnce(t *testing.T) {
	for _, fail := range []bool{false, true} {
		var g Group[int]
		var calls, arrived atomic.Int32
		gate := make(chan struct{})
		f := func() (int, error) {
			if calls.Add(1) == 1 {
				<-gate
				if fail {
					return 0, errors.New("the first caller's own failure")
				}
			}
			return 42, nil
		}
		const callers = 8
		var wg sync.WaitGroup
		vals := make([]int, callers)
		errs := make([]error, callers)
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				arrived.Add(1)
				vals[i], errs[i] = g.Do("k", f)
			}()
		}
		for calls.Load() < 1 || arrived.Load() < callers {
			time.Sleep(time.Millisecond)
		}
		// Another key computes while "k" is held.
		if v, err := g.Do("other", func() (int, error) { return 7, nil }); v != 7 || err != nil {
			t.Fatalf("Do(other) = %d, %v while k computes", v, err)
		}
		time.Sleep(20 * time.Millisecond) // the others join k's computation
		close(gate)
		wg.Wait()
		failed := 0
		for i := range callers {
			switch {
			case errs[i] != nil:
				failed++
			case vals[i] != 42:
				t.Errorf("caller %d got %d, want 42", i, vals[i])
			}
		}
		n := calls.Load()
		switch {
		case !fail && (n != 1 || failed != 0):
			t.Errorf("%d callers at once: %d computations, %d failures; want 1 and 0", callers, n, failed)
		case fail && (n != callers || failed != 1):
			t.Errorf("the shared computation failed: %d computations, %d failures; want %d and 1", n, failed, callers)
		}
	}
}

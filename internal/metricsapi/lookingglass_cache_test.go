package metricsapi

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/store"
)

// scanCounter answers the latest-balance scans of one chain state,
// counting them; the first waits for gate, and fails when failFirst.
type scanCounter struct {
	Source
	gate      chan struct{}
	failFirst bool
	scans     atomic.Int32
}

func (s *scanCounter) EVMChainVersion(context.Context, uint64) (int64, error) { return 1, nil }

func (s *scanCounter) BalanceHolders(_ context.Context, q store.BalanceQuery) ([]store.AddressAmount, error) {
	if s.scans.Add(1) == 1 {
		<-s.gate
		if s.failFirst {
			return nil, errors.New("the first scan's client went away")
		}
	}
	return []store.AddressAmount{{Address: common.Address{1}}}, nil
}

// TestBalanceListScannedOnce: queries that miss the cache together scan
// the store once and all get its answer; when that scan fails, the
// others scan for themselves.
func TestBalanceListScannedOnce(t *testing.T) {
	for _, fail := range []bool{false, true} {
		src := &scanCounter{gate: make(chan struct{}), failFirst: fail}
		a, err := New(Deps{Store: src, Network: testNetwork, TokenKey: make([]byte, 32)})
		if err != nil {
			t.Fatal(err)
		}
		q := store.BalanceQuery{ChainID: lgChain, To: 100, Min: big.NewInt(9000), Max: 1000}
		const queries = 8
		var wg sync.WaitGroup
		var started atomic.Int32
		answers := make([]int, queries)
		errs := make([]error, queries)
		for i := range queries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				started.Add(1)
				var list []store.AddressAmount
				list, errs[i] = a.balanceList(context.Background(), q, false)
				answers[i] = len(list)
			}()
		}
		for src.scans.Load() < 1 || started.Load() < queries {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // the others wait on the first scan
		close(src.gate)
		wg.Wait()
		got := 0
		for i := range queries {
			if errs[i] == nil && answers[i] == 1 {
				got++
			}
		}
		switch n := src.scans.Load(); {
		case !fail && (n != 1 || got != queries):
			t.Errorf("%d queries at once: %d scans, %d answers; want 1 scan and %d answers", queries, n, got, queries)
		case fail && got != queries-1:
			t.Errorf("the first scan failed: %d of %d queries answered, want all but its own", got, queries)
		}
	}
}

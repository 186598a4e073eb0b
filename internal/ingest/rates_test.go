package ingest

import (
	"math"
	"testing"
	"time"
)

func TestRates(t *testing.T) {
	start := time.Unix(1_700_000_040, 0) // a minute boundary
	rs := newRates(start.Add(-2 * time.Hour))
	// 600 P-chain blocks a minute for the last 5 minutes, an old burst two
	// hours ago, and a container index that the history leaves out.
	rs.add("P", start.Add(-2*time.Hour), 1_000_000)
	for s := 0; s < 300; s += 10 {
		rs.add("P", start.Add(time.Duration(s)*time.Second), 100)
		rs.add("index:P/block", start.Add(time.Duration(s)*time.Second), 7)
	}
	now := start.Add(299 * time.Second)
	got := rs.perSecond(now)
	// The last minute: buckets 240..290 s hold 600 blocks over 59 s.
	if want := 600.0 / 59; math.Abs(got["P"]-want) > 1e-9 {
		t.Errorf("P: %v blocks/s, want %v", got["P"], want)
	}
	h := rs.history(now)
	if h.IntervalSeconds != 60 || len(h.Blocks) != 60 {
		t.Fatalf("history: %d s x %d points", h.IntervalSeconds, len(h.Blocks))
	}
	var total uint64
	for _, b := range h.Blocks {
		total += b
	}
	if total != 3000 || h.Blocks[59] != 600 || h.Blocks[54] != 0 {
		t.Errorf("history %v: total %d, want 3000 over the last 5 minutes, none from two hours ago nor from the index", h.Blocks, total)
	}
	// An indexer that started 20 s ago divides by 20 s, not a minute.
	young := newRates(now.Add(-20 * time.Second))
	young.add("C", now, 40)
	if got := young.perSecond(now)["C"]; math.Abs(got-2) > 1e-9 {
		t.Errorf("young indexer: %v blocks/s, want 2", got)
	}
}

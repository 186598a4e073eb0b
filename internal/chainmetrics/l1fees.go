package chainmetrics

import "sort"

// The L1 validator fee metrics (getTotalL1ValidatorMetrics and the
// per-validation, per-node and per-subnet ones), from the fee state's
// history. The P-chain charges every active L1 validator the same
// continuous fee, kept as one running total, the accrued fees: what a
// validator paid over a stretch is how far the total moved while it was
// active, up to its end point when its balance ran out. A day's fees are
// those charged by its blocks' time advances.

// L1FeeDay is a UTC day with P-chain blocks: the accrued total before its
// first block's charge (Start) and after its last block (End).
type L1FeeDay struct {
	Day        int64 // unix seconds of 00:00 UTC
	Start, End uint64
}

// L1Change is an L1 validator's balance change: the accrued total at
// which it takes effect and the validator's end point after it (0:
// inactive). Validator tells the validators apart.
type L1Change struct {
	Validator    int
	Accrued, End uint64
}

// L1Span is a stretch of accrued total [From, To) that a validator was
// active for: it paid To − From over it.
type L1Span struct {
	Validator int
	From, To  uint64
}

// L1Spans returns the spans of changes (by validator, each validator's in
// chain order): from a change that leaves the validator active to the
// next change, or to its end point after the last.
func L1Spans(changes []L1Change) []L1Span {
	var out []L1Span
	for i, c := range changes {
		if c.End == 0 {
			continue
		}
		to := c.End
		if i+1 < len(changes) && changes[i+1].Validator == c.Validator {
			to = min(to, changes[i+1].Accrued)
		}
		if to > c.Accrued {
			out = append(out, L1Span{Validator: c.Validator, From: c.Accrued, To: to})
		}
	}
	return out
}

// L1FeeValue is what validators paid on a day: the fees charged by its
// blocks, all fees up to its end, and how many validators paid any.
type L1FeeValue struct {
	Fees, Cumulative uint64
	Paying           int
}

// L1FeeValues returns the values of spans on each of days (starts of UTC
// days), with hist the history's days, ascending (a day without blocks
// charged nothing; its cumulative value is the day before's).
func L1FeeValues(hist []L1FeeDay, spans []L1Span, days []int64) []L1FeeValue {
	out := make([]L1FeeValue, len(days))
	for i, d := range days {
		// The last day of the history at or before d.
		k := sort.Search(len(hist), func(k int) bool { return hist[k].Day > d }) - 1
		if k < 0 {
			continue
		}
		h := hist[k]
		paying := map[int]bool{}
		for _, s := range spans {
			out[i].Cumulative += overlap(s, 0, h.End)
			if h.Day == d && overlap(s, h.Start, h.End) > 0 {
				out[i].Fees += overlap(s, h.Start, h.End)
				paying[s.Validator] = true
			}
		}
		out[i].Paying = len(paying)
	}
	return out
}

// overlap is the length of s within [lo, hi].
func overlap(s L1Span, lo, hi uint64) uint64 {
	a, b := max(s.From, lo), min(s.To, hi)
	if b <= a {
		return 0
	}
	return b - a
}

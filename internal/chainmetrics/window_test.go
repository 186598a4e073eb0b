package chainmetrics

import (
	"testing"
	"time"
)

// TestWindowSpans: a window starts at the first whole hour at or after
// now minus its span, and its hours and days cover it once, without gaps.
func TestWindowSpans(t *testing.T) {
	at := func(d, h, m int) int64 { return time.Date(2025, 6, d, h, m, 0, 0, time.UTC).Unix() }
	now := at(18, 13, 41)
	for _, c := range []struct {
		w    Window
		from int64
	}{
		{Windows[0], at(18, 13, 0)},
		{Windows[1], at(17, 14, 0)},
		{Windows[2], at(11, 14, 0)},
	} {
		if got := c.w.WindowStart(now); got != c.from {
			t.Errorf("%s: starts %s, want %s", c.w.Name, time.Unix(got, 0).UTC(), time.Unix(c.from, 0).UTC())
		}
	}
	// On the hour, now minus the span is itself the start.
	if got := Windows[1].WindowStart(at(18, 13, 0)); got != at(17, 13, 0) {
		t.Errorf("lastDay on the hour starts %s", time.Unix(got, 0).UTC())
	}
	for _, w := range Windows[:6] {
		from := w.WindowStart(now)
		head, days, tail := Spans(from, now)
		// Every hour start from from to now lies in exactly one span.
		for h := from; h <= now; h += 3600 {
			n := 0
			if h >= head[0] && h < head[1] {
				n++
			}
			if d := Day.Start(h); d >= days[0] && d < days[1] {
				n++
			}
			if h >= tail[0] && h < tail[1] {
				n++
			}
			if n != 1 {
				t.Fatalf("%s: hour %s is in %d spans (%v %v %v)", w.Name, time.Unix(h, 0).UTC(), n, head, days, tail)
			}
		}
		if days[0] != days[1] && (days[0]%86400 != 0 || days[1]%86400 != 0) {
			t.Errorf("%s: days %v not whole", w.Name, days)
		}
	}
}

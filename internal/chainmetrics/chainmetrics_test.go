package chainmetrics

import (
	"testing"
	"time"
)

func at(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.Unix()
}

func TestPeriods(t *testing.T) {
	for _, c := range []struct {
		p                     Period
		ts, start, prev, next string
	}{
		// 2024-03-10 is a Sunday; the week starts on Monday the 4th.
		{Hour, "2024-03-10T23:59:59Z", "2024-03-10T23:00:00Z", "2024-03-10T22:00:00Z", "2024-03-11T00:00:00Z"},
		{Day, "2024-03-10T23:59:59Z", "2024-03-10T00:00:00Z", "2024-03-09T00:00:00Z", "2024-03-11T00:00:00Z"},
		{Week, "2024-03-10T23:59:59Z", "2024-03-04T00:00:00Z", "2024-02-26T00:00:00Z", "2024-03-11T00:00:00Z"},
		{Week, "2024-03-11T00:00:00Z", "2024-03-11T00:00:00Z", "2024-03-04T00:00:00Z", "2024-03-18T00:00:00Z"},
		// A leap February; a time given in another zone is its UTC day.
		{Month, "2024-03-01T00:30:00+02:00", "2024-02-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z"},
		{Day, "2024-03-01T00:30:00+02:00", "2024-02-29T00:00:00Z", "2024-02-28T00:00:00Z", "2024-03-01T00:00:00Z"},
	} {
		s := c.p.Start(at(c.ts))
		if s != at(c.start) || c.p.Prev(s) != at(c.prev) || c.p.Next(s) != at(c.next) {
			t.Errorf("%s of %s: start %s prev %s next %s; want %s %s %s", c.p, c.ts,
				time.Unix(s, 0).UTC(), time.Unix(c.p.Prev(s), 0).UTC(), time.Unix(c.p.Next(s), 0).UTC(), c.start, c.prev, c.next)
		}
	}
}

// TestStartMatchesCalendar checks the fixed-span arithmetic of Start
// against the calendar's own truncation over times on both sides of the
// epoch, every weekday and period edges.
func TestStartMatchesCalendar(t *testing.T) {
	calendar := func(p Period, ts int64) int64 {
		u := time.Unix(ts, 0).UTC()
		day := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		switch p {
		case Hour:
			return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), 0, 0, 0, time.UTC).Unix()
		case Week:
			return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)).Unix()
		case Month:
			return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
		}
		return day.Unix()
	}
	var times []int64
	for ts := int64(-40 * 86400); ts < 40*86400; ts += 3599 {
		times = append(times, ts, ts+1)
	}
	for ts := at("2020-02-27T00:00:00Z"); ts < at("2030-01-01T00:00:00Z"); ts += 86400*3 + 3601 {
		times = append(times, ts, ts-1)
	}
	for _, ts := range times {
		for _, p := range Periods {
			if got, want := p.Start(ts), calendar(p, ts); got != want {
				t.Fatalf("%s.Start(%d = %s) = %s, want %s", p, ts, time.Unix(ts, 0).UTC(),
					time.Unix(got, 0).UTC(), time.Unix(want, 0).UTC())
			}
		}
	}
}

func TestValues(t *testing.T) {
	// The first day after the genesis: 3 txs from its first block to its
	// last, 100 s; the first block (2 txs) counts over 1 s.
	var first Rollup
	first.Add(&Block{Height: 1, Time: 1000, Txs: 2, GasUsed: 50}, 0)
	first.Add(&Block{Height: 2, Time: 1100, Txs: 1, GasUsed: 100}, 1000)
	if got := Value(AvgTps, &first, nil); got != 3.0/100 {
		t.Errorf("first day avgTps %v, want 0.03", got)
	}
	if got := Value(MaxTps, &first, nil); got != 2 {
		t.Errorf("first day maxTps %v, want 2", got)
	}
	if got := Value(AvgGps, &first, nil); got != 150.0/100 {
		t.Errorf("avgGps %v, want 1.5", got)
	}
	// One block in the same second as the one before it: at least 1 s.
	var same Rollup
	same.Add(&Block{Height: 3, Time: 1100, Txs: 4}, 1100)
	if got := Value(AvgTps, &same, nil); got != 4 {
		t.Errorf("avgTps over 0 s %v, want 4 (over 1 s)", got)
	}
	// A period without blocks: 0, or the last value of a cumulative.
	first.CumTxs = 3
	if Value(TxCount, nil, &first) != 0 || Value(CumulativeTxCount, nil, &first) != 3 || Value(CumulativeTxCount, nil, nil) != 0 {
		t.Error("periods without blocks")
	}
	if Value(AvgGasPrice, &Rollup{}, nil) != 0 {
		t.Error("avgGasPrice without txs is not 0")
	}
	for _, m := range Metrics {
		if m2, ok := ParseMetric(string(m)); !ok || m2 != m {
			t.Errorf("ParseMetric(%s)", m)
		}
	}
	if len(Metrics) != 17 {
		t.Errorf("%d metrics, want the schema's 17", len(Metrics))
	}
}

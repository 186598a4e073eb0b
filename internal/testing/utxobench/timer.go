package utxobench

import (
	"slices"
	"syscall"
	"testing"
	"time"
)

// Timer times the requests of a benchmark's loop: the latency of each, and
// the CPU time the whole process spent meanwhile (user and system, every
// thread: with SQLite that is all of a request's work, with PostgreSQL the
// client's share). On a shared machine the latencies' tail grows with the
// load while the CPU time does not, which tells a slow query from a busy
// machine.
type Timer struct {
	lat []time.Duration
	cpu time.Duration
}

// Time runs f, a request, and records how long it took.
func (t *Timer) Time(f func()) {
	cpu := processCPU()
	start := time.Now()
	f()
	t.lat = append(t.lat, time.Since(start))
	t.cpu += processCPU() - cpu
}

// Report reports p50 and p99 in milliseconds and the mean CPU time per
// request (cpu-ms), in place of ns/op.
func (t *Timer) Report(b *testing.B) {
	b.Helper()
	if len(t.lat) == 0 {
		return
	}
	lat := slices.Clone(t.lat)
	slices.Sort(lat)
	ms := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(float64(t.cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms")
	b.ReportMetric(0, "ns/op")
}

// processCPU is the CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package ingest

import (
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal/progress"
)

// The ingest rate is kept per followed key in 10-second buckets over the
// last hour: enough for blocks per second over the last minute and the
// status page's chart of the hour, in constant memory.
const (
	rateBucket     = 10 * time.Second
	rateBuckets    = int64(time.Hour / rateBucket)
	rateWindow     = time.Minute
	historyBuckets = int64(time.Minute / rateBucket) // buckets per history point
)

// ring counts what was applied of one key per bucket; epochs tell which
// bucket of time each slot holds, so stale slots read as zero.
type ring struct {
	counts [rateBuckets]uint64
	epochs [rateBuckets]int64
}

func bucketOf(t time.Time) int64 { return t.UnixNano() / int64(rateBucket) }

func (r *ring) add(now time.Time, n uint64) {
	e := bucketOf(now)
	i := e % rateBuckets
	if r.epochs[i] != e {
		r.epochs[i], r.counts[i] = e, 0
	}
	r.counts[i] += n
}

// at returns the count of bucket e, 0 when it is older than the ring.
func (r *ring) at(e int64) uint64 {
	if i := e % rateBuckets; e >= 0 && r.epochs[i] == e {
		return r.counts[i]
	}
	return 0
}

// rates tracks what every key applied. The Indexer's mutex guards it.
type rates struct {
	started time.Time
	keys    map[string]*ring
}

func newRates(now time.Time) rates { return rates{started: now, keys: map[string]*ring{}} }

// add records n blocks (or containers, or txs) of key applied at now.
func (rs *rates) add(key string, now time.Time, n uint64) {
	r := rs.keys[key]
	if r == nil {
		r = new(ring)
		rs.keys[key] = r
	}
	r.add(now, n)
}

// perSecond returns each key's rate over the last minute (or since the
// indexer started, if that is shorter), whole buckets plus the current
// one's part.
func (rs *rates) perSecond(now time.Time) map[string]float64 {
	cur := bucketOf(now)
	first := cur - int64(rateWindow/rateBucket) + 1
	window := now.Sub(time.Unix(0, first*int64(rateBucket)))
	if since := now.Sub(rs.started); since < window {
		window = since
	}
	out := make(map[string]float64, len(rs.keys))
	for key, r := range rs.keys {
		var n uint64
		for e := first; e <= cur; e++ {
			n += r.at(e)
		}
		if window > 0 {
			out[key] = float64(n) / window.Seconds()
		}
	}
	return out
}

// history sums the chains' buckets into one point per minute of the last
// hour.
func (rs *rates) history(now time.Time) *progress.History {
	points := rateBuckets / historyBuckets
	cur := bucketOf(now) / historyBuckets
	h := &progress.History{IntervalSeconds: int(historyBuckets * int64(rateBucket/time.Second)), Blocks: make([]uint64, points)}
	for key, r := range rs.keys {
		if strings.HasPrefix(key, "index:") {
			continue
		}
		for p := int64(0); p < points; p++ {
			minute := cur - points + 1 + p
			for b := int64(0); b < historyBuckets; b++ {
				h.Blocks[p] += r.at(minute*historyBuckets + b)
			}
		}
	}
	return h
}

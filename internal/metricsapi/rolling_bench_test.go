package metricsapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/chainmetrics"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkRollingWindow answers rolling windows over a year of P-chain
// blocks, one a minute (525,600), so that every hour and day of the year
// has its rollup, as a busier chain's would (a window reads rollups, never
// blocks: its cost is the periods', not the blocks'), with 1,000
// addresses, next to AVAINDEX_BENCH_RW_OTHER (200,000 by default)
// addresses of another chain; it reports the p99 of txCount, maxTps and
// activeAddresses (which counts the chain's address rows seen in the
// windows).
func BenchmarkRollingWindow(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		db, err := database.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Migrate(ctx, store.Migrations()); err != nil {
			b.Fatal(err)
		}
		st := store.New(db)
		b.Cleanup(func() { st.Close() })
		end := time.Now().UTC()
		start := end.Add(-365 * 24 * time.Hour).Truncate(time.Hour)
		built := time.Now()
		height := uint64(1)
		batch := make([]chainmetrics.Block, 0, 1440)
		for t := start; t.Before(end); t = t.Add(24 * time.Hour) {
			batch = batch[:0]
			for s := int64(0); s < 86400 && t.Unix()+s < end.Unix(); s += 60 {
				batch = append(batch, chainmetrics.Block{Height: height, Time: t.Unix() + s, Txs: int(height%3) + 1,
					Senders:   [][]byte{fmt.Appendf(nil, "address-%06d", height%53)},
					Addresses: [][]byte{fmt.Appendf(nil, "address-%06d", height%1000)}})
				height++
			}
			if err := db.Transact(ctx, func(tx *database.DB) error { return store.RollupMetrics(ctx, tx, store.PMetricKey, batch) }); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("rolled up %d blocks in %s", height-1, time.Since(built).Round(time.Second))
		// Another chain's addresses, as an indexed C-chain's would be:
		// the P-chain's windows must not read them.
		// AVAINDEX_BENCH_RW_OTHER, 200,000 by default.
		other := benchstore.Count(b, "AVAINDEX_BENCH_RW_OTHER", 200_000, 0)
		built = time.Now()
		rows := make([][]any, 0, 5000)
		for i := range other {
			seen := start.Unix() + int64(i)%(365*24)*3600
			rows = append(rows, []any{fmt.Appendf(nil, "c-address-%08d", i), "43114", seen, seen, int64(-1)})
			if len(rows) == cap(rows) || i == other-1 {
				if _, err := db.BulkInsert(ctx, "metric_addresses", []string{"address", "chain_key", "last_seen", "last_sent", "last_deployed"}, rows, ""); err != nil {
					b.Fatal(err)
				}
				rows = rows[:0]
			}
		}
		if _, err := db.Exec(ctx, "ANALYZE metric_addresses"); err != nil {
			b.Fatal(err)
		}
		b.Logf("stored %d addresses of another chain in %s", other, time.Since(built).Round(time.Second))
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return end }})
		if err != nil {
			b.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		for _, m := range []string{"txCount", "maxTps", "activeAddresses"} {
			path := "/v2/chains/" + constants.PlatformChainID.String() + "/rollingWindowMetrics/" + m
			b.Run(m, func(b *testing.B) {
				var lat []time.Duration
				for b.Loop() {
					t0 := time.Now()
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
					lat = append(lat, time.Since(t0))
					if rec.Code != 200 {
						b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			})
		}
	})
}

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
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// yearOfBlocks rolls up a year of P-chain blocks ending at end, one every
// 2 s (15.8 million), each with 1 to 3 txs and a sender and a receiver of
// a few hundred addresses, an hour of blocks per transaction as the
// indexer's batches would.
func yearOfBlocks(b *testing.B, db *database.DB, end time.Time) {
	ctx := context.Background()
	start := end.Add(-365 * 24 * time.Hour).Truncate(time.Hour)
	addrs := make([][]byte, 300)
	for i := range addrs {
		addrs[i] = []byte(fmt.Sprintf("address-%012d", i))
	}
	height := uint64(1)
	batch := make([]chainmetrics.Block, 0, 1800)
	for t := start; t.Before(end); t = t.Add(time.Hour) {
		batch = batch[:0]
		for s := int64(0); s < 3600; s += 2 {
			n := int(height%3) + 1
			batch = append(batch, chainmetrics.Block{Height: height, Time: t.Unix() + s, Txs: n,
				Senders: [][]byte{addrs[height%7]}, Addresses: [][]byte{addrs[height%300]}})
			height++
		}
		err := db.Transact(ctx, func(tx *database.DB) error {
			return store.RollupMetrics(ctx, tx, store.PMetricKey, batch)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMetricsPage answers 100-point pages of the Metrics API over a
// year of blocks: avg_tps by day (v1), txCount by hour and cumulative
// addresses by day (v2), and reports the p99 latency of each.
func BenchmarkMetricsPage(b *testing.B) {
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
		built := time.Now()
		yearOfBlocks(b, db, end)
		b.Logf("rolled up a year of blocks in %s", time.Since(built).Round(time.Second))
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return end }})
		if err != nil {
			b.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		p := constants.PlatformChainID.String()
		for _, c := range []struct{ name, path string }{
			{"v1-avg_tps-day", "/v1/avg_tps/" + p},
			{"v1-avg_tps-day-page3", ""},
			{"v2-txCount-hour", "/v2/chains/" + p + "/metrics/txCount?timeInterval=hour"},
			{"v2-cumulativeAddresses-day", "/v2/chains/" + p + "/metrics/cumulativeAddresses"},
		} {
			if c.path == "" {
				// The third page, by the token of the second.
				path := "/v1/avg_tps/" + p
				for range 2 {
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
					var res LegacyMetricsResponse
					if err := jsonDecode(rec.Body.Bytes(), &res); err != nil || res.NextPageToken == "" {
						b.Fatalf("%s: %v %s", path, err, rec.Body)
					}
					path = "/v1/avg_tps/" + p + "?pageToken=" + res.NextPageToken
				}
				c.path = path
			}
			b.Run(c.name, func(b *testing.B) {
				var lat []time.Duration
				for b.Loop() {
					t0 := time.Now()
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
					lat = append(lat, time.Since(t0))
					if rec.Code != 200 {
						b.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body)
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			})
		}
	})
}

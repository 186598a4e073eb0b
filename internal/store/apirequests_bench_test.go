package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkAPIRequestInserts writes the usage recorder's batches of 4,096
// requests as InsertAPIRequests does (new rows: COPY on PostgreSQL) and
// as it did before, skipping conflicts (an INSERT of arrays on
// PostgreSQL), which it now does only for a batch written before.
func BenchmarkAPIRequestInserts(b *testing.B) {
	const batch = 4096
	dbtest.Run(b, func(b *testing.B, dsn string) {
		n := 0 // the requests written, so that every run's are new
		for _, c := range []struct{ name, conflict string }{{"new", ""}, {"skipping-conflicts", onConflictDoNothing}} {
			b.Run(c.name, func(b *testing.B) {
				s := openStore(b, dsn)
				ctx := context.Background()
				t0 := time.Unix(1_700_000_000, 0)
				rows := make([][]any, batch)
				b.ResetTimer()
				for range b.N {
					for j := range rows {
						n++
						rows[j] = apiRequestRow(internal.APIRequest{Time: t0.Add(time.Duration(n) * time.Millisecond),
							ID: fmt.Sprintf("r-%012d", n), Type: internal.RequestTypeRPC, Route: "POST /ext/bc/P", Method: "POST",
							Status: 200, Duration: time.Millisecond, ChainID: "P", RPCMethod: "platform.getBlockByHeight"})
					}
					if _, err := s.db.BulkInsert(ctx, "api_requests", apiRequestColumns, rows, c.conflict); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	})
}

package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/evmbench"
)

// BenchmarkEVMTransferLists measures a 100-item page of the ERC-20
// transfers of an address holding a tenth of the store's transfers (a
// million of evmbench.DefaultTransfers; AVAINDEX_BENCH_TRANSFERS for
// fewer), and of the transfers of a token holding a fifth, at the first
// page and at a page 50,000 items deep (scaled with a smaller store),
// reached by paging with the previous page's last key; reported as p50
// and p99 in milliseconds. The store is built once and cached.
func BenchmarkEVMTransferLists(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			d := evmbench.Open(b, backend)
			ctx := context.Background()
			st, err := store.Open(ctx, d.DSN)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			depth := 50_000 * d.Transfers / evmbench.DefaultTransfers
			const pageSize = 100
			for _, sc := range []struct {
				name string
				page func(after *store.EVMTransferKey) ([]internal.EVMTransfer, error)
			}{
				{"address-erc20", func(after *store.EVMTransferKey) ([]internal.EVMTransfer, error) {
					return st.EVMAddressTransfers(ctx, evmbench.ChainID, d.Heavy, internal.ERC20, store.BlockRange{}, after, pageSize)
				}},
				{"token", func(after *store.EVMTransferKey) ([]internal.EVMTransfer, error) {
					return st.EVMTokenTransfers(ctx, evmbench.ChainID, d.HeavyToken, store.BlockRange{}, after, pageSize)
				}},
			} {
				for _, deep := range []bool{false, true} {
					name := sc.name + "/first"
					if deep {
						name = sc.name + fmt.Sprintf("/%d-deep", depth)
					}
					b.Run(name, func(b *testing.B) {
						var after *store.EVMTransferKey
						for seen := 0; deep && seen < depth; seen += pageSize {
							page, err := sc.page(after)
							if err != nil {
								b.Fatal(err)
							}
							if len(page) < pageSize {
								b.Fatalf("%s: the list ends after %d items", name, seen+len(page))
							}
							last := page[len(page)-1]
							after = &store.EVMTransferKey{BlockNumber: last.BlockNumber, LogIndex: last.LogIndex, BatchIndex: last.BatchIndex}
						}
						var lat []time.Duration
						for b.Loop() {
							start := time.Now()
							page, err := sc.page(after)
							lat = append(lat, time.Since(start))
							if err != nil {
								b.Fatal(err)
							}
							if len(page) != pageSize {
								b.Fatalf("%s: %d items, want %d", name, len(page), pageSize)
							}
						}
						slices.Sort(lat)
						ms := func(p float64) float64 {
							return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
						}
						b.ReportMetric(ms(0.50), "p50-ms")
						b.ReportMetric(ms(0.99), "p99-ms")
						b.ReportMetric(0, "ns/op")
					})
				}
			}
		})
	}
}

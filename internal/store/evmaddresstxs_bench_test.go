package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/evmbench"
)

// BenchmarkEVMAddressHistory measures a 100-item page of the history of
// an address with a tenth of the store's txs (a million of
// evmbench.DefaultTxs; AVAINDEX_BENCH_TXS for fewer): listTransactions'
// read (the txs with their transfers and internal txs) and
// listNativeTransactions', at the first page and at a page 50,000 items
// deep (scaled with a smaller store), reached by paging with the previous
// page's last key; reported as p50 and p99 in milliseconds. The store is
// built once and cached.
func BenchmarkEVMAddressHistory(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			d := evmbench.OpenHistory(b, backend)
			ctx := context.Background()
			st, err := store.Open(ctx, d.DSN)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			depth := 50_000 * d.Txs / evmbench.DefaultTxs
			const pageSize = 100
			type key = store.EVMTxKey
			for _, sc := range []struct {
				name string
				page func(after *key) ([]key, error)
			}{
				{"history", func(after *key) ([]key, error) {
					ds, err := st.EVMAddressHistory(ctx, evmbench.ChainID, d.Heavy, store.BlockRange{}, false, after, pageSize)
					out := make([]key, len(ds))
					for i, x := range ds {
						if len(x.Transfers) != 1 {
							return nil, fmt.Errorf("tx %d/%d: %d transfers, want 1", x.Tx.BlockNumber, x.Tx.Index, len(x.Transfers))
						}
						out[i] = key{BlockNumber: x.Tx.BlockNumber, Index: x.Tx.Index}
					}
					return out, err
				}},
				{"history-asc", func(after *key) ([]key, error) {
					ds, err := st.EVMAddressHistory(ctx, evmbench.ChainID, d.Heavy, store.BlockRange{}, true, after, pageSize)
					out := make([]key, len(ds))
					for i, x := range ds {
						out[i] = key{BlockNumber: x.Tx.BlockNumber, Index: x.Tx.Index}
					}
					return out, err
				}},
				{"native", func(after *key) ([]key, error) {
					txs, err := st.EVMAddressTxs(ctx, evmbench.ChainID, d.Heavy, true, store.BlockRange{}, false, after, pageSize)
					out := make([]key, len(txs))
					for i, x := range txs {
						out[i] = key{BlockNumber: x.BlockNumber, Index: x.Index}
					}
					return out, err
				}},
			} {
				for _, deep := range []bool{false, true} {
					name := sc.name + "/first"
					if deep {
						name = sc.name + fmt.Sprintf("/%d-deep", depth)
					}
					b.Run(name, func(b *testing.B) {
						var after *key
						for seen := 0; deep && seen < depth; seen += pageSize {
							page, err := sc.page(after)
							if err != nil {
								b.Fatal(err)
							}
							if len(page) < pageSize {
								b.Fatalf("%s: the list ends after %d items", name, seen+len(page))
							}
							after = &page[len(page)-1]
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

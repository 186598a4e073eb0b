package store

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkEVMLatestLists measures a 100-item page of the latest blocks
// and the latest txs (all, and the failed ones) of a chain, and of the
// lists of two chains, at the first page and 10,000 items deep, on a
// store of two chains of AVAINDEX_BENCH_EVM_BLOCKS blocks each (20,000 by
// default; makeEVMBlocks' 2 txs a block on average, every second tx of
// the second chain failed); reported as p50 and p99 in milliseconds.
func BenchmarkEVMLatestLists(b *testing.B) {
	blocks := uint64(20_000)
	if v, err := strconv.ParseUint(os.Getenv("AVAINDEX_BENCH_EVM_BLOCKS"), 10, 64); err == nil && v > 0 {
		blocks = v
	}
	const other, pageSize = 7, 100
	depth := min(10_000, blocks/2) // items deep, about
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		s := openStore(b, dsn)
		a, o := makeEVMBlocks("a", blocks), makeEVMBlocks("o", blocks)
		for _, blk := range o {
			for i := range blk.Txs {
				blk.Txs[i].Status = uint8(1 - i%2)
			}
		}
		for i := uint64(0); i < blocks; i += 1000 {
			end := min(blocks, i+1000)
			if err := s.ApplyEVMBlocks(ctx, testEVMChain, a[i:end], deriveEVM); err != nil {
				b.Fatal(err)
			}
			if err := s.ApplyEVMBlocks(ctx, other, o[i:end], deriveEVM); err != nil {
				b.Fatal(err)
			}
		}
		failed := uint8(0)
		type page func(deep bool) (int, error)
		// The keys deep down: about depth items precede them in each list.
		for _, sc := range []struct {
			name string
			list page
		}{
			{"blocks", func(deep bool) (int, error) {
				var before *uint64
				if deep {
					n := blocks - depth
					before = &n
				}
				p, err := s.EVMBlocks(ctx, testEVMChain, before, pageSize)
				return len(p), err
			}},
			{"txs", func(deep bool) (int, error) {
				var after *EVMTxKey
				if deep {
					after = &EVMTxKey{BlockNumber: blocks - depth/2}
				}
				p, err := s.EVMLatestTxs(ctx, testEVMChain, nil, after, pageSize)
				return len(p), err
			}},
			{"failed-txs", func(deep bool) (int, error) {
				var after *EVMTxKey
				if deep {
					after = &EVMTxKey{BlockNumber: blocks - depth}
				}
				p, err := s.EVMLatestTxs(ctx, other, &failed, after, pageSize)
				return len(p), err
			}},
			{"all-chains-blocks", func(deep bool) (int, error) {
				var after *EVMTimeKey
				if deep {
					n := blocks - depth/2
					after = &EVMTimeKey{Timestamp: a[n].Timestamp.Unix(), ChainID: testEVMChain, Number: n}
				}
				p, err := s.EVMLatestBlocks(ctx, []uint64{testEVMChain, other}, after, pageSize)
				return len(p), err
			}},
			{"all-chains-txs", func(deep bool) (int, error) {
				var after *EVMTimeKey
				if deep {
					n := blocks - depth/4
					after = &EVMTimeKey{Timestamp: a[n].Timestamp.Unix(), ChainID: testEVMChain, Number: n}
				}
				p, err := s.EVMLatestTxsAllChains(ctx, []uint64{testEVMChain, other}, nil, after, pageSize)
				return len(p), err
			}},
		} {
			for _, deep := range []bool{false, true} {
				name := sc.name + "/first"
				if deep {
					name = fmt.Sprintf("%s/%d-deep", sc.name, depth)
				}
				b.Run(name, func(b *testing.B) {
					var lat []time.Duration
					for b.Loop() {
						start := time.Now()
						n, err := sc.list(deep)
						lat = append(lat, time.Since(start))
						if err != nil {
							b.Fatal(err)
						}
						if n != pageSize {
							b.Fatalf("%s: %d items, want %d", name, n, pageSize)
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

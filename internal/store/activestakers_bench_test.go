package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/utxobench"
)

// BenchmarkActiveStakers measures the store's read of the Data API's
// active staking txs (listStaking, A16) over the utxobench data set: tens
// of thousands of current stakers, the heavy address a reward owner of
// thousands of them and of tens of thousands of removed ones. A page of
// 101 stakers (a page of 100 and the one that tells whether another
// follows), first and half way down the list (after the key of the
// staker there), reported as p50 and p99 in milliseconds with the CPU
// time per request (utxobench.Timer); and the list of an address of no
// current staker.
func BenchmarkActiveStakers(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			d := utxobench.Open(b, backend)
			ctx := context.Background()
			st, err := store.Open(ctx, d.DSN)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			some := func(n int) []ids.ShortID {
				addrs := []ids.ShortID{d.Heavy}
				for i := 0; len(addrs) < n; i++ {
					addrs = append(addrs, d.Normal(1000+i))
				}
				return addrs
			}
			for _, sc := range []struct {
				name string
				q    store.ActiveStakerQuery
			}{
				{"1-address", store.ActiveStakerQuery{Addresses: some(1), Desc: true}},
				{"1-address-asc", store.ActiveStakerQuery{Addresses: some(1)}},
				{"1-address-validators", store.ActiveStakerQuery{Addresses: some(1), Desc: true,
					TxTypes: []string{"AddPermissionlessValidatorTx"}}},
				{"64-addresses", store.ActiveStakerQuery{Addresses: some(64), Desc: true}},
				// An address of no current staker: the whole answer is
				// that there is none.
				{"1-address-none", store.ActiveStakerQuery{Addresses: []ids.ShortID{d.Normal(1)}, Desc: true}},
				{"all", store.ActiveStakerQuery{Desc: true}},
			} {
				// The whole list, to find its middle.
				var keys []store.StakerKey
				for q := sc.q; ; {
					q.Limit = 1000
					rs, err := st.ActiveStakers(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					for _, r := range rs {
						keys = append(keys, store.StakerKey{StartTime: r.StartTime, TxID: r.TxID})
					}
					if len(rs) < q.Limit {
						break
					}
					q.After = &keys[len(keys)-1]
				}
				for _, deep := range []bool{false, true} {
					if deep && len(keys) < 2*101 {
						continue // no page half way down
					}
					name := sc.name + fmt.Sprintf("/%d-stakers/first", len(keys))
					if deep {
						name = sc.name + fmt.Sprintf("/%d-stakers/%d-deep", len(keys), len(keys)/2)
					}
					b.Run(name, func(b *testing.B) {
						q := sc.q
						q.Limit = 101
						want := min(q.Limit, len(keys))
						if deep {
							q.After = &keys[len(keys)/2-1]
						}
						t := &utxobench.Timer{}
						for b.Loop() {
							var (
								rs  []*store.StakerRecord
								err error
							)
							t.Time(func() { rs, err = st.ActiveStakers(ctx, q) })
							if err != nil {
								b.Fatal(err)
							}
							if len(rs) != want {
								b.Fatalf("%s: %d stakers, want %d", name, len(rs), want)
							}
						}
						t.Report(b)
					})
				}
			}
		})
	}
}

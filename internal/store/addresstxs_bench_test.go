package store_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/utxobench"
)

// historyTxs is how many P-chain txs the heavy address of
// BenchmarkAddressTxs has; historyOthers addresses share the same blocks
// (a tx each), so that its index range is one among many.
const (
	historyTxs    = 100_000
	historyOthers = 4
)

// BenchmarkAddressTxs measures the store's read of a page of an
// address's P-chain history (listLatestPrimaryNetworkTransactions with
// addresses): 101 txs (a page of 100 and the one that tells whether
// another follows) with their bytes and blocks, of an address with
// 100,000 txs, newest first, at the first page and 50,000 deep (after the
// key of the tx there), reported as p50 and p99 in milliseconds with the
// CPU time per request (utxobench.Timer). The rows are written directly:
// one block per tx, the address and historyOthers others in each.
func BenchmarkAddressTxs(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		db, err := database.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		heavy := ids.ShortID{0xaa}
		var blocks, txs, rows [][]any
		for h := 1; h <= historyTxs; h++ {
			var bid, tid ids.ID
			binary.BigEndian.PutUint64(bid[:], uint64(h))
			binary.BigEndian.PutUint64(tid[:], uint64(h))
			tid[31] = 1
			ts := int64(1_700_000_000 + h)
			blocks = append(blocks, []any{int64(h), bid[:], bid[:], "BanffStandardBlock", ts, []byte{0}})
			txs = append(txs, []any{tid[:], int64(h), 0, "BaseTx", make([]byte, 300)})
			key := make([]byte, 8, 40)
			binary.BigEndian.PutUint64(key, uint64(h)<<32)
			key = append(key, tid[:]...)
			rows = append(rows, []any{"P", heavy[:], ts, key, "BaseTx"})
			for o := 0; o < historyOthers; o++ {
				other := ids.ShortID{byte(o), byte(h >> 16), byte(h >> 8), byte(h)}
				rows = append(rows, []any{"P", other[:], ts, key, "BaseTx"})
			}
		}
		for _, ins := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"p_blocks", []string{"height", "id", "parent_id", "type", "timestamp", "bytes"}, blocks},
			{"p_txs", []string{"id", "block_height", "idx", "type", "bytes"}, txs},
			{"address_txs", []string{"chain", "address", "tx_time", "tx_key", "tx_type"}, rows},
		} {
			for i := 0; i < len(ins.rows); i += 5000 {
				if _, err := db.BulkInsert(ctx, ins.table, ins.cols, ins.rows[i:min(len(ins.rows), i+5000)], ""); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := db.Exec(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
		// The key half way down, read as a client pages to it.
		q := store.AddressTxQuery{Chain: internal.PChain, Addresses: []ids.ShortID{heavy}, Desc: true, Limit: 1000}
		var mid *store.AddressTxKey
		for seen := 0; seen < historyTxs/2; {
			page, err := st.AddressTxs(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range page {
				if seen++; seen == historyTxs/2 {
					mid = &t.Key
					break
				}
			}
			q.After = &page[len(page)-1].Key
		}
		for _, deep := range []bool{false, true} {
			name := fmt.Sprintf("%d-txs/first", historyTxs)
			if deep {
				name = fmt.Sprintf("%d-txs/%d-deep", historyTxs, historyTxs/2)
			}
			b.Run(name, func(b *testing.B) {
				q := store.AddressTxQuery{Chain: internal.PChain, Addresses: []ids.ShortID{heavy}, Desc: true, Limit: 101}
				if deep {
					q.After = mid
				}
				t := &utxobench.Timer{}
				for b.Loop() {
					var (
						page []*store.AddressTx
						err  error
					)
					t.Time(func() { page, err = st.AddressTxs(ctx, q) })
					if err != nil {
						b.Fatal(err)
					}
					if len(page) != 101 || len(page[0].Bytes) != 300 {
						b.Fatalf("%d txs, want 101 with their bytes", len(page))
					}
				}
				t.Report(b)
			})
		}
	})
}

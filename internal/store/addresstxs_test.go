package store

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestAddressTxsPages writes a P-chain history by hand (txs 1..30, one per
// block, tx h at time 1000+h/2 so that blocks share seconds, owned by
// address a when h is even, by b when h%3 == 0, typed ImportTx when h%5
// == 0) and pages it every way the Data API does.
func TestAddressTxsPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		a, b := ids.ShortID{1}, ids.ShortID{2}
		var blocks, txs, rows [][]any
		txOf := func(h int) ids.ID {
			var id ids.ID
			binary.BigEndian.PutUint64(id[24:], uint64(100-h)) // ids in the opposite order of heights
			return id
		}
		for h := 1; h <= 30; h++ {
			var bid ids.ID
			binary.BigEndian.PutUint64(bid[:], uint64(h))
			ts := int64(1000 + h/2)
			typ := "BaseTx"
			if h%5 == 0 {
				typ = "ImportTx"
			}
			id := txOf(h)
			blocks = append(blocks, []any{int64(h), bid[:], bid[:], "BanffStandardBlock", ts, []byte{1}})
			txs = append(txs, []any{id[:], int64(h), 0, typ, []byte{byte(h)}})
			for _, owner := range []struct {
				addr ids.ShortID
				ok   bool
			}{{a, h%2 == 0}, {b, h%3 == 0}} {
				if owner.ok {
					rows = append(rows, []any{"P", owner.addr[:], ts, addressTxKey(uint64(h), 0, id), typ})
				}
			}
		}
		for _, ins := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{
			{"p_blocks", []string{"height", "id", "parent_id", "type", "timestamp", "bytes"}, blocks},
			{"p_txs", []string{"id", "block_height", "idx", "type", "bytes"}, txs},
			{"address_txs", addressTxColumns, rows},
		} {
			if _, err := s.db.BulkInsert(ctx, ins.table, ins.cols, ins.rows, ""); err != nil {
				t.Fatal(err)
			}
		}
		// want is the heights q selects, in its order.
		want := func(keep func(h int) bool, desc bool) []int {
			var out []int
			for h := 1; h <= 30; h++ {
				if keep(h) {
					out = append(out, h)
				}
			}
			if desc {
				slices.Reverse(out)
			}
			return out
		}
		// all pages q by size and returns the heights.
		all := func(q AddressTxQuery, size int) []int {
			var out []int
			for pages := 0; ; pages++ {
				if pages > 100 {
					t.Fatal("paging does not end")
				}
				q.Limit = size
				page, err := s.AddressTxs(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, tx := range page {
					h := int(tx.Height)
					if tx.ID != txOf(h) || tx.Bytes[0] != byte(h) || tx.Timestamp.Unix() != int64(1000+h/2) {
						t.Fatalf("tx at height %d read as %+v", h, tx.TxRecord)
					}
					out = append(out, h)
				}
				if len(page) < size {
					return out
				}
				q.After = &page[len(page)-1].Key
			}
		}
		start, end := int64(1003), int64(1010)
		for _, tc := range []struct {
			name string
			q    AddressTxQuery
			keep func(h int) bool
		}{
			{"a", AddressTxQuery{Addresses: []ids.ShortID{a}}, func(h int) bool { return h%2 == 0 }},
			{"a and b, each tx once", AddressTxQuery{Addresses: []ids.ShortID{a, b}}, func(h int) bool { return h%2 == 0 || h%3 == 0 }},
			{"imports of a or b", AddressTxQuery{Addresses: []ids.ShortID{b, a}, TxTypes: []string{"ImportTx"}},
				func(h int) bool { return (h%2 == 0 || h%3 == 0) && h%5 == 0 }},
			{"a in [1003, 1010]", AddressTxQuery{Addresses: []ids.ShortID{a}, Start: &start, End: &end},
				func(h int) bool { return h%2 == 0 && 1000+h/2 >= 1003 && 1000+h/2 <= 1010 }},
			{"an address of nothing", AddressTxQuery{Addresses: []ids.ShortID{{3}}}, func(int) bool { return false }},
			{"the chain", AddressTxQuery{}, func(int) bool { return true }},
			{"the chain's imports in [1003, 1010]", AddressTxQuery{TxTypes: []string{"ImportTx"}, Start: &start, End: &end},
				func(h int) bool { return h%5 == 0 && 1000+h/2 >= 1003 && 1000+h/2 <= 1010 }},
		} {
			for _, desc := range []bool{true, false} {
				for _, size := range []int{1, 4, 100} {
					q := tc.q
					q.Chain, q.Desc = internal.PChain, desc
					if got, w := all(q, size), want(tc.keep, desc); !slices.Equal(got, w) {
						t.Errorf("%s, desc %v, pages of %d: %v, want %v", tc.name, desc, size, got, w)
					}
				}
			}
		}
		if _, err := s.AddressTxs(ctx, AddressTxQuery{Chain: internal.XChain, L1ValidationID: &ids.Empty, Limit: 1}); err == nil {
			t.Error("an L1 validation id on the X-chain was accepted")
		}
	})
}

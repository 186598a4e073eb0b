package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
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

// TestAddressTxsFromTheBatch checks that the history a P-chain batch of
// new blocks derives from what it wrote (batchHistory) is the one read
// back from the stored UTXOs and stakers (deriveAddressTxs, as a
// rederive and the backfill derive it): on the UTXO scenario (genesis
// allocations and validator, a spend, a delegator, its reward, an export
// and an import, an aborted staker proposal), applied whole and a block
// at a time.
//
// Two blocks follow, where each part has owners of its own (in the
// scenario the owners of what a tx spends, of what it makes and of its
// stake's rewards mostly coincide, so a part left out could go unseen): a
// BaseTx spends B's output and pays D; a delegator spends D's output, its
// change and stake go to E, its rewards to F.
func TestAddressTxsFromTheBatch(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		addrD, addrE, addrF := ids.ShortID{0xd}, ids.ShortID{0xe}, ids.ShortID{0xf}
		pay := uTx(t, &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345,
			Ins:  []*avax.TransferableInput{uIn(sc.baseTx.ID(), 0, 100)},
			Outs: []*avax.TransferableOutput{uOut(95, addrD)}}})
		del := uTx(t, &txs.AddPermissionlessDelegatorTx{
			BaseTx:                 uBase([]*avax.TransferableInput{uIn(pay.ID(), 0, 95)}, uOut(40, addrE)),
			Validator:              txs.Validator{NodeID: ids.NodeID{3}, Start: 0, End: 1_700_000_900, Wght: 50},
			StakeOuts:              []*avax.TransferableOutput{uOut(50, addrE)},
			DelegationRewardsOwner: &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{addrF}},
		})
		last := sc.blocks[len(sc.blocks)-1]
		bs := append(slices.Clone(sc.blocks), pChain(t, last.Height+1, last.ID,
			pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_010, 0), txs: []*txs.Tx{pay}},
			pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_011, 0), txs: []*txs.Tx{del}})...)
		whole := openStore(t, dsn)
		mustApply(t, whole, bs)
		got := dumpRows(t, whole, "address_txs")

		one := openStore(t, dbtestFresh(t, dsn))
		for i := range bs {
			mustApply(t, one, bs[i:i+1])
		}
		if byBlock := dumpRows(t, one, "address_txs"); byBlock != got {
			t.Errorf("a block at a time:\n%s\nwhole:\n%s", byBlock, got)
		}

		err := whole.db.Transact(ctx, func(tx *database.DB) error {
			if _, err := tx.Exec(ctx, "DELETE FROM address_txs"); err != nil {
				return err
			}
			return writeAddressTxRange(ctx, tx, internal.PChain, 0, bs[len(bs)-1].Height, internal.AllAddressTxParts)
		})
		if err != nil {
			t.Fatal(err)
		}
		want := dumpRows(t, whole, "address_txs")
		if got != want {
			t.Errorf("from the batch:\n%s\nread back:\n%s", got, want)
		}
		// Every tx of the scenario is in someone's history.
		var stored, listed int
		if err := whole.db.QueryRow(ctx, "SELECT COUNT(*) FROM p_txs").Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if err := whole.db.QueryRow(ctx, "SELECT COUNT(DISTINCT tx_key) FROM address_txs").Scan(&listed); err != nil {
			t.Fatal(err)
		}
		if stored < 8 || listed != stored {
			t.Errorf("%d of the %d txs listed", listed, stored)
		}
		for _, w := range []struct {
			tx     *txs.Tx
			height uint64
			addrs  []ids.ShortID
		}{{pay, last.Height + 1, []ids.ShortID{uAddrB, addrD}}, {del, last.Height + 2, []ids.ShortID{addrD, addrE, addrF}}} {
			var addrs []ids.ShortID
			err := whole.db.RunQuery(ctx, "SELECT address FROM address_txs WHERE tx_key = ? ORDER BY address", func(r *sql.Rows) error {
				var a []byte
				if err := r.Scan(&a); err != nil {
					return err
				}
				addrs = append(addrs, ids.ShortID(a))
				return nil
			}, addressTxKey(w.height, 0, w.tx.ID()))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(addrs, w.addrs) {
				t.Errorf("tx %s is in the history of %v, want %v", w.tx.ID(), addrs, w.addrs)
			}
		}
	})
}

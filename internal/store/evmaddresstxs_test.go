package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// addressIndexBlocks are makeEVMBlocks("addr", n) and one more block
// where dave creates a contract (a reverted tx) whose constructor
// STATICCALLs token20 (no value: not listed) and CREATEs erin's address
// (listed) with no value.
func addressIndexBlocks(n uint64) []*internal.EVMBlockData {
	bs := makeEVMBlocks("addr", n)
	last := bs[len(bs)-1]
	h := last.Number + 1
	made := evmAddr("made")
	tx := internal.EVMTx{Hash: evmHash("addr", "create"), BlockNumber: h, Index: 0, From: evmAddr("dave"),
		Value: new(big.Int), GasLimit: 1_000_000, GasPrice: big.NewInt(26e9), GasUsed: 90_000, Status: 0,
		Input: []byte{0x60}, ContractAddress: &made}
	b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("addr", "block", h), ParentHash: last.Hash,
		Timestamp: last.Timestamp.Add(2e9), Miner: evmAddr("coinbase"), GasLimit: 8_000_000, BaseFee: big.NewInt(25e9), TxCount: 1},
		Traced: true, Txs: []internal.EVMTx{tx}, InternalTxs: []internal.EVMInternalTx{
			{TxHash: tx.Hash, BlockNumber: h, Index: 0, From: made, To: token20, Value: new(big.Int), CallType: "STATICCALL", Reverted: true},
			{TxHash: tx.Hash, BlockNumber: h, Index: 1, From: made, To: evmAddr("erin"), Value: new(big.Int), CallType: "CREATE2", Reverted: true},
		}}
	return append(bs, b)
}

type addressRow struct {
	Address      common.Address
	Role         int
	Block, Index int64
}

func addressRows(t *testing.T, s *sqlStore) []addressRow {
	t.Helper()
	var out []addressRow
	err := s.db.RunQuery(context.Background(), `SELECT address, role, block_number, tx_index FROM evm_address_txs
		ORDER BY address, role, block_number, tx_index`, func(rows *sql.Rows) error {
		var (
			r    addressRow
			addr []byte
		)
		if err := rows.Scan(&addr, &r.Role, &r.Block, &r.Index); err != nil {
			return err
		}
		r.Address = common.BytesToAddress(addr)
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEVMAddressIndexBackfill checks the rows ApplyEVMBlocks writes
// against the generator's parties, and that migration 0026's statements
// write the same rows from the stored txs, transfers and internal txs of
// a store indexed before it (its index emptied).
func TestEVMAddressIndexBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := addressIndexBlocks(8)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:4], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[4:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		fresh := addressRows(t, s)

		// The parties, from the generator's description: alice sends
		// every tx of blocks 1..7 to token20 (role 1); bob receives each
		// tx's ERC-20 transfer and internal value (roles 2 and 3); carol
		// receives tx 0's NFTs in odd blocks and blocks 2 and 6; token20
		// sends the internal value (role 1 already, and 3); dave's
		// creation: dave and made (1), made (3, it CREATE2s erin), erin
		// (2, 3); the STATICCALL's token20 is no party.
		var want []addressRow
		add := func(a common.Address, role int, block, idx int64) {
			want = append(want, addressRow{a, role, block, idx})
		}
		for h := int64(1); h < 8; h++ {
			for i := int64(0); i < h%3+1; i++ {
				add(alice, 1, h, i)
				add(token20, 1, h, i)
				add(token20, 3, h, i)
				add(bob, 2, h, i)
				add(bob, 3, h, i)
			}
			if h%2 == 1 || h%4 == 2 {
				add(carol, 2, h, 0)
			}
		}
		dave, made, erin := evmAddr("dave"), evmAddr("made"), evmAddr("erin")
		add(dave, 1, 8, 0)
		add(made, 1, 8, 0)
		add(made, 3, 8, 0)
		add(erin, 2, 8, 0)
		add(erin, 3, 8, 0)
		slices.SortFunc(want, func(a, b addressRow) int {
			return strings.Compare(fmt.Sprintf("%x %d %08d %04d", a.Address, a.Role, a.Block, a.Index),
				fmt.Sprintf("%x %d %08d %04d", b.Address, b.Role, b.Block, b.Index))
		})
		jsonEqual(t, "ingested index", fresh, want)

		// A store of before 0026: the table empty; the migration's
		// inserts fill it.
		if _, err := s.db.Exec(ctx, "DELETE FROM evm_address_txs"); err != nil {
			t.Fatal(err)
		}
		text, err := migrationFiles.ReadFile("migrations/0026_evm_address_txs.sql")
		if err != nil {
			t.Fatal(err)
		}
		inserts := 0
		for _, stmt := range strings.Split(string(text), ";") {
			if i := strings.Index(stmt, "INSERT INTO"); i >= 0 {
				if _, err := s.db.Exec(ctx, stmt[i:]); err != nil {
					t.Fatal(err)
				}
				inserts++
			}
		}
		if inserts != 3 {
			t.Fatalf("%d inserts in the migration, want 3", inserts)
		}
		jsonEqual(t, "backfilled index", addressRows(t, s), fresh)

		// Applying the blocks again changes nothing.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[2:6], deriveEVM); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "re-applied index", addressRows(t, s), fresh)
	})
}

// TestEVMAddressLists pages through the address lists in both orders and
// within block ranges.
func TestEVMAddressLists(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := addressIndexBlocks(8)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs, deriveEVM); err != nil {
			t.Fatal(err)
		}
		type pos struct{ B, I int64 }
		// bob's whole history: every tx of blocks 1..7, by pages of 4.
		var all []pos
		for h := int64(1); h < 8; h++ {
			for i := int64(0); i < h%3+1; i++ {
				all = append(all, pos{h, i})
			}
		}
		page := func(native, asc bool, r BlockRange, addr common.Address) []pos {
			var (
				out   []pos
				after *EVMTxKey
			)
			for range 20 {
				txs, err := s.EVMAddressTxs(ctx, testEVMChain, addr, native, r, asc, after, 4)
				if err != nil {
					t.Fatal(err)
				}
				for _, tx := range txs {
					out = append(out, pos{int64(tx.BlockNumber), int64(tx.Index)})
				}
				if len(txs) < 4 {
					return out
				}
				last := txs[len(txs)-1]
				after = &EVMTxKey{BlockNumber: last.BlockNumber, Index: last.Index}
			}
			t.Fatal("no last page")
			return nil
		}
		desc := slices.Clone(all)
		slices.Reverse(desc)
		jsonEqual(t, "bob, descending", page(false, false, BlockRange{}, bob), desc)
		jsonEqual(t, "bob, ascending", page(false, true, BlockRange{}, bob), all)
		if got := page(true, false, BlockRange{}, bob); len(got) != 0 {
			t.Errorf("bob's native txs: %v, want none", got)
		}
		jsonEqual(t, "alice's native txs", page(true, true, BlockRange{}, alice), all)
		from, to := uint64(3), uint64(6)
		var ranged []pos
		for _, p := range all {
			if p.B >= 3 && p.B < 6 {
				ranged = append(ranged, p)
			}
		}
		jsonEqual(t, "alice's native txs in [3, 6)", page(true, true, BlockRange{From: &from, To: &to}, alice), ranged)
		// carol: native in none, a party in tx 0 of blocks 1, 2, 3, 5, 6, 7.
		want := []pos{{7, 0}, {6, 0}, {5, 0}, {3, 0}, {2, 0}, {1, 0}}
		jsonEqual(t, "carol", page(false, false, BlockRange{}, carol), want)

		// The history carries each tx's transfers and listed internal txs.
		hist, err := s.EVMAddressHistory(ctx, testEVMChain, carol, BlockRange{}, false, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 2 || hist[0].Tx.BlockNumber != 7 || hist[1].Tx.BlockNumber != 6 {
			t.Fatalf("carol's history: %+v", hist)
		}
		// Block 7: the ERC-20 transfer and the ERC-721 one; block 6: the
		// ERC-20 transfer and the ERC-1155 batch of two.
		if len(hist[0].Transfers) != 2 || len(hist[1].Transfers) != 3 || hist[1].Transfers[2].TokenID.Int64() != 101 {
			t.Errorf("transfers: %+v / %+v", hist[0].Transfers, hist[1].Transfers)
		}
		if len(hist[0].InternalTxs) != 1 || hist[0].InternalTxs[0].Value.Int64() != 7 || hist[0].InternalTxs[0].To != bob {
			t.Errorf("internal txs: %+v", hist[0].InternalTxs)
		}
		created, err := s.EVMAddressHistory(ctx, testEVMChain, evmAddr("erin"), BlockRange{}, false, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(created) != 1 || created[0].Tx.Status != 0 || len(created[0].InternalTxs) != 1 ||
			created[0].InternalTxs[0].CallType != "CREATE2" || len(created[0].Transfers) != 0 {
			t.Errorf("erin's history: %+v", created)
		}

		// bob's internal txs: one per tx, by pages of 3.
		var (
			its   []pos
			after *EVMInternalTxKey
		)
		for range 20 {
			got, err := s.EVMAddressInternalTxs(ctx, testEVMChain, bob, BlockRange{}, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range got {
				if it.Value.Int64() != int64(it.BlockNumber) || it.From != token20 || it.BlockHash != bs[it.BlockNumber].Hash {
					t.Errorf("internal tx %+v", it)
				}
				its = append(its, pos{int64(it.BlockNumber), int64(it.TxIndex)})
			}
			if len(got) < 3 {
				break
			}
			last := got[len(got)-1]
			after = &EVMInternalTxKey{BlockNumber: last.BlockNumber, TxIndex: last.TxIndex, Index: last.Index}
		}
		jsonEqual(t, "bob's internal txs", its, desc)
		made, err := s.EVMAddressInternalTxs(ctx, testEVMChain, evmAddr("made"), BlockRange{}, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(made) != 1 || made[0].CallType != "CREATE2" || !made[0].Reverted {
			t.Errorf("made's internal txs: %+v", made)
		}

		chains, err := s.EVMAddressChains(ctx, []uint64{testEVMChain, 7}, carol)
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "carol's chains", chains, []uint64{testEVMChain})
		none, err := s.EVMAddressChains(ctx, []uint64{testEVMChain}, evmAddr("nobody"))
		if err != nil || len(none) != 0 {
			t.Errorf("nobody's chains: %v, %v", none, err)
		}
	})
}

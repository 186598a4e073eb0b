package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// nftSpanRows reads nft_spans whole, as text: contract, holder, the
// blocks [from, to) ("open" for the current span) and the amount.
func nftSpanRows(t *testing.T, s *sqlStore) []string {
	t.Helper()
	var out []string
	err := s.db.RunQuery(context.Background(), "SELECT chain_id, address, holder, from_block, to_block, amount FROM nft_spans",
		func(rows *sql.Rows) error {
			var (
				cid, from, to    int64
				contract, holder []byte
				amount           []byte
			)
			if err := rows.Scan(&cid, &contract, &holder, &from, &to, &amount); err != nil {
				return err
			}
			end := fmt.Sprint(to)
			if to == openSpan {
				end = "open"
			}
			out = append(out, fmt.Sprintf("%d %s %s [%d,%s) %s", cid, common.BytesToAddress(contract), common.BytesToAddress(holder),
				from, end, spanAmountFrom(amount)))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// nftSpanBlocks is nftBlocks and two more: block 5 sends dave's ERC-721
// token 4 (minted to him in it) to alice and back, sends 2 of id 5 from
// erin, who never received any, to carol, burns carol's token 2^200, and
// sends 1 of id 5 from bob to alice and back; block 6 sends 1 of id 5
// from bob to carol.
func nftSpanBlocks() []*internal.EVMBlockData {
	bs := nftBlocks()
	dave, erin := evmAddr("dave"), evmAddr("erin")
	for h := uint64(5); h <= 6; h++ {
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("nft", h), ParentHash: bs[h-1].Hash,
			Timestamp: time.Unix(1_700_000_000+int64(h), 0).UTC(), BaseFee: big.NewInt(1)}, Traced: true}
		tr := func(i uint32, typ internal.ERCType, token, from, to common.Address, id *big.Int, v int64) internal.EVMTransfer {
			return internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: b.Timestamp, TxHash: evmHash("nfttx", h),
				LogIndex: i, Token: token, Type: typ, From: from, To: to, Value: big.NewInt(v), TokenID: id}
		}
		if h == 5 {
			b.Transfers = append(b.Transfers, tr(1, internal.ERC721, nft721, common.Address{}, dave, big.NewInt(4), 1),
				tr(2, internal.ERC721, nft721, dave, alice, big.NewInt(4), 1),
				tr(3, internal.ERC721, nft721, alice, dave, big.NewInt(4), 1),
				tr(4, internal.ERC1155, multi1155, erin, carol, big.NewInt(5), 2),
				tr(5, internal.ERC721, nft721, carol, common.Address{}, new(big.Int).Lsh(big.NewInt(1), 200), 1),
				tr(6, internal.ERC1155, multi1155, bob, alice, big.NewInt(5), 1),
				tr(7, internal.ERC1155, multi1155, alice, bob, big.NewInt(5), 1))
		} else {
			b.Transfers = append(b.Transfers, tr(1, internal.ERC1155, multi1155, bob, carol, big.NewInt(5), 1))
		}
		bs = append(bs, b)
	}
	return bs
}

// TestNFTSpans checks the spans the applier writes against spans worked
// out by hand from nftSpanBlocks, batches applied again included.
func TestNFTSpans(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := nftSpanBlocks()
		for _, r := range [][2]int{{0, 3}, {1, 5}, {4, 7}} {
			if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[r[0]:r[1]], deriveEVM); err != nil {
				t.Fatal(err)
			}
		}
		dave, erin := evmAddr("dave"), evmAddr("erin")
		span := func(contract, holder common.Address, from int64, to string, amount int64) string {
			return fmt.Sprintf("%d %s %s [%d,%s) %d", testEVMChain, contract, holder, from, to, amount)
		}
		want := []string{
			// ERC-721: alice's token 1 went to bob in block 2, where carol
			// got token 2^200, burned in block 5; dave's token 4 went to
			// alice and back within block 5: one span, none for alice.
			span(nft721, alice, 1, "2", 1),
			span(nft721, bob, 2, "open", 1),
			span(nft721, carol, 2, "5", 1),
			span(nft721, dave, 5, "open", 1),
			// ERC-1155 units: alice minted 10, sent 3 to bob (block 2),
			// burned 7 (block 4); erin sent 2 she had not received
			// (block 5); bob sent 1 to alice and back (block 5: no
			// change, in the batch of block 6), then 1 to carol.
			span(multi1155, alice, 1, "2", 10),
			span(multi1155, alice, 2, "4", 7),
			span(multi1155, bob, 2, "6", 3),
			span(multi1155, bob, 6, "open", 2),
			span(multi1155, carol, 5, "6", 2),
			span(multi1155, carol, 6, "open", 3),
			span(multi1155, erin, 5, "open", -2),
		}
		slices.Sort(want)
		if got := nftSpanRows(t, s); !slices.Equal(got, want) {
			t.Fatalf("spans:\ngot  %q\nwant %q", got, want)
		}
	})
}

// TestNFTSpansBackfill checks that the nft_spans backfill writes, from
// the stored transfers, the spans the applier wrote, however its chunks
// are cut or stopped, and that it clears what was there.
func TestNFTSpansBackfill(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dbtestFresh(t, dsn))
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, nftSpanBlocks(), deriveEVM); err != nil {
			t.Fatal(err)
		}
		dump := func() string { return strings.Join(nftSpanRows(t, s), "\n") }
		want := dump()
		if strings.Count(want, "\n") < 10 {
			t.Fatalf("too few spans to test:\n%s", want)
		}
		resumeBackfillEverywhere(t, s, "nft_spans", func() {
			// A stale span, which the backfill's first step removes.
			if _, err := s.db.Exec(ctx, "INSERT INTO nft_spans (chain_id, address, to_block, holder, from_block, amount) VALUES (?, ?, ?, ?, ?, ?)",
				int64(testEVMChain), nft721[:], int64(openSpan), evmAddr("stale").Bytes(), int64(0), []byte{1}); err != nil {
				t.Fatal(err)
			}
		}, dump, want)
	})
}

// TestNFTHoldersOverSpans answers random queries over a random history of
// ERC-721 and ERC-1155 transfers of one contract through the spans and
// through the replay of the transfers (the backfill pending), and
// requires the same answers, from the applier's spans and from the
// backfill's.
func TestNFTHoldersOverSpans(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		rng := rand.New(rand.NewPCG(26, 48))
		contract := evmAddr("spans")
		var addrs []common.Address
		for i := range 8 {
			addrs = append(addrs, evmAddr(fmt.Sprint("holder", i)))
		}
		pick := func() common.Address {
			if rng.IntN(5) == 0 {
				return common.Address{} // a mint or a burn
			}
			return addrs[rng.IntN(len(addrs))]
		}
		const blocks = 60
		var bs []*internal.EVMBlockData
		parent := common.Hash{}
		for h := range uint64(blocks) {
			b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("spans", h), ParentHash: parent,
				Timestamp: time.Unix(1_700_000_000+10*int64(h), 0).UTC(), BaseFee: big.NewInt(1)}, Traced: true}
			parent = b.Hash
			for i := range uint32(rng.IntN(5)) {
				typ, v := internal.ERC721, int64(1)
				if rng.IntN(2) == 0 {
					typ, v = internal.ERC1155, 1+rng.Int64N(3)
				}
				tr := internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: b.Timestamp, TxHash: evmHash("spanstx", h, i),
					LogIndex: 2 * i, Token: contract, Type: typ, From: pick(), To: pick(), Value: big.NewInt(v), TokenID: big.NewInt(int64(i))}
				b.Transfers = append(b.Transfers, tr)
				if rng.IntN(4) == 0 { // and back, within the block
					tr.From, tr.To, tr.LogIndex = tr.To, tr.From, 2*i+1
					b.Transfers = append(b.Transfers, tr)
				}
			}
			bs = append(bs, b)
		}
		for start := 0; start < blocks; start += 7 {
			if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[start:min(blocks, start+7)], deriveEVM); err != nil {
				t.Fatal(err)
			}
		}
		type query struct {
			q    BalanceQuery
			want []AddressAmount
		}
		var qs []query
		for range 300 {
			q := BalanceQuery{ChainID: testEVMChain, Token: &contract, Min: big.NewInt(1 + rng.Int64N(3)),
				Mode: BalanceMode(rng.IntN(3)), Max: 1000,
				From: 1_700_000_000 - 20 + rng.Int64N(10*blocks+40), To: 1_700_000_000 - 20 + rng.Int64N(10*blocks+40)}
			qs = append(qs, query{q: q})
		}
		// The replay's answers, the backfill pending (as migrated).
		if ready, err := nftSpansReady(ctx, s.db); err != nil || ready {
			t.Fatalf("the backfill is not pending: %v", err)
		}
		met := 0
		for i := range qs {
			got, err := s.NFTHoldersOver(ctx, qs[i].q)
			if err != nil {
				t.Fatal(err)
			}
			qs[i].want = got
			met += len(got)
		}
		if met < 300 {
			t.Fatalf("the queries met %d holders in all: too few to test", met)
		}
		check := func(from string) {
			t.Helper()
			for _, c := range qs {
				got, err := s.NFTHoldersOver(ctx, c.q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, c.want, func(a, b AddressAmount) bool { return a.Address == b.Address && a.Amount.Cmp(b.Amount) == 0 }) {
					t.Fatalf("%+v (min %s), from %s:\ngot  %v\nwant %v", c.q, c.q.Min, from, got, c.want)
				}
				// Without the amounts: the same addresses (for AnyTime,
				// from the spans' amounts alone, and none given).
				q := c.q
				q.NoAmounts = true
				if got, err = s.NFTHoldersOver(ctx, q); err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, c.want, func(a, b AddressAmount) bool {
					return a.Address == b.Address && (q.Mode != AnyTime || a.Amount == nil)
				}) {
					t.Fatalf("%+v (min %s), no amounts, from %s:\ngot  %v\nwant %v", q, q.Min, from, got, c.want)
				}
			}
		}
		if err := s.FinishBackfill(ctx, "nft_spans"); err != nil {
			t.Fatal(err)
		}
		check("the applier's spans")
		if err := s.PutSettingIfAbsent(ctx, BackfillKey("nft_spans"), nil); err != nil {
			t.Fatal(err)
		}
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		check("the backfill's spans")
	})
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// nftHolderRows reads nft_holders and nft_holder_totals whole, as text.
func nftHolderRows(t *testing.T, s *sqlStore) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	err := s.db.RunQuery(ctx, "SELECT chain_id, address, erc_type, holder, tokens FROM nft_holders", func(rows *sql.Rows) error {
		var (
			cid, erc, n     int64
			contract, owner []byte
		)
		if err := rows.Scan(&cid, &contract, &erc, &owner, &n); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("holder %d %s %d %s %d", cid, common.BytesToAddress(contract), erc, common.BytesToAddress(owner), n))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.db.RunQuery(ctx, "SELECT chain_id, address, erc_type, holders, tokens FROM nft_holder_totals", func(rows *sql.Rows) error {
		var (
			cid, erc, h, n int64
			contract       []byte
		)
		if err := rows.Scan(&cid, &contract, &erc, &h, &n); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("total %d %s %d %d %d", cid, common.BytesToAddress(contract), erc, h, n))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestNFTHolders checks the holders' counts the NFT applier keeps against
// counts worked out by hand from nftBlocks and two more blocks, and that
// the nft_holders backfill writes the same rows from the tokens and
// balances.
func TestNFTHolders(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := nftBlocks()
		// Block 5 mints ERC-721 token 3 to bob; block 6 moves token 1
		// from bob to alice, burns carol's token 2^200 and moves 1 of id
		// 5 from bob to alice and 2 from bob to carol.
		dave := evmAddr("dave")
		for h := uint64(5); h <= 6; h++ {
			b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("nft", h), ParentHash: bs[h-1].Hash,
				Timestamp: time.Unix(1_700_000_000+int64(h), 0).UTC(), BaseFee: big.NewInt(1)}, Traced: true}
			tr := func(i uint32, typ internal.ERCType, token, from, to common.Address, id *big.Int, v int64) internal.EVMTransfer {
				return internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: b.Timestamp, TxHash: evmHash("nfttx", h),
					LogIndex: i, Token: token, Type: typ, From: from, To: to, Value: big.NewInt(v), TokenID: id}
			}
			if h == 5 {
				b.Transfers = append(b.Transfers, tr(1, internal.ERC721, nft721, common.Address{}, bob, big.NewInt(3), 1),
					tr(2, internal.ERC721, nft721, common.Address{}, dave, big.NewInt(4), 1))
			} else {
				b.Transfers = append(b.Transfers, tr(1, internal.ERC721, nft721, bob, alice, big.NewInt(1), 1),
					tr(2, internal.ERC721, nft721, carol, common.Address{}, new(big.Int).Lsh(big.NewInt(1), 200), 1),
					tr(3, internal.ERC1155, multi1155, bob, alice, big.NewInt(5), 1),
					tr(4, internal.ERC1155, multi1155, bob, carol, big.NewInt(5), 2),
					// dave's token 4 goes to alice and back within the block.
					tr(5, internal.ERC721, nft721, dave, alice, big.NewInt(4), 1),
					tr(6, internal.ERC721, nft721, alice, dave, big.NewInt(4), 1))
			}
			bs = append(bs, b)
		}
		cid := int64(testEVMChain)
		holder := func(contract common.Address, erc int, a common.Address, n int) string {
			return fmt.Sprintf("holder %d %s %d %s %d", cid, contract, erc, a, n)
		}
		total := func(contract common.Address, erc, holders, tokens int) string {
			return fmt.Sprintf("total %d %s %d %d %d", cid, contract, erc, holders, tokens)
		}
		// After blocks 0..4: bob owns token 1, carol token 2^200; of id 5,
		// alice burned her last 7, bob holds 3.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:3], deriveEVM); err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[1:5], deriveEVM); err != nil {
			t.Fatal(err)
		}
		want := []string{holder(nft721, 721, bob, 1), holder(nft721, 721, carol, 1), holder(multi1155, 1155, bob, 1),
			total(nft721, 721, 2, 2), total(multi1155, 1155, 1, 1)}
		slices.Sort(want)
		if got := nftHolderRows(t, s); !slices.Equal(got, want) {
			t.Fatalf("after block 4:\ngot  %q\nwant %q", got, want)
		}
		// After block 6: alice owns token 1, bob token 3, dave token 4;
		// of id 5, alice 1, carol 2, bob none.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[5:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		want = []string{holder(nft721, 721, alice, 1), holder(nft721, 721, bob, 1), holder(nft721, 721, dave, 1),
			holder(multi1155, 1155, alice, 1), holder(multi1155, 1155, carol, 1),
			total(nft721, 721, 3, 3), total(multi1155, 1155, 2, 2)}
		slices.Sort(want)
		if got := nftHolderRows(t, s); !slices.Equal(got, want) {
			t.Fatalf("after block 6:\ngot  %q\nwant %q", got, want)
		}
		// The reads: a page, and the totals.
		sorted := []common.Address{alice, bob, dave}
		sortAddresses(sorted)
		hs, err := s.NFTHolders(ctx, testEVMChain, nft721, internal.ERC721, &sorted[0], 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 2 || hs[0].Address != sorted[1] || hs[1].Address != sorted[2] || hs[0].Count != 1 {
			t.Errorf("NFTHolders after %s = %+v, want %s and %s", sorted[0], hs, sorted[1], sorted[2])
		}
		c, err := s.NFTCollection(ctx, testEVMChain, multi1155)
		if err != nil {
			t.Fatal(err)
		}
		if c.Holders != 2 || c.Tokens != 1 {
			t.Errorf("ERC-1155 collection: %d holders, %d tokens; want 2 and 1 (id 5)", c.Holders, c.Tokens)
		}

		// The backfill, over the same tokens and balances, writes the same.
		applied := nftHolderRows(t, s)
		if _, err := s.db.Exec(ctx, "DELETE FROM nft_holders"); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Transact(ctx, func(tx *database.DB) error { return fillNFTHolders(ctx, tx) }); err != nil {
			t.Fatal(err)
		}
		if got := nftHolderRows(t, s); !slices.Equal(got, applied) {
			t.Fatalf("backfill:\ngot  %q\nwant %q", got, applied)
		}
	})
}

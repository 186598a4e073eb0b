package store

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// nftBlocks are blocks 0..4: block 1 mints ERC-721 token 1 to alice (its
// URI read: u1) and 10 of ERC-1155 id 5 to alice (uri "u5"); block 2
// moves token 1 to bob, 3 of id 5 to bob and mints ERC-721 token 2^200 to
// carol, whose tokenURI reverted; block 3 sets token 1's URI to u1b and
// emits a BatchMetadataUpdate of ids 0..1; block 4 burns 7 of id 5 of
// alice... of which she has 7.
func nftBlocks() []*internal.EVMBlockData {
	var out []*internal.EVMBlockData
	parent := common.Hash{}
	big2p200 := new(big.Int).Lsh(big.NewInt(1), 200)
	for h := range uint64(5) {
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: evmHash("nft", h), ParentHash: parent,
			Timestamp: time.Unix(1_700_000_000+int64(h), 0).UTC(), BaseFee: big.NewInt(1)}, Traced: true}
		parent = b.Hash
		logIndex := uint32(0)
		tr := func(typ internal.ERCType, token, from, to common.Address, id, v int64) internal.EVMTransfer {
			logIndex++
			return internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: b.Timestamp, TxHash: evmHash("nfttx", h),
				LogIndex: logIndex, Token: token, Type: typ, From: from, To: to, Value: big.NewInt(v), TokenID: big.NewInt(id)}
		}
		uri := func(typ internal.ERCType, token common.Address, id *big.Int, s *string) {
			b.NFTURIs = append(b.NFTURIs, internal.NFTURI{Token: token, TokenID: id, Type: typ, URI: s})
		}
		str := func(s string) *string { return &s }
		switch h {
		case 1:
			b.Transfers = append(b.Transfers, tr(internal.ERC721, nft721, common.Address{}, alice, 1, 1),
				tr(internal.ERC1155, multi1155, common.Address{}, alice, 5, 10))
			uri(internal.ERC721, nft721, big.NewInt(1), str("u1"))
			uri(internal.ERC1155, multi1155, big.NewInt(5), str("u5"))
		case 2:
			b.Transfers = append(b.Transfers, tr(internal.ERC721, nft721, alice, bob, 1, 1),
				tr(internal.ERC1155, multi1155, alice, bob, 5, 3))
			t := tr(internal.ERC721, nft721, common.Address{}, carol, 0, 1)
			t.TokenID = big2p200
			b.Transfers = append(b.Transfers, t)
			uri(internal.ERC721, nft721, big2p200, nil)
		case 3:
			uri(internal.ERC721, nft721, big.NewInt(1), str("u1b"))
			b.NFTRefreshes = append(b.NFTRefreshes, internal.NFTRefresh{Token: multi1155, From: big.NewInt(0), To: big.NewInt(5)})
		case 4:
			b.Transfers = append(b.Transfers, tr(internal.ERC1155, multi1155, alice, common.Address{}, 5, 7))
		}
		out = append(out, b)
	}
	return out
}

func TestNFTs(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := nftBlocks()
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[:3], deriveEVM); err != nil {
			t.Fatal(err)
		}
		// Blocks 1 and 2 again, with 3 and 4: nothing moves twice.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[1:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		one := big.NewInt(1)
		tok, err := s.NFTToken(ctx, testEVMChain, nft721, one)
		if err != nil {
			t.Fatal(err)
		}
		if tok.Type != internal.ERC721 || tok.Owner == nil || *tok.Owner != bob || tok.URI != "u1b" || !tok.URIKnown ||
			tok.Metadata.Status != internal.NFTUnindexed {
			t.Errorf("token 1 = %+v", tok)
		}
		if _, err := s.NFTToken(ctx, testEVMChain, nft721, big.NewInt(2)); !errors.Is(err, derrors.NotFound) {
			t.Errorf("token 2: %v, want NotFound", err)
		}
		list, err := s.NFTTokens(ctx, testEVMChain, nft721, nil, 10)
		if err != nil || len(list) != 2 || list[0].TokenID.Int64() != 1 || list[1].TokenID.BitLen() != 201 || list[1].URIKnown {
			t.Fatalf("NFTTokens = %+v, %v", list, err)
		}
		if list, err := s.NFTTokens(ctx, testEVMChain, nft721, one, 10); err != nil || len(list) != 1 || list[0].TokenID.BitLen() != 201 {
			t.Errorf("NFTTokens after 1 = %+v, %v", list, err)
		}
		owned, err := s.NFTsOwned(ctx, testEVMChain, bob, nil, nil, 10)
		if err != nil || len(owned) != 1 || owned[0].TokenID.Int64() != 1 {
			t.Errorf("bob owns %+v, %v", owned, err)
		}
		if owned, err := s.NFTsOwned(ctx, testEVMChain, alice, nil, nil, 10); err != nil || len(owned) != 0 {
			t.Errorf("alice owns %+v, %v", owned, err)
		}
		for holder, want := range map[common.Address]int64{bob: 3, alice: 0} {
			hs, err := s.NFTHoldings(ctx, testEVMChain, holder, &multi1155, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			if want == 0 {
				if len(hs) != 0 {
					t.Errorf("%s holds %+v, want nothing", holder, hs)
				}
				continue
			}
			if len(hs) != 1 || hs[0].Balance.Int64() != want || hs[0].URI != "u5" {
				t.Errorf("%s holds %+v, want %d", holder, hs, want)
			}
		}

		// ERC-1155 balances at past blocks, from the transfers.
		for _, c := range []struct {
			holder common.Address
			block  uint64
			want   int64
		}{{alice, 0, 0}, {alice, 1, 10}, {alice, 2, 7}, {bob, 2, 3}, {alice, 4, 0}, {bob, 4, 3}} {
			hs, err := s.NFTHoldingsAt(ctx, testEVMChain, c.holder, nil, c.block)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == 0 && len(hs) != 0 || c.want != 0 && (len(hs) != 1 || hs[0].Balance.Int64() != c.want || hs[0].URI != "u5") {
				t.Errorf("%s at block %d holds %+v, want %d", c.holder, c.block, hs, c.want)
			}
		}

		// The queue: all three tokens, the refreshed id 5 included.
		if n, err := s.NFTQueueLength(ctx); err != nil || n != 3 {
			t.Fatalf("queue = %d, %v", n, err)
		}
		now := time.Unix(1_800_000_000, 0)
		work, err := s.ClaimNFTWork(ctx, now, time.Minute, 10)
		if err != nil || len(work) != 3 {
			t.Fatalf("claimed %+v, %v", work, err)
		}
		if again, err := s.ClaimNFTWork(ctx, now, time.Minute, 10); err != nil || len(again) != 0 {
			t.Fatalf("claimed again %+v, %v", again, err)
		}
		var results []NFTResult
		for _, w := range work {
			switch {
			case w.Token == nft721 && w.TokenID.Cmp(one) == 0:
				if w.URI == nil || *w.URI != "u1b" {
					t.Errorf("work of token 1: %+v", w)
				}
				dec := 3
				results = append(results, NFTResult{Work: w, Metadata: internal.NFTMetadata{Status: internal.NFTIndexed, UpdatedAt: now,
					Name: "One", Image: "ipfs://one", Attributes: `[1]`, Decimals: &dec}})
			case w.Token == multi1155:
				results = append(results, NFTResult{Work: w, Metadata: internal.NFTMetadata{Status: internal.NFTThrottledTokenURI, UpdatedAt: now},
					RetryAt: now.Add(time.Hour)})
			default:
				if w.URI != nil {
					t.Errorf("work of the missing token: %+v", w)
				}
				// A reindex between the claim and the save: the save is dropped.
				if retry, err := s.ReindexNFT(ctx, testEVMChain, w.Token, w.TokenID, now, time.Hour); err != nil || retry != 0 {
					t.Fatalf("ReindexNFT = %s, %v", retry, err)
				}
				results = append(results, NFTResult{Work: w, Metadata: internal.NFTMetadata{Status: internal.NFTMissingToken, UpdatedAt: now}})
			}
		}
		if err := s.SaveNFTMetadata(ctx, results); err != nil {
			t.Fatal(err)
		}
		tok, err = s.NFTToken(ctx, testEVMChain, nft721, one)
		if err != nil {
			t.Fatal(err)
		}
		if m := tok.Metadata; m.Status != internal.NFTIndexed || m.Name != "One" || m.Image != "ipfs://one" || m.Attributes != "[1]" ||
			m.Decimals == nil || *m.Decimals != 3 || !m.UpdatedAt.Equal(now) {
			t.Errorf("token 1's metadata = %+v", m)
		}
		// Throttled: queued until its retry; the missing token queued again by its reindex.
		if n, err := s.NFTQueueLength(ctx); err != nil || n != 2 {
			t.Errorf("queue = %d, %v, want 2", n, err)
		}
		if w, err := s.ClaimNFTWork(ctx, now, time.Minute, 10); err != nil || len(w) != 1 || w[0].Token != nft721 || w[0].URI != nil || !w[0].Reread {
			t.Errorf("claimed %+v, %v, want the reindexed token, its URI to read again", w, err)
		}
		later, err := s.ClaimNFTWork(ctx, now.Add(2*time.Hour), time.Minute, 10)
		if err != nil || len(later) != 2 {
			t.Fatalf("claimed later %+v, %v, want the throttled token and the leased one", later, err)
		} else if later[0].Attempts+later[1].Attempts != 1 {
			t.Errorf("attempts %d and %d, want 1 in all", later[0].Attempts, later[1].Attempts)
		}
		// The reindexed token's URI, read again, is stored with its metadata.
		for _, w := range later {
			if w.Token == nft721 {
				uri := "u-reread"
				if err := s.SaveNFTMetadata(ctx, []NFTResult{{Work: w, URIRead: true, URI: &uri,
					Metadata: internal.NFTMetadata{Status: internal.NFTIndexed, UpdatedAt: now, Name: "Reread"}}}); err != nil {
					t.Fatal(err)
				}
				tok, err := s.NFTToken(ctx, testEVMChain, nft721, w.TokenID)
				if err != nil || tok.URI != uri || !tok.URIKnown || tok.Metadata.Name != "Reread" {
					t.Errorf("the reread token: %+v, %v", tok, err)
				}
			}
		}

		// Reindex: once an hour.
		if retry, err := s.ReindexNFT(ctx, testEVMChain, nft721, one, now, time.Hour); err != nil || retry != 0 {
			t.Fatalf("first reindex: %s, %v", retry, err)
		}
		if retry, err := s.ReindexNFT(ctx, testEVMChain, nft721, one, now.Add(10*time.Minute), time.Hour); err != nil || retry != 50*time.Minute {
			t.Errorf("second reindex: %s, %v, want 50m", retry, err)
		}
		if retry, err := s.ReindexNFT(ctx, testEVMChain, nft721, one, now.Add(time.Hour), time.Hour); err != nil || retry != 0 {
			t.Errorf("reindex an hour later: %s, %v", retry, err)
		}
		if _, err := s.ReindexNFT(ctx, testEVMChain, nft721, big.NewInt(9), now, time.Hour); !errors.Is(err, derrors.NotFound) {
			t.Errorf("reindex of an unknown token: %v", err)
		}
	})
}

package nfts

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// fakeTokens holds stored owners and balances and records what is
// written.
type fakeTokens struct {
	applied   uint64
	ok        bool
	owners    map[internal.NFTID]common.Address
	balances  map[internal.NFTHeld]*big.Int
	asked     []internal.NFTHeld
	tokens    []internal.NFTTouch
	units     []internal.NFTUnits
	holders   []internal.NFTHolderDelta
	refreshes []internal.NFTRefresh
	writes    int
}

func (f *fakeTokens) Applied() (uint64, bool) { return f.applied, f.ok }

func (f *fakeTokens) NFTOwners(_ context.Context, tokens []internal.NFTID) (map[internal.NFTID]common.Address, error) {
	out := map[internal.NFTID]common.Address{}
	for _, k := range tokens {
		if o, ok := f.owners[k]; ok {
			out[k] = o
		}
	}
	return out, nil
}

func (f *fakeTokens) NFTBalances(_ context.Context, held []internal.NFTHeld) (map[internal.NFTHeld]*big.Int, error) {
	f.asked = append(f.asked, held...)
	out := map[internal.NFTHeld]*big.Int{}
	for _, h := range held {
		if b, ok := f.balances[h]; ok {
			out[h] = b
		}
	}
	return out, nil
}

func (f *fakeTokens) WriteNFTs(_ context.Context, tokens []internal.NFTTouch, units []internal.NFTUnits, holders []internal.NFTHolderDelta, refreshes []internal.NFTRefresh) error {
	f.writes++
	f.tokens, f.units, f.holders, f.refreshes = tokens, units, holders, refreshes
	return nil
}

func TestTokens(t *testing.T) {
	nft, multi := common.Address{0x72}, common.Address{0x11}
	a, b, c := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	var zero common.Address
	id := func(token common.Address, n int64) internal.NFTID {
		return internal.NFTID{Token: token, ID: common.BigToHash(big.NewInt(n))}
	}
	transfer := func(typ internal.ERCType, token common.Address, tokenID int64, from, to common.Address, v int64) internal.EVMTransfer {
		t := internal.EVMTransfer{Type: typ, Token: token, From: from, To: to, TokenID: big.NewInt(tokenID)}
		if typ == internal.ERC1155 {
			t.Value = big.NewInt(v)
		}
		return t
	}
	uri := "ipfs://x"
	w := &fakeTokens{
		applied: 9, ok: true,
		// a owns ERC-721 token 1; b holds 4 of ERC-1155 id 7, c 2 of it.
		owners: map[internal.NFTID]common.Address{id(nft, 1): a},
		balances: map[internal.NFTHeld]*big.Int{
			{Holder: b, NFTID: id(multi, 7)}: big.NewInt(4),
			{Holder: c, NFTID: id(multi, 7)}: big.NewInt(2),
		},
	}
	blocks := []*internal.EVMBlockData{
		// Applied before (at or below 9): skipped.
		{EVMBlock: internal.EVMBlock{Number: 9}, Transfers: []internal.EVMTransfer{transfer(internal.ERC721, nft, 1, a, c, 0)}},
		// Token 1 goes a → b → c; token 2 is minted to c, and its URI read.
		{EVMBlock: internal.EVMBlock{Number: 10}, Transfers: []internal.EVMTransfer{
			transfer(internal.ERC721, nft, 1, a, b, 0),
			transfer(internal.ERC20, common.Address{0x20}, 0, a, b, 5),
			transfer(internal.ERC721, nft, 2, zero, c, 0),
		}, NFTURIs: []internal.NFTURI{{Token: nft, TokenID: big.NewInt(2), Type: internal.ERC721, URI: &uri}}},
		{EVMBlock: internal.EVMBlock{Number: 11}, Transfers: []internal.EVMTransfer{
			transfer(internal.ERC721, nft, 1, b, c, 0),
			// b sends all 4 of id 7 to a; c burns 1 and keeps 1; c sends
			// a, who has none, 1 and a sends it back: a's delta is 4.
			transfer(internal.ERC1155, multi, 7, b, a, 4),
			transfer(internal.ERC1155, multi, 7, c, zero, 1),
			transfer(internal.ERC1155, multi, 7, c, a, 1),
			transfer(internal.ERC1155, multi, 7, a, c, 1),
		}, NFTRefreshes: []internal.NFTRefresh{{Token: nft, From: big.NewInt(1), To: big.NewInt(9)}}},
	}
	if err := Tokens(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 {
		t.Fatalf("%d writes, want 1", w.writes)
	}
	var got []string
	for _, k := range w.tokens {
		owner := "-"
		if k.Owner != nil {
			owner = fmt.Sprintf("%x", k.Owner[:1])
		}
		got = append(got, fmt.Sprintf("%x/%d %s first %d owner %s uri %v", k.Token[:1], k.ID.Big(), k.Type, k.First, owner, k.URIRead))
	}
	want := []string{
		"72/1 ERC-721 first 10 owner 0c uri false",
		"72/2 ERC-721 first 10 owner 0c uri true",
		"11/7 ERC-1155 first 11 owner - uri false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("tokens\n%q\nwant\n%q", got, want)
	}
	got = nil
	for _, u := range w.units {
		got = append(got, fmt.Sprintf("%x %x/%d %s", u.Holder[:1], u.Token[:1], u.ID.Big(), u.Balance))
	}
	// c: 2 - 1 - 1 + 1 = 1; a: 4; b: 0 (kept, as no bytes).
	want = []string{"0b 11/7 0", "0a 11/7 4", "0c 11/7 1"}
	if !slices.Equal(got, want) {
		t.Errorf("balances\n%q\nwant\n%q", got, want)
	}
	got = nil
	for _, h := range w.holders {
		got = append(got, fmt.Sprintf("%x %s %x %+d", h.Contract[:1], h.Type, h.Holder[:1], h.Delta))
	}
	// Token 1 leaves a for c (b held it within the batch only); token 2
	// adds one to c; b stops holding id 7 and a starts; c still holds it.
	want = []string{"72 ERC-721 0a -1", "72 ERC-721 0c +2", "11 ERC-1155 0b -1", "11 ERC-1155 0a +1"}
	if !slices.Equal(got, want) {
		t.Errorf("holders' counts\n%q\nwant\n%q", got, want)
	}
	if len(w.refreshes) != 1 || w.refreshes[0].To.Int64() != 9 {
		t.Errorf("refreshes %v", w.refreshes)
	}

	// A batch of blocks all applied before writes nothing.
	w2 := &fakeTokens{applied: 11, ok: true}
	if err := Tokens(context.Background(), w2, blocks); err != nil {
		t.Fatal(err)
	}
	if w2.writes != 0 {
		t.Errorf("wrote %d times for blocks applied before", w2.writes)
	}
}

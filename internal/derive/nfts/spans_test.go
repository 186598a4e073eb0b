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

// fakeSpans holds the open spans and records what is taken and written.
type fakeSpans struct {
	applied uint64
	ok      bool
	open    map[internal.NFTHolder]internal.NFTSpan
	taken   []internal.NFTHolder
	written []internal.NFTSpan
}

func (f *fakeSpans) Applied() (uint64, bool) { return f.applied, f.ok }

func (f *fakeSpans) TakeOpenNFTSpans(_ context.Context, holders []internal.NFTHolder) (map[internal.NFTHolder]internal.NFTSpan, error) {
	f.taken = append(f.taken, holders...)
	out := map[internal.NFTHolder]internal.NFTSpan{}
	for _, h := range holders {
		if s, ok := f.open[h]; ok {
			out[h] = s
		}
	}
	return out, nil
}

func (f *fakeSpans) WriteNFTSpans(_ context.Context, spans []internal.NFTSpan) error {
	f.written = append(f.written, spans...)
	return nil
}

func showSpans(spans []internal.NFTSpan) []string {
	var out []string
	for _, s := range spans {
		to := fmt.Sprint(s.To)
		if s.To == internal.OpenSpan {
			to = "open"
		}
		out = append(out, fmt.Sprintf("%x/%x [%d,%s) %s", s.Contract[:1], s.Holder[:1], s.From, to, s.Amount))
	}
	return out
}

func TestSpans(t *testing.T) {
	nft, multi := common.Address{0x72}, common.Address{0x11}
	a, b, c := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}
	var zero common.Address
	transfer := func(typ internal.ERCType, token, from, to common.Address, v int64) internal.EVMTransfer {
		t := internal.EVMTransfer{Type: typ, Token: token, From: from, To: to, TokenID: big.NewInt(1)}
		if typ == internal.ERC1155 {
			t.Value = big.NewInt(v)
		}
		return t
	}
	block := func(n uint64, ts ...internal.EVMTransfer) *internal.EVMBlockData {
		return &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: n}, Transfers: ts}
	}
	w := &fakeSpans{
		applied: 9, ok: true,
		open: map[internal.NFTHolder]internal.NFTSpan{
			{Contract: nft, Holder: a}: {NFTHolder: internal.NFTHolder{Contract: nft, Holder: a}, From: 3, To: internal.OpenSpan, Amount: big.NewInt(2)},
		},
	}
	blocks := []*internal.EVMBlockData{
		// Applied before (at or below 9): skipped.
		block(9, transfer(internal.ERC721, nft, a, c, 0)),
		// a sends one to b: a's span closes at 10 and one of 1 opens.
		block(10, transfer(internal.ERC721, nft, a, b, 0), transfer(internal.ERC20, common.Address{0x20}, a, b, 5)),
		// b sends it to c and c back: b's count is unchanged at the block's end.
		block(11, transfer(internal.ERC721, nft, b, c, 0), transfer(internal.ERC721, nft, c, b, 0)),
		// a mint of 5 units to c, then c sends them all to a.
		block(12, transfer(internal.ERC1155, multi, zero, c, 5)),
		block(13, transfer(internal.ERC1155, multi, c, a, 5)),
	}
	if err := Spans(context.Background(), w, blocks); err != nil {
		t.Fatal(err)
	}
	got := showSpans(w.written)
	want := []string{
		"11/0a [13,open) 5",
		"11/0c [12,13) 5",
		"72/0a [3,10) 2",
		"72/0a [10,open) 1",
		"72/0b [10,open) 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("spans written\n%q\nwant\n%q", got, want)
	}
	// c's count of the ERC-721 contract moved within block 11 and back:
	// no span of it is read or written.
	if slices.Contains(w.taken, internal.NFTHolder{Contract: nft, Holder: c}) {
		t.Errorf("took the open span of a holder whose count did not change: %v", w.taken)
	}
}

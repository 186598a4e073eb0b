package erc20

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// fakeWriter holds the stored tokens and holdings and records what
// ApplyMoves writes.
type fakeWriter struct {
	tokens   map[common.Address]internal.ERC20Token
	holdings map[internal.ERC20Holder]internal.ERC20Balance

	history, added, moved []internal.ERC20Balance
	written               []internal.ERC20Token
}

func (f *fakeWriter) ERC20Tokens(_ context.Context, tokens []common.Address) (map[common.Address]internal.ERC20Token, error) {
	out := map[common.Address]internal.ERC20Token{}
	for _, t := range tokens {
		if st, ok := f.tokens[t]; ok {
			st.Supply = new(big.Int).Set(st.Supply)
			out[t] = st
		}
	}
	return out, nil
}

func (f *fakeWriter) ERC20Holdings(_ context.Context, holders []internal.ERC20Holder) (map[internal.ERC20Holder]internal.ERC20Balance, error) {
	out := map[internal.ERC20Holder]internal.ERC20Balance{}
	for _, h := range holders {
		if b, ok := f.holdings[h]; ok {
			b.Balance = new(big.Int).Set(b.Balance)
			out[h] = b
		}
	}
	return out, nil
}

func (f *fakeWriter) WriteERC20(_ context.Context, history, added, moved []internal.ERC20Balance, tokens []internal.ERC20Token) error {
	f.history, f.added, f.moved, f.written = history, added, moved, tokens
	return nil
}

func show(bs []internal.ERC20Balance) []string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%x/%x first %d @%d = %s", b.Address[:1], b.Token[:1], b.First, b.Block, b.Balance))
	}
	return out
}

func TestApplyMoves(t *testing.T) {
	var zero common.Address
	tok, a, b := common.Address{0x70}, common.Address{0xa}, common.Address{0xb}
	w := &fakeWriter{
		tokens: map[common.Address]internal.ERC20Token{tok: {Token: tok, Block: 4, Supply: big.NewInt(100)}},
		holdings: map[internal.ERC20Holder]internal.ERC20Balance{
			{Address: a, Token: tok}: {ERC20Holder: internal.ERC20Holder{Address: a, Token: tok}, First: 2, Block: 4, Balance: big.NewInt(100)},
		},
	}
	moves := []internal.ERC20Move{
		{Block: 4, Token: tok, From: a, To: b, Value: big.NewInt(50)}, // applied before: skipped
		{Block: 5, Token: tok, From: a, To: b, Value: big.NewInt(30)},
		{Block: 5, Token: tok, From: b, To: a, Value: big.NewInt(10)},   // the same block again: one history row each
		{Block: 6, Token: tok, From: zero, To: b, Value: big.NewInt(5)}, // a mint
		{Block: 7, Token: tok, From: b, To: zero, Value: big.NewInt(1)}, // a burn
	}
	if err := ApplyMoves(context.Background(), w, moves); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s\n%q\nwant\n%q", what, got, want)
		}
	}
	check("history", show(w.history), []string{
		"0a/70 first 0 @5 = 80", "0b/70 first 0 @5 = 20", "0b/70 first 0 @6 = 25", "0b/70 first 0 @7 = 24",
	})
	check("added", show(w.added), []string{"0b/70 first 5 @7 = 24"})
	check("moved", show(w.moved), []string{"0a/70 first 2 @5 = 80"})
	if len(w.written) != 1 || w.written[0].Block != 7 || w.written[0].Supply.Cmp(big.NewInt(104)) != 0 || w.written[0].Unexplained {
		t.Errorf("tokens written %+v, want block 7, supply 104, explained", w.written)
	}
}

func TestApplyMovesFlagsUnexplained(t *testing.T) {
	tok, a, b := common.Address{0x70}, common.Address{0xa}, common.Address{0xb}
	w := &fakeWriter{}
	// a was never given any: its logs do not explain the transfer.
	moves := []internal.ERC20Move{
		{Block: 1, Token: tok, From: a, To: b, Value: big.NewInt(3)},
		{Block: 2, Token: tok, From: a, To: b, Value: big.NewInt(4)},
	}
	if err := ApplyMoves(context.Background(), w, moves); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 1 || !w.written[0].Unexplained || w.written[0].Reason != fmt.Sprintf("block 1: a Transfer of 3 from %s, which its logs gave 0", a) {
		t.Errorf("tokens written %+v, want the token flagged at block 1", w.written)
	}
	check := show(w.history)
	if want := []string{"0a/70 first 0 @1 = 0", "0b/70 first 0 @1 = 3", "0a/70 first 0 @2 = 0", "0b/70 first 0 @2 = 7"}; !slices.Equal(check, want) {
		t.Errorf("history %q, want %q", check, want)
	}
}

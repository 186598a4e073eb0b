// Package erc20 derives the ERC-20 balances from the Transfer logs: each
// ERC-20 transfer debits its sender and credits its recipient, the zero
// address excepted (a mint, a burn: the token's supply). A token whose
// logs cannot explain its balances (a transfer debits more than the
// sender's logged balance, a burn more than the logged supply) is marked
// unexplained, and its balances are the node's to answer. It writes each
// holder's balance after each block that moved it (the history), the
// holders' latest balances (the holdings) and each token's supply.
package erc20

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// Writer is what Apply reads and writes in the batch's transaction
// (store.EVMTx).
type Writer interface {
	// ERC20Tokens returns the stored state of those of tokens that have
	// one.
	ERC20Tokens(ctx context.Context, tokens []common.Address) (map[common.Address]internal.ERC20Token, error)
	// ERC20Holdings returns the stored holdings of those of holders (in
	// key order: address, then token) that have one.
	ERC20Holdings(ctx context.Context, holders []internal.ERC20Holder) (map[internal.ERC20Holder]internal.ERC20Balance, error)
	// WriteERC20 writes the history's new rows, the holdings that had no
	// row (added) and those that had (moved), and the tokens' state.
	WriteERC20(ctx context.Context, history, added, moved []internal.ERC20Balance, tokens []internal.ERC20Token) error
}

// Apply applies the batch's ERC-20 transfers to the balances.
func Apply(ctx context.Context, w Writer, blocks []*internal.EVMBlockData) error {
	var moves []internal.ERC20Move
	for _, b := range blocks {
		for i := range b.Transfers {
			t := &b.Transfers[i]
			if t.Type == internal.ERC20 && t.Value != nil {
				moves = append(moves, internal.ERC20Move{Block: b.Number, Token: t.Token, From: t.From, To: t.To, Value: t.Value})
			}
		}
	}
	return ApplyMoves(ctx, w, moves)
}

// holding is a holder's balance as the batch moves it.
type holding struct {
	internal.ERC20Balance
	// stored: the holder has a row; changed: the batch moved it.
	stored, changed bool
}

// token is a token's state as the batch moves it.
type token struct {
	internal.ERC20Token
	stored, changed bool
}

// flag marks the token unexplained for the reason format tells, the
// first one only: a token whose logs never gave its senders their
// balances fails every transfer, and the reason is formatted once.
func (t *token) flag(format string, args ...any) {
	if !t.Unexplained {
		t.Unexplained, t.Reason = true, fmt.Sprintf(format, args...)
	}
}

// ApplyMoves applies moves (in chain order) to the stored balances. A
// token's row holds the last block applied of it: moves of a block at or
// before it were applied already (a batch applied again), and are
// skipped, so that applying is idempotent. It is generic so that
// ApplyMoves[*store.EVMTx] is the store's backfill's derivation.
func ApplyMoves[W Writer](ctx context.Context, w W, moves []internal.ERC20Move) error {
	if len(moves) == 0 {
		return nil
	}
	var (
		holders  []internal.ERC20Holder
		tokenSet = map[common.Address]bool{}
		tokens   []common.Address
		holdings = map[internal.ERC20Holder]*holding{}
	)
	for _, m := range moves {
		if !tokenSet[m.Token] {
			tokenSet[m.Token] = true
			tokens = append(tokens, m.Token)
		}
		for _, a := range [2]common.Address{m.From, m.To} {
			h := internal.ERC20Holder{Address: a, Token: m.Token}
			if a == (common.Address{}) || holdings[h] != nil {
				continue
			}
			holdings[h] = &holding{ERC20Balance: internal.ERC20Balance{ERC20Holder: h, Balance: new(big.Int)}}
			holders = append(holders, h)
		}
	}
	// In the holdings' key order: the read seeks them in turn, and the
	// rows written from them are in their table's order.
	slices.SortFunc(holders, func(a, b internal.ERC20Holder) int {
		if c := bytes.Compare(a.Address[:], b.Address[:]); c != 0 {
			return c
		}
		return bytes.Compare(a.Token[:], b.Token[:])
	})
	storedTokens, err := w.ERC20Tokens(ctx, tokens)
	if err != nil {
		return err
	}
	states := make(map[common.Address]*token, len(tokens))
	for _, t := range tokens {
		st, ok := storedTokens[t]
		if !ok {
			st = internal.ERC20Token{Token: t, Supply: new(big.Int)}
		}
		states[t] = &token{ERC20Token: st, stored: ok}
	}
	stored, err := w.ERC20Holdings(ctx, holders)
	if err != nil {
		return err
	}
	for h, b := range stored {
		if s := holdings[h]; s != nil {
			s.ERC20Balance, s.stored = b, true
		}
	}
	type histKey struct {
		h     internal.ERC20Holder
		block uint64
	}
	var hist []internal.ERC20Balance
	histAt := map[histKey]int{}
	record := func(h *holding, block uint64) {
		h.changed = true
		if h.Block == 0 && h.First == 0 {
			h.First = block
		}
		h.Block = block
		k := histKey{h.ERC20Holder, block}
		if i, ok := histAt[k]; ok {
			hist[i].Balance = new(big.Int).Set(h.Balance)
			return
		}
		histAt[k] = len(hist)
		hist = append(hist, internal.ERC20Balance{ERC20Holder: h.ERC20Holder, Block: block, Balance: new(big.Int).Set(h.Balance)})
	}
	applied := map[common.Address]uint64{}
	for _, m := range moves {
		st := states[m.Token]
		if st.stored && m.Block <= st.Block && applied[m.Token] != m.Block {
			continue // applied before
		}
		applied[m.Token], st.Block, st.changed = m.Block, m.Block, true
		if m.From == (common.Address{}) {
			st.Supply.Add(st.Supply, m.Value)
		} else {
			h := holdings[internal.ERC20Holder{Address: m.From, Token: m.Token}]
			if h.Balance.Cmp(m.Value) < 0 {
				st.flag("block %d: a Transfer of %s from %s, which its logs gave %s", m.Block, m.Value, m.From, h.Balance)
				h.Balance.SetUint64(0)
			} else {
				h.Balance.Sub(h.Balance, m.Value)
			}
			record(h, m.Block)
		}
		if m.To == (common.Address{}) {
			st.Supply.Sub(st.Supply, m.Value)
			if st.Supply.Sign() < 0 {
				st.flag("block %d: burns exceed the logged mints", m.Block)
				st.Supply.SetUint64(0)
			}
		} else {
			h := holdings[internal.ERC20Holder{Address: m.To, Token: m.Token}]
			h.Balance.Add(h.Balance, m.Value)
			record(h, m.Block)
		}
	}
	var added, moved []internal.ERC20Balance
	for _, k := range holders {
		if h := holdings[k]; h.changed {
			if h.stored {
				moved = append(moved, h.ERC20Balance)
			} else {
				added = append(added, h.ERC20Balance)
			}
		}
	}
	var changed []internal.ERC20Token
	for _, t := range tokens {
		if st := states[t]; st.changed {
			changed = append(changed, st.ERC20Token)
		}
	}
	return w.WriteERC20(ctx, hist, added, moved, changed)
}

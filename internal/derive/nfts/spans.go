// Package nfts derives the NFT holdings of the EVM chains from the
// ERC-721 and ERC-1155 transfers, URI reads and metadata updates: the
// tokens with their owners and URIs, the ERC-1155 balances, each
// contract's holders' counts (Tokens), and those counts over the blocks
// they held them, the holding spans (Spans).
package nfts

import (
	"bytes"
	"context"
	"math/big"
	"slices"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// SpanWriter is what the spans' derivation reads and writes in the
// batch's transaction (store.EVMTx).
type SpanWriter interface {
	batch
	// TakeOpenNFTSpans reads the open spans of holders (sorted by
	// contract, then holder) and deletes them: the caller writes them
	// again, closed.
	TakeOpenNFTSpans(ctx context.Context, holders []internal.NFTHolder) (map[internal.NFTHolder]internal.NFTSpan, error)
	// WriteNFTSpans writes new spans.
	WriteNFTSpans(ctx context.Context, spans []internal.NFTSpan) error
}

// batch is what both derivations know of the batch's place in its chain.
type batch interface {
	// Applied is the last block applied before the batch; false when none
	// was.
	Applied() (uint64, bool)
}

// Spans writes the spans the batch's NFT transfers close and open. Blocks
// at or below the last applied were applied already and are skipped: a
// span is closed by the next change of its count.
func Spans(ctx context.Context, w SpanWriter, blocks []*internal.EVMBlockData) error {
	applied, ok := w.Applied()
	var moves []internal.NFTMove
	for _, b := range blocks {
		if ok && b.Number <= applied {
			continue
		}
		for i := range b.Transfers {
			if m, ok := moveOf(b.Number, &b.Transfers[i]); ok {
				moves = append(moves, m)
			}
		}
	}
	return ApplySpanMoves(ctx, w, moves)
}

// oneToken is an ERC-721 transfer's count.
var oneToken = big.NewInt(1)

// moveOf is t's move; false when t is no NFT transfer.
func moveOf(block uint64, t *internal.EVMTransfer) (internal.NFTMove, bool) {
	m := internal.NFTMove{Block: block, Contract: t.Token, From: t.From, To: t.To, Amount: oneToken}
	switch t.Type {
	case internal.ERC721:
	case internal.ERC1155:
		m.Amount = new(big.Int)
		if t.Value != nil {
			m.Amount = t.Value
		}
	default:
		return m, false
	}
	return m, true
}

// change is the net change of a holder's count at one block's end.
type change struct {
	block uint64
	delta *big.Int
}

// ApplySpanMoves applies moves, in block order and after every block the
// stored spans hold, to the spans: for each holder whose count a block
// changed (judged at the block's end: a token sent and back within it
// changes nothing), the open span closes at that block and one opens from
// it, unless the count is zero. It is generic so that
// ApplySpanMoves[*store.EVMTx] is the store's backfill's derivation.
func ApplySpanMoves[W SpanWriter](ctx context.Context, w W, moves []internal.NFTMove) error {
	changes := map[internal.NFTHolder][]change{}
	add := func(m *internal.NFTMove, holder common.Address, neg bool) {
		if holder == (common.Address{}) {
			return
		}
		k := internal.NFTHolder{Contract: m.Contract, Holder: holder}
		cs := changes[k]
		if len(cs) == 0 || cs[len(cs)-1].block != m.Block {
			cs = append(cs, change{block: m.Block, delta: new(big.Int)})
			changes[k] = cs
		}
		if d := cs[len(cs)-1].delta; neg {
			d.Sub(d, m.Amount)
		} else {
			d.Add(d, m.Amount)
		}
	}
	for i := range moves {
		add(&moves[i], moves[i].From, true)
		add(&moves[i], moves[i].To, false)
	}
	holders := make([]internal.NFTHolder, 0, len(changes))
	for k, cs := range changes {
		if slices.ContainsFunc(cs, func(c change) bool { return c.delta.Sign() != 0 }) {
			holders = append(holders, k)
		}
	}
	if len(holders) == 0 {
		return nil
	}
	// In key order, the pages the reads and writes touch follow each other.
	slices.SortFunc(holders, func(x, y internal.NFTHolder) int {
		if c := bytes.Compare(x.Contract[:], y.Contract[:]); c != 0 {
			return c
		}
		return bytes.Compare(x.Holder[:], y.Holder[:])
	})
	open, err := w.TakeOpenNFTSpans(ctx, holders)
	if err != nil {
		return err
	}
	var spans []internal.NFTSpan
	for _, k := range holders {
		amount, from, held := new(big.Int), uint64(0), false
		if s, ok := open[k]; ok {
			amount, from, held = s.Amount, s.From, true
		}
		for _, c := range changes[k] {
			if c.delta.Sign() == 0 {
				continue
			}
			if held {
				spans = append(spans, internal.NFTSpan{NFTHolder: k, From: from, To: c.block, Amount: amount})
			}
			amount = new(big.Int).Add(amount, c.delta)
			from, held = c.block, amount.Sign() != 0
		}
		if held {
			spans = append(spans, internal.NFTSpan{NFTHolder: k, From: from, To: internal.OpenSpan, Amount: amount})
		}
	}
	return w.WriteNFTSpans(ctx, spans)
}

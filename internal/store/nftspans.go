package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The holding spans of each NFT contract's holders (nft_spans, migration
// 0048): a holder's count of the contract's tokens and the blocks over
// which it held, kept by ApplyNFTSpans, so that the Looking Glass's NFT
// holders over a range (NFTHoldersOver) read the spans that overlap the
// range instead of replaying every transfer of the contract.

// openSpan is the to_block of a holder's current span.
const openSpan = math.MaxInt64

var nftSpanColumns = []string{"chain_id", "address", "to_block", "holder", "from_block", "amount"}

// nftMove is an ERC-721 or ERC-1155 transfer as the spans count it: one
// token for ERC-721, the value's units for ERC-1155 (as NFTHoldersOver's
// replay counts them).
type nftMove struct {
	block    int64
	contract common.Address
	from, to common.Address
	amount   *big.Int
}

var oneToken = big.NewInt(1)

// nftMoveOf is t's move; false when t is no NFT transfer.
func nftMoveOf(block int64, t *internal.EVMTransfer) (nftMove, bool) {
	m := nftMove{block: block, contract: t.Token, from: t.From, to: t.To, amount: oneToken}
	switch t.Type {
	case internal.ERC721:
	case internal.ERC1155:
		m.amount = new(big.Int)
		if t.Value != nil {
			m.amount = t.Value
		}
	default:
		return m, false
	}
	return m, true
}

// ApplyNFTSpans writes the spans the batch's NFT transfers close and open.
// Blocks at or below the chain's cursor were applied already and are
// skipped: a span is closed by the next change of its count.
func (t *EVMTx) ApplyNFTSpans(ctx context.Context, blocks []*internal.EVMBlockData) error {
	tx, cid := t.db, t.cid
	cur, ok, err := cursor(ctx, tx, EVMCursor(uint64(cid)))
	if err != nil {
		return err
	}
	var moves []nftMove
	for _, b := range blocks {
		if ok && b.Number <= cur {
			continue
		}
		for i := range b.Transfers {
			if m, ok := nftMoveOf(int64(b.Number), &b.Transfers[i]); ok {
				moves = append(moves, m)
			}
		}
	}
	return writeNFTSpans(ctx, tx, cid, moves)
}

type spanKey struct{ contract, holder common.Address }

// spanChange is the net change of a holder's count at one block's end.
type spanChange struct {
	block int64
	delta *big.Int
}

// storedSpan is a holder's open span as stored.
type storedSpan struct {
	from   int64
	amount *big.Int
}

// writeNFTSpans applies moves, in block order and after every block the
// stored spans hold, to nft_spans: for each holder whose count a block
// changed (judged at the block's end: a token sent and back within it
// changes nothing), the open span closes at that block and one opens
// from it, unless the count is zero.
func writeNFTSpans(ctx context.Context, tx *database.DB, cid int64, moves []nftMove) error {
	changes := map[spanKey][]spanChange{}
	add := func(contract, holder common.Address, block int64, d *big.Int, neg bool) {
		if holder == (common.Address{}) {
			return
		}
		k := spanKey{contract, holder}
		cs := changes[k]
		if len(cs) == 0 || cs[len(cs)-1].block != block {
			cs = append(cs, spanChange{block: block, delta: new(big.Int)})
			changes[k] = cs
		}
		if neg {
			cs[len(cs)-1].delta.Sub(cs[len(cs)-1].delta, d)
		} else {
			cs[len(cs)-1].delta.Add(cs[len(cs)-1].delta, d)
		}
	}
	for _, m := range moves {
		add(m.contract, m.from, m.block, m.amount, true)
		add(m.contract, m.to, m.block, m.amount, false)
	}
	keys := make([]spanKey, 0, len(changes))
	for k, cs := range changes {
		if slices.ContainsFunc(cs, func(c spanChange) bool { return c.delta.Sign() != 0 }) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	// In key order, the pages the reads and writes touch follow each other.
	slices.SortFunc(keys, func(x, y spanKey) int {
		if c := bytes.Compare(x.contract[:], y.contract[:]); c != 0 {
			return c
		}
		return bytes.Compare(x.holder[:], y.holder[:])
	})
	open, err := openSpans(ctx, tx, cid, keys)
	if err != nil {
		return err
	}
	var rows [][]any
	span := func(k spanKey, from, to int64, amount *big.Int) {
		rows = append(rows, []any{cid, k.contract[:], to, k.holder[:], from, spanAmount(amount)})
	}
	for _, k := range keys {
		amount, from, held := new(big.Int), int64(0), false
		if s, ok := open[k]; ok {
			amount, from, held = s.amount, s.from, true
		}
		for _, c := range changes[k] {
			if c.delta.Sign() == 0 {
				continue
			}
			if held {
				span(k, from, c.block, amount)
			}
			amount = new(big.Int).Add(amount, c.delta)
			from, held = c.block, amount.Sign() != 0
		}
		if held {
			span(k, from, openSpan, amount)
		}
	}
	if _, err := tx.BulkInsert(ctx, "nft_spans", nftSpanColumns, rows, ""); err != nil {
		return fmt.Errorf("writing the NFT holding spans: %w", err)
	}
	return nil
}

// openSpans reads the open spans of keys (sorted by contract) and deletes
// them: the caller writes them again, closed.
func openSpans(ctx context.Context, tx *database.DB, cid int64, keys []spanKey) (map[spanKey]storedSpan, error) {
	open := map[spanKey]storedSpan{}
	for start := 0; start < len(keys); {
		contract := keys[start].contract
		end := start + 1
		for end < len(keys) && end-start < readInList && keys[end].contract == contract {
			end++
		}
		args := []any{cid, contract[:], int64(openSpan)}
		for _, k := range keys[start:end] {
			args = append(args, k.holder[:])
		}
		in := "(?" + strings.Repeat(", ?", end-start-1) + ")"
		err := tx.RunQuery(ctx, "SELECT holder, from_block, amount FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block = ? AND holder IN "+in,
			func(rows *sql.Rows) error {
				var (
					holder, amount []byte
					from           int64
				)
				if err := rows.Scan(&holder, &from, &amount); err != nil {
					return err
				}
				open[spanKey{contract, common.BytesToAddress(holder)}] = storedSpan{from: from, amount: spanAmountFrom(amount)}
				return nil
			}, args...)
		if err != nil {
			return nil, fmt.Errorf("reading the open NFT holding spans: %w", err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block = ? AND holder IN "+in, args...); err != nil {
			return nil, fmt.Errorf("closing the NFT holding spans: %w", err)
		}
		start = end
	}
	return open, nil
}

// spanAmount encodes a non-zero count: the magnitude big-endian, after a
// 0 byte when negative (a magnitude has no leading zero).
func spanAmount(v *big.Int) []byte {
	if v.Sign() < 0 {
		return append([]byte{0}, v.Bytes()...)
	}
	return v.Bytes()
}

// spanAmountFrom decodes spanAmount's encoding.
func spanAmountFrom(b []byte) *big.Int {
	if len(b) > 0 && b[0] == 0 {
		return new(big.Int).Neg(bigFrom(b[1:]))
	}
	return bigFrom(b)
}

// nftSpansReady reports whether nft_spans holds every stored transfer's
// spans: not while its backfill is pending.
func nftSpansReady(ctx context.Context, db *database.DB) (bool, error) {
	return backfillDone(ctx, db, "nft_spans")
}

// nftSpanParts is the nft_spans backfill, for what was stored before
// migration 0048: the spans cleared (a step), then per EVM chain its
// stored NFT transfers applied as the applier applies a batch, a range of
// blocks at a time, each building on the open spans the ones before
// wrote.
func nftSpanParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	parts := []BackfillPart{stepPart("clearing the NFT holding spans", func(ctx context.Context, tx *database.DB) error {
		_, err := tx.Exec(ctx, "DELETE FROM nft_spans")
		return err
	})}
	chains, err := chainIDs(ctx, db, "SELECT chain_id FROM evm_chains ORDER BY chain_id")
	if err != nil {
		return nil, err
	}
	for _, cid := range chains {
		p, err := rangePart(ctx, db, fmt.Sprintf("the NFT holding spans of chain %d", cid),
			"SELECT MIN(block_number), MAX(block_number) FROM evm_transfers WHERE chain_id = ? AND erc_type IN (721, 1155)", []any{cid},
			func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
				return backfillNFTSpans(ctx, tx, cid, lo, hi)
			})
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// backfillNFTSpans applies the stored NFT transfers of chain cid from
// block lo on, before hi, at most one read's (whole blocks), and returns
// the block it stopped before.
func backfillNFTSpans(ctx context.Context, tx *database.DB, cid, lo, hi int64) (int64, error) {
	return wholeBlocks(lo, hi, 10_000, func(m nftMove) int64 { return m.block },
		func(lo, hi int64, limit int) ([]nftMove, error) { return storedNFTMoves(ctx, tx, cid, lo, hi, limit) },
		func(moves []nftMove) error {
			if err := writeNFTSpans(ctx, tx, cid, moves); err != nil {
				return fmt.Errorf("chain %d: %w", cid, err)
			}
			return nil
		})
}

// storedNFTMoves reads the stored NFT transfers of blocks [lo, hi) in
// chain order, at most limit (0: all).
func storedNFTMoves(ctx context.Context, tx *database.DB, cid, lo, hi int64, limit int) ([]nftMove, error) {
	q := `SELECT block_number, token, erc_type, from_address, to_address, value FROM evm_transfers
		WHERE chain_id = ? AND block_number >= ? AND block_number < ? AND erc_type IN (721, 1155)
		ORDER BY block_number, log_index, batch_index`
	args := []any{cid, lo, hi}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	var moves []nftMove
	err := tx.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var (
			block                  int64
			code                   int
			token, from, to, value []byte
		)
		if err := rows.Scan(&block, &token, &code, &from, &to, &value); err != nil {
			return err
		}
		moves = append(moves, storedNFTMove(block, common.BytesToAddress(token), code, from, to, value))
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the stored NFT transfers of chain %d: %w", cid, err)
	}
	return moves, nil
}

// storedNFTMove is the move of an evm_transfers row of erc_type code (721
// or 1155) of contract: one token, or the row's value of units.
func storedNFTMove(block int64, contract common.Address, code int, from, to, value []byte) nftMove {
	m := nftMove{block: block, contract: contract, from: common.BytesToAddress(from), to: common.BytesToAddress(to), amount: oneToken}
	if code == 1155 {
		m.amount = bigFrom(value)
	}
	return m
}

package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The holding spans of each NFT contract's holders (nft_spans, migration
// 0048): a holder's count of the contract's tokens and the blocks over
// which it held, kept by derive/nfts, so that the Looking Glass's NFT
// holders over a range (NFTHoldersOver) read the spans that overlap the
// range instead of replaying every transfer of the contract.

// openSpan is the to_block of a holder's current span.
const openSpan = internal.OpenSpan

var nftSpanColumns = []string{"chain_id", "address", "to_block", "holder", "from_block", "amount"}

// TakeOpenNFTSpans reads the open spans of holders (sorted by contract,
// then holder) and deletes them: the caller writes them again, closed.
func (t *EVMTx) TakeOpenNFTSpans(ctx context.Context, holders []internal.NFTHolder) (map[internal.NFTHolder]internal.NFTSpan, error) {
	open := map[internal.NFTHolder]internal.NFTSpan{}
	for start := 0; start < len(holders); {
		contract := holders[start].Contract
		end := start + 1
		for end < len(holders) && end-start < readInList && holders[end].Contract == contract {
			end++
		}
		args := []any{t.cid, contract[:], int64(openSpan)}
		for _, h := range holders[start:end] {
			args = append(args, h.Holder[:])
		}
		in := "(?" + strings.Repeat(", ?", end-start-1) + ")"
		err := t.db.RunQuery(ctx, "SELECT holder, from_block, amount FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block = ? AND holder IN "+in,
			func(rows *sql.Rows) error {
				var (
					holder, amount []byte
					from           int64
				)
				if err := rows.Scan(&holder, &from, &amount); err != nil {
					return err
				}
				k := internal.NFTHolder{Contract: contract, Holder: common.BytesToAddress(holder)}
				open[k] = internal.NFTSpan{NFTHolder: k, From: uint64(from), To: openSpan, Amount: spanAmountFrom(amount)}
				return nil
			}, args...)
		if err != nil {
			return nil, fmt.Errorf("reading the open NFT holding spans: %w", err)
		}
		if _, err := t.db.Exec(ctx, "DELETE FROM nft_spans WHERE chain_id = ? AND address = ? AND to_block = ? AND holder IN "+in, args...); err != nil {
			return nil, fmt.Errorf("closing the NFT holding spans: %w", err)
		}
		start = end
	}
	return open, nil
}

// WriteNFTSpans writes spans, none of them stored (the open ones were
// taken by TakeOpenNFTSpans).
func (t *EVMTx) WriteNFTSpans(ctx context.Context, spans []internal.NFTSpan) error {
	rows := make([][]any, len(spans))
	for i, s := range spans {
		rows[i] = []any{t.cid, s.Contract[:], int64(s.To), s.Holder[:], int64(s.From), spanAmount(s.Amount)}
	}
	if err := t.db.Append(ctx, "nft_spans", nftSpanColumns, rows, ""); err != nil {
		return fmt.Errorf("writing the NFT holding spans: %w", err)
	}
	return nil
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
// stored NFT transfers handed to the derivation (d.NFTSpans) as a batch's
// are, a range of blocks at a time, each building on the open spans the
// ones before wrote.
func nftSpanParts(ctx context.Context, db *database.DB, d BackfillDerivations) ([]BackfillPart, error) {
	if d.NFTSpans == nil {
		return nil, derrors.Invalid("the NFT holding spans' backfill needs their derivation")
	}
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
				return wholeBlocks(lo, hi, 10_000, func(m internal.NFTMove) int64 { return int64(m.Block) },
					func(lo, hi int64, limit int) ([]internal.NFTMove, error) {
						return storedNFTMoves(ctx, tx, cid, lo, hi, limit)
					},
					func(moves []internal.NFTMove) error {
						if err := d.NFTSpans(ctx, &EVMTx{db: tx, cid: cid}, moves); err != nil {
							return fmt.Errorf("chain %d: %w", cid, err)
						}
						return nil
					})
			})
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// storedNFTMoves reads the stored NFT transfers of blocks [lo, hi) in
// chain order, at most limit (0: all).
func storedNFTMoves(ctx context.Context, tx *database.DB, cid, lo, hi int64, limit int) ([]internal.NFTMove, error) {
	q := `SELECT block_number, token, erc_type, from_address, to_address, value FROM evm_transfers
		WHERE chain_id = ? AND block_number >= ? AND block_number < ? AND erc_type IN (721, 1155)
		ORDER BY block_number, log_index, batch_index`
	args := []any{cid, lo, hi}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	var moves []internal.NFTMove
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

// oneToken is an ERC-721 transfer's count.
var oneToken = big.NewInt(1)

// storedNFTMove is the move of an evm_transfers row of erc_type code (721
// or 1155) of contract: one token, or the row's value of units.
func storedNFTMove(block int64, contract common.Address, code int, from, to, value []byte) internal.NFTMove {
	m := internal.NFTMove{Block: uint64(block), Contract: contract, From: common.BytesToAddress(from), To: common.BytesToAddress(to), Amount: oneToken}
	if code == 1155 {
		m.Amount = bigFrom(value)
	}
	return m
}

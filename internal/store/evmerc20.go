package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// ERC-20 balances kept from the Transfer logs (migration 0027): each
// ERC-20 transfer debits its sender and credits its recipient, the zero
// address excepted (a mint, a burn: the token's supply). A token whose
// logs cannot explain its balances (a transfer debits more than the
// sender's logged balance, a burn more than the logged supply, or the
// node's balanceOf or totalSupply disagrees: FlagERC20Token) is marked
// unexplained, and its balances are the node's to answer.
//
// A holding's balance (evm_erc20_holdings, the latest) is in
// sortableAmount's encoding, indexed by token and balance for the Looking
// Glass (migration 0052: it is the ERC-20 part of the latest balances);
// the history's (evm_erc20_balances) is bigBytes'. Every read of the
// history names the token, and its key leads with it (migration 0054).

var (
	erc20BalanceColumns = []string{"chain_id", "token", "address", "block_number", "balance"}
	erc20HoldingColumns = []string{"chain_id", "address", "token", "first_block", "block_number", "balance"}
	erc20TokenColumns   = []string{"chain_id", "token", "block_number", "supply", "unexplained", "reason"}
)

const (
	erc20HoldingUpsert = `ON CONFLICT (chain_id, address, token) DO UPDATE SET block_number = excluded.block_number,
		balance = excluded.balance`
	// A token flagged stays flagged, whoever flagged it first.
	erc20TokenUpsert = `ON CONFLICT (chain_id, token) DO UPDATE SET block_number = excluded.block_number,
		supply = excluded.supply,
		unexplained = CASE WHEN evm_erc20_tokens.unexplained = 1 THEN 1 ELSE excluded.unexplained END,
		reason = CASE WHEN evm_erc20_tokens.unexplained = 1 THEN evm_erc20_tokens.reason ELSE excluded.reason END`
)

// ERC20Holding is an address's balance of one ERC-20 token at a block.
type ERC20Holding struct {
	Token   common.Address
	Balance *big.Int
	// Unexplained is set when the token's logs do not explain its
	// balances: Balance is then what the logs tell, and the node's
	// balanceOf is the answer.
	Unexplained bool
}

// ERC20Reader reads the ERC-20 balances kept from transfers.
type ERC20Reader interface {
	// EVMERC20Balances lists addr's non-zero ERC-20 balances after block
	// number, by token address ascending, after token after (nil: from
	// the first); only those of tokens when tokens is not empty.
	EVMERC20Balances(ctx context.Context, chainID uint64, addr common.Address, number uint64, tokens []common.Address, after *common.Address, limit int) ([]ERC20Holding, error)
	// EVMERC20Tokens returns what the store keeps of those of tokens it
	// has seen transfers of.
	EVMERC20Tokens(ctx context.Context, chainID uint64, tokens []common.Address) (map[common.Address]internal.ERC20Token, error)
}

// ERC20Store keeps and reads the ERC-20 balances.
type ERC20Store interface {
	ERC20Reader
	// FlagERC20Token marks a token whose balances its logs do not
	// explain (the node disagreed with them): from then on its balances
	// are the node's balanceOf. A token without transfers stored is left.
	FlagERC20Token(ctx context.Context, chainID uint64, token common.Address, reason string) error
}

// ERC20Tokens returns the stored state of those of tokens the chain has.
func (t *EVMTx) ERC20Tokens(ctx context.Context, tokens []common.Address) (map[common.Address]internal.ERC20Token, error) {
	states, err := erc20TokenStates(ctx, t.reads(), t.cid, tokens)
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]internal.ERC20Token, len(states))
	for tok, st := range states {
		if st.stored {
			out[tok] = st.ERC20Token
		}
	}
	return out, nil
}

// ERC20Holdings returns the stored holdings of those of holders (in
// their key order: address, then token) that have one.
func (t *EVMTx) ERC20Holdings(ctx context.Context, holders []internal.ERC20Holder) (map[internal.ERC20Holder]internal.ERC20Balance, error) {
	return loadERC20Holdings(ctx, t.reads(), t.cid, holders)
}

// WriteERC20 writes a batch's ERC-20 balances: the history's new rows,
// the holdings that had no row (added) and those that had (moved), and
// the tokens' state.
func (t *EVMTx) WriteERC20(ctx context.Context, history, added, moved []internal.ERC20Balance, tokens []internal.ERC20Token) error {
	tx, cid := t.db, t.cid
	hist := make([][]any, len(history))
	for i, b := range history {
		hist[i] = []any{cid, b.Token[:], b.Address[:], int64(b.Block), bigBytes(b.Balance)}
	}
	// No conflict clause: the derivation skips a move applied before, so
	// the rows are new, and PostgreSQL copies them (COPY).
	inKeyOrder(hist)
	if err := tx.Append(ctx, "evm_erc20_balances", erc20BalanceColumns, hist, ""); err != nil {
		return err
	}
	holding := func(b internal.ERC20Balance) []any {
		return []any{cid, b.Address[:], b.Token[:], int64(b.First), int64(b.Block), sortableAmount(b.Balance)}
	}
	addedRows, movedRows := make([][]any, len(added)), make([][]any, len(moved))
	for i, b := range added {
		addedRows[i] = holding(b)
	}
	for i, b := range moved {
		movedRows[i] = holding(b)
	}
	// A holder without a row has none to conflict with (this transaction
	// read them, and one writer applies a chain): its row is inserted
	// without a conflict clause, copied on PostgreSQL.
	if err := tx.Append(ctx, "evm_erc20_holdings", erc20HoldingColumns, addedRows, ""); err != nil {
		return err
	}
	if err := updateERC20Holdings(ctx, tx, movedRows); err != nil {
		return err
	}
	trows := make([][]any, len(tokens))
	for i, st := range tokens {
		trows[i] = []any{cid, st.Token[:], int64(st.Block), bigBytes(st.Supply), boolInt(st.Unexplained), st.Reason}
	}
	return tx.Append(ctx, "evm_erc20_tokens", erc20TokenColumns, trows, erc20TokenUpsert)
}

// updateERC20Holdings writes the new latest balances of pairs that have
// a row (rows of erc20HoldingColumns): on SQLite an upsert, on PostgreSQL
// one UPDATE joined to the rows as arrays (the rows are known to exist).
func updateERC20Holdings(ctx context.Context, tx *database.DB, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if tx.Dialect() != database.Postgres {
		return tx.Append(ctx, "evm_erc20_holdings", erc20HoldingColumns, rows, erc20HoldingUpsert)
	}
	for start := 0; start < len(rows); start += arrayChunk {
		chunk := rows[start:min(len(rows), start+arrayChunk)]
		addrs, tokens, blocks, bals := make([]any, len(chunk)), make([]any, len(chunk)), make([]any, len(chunk)), make([]any, len(chunk))
		for i, r := range chunk {
			addrs[i], tokens[i], blocks[i], bals[i] = r[1], r[2], r[4], r[5]
		}
		n, err := tx.Exec(ctx, `UPDATE evm_erc20_holdings AS h SET block_number = u.block_number, balance = u.balance
			FROM unnest(?::BYTEA[], ?::BYTEA[], ?::BIGINT[], ?::BYTEA[]) AS u(address, token, block_number, balance)
			WHERE h.chain_id = ? AND h.address = u.address AND h.token = u.token`, addrs, tokens, blocks, bals, chunk[0][0])
		if err != nil {
			return fmt.Errorf("updating the ERC-20 holdings: %w", err)
		}
		if n != int64(len(chunk)) {
			return fmt.Errorf("updating the ERC-20 holdings: %d rows of %d read before", n, len(chunk))
		}
	}
	return nil
}

// erc20TokenState is a token's row as read: stored when it has one.
type erc20TokenState struct {
	internal.ERC20Token
	stored bool
}

// arrayChunk bounds the keys a PostgreSQL statement of a batch's writes takes
// as one array parameter (its text and plan do not grow with them).
const arrayChunk = 8192

// erc20Chunk bounds the keys of one lookup.
const erc20Chunk = 64

// erc20TokenStates reads the stored rows of tokens; a token without one
// starts at zero supply.
func erc20TokenStates(ctx context.Context, db *database.DB, cid int64, tokens []common.Address) (map[common.Address]*erc20TokenState, error) {
	out := make(map[common.Address]*erc20TokenState, len(tokens))
	for _, t := range tokens {
		out[t] = &erc20TokenState{ERC20Token: internal.ERC20Token{Token: t, Supply: new(big.Int)}}
	}
	for start := 0; start < len(tokens); start += erc20Chunk {
		chunk := tokens[start:min(len(tokens), start+erc20Chunk)]
		args := []any{cid}
		for _, t := range chunk {
			args = append(args, t[:])
		}
		q := "SELECT token, block_number, supply, unexplained, reason FROM evm_erc20_tokens WHERE chain_id = ? AND token IN (?" +
			strings.Repeat(", ?", len(chunk)-1) + ")"
		err := db.RunQuery(ctx, q, func(rows *sql.Rows) error {
			var (
				token, supply []byte
				block         int64
				unexplained   int
				reason        string
			)
			if err := rows.Scan(&token, &block, &supply, &unexplained, &reason); err != nil {
				return err
			}
			st := out[common.BytesToAddress(token)]
			if st == nil {
				return nil
			}
			st.stored, st.Block, st.Supply, st.Unexplained, st.Reason = true, uint64(block), bigFrom(supply), unexplained == 1, reason
			return nil
		}, args...)
		if err != nil {
			return nil, fmt.Errorf("reading the ERC-20 tokens' state: %w", err)
		}
	}
	return out, nil
}

// loadERC20Holdings returns the stored latest balances of those of pairs
// that have a row. The pairs are joined on
// the key, one index seek each: on SQLite a VALUES list (an OR of pairs
// it may scan, and IN lists of addresses and tokens cross them), on
// PostgreSQL two arrays unnested, one statement of any length whose text
// does not grow with it.
func loadERC20Holdings(ctx context.Context, db *database.DB, cid int64, pairs []internal.ERC20Holder) (map[internal.ERC20Holder]internal.ERC20Balance, error) {
	holdings := make(map[internal.ERC20Holder]internal.ERC20Balance, len(pairs))
	scan := func(rows *sql.Rows) error {
		var (
			addr, token, bal []byte
			first, block     int64
		)
		if err := rows.Scan(&addr, &token, &first, &block, &bal); err != nil {
			return err
		}
		k := internal.ERC20Holder{Address: common.BytesToAddress(addr), Token: common.BytesToAddress(token)}
		holdings[k] = internal.ERC20Balance{ERC20Holder: k, First: uint64(first), Block: uint64(block), Balance: amountFromSortable(bal)}
		return nil
	}
	const sel = "SELECT h.address, h.token, h.first_block, h.block_number, h.balance FROM "
	perRead := 500
	if db.Dialect() == database.Postgres {
		perRead = arrayChunk
	}
	for start := 0; start < len(pairs); start += perRead {
		chunk := pairs[start:min(len(pairs), start+perRead)]
		var (
			q    string
			args []any
		)
		if db.Dialect() == database.Postgres {
			addrs, tokens := make([]any, len(chunk)), make([]any, len(chunk))
			for i, p := range chunk {
				addrs[i], tokens[i] = p.Address[:], p.Token[:]
			}
			q = sel + `unnest(?::BYTEA[], ?::BYTEA[]) AS p(address, token)
				JOIN evm_erc20_holdings h ON h.chain_id = ? AND h.address = p.address AND h.token = p.token`
			args = []any{addrs, tokens, cid}
		} else {
			for _, p := range chunk {
				args = append(args, p.Address[:], p.Token[:])
			}
			q = sel + "(VALUES (?, ?)" + strings.Repeat(", (?, ?)", len(chunk)-1) +
				") AS p JOIN evm_erc20_holdings h ON h.chain_id = ? AND h.address = p.column1 AND h.token = p.column2"
			args = append(args, cid)
		}
		if err := db.RunQuery(ctx, q, scan, args...); err != nil {
			return nil, fmt.Errorf("reading the ERC-20 holdings: %w", err)
		}
	}
	return holdings, nil
}

// erc20BalanceParts are the parts of the evm_erc20_balances backfill:
// the balances derived from the transfers stored before migration 0027, a
// chain at a time, in chain order, by the derivation the indexer runs
// (d.ERC20), a read of whole blocks at a time.
func erc20BalanceParts(ctx context.Context, db *database.DB, d BackfillDerivations) ([]BackfillPart, error) {
	if d.ERC20 == nil {
		return nil, derrors.Invalid("the ERC-20 balances' backfill needs their derivation")
	}
	chains, err := chainIDs(ctx, db, "SELECT DISTINCT chain_id FROM evm_transfers WHERE erc_type = 20 ORDER BY chain_id")
	if err != nil {
		return nil, err
	}
	var parts []BackfillPart
	for _, cid := range chains {
		p, err := rangePart(ctx, db, fmt.Sprintf("chain %d", cid),
			"SELECT MIN(block_number), MAX(block_number) FROM evm_transfers WHERE chain_id = ? AND erc_type = 20", []any{cid},
			func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
				return wholeBlocks(lo, hi, 10_000, func(m internal.ERC20Move) int64 { return int64(m.Block) },
					func(lo, hi int64, limit int) ([]internal.ERC20Move, error) {
						return storedERC20Moves(ctx, tx, cid, lo, hi, limit)
					},
					func(moves []internal.ERC20Move) error {
						if err := d.ERC20(ctx, &EVMTx{db: tx, cid: cid}, moves); err != nil {
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

// storedERC20Moves reads the stored ERC-20 transfers of blocks lo to hi
// (exclusive; -1: no end), in chain order, at most limit (0: all).
func storedERC20Moves(ctx context.Context, tx *database.DB, cid, lo, hi int64, limit int) ([]internal.ERC20Move, error) {
	q := "SELECT block_number, token, from_address, to_address, value FROM evm_transfers WHERE chain_id = ? AND block_number >= ?"
	args := []any{cid, lo}
	if hi >= 0 {
		q += " AND block_number < ?"
		args = append(args, hi)
	}
	q += " AND erc_type = 20 ORDER BY block_number, log_index, batch_index"
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	var moves []internal.ERC20Move
	err := tx.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var (
			number                 int64
			token, from, to, value []byte
		)
		if err := rows.Scan(&number, &token, &from, &to, &value); err != nil {
			return err
		}
		moves = append(moves, internal.ERC20Move{Block: uint64(number), Token: common.BytesToAddress(token),
			From: common.BytesToAddress(from), To: common.BytesToAddress(to), Value: bigFrom(value)})
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the stored ERC-20 transfers of chain %d: %w", cid, err)
	}
	return moves, nil
}

// FlagERC20Token marks a token whose balances its logs do not explain
// (the node's balanceOf or totalSupply disagreed with them), for good.
func (s *sqlStore) FlagERC20Token(ctx context.Context, chainID uint64, token common.Address, reason string) (err error) {
	defer derrors.Wrap(&err, "store.FlagERC20Token(%d, %s)", chainID, token)
	cid, err := evmChainID(chainID)
	if err != nil {
		return err
	}
	_, err = s.db.Exec(ctx, "UPDATE evm_erc20_tokens SET unexplained = 1, reason = ? WHERE chain_id = ? AND token = ? AND unexplained = 0",
		reason, cid, token[:])
	return err
}

func (s *sqlStore) EVMERC20Tokens(ctx context.Context, chainID uint64, tokens []common.Address) (_ map[common.Address]internal.ERC20Token, err error) {
	defer derrors.Wrap(&err, "store.EVMERC20Tokens(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	states, err := erc20TokenStates(ctx, s.db, cid, tokens)
	if err != nil {
		return nil, err
	}
	out := map[common.Address]internal.ERC20Token{}
	for t, st := range states {
		if st.stored {
			out[t] = st.ERC20Token
		}
	}
	return out, nil
}

// erc20HoldingSelect reads a holding's token, its balance after block ?
// (the latest when no later block changed it, else its row of the
// history), and whether the token is unexplained; the arguments are the
// block twice.
const erc20HoldingSelect = `SELECT h.token,
	CASE WHEN h.block_number <= ? THEN substr(h.balance, 2) ELSE (SELECT b.balance FROM evm_erc20_balances b
		WHERE b.chain_id = h.chain_id AND b.address = h.address AND b.token = h.token AND b.block_number <= ?
		ORDER BY b.block_number DESC LIMIT 1) END AS balance,
	(SELECT t.unexplained FROM evm_erc20_tokens t WHERE t.chain_id = h.chain_id AND t.token = h.token) AS unexplained
	FROM evm_erc20_holdings h`

func (s *sqlStore) EVMERC20Balances(ctx context.Context, chainID uint64, addr common.Address, number uint64, tokens []common.Address, after *common.Address, limit int) (_ []ERC20Holding, err error) {
	defer derrors.Wrap(&err, "store.EVMERC20Balances(%d, %s, %d)", chainID, addr, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	n := blockBound(number)
	args := []any{n, n, cid, addr[:], n}
	cond := ""
	if len(tokens) > 0 {
		cond = " AND h.token IN (?" + strings.Repeat(", ?", len(tokens)-1) + ")"
		for _, t := range tokens {
			args = append(args, t[:])
		}
	}
	if after != nil {
		cond += " AND h.token > ?"
		args = append(args, after[:])
	}
	// Zero balances (stored empty) are skipped in the statement, so one
	// statement fills the page: no read transaction and no loop, whose
	// round trips were most of a page's time on PostgreSQL. There, OFFSET 0
	// keeps the subquery from being pulled up (which would read a past
	// balance twice, for the filter and the column); its rows still come
	// in token order, read only as far as the page.
	fence := ""
	if s.db.Dialect() == database.Postgres {
		fence = " OFFSET 0"
	}
	q := "SELECT token, balance, unexplained FROM (" + erc20HoldingSelect +
		" WHERE h.chain_id = ? AND h.address = ? AND h.first_block <= ?" + cond + " ORDER BY h.token" + fence + ") x" +
		" WHERE length(balance) > 0 OR unexplained = 1 ORDER BY token LIMIT ?"
	var out []ERC20Holding
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		var (
			token, bal  []byte
			unexplained sql.NullInt64
		)
		if err := rows.Scan(&token, &bal, &unexplained); err != nil {
			return err
		}
		out = append(out, ERC20Holding{Token: common.BytesToAddress(token), Balance: bigFrom(bal), Unexplained: unexplained.Int64 == 1})
		return nil
	}, append(args, limit)...)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return out, err
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/database"
)

// The latest native balance of each address per chain
// (evm_latest_balances, migration 0047), kept by the native balances'
// derivation so that the Looking Glass can select addresses by their balance
// at the chain's last block with one range of an index, instead of
// replaying the history of every address (lookingglass.go). The ERC-20
// latest balances, which 0047 kept here too, are the holdings' own since
// 0052 (evmerc20.go), in the same encoding and likewise indexed.

var latestBalanceColumns = []string{"chain_id", "token", "address", "block_number", "balance"}

// latestBalanceUpsert keeps the row of the later block: a batch applied
// again after a crash (the derivation is idempotent) writes the same rows, and
// never one older than what is stored.
const latestBalanceUpsert = `ON CONFLICT (chain_id, token, address) DO UPDATE SET block_number = excluded.block_number,
	balance = excluded.balance WHERE excluded.block_number >= evm_latest_balances.block_number`

// nativeToken is evm_latest_balances' token of the native coin.
var nativeToken = []byte{}

// sortableAmount encodes a non-negative amount so that comparing
// encodings as bytes (memcmp on SQLite and PostgreSQL alike) compares the
// amounts: the magnitude's length in one byte, then the magnitude
// big-endian without leading zeros. Balances are 256-bit at most.
func sortableAmount(v *big.Int) []byte {
	b := bigBytes(v)
	out := make([]byte, 1+len(b))
	out[0] = byte(len(b))
	copy(out[1:], b)
	return out
}

// amountFromSortable decodes sortableAmount's encoding.
func amountFromSortable(b []byte) *big.Int {
	if len(b) == 0 {
		return new(big.Int)
	}
	return bigFrom(b[1:])
}

// latestBalance is an address's native balance after block.
type latestBalance struct {
	addr  common.Address
	block int64
	bal   *big.Int
}

// writeLatestBalances upserts the latest native balances of a batch: one
// per address, the batch's last (PostgreSQL refuses a statement that
// updates a row twice).
func writeLatestBalances(ctx context.Context, tx *database.DB, cid int64, bals []latestBalance) error {
	at := map[common.Address]int{}
	var rows [][]any
	for _, b := range bals {
		row := []any{cid, nativeToken, b.addr.Bytes(), b.block, sortableAmount(b.bal)}
		if i, ok := at[b.addr]; ok {
			if b.block >= rows[i][3].(int64) {
				rows[i] = row
			}
			continue
		}
		at[b.addr] = len(rows)
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	inKeyOrder(rows)
	if err := tx.Append(ctx, "evm_latest_balances", latestBalanceColumns, rows, latestBalanceUpsert); err != nil {
		return fmt.Errorf("writing the latest balances: %w", err)
	}
	return nil
}

// latestBalanceParts is the evm_latest_balances backfill, for what was
// stored before migration 0047: per EVM chain, its native balances (the
// last evm_balances row of each address). A part's positions are the
// high nibble of the addresses' first byte, 0 to 15, so that a chunk is a
// range of the source's key (a sixteenth of the chain's addresses). Each
// chain's ERC-20 part has nothing left to write since 0052 (the ERC-20
// latest balances are the holdings' own); it stays, so that the parts'
// numbers a backfill cut short has stored keep their meaning.
func latestBalanceParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	cids, err := chainIDs(ctx, db, "SELECT chain_id FROM evm_chains ORDER BY chain_id")
	if err != nil {
		return nil, err
	}
	var parts []BackfillPart
	for _, cid := range cids {
		parts = append(parts,
			BackfillPart{Name: fmt.Sprintf("the native latest balances of chain %d", cid), Lo: 0, Hi: 16, fill: fillNativeLatest(cid)},
			BackfillPart{Name: fmt.Sprintf("the ERC-20 latest balances of chain %d (the holdings' since 0052)", cid), Lo: 0, Hi: 16,
				fill: func(_ context.Context, _ *database.DB, _, hi int64) (int64, error) { return hi, nil }})
	}
	return parts, nil
}

// prefixRange is the condition on the bytes column col of the high
// nibbles [lo, hi) of its first byte.
func prefixRange(col string, lo, hi int64) (string, []any) {
	if hi >= 16 {
		return col + " >= ?", []any{[]byte{byte(lo << 4)}}
	}
	return col + " >= ? AND " + col + " < ?", []any{[]byte{byte(lo << 4)}, []byte{byte(hi << 4)}}
}

func fillNativeLatest(cid int64) func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
	return func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
		cond, args := prefixRange("address", lo, hi)
		var (
			bals      []latestBalance
			addr, bal []byte
			block     int64
		)
		err := tx.RunQuery(ctx, `SELECT address, block_number, balance FROM evm_balances WHERE chain_id = ? AND `+cond+`
			ORDER BY address, block_number`, func(rows *sql.Rows) error {
			if err := rows.Scan(&addr, &block, &bal); err != nil {
				return err
			}
			if n := len(bals); n == 0 || !bytes.Equal(bals[n-1].addr[:], addr) {
				bals = append(bals, latestBalance{addr: common.BytesToAddress(addr)})
			}
			bals[len(bals)-1].block, bals[len(bals)-1].bal = block, bigFrom(bal)
			return nil
		}, append([]any{cid}, args...)...)
		if err != nil {
			return 0, err
		}
		return hi, writeLatestBalances(ctx, tx, cid, bals)
	}
}

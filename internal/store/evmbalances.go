package store

import (
	"context"
	"database/sql"
	"errors"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

var evmBalanceColumns = []string{"chain_id", "address", "block_number", "balance"}

// WriteNativeBalances writes bals (in chain order) and, for each
// address, the last of them as its latest balance.
func (t *EVMTx) WriteNativeBalances(ctx context.Context, bals []internal.EVMNativeBalance) error {
	rows := make([][]any, len(bals))
	lbs := make([]latestBalance, len(bals))
	for i, b := range bals {
		rows[i] = []any{t.cid, b.Address[:], int64(b.Block), bigBytes(b.Balance)}
		lbs[i] = latestBalance{addr: b.Address, block: int64(b.Block), bal: b.Balance}
	}
	inKeyOrder(rows)
	if err := t.db.Append(ctx, "evm_balances", evmBalanceColumns, rows, newRowsConflict(ctx)); err != nil {
		return err
	}
	return writeLatestBalances(ctx, t.db, t.cid, lbs)
}

// NativeBalanceBefore is addr's stored balance after the last block
// before number that changed it; zero when none did.
func (t *EVMTx) NativeBalanceBefore(ctx context.Context, addr common.Address, number uint64) (*big.Int, error) {
	return balanceBefore(ctx, t.db, t.cid, addr, number)
}

// UntrustBalances records that the chain moved balances in a way the
// blocks do not show: from now on the node answers its balances.
func (t *EVMTx) UntrustBalances(ctx context.Context) error {
	return untrustBalances(ctx, t.db, t.cid)
}

// balanceBefore is addr's stored balance after the last block before
// number that changed it; zero when none did.
func balanceBefore(ctx context.Context, db *database.DB, cid int64, addr common.Address, number uint64) (*big.Int, error) {
	var b []byte
	err := db.QueryRow(ctx, `SELECT balance FROM evm_balances WHERE chain_id = ? AND address = ? AND block_number < ?
		ORDER BY block_number DESC LIMIT 1`, cid, addr[:], blockBound(number)).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return new(big.Int), nil
	}
	if err != nil {
		return nil, err
	}
	return bigFrom(b), nil
}

func (s *sqlStore) EVMNativeBalance(ctx context.Context, chainID uint64, addr common.Address, number uint64) (_ *big.Int, ok bool, err error) {
	defer derrors.Wrap(&err, "store.EVMNativeBalance(%d, %s, %d)", chainID, addr, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, false, err
	}
	var bal *big.Int
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		var exact int
		err := tx.QueryRow(ctx, "SELECT balances FROM evm_chains WHERE chain_id = ?", cid).Scan(&exact)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && exact == 0) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		var b []byte
		err = tx.QueryRow(ctx, `SELECT balance FROM evm_balances WHERE chain_id = ? AND address = ? AND block_number <= ?
			ORDER BY block_number DESC LIMIT 1`, cid, addr[:], blockBound(number)).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) {
			bal = new(big.Int)
			return nil
		}
		if err != nil {
			return err
		}
		bal = bigFrom(b)
		return nil
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return bal, true, nil
}

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

// applyEVMBalances writes each address's balance after each block that
// changed it. A change the block gives as a delta (an atomic import or
// export no tx touched) applies to the balance after the previous block:
// the batch's own, or the stored one. A delta that would make a balance
// negative means the chain moved balances some other way avaindex does not
// see: the balance is kept at zero and the chain's balances are no longer
// trusted (the node answers them).
func applyEVMBalances(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var (
		rows [][]any
		lbs  []latestBalance
	)
	latest := map[common.Address]*big.Int{}
	for _, b := range blocks {
		for _, c := range b.Balances {
			bal := c.Balance
			if bal == nil {
				prev, ok := latest[c.Address]
				if !ok {
					var err error
					if prev, err = balanceBefore(ctx, tx, cid, c.Address, b.Number); err != nil {
						return err
					}
				}
				bal = new(big.Int).Add(prev, c.Delta)
				if bal.Sign() < 0 {
					bal.SetUint64(0)
					if err := untrustBalances(ctx, tx, cid); err != nil {
						return err
					}
				}
			}
			latest[c.Address] = bal
			rows = append(rows, []any{cid, c.Address[:], int64(b.Number), bigBytes(bal)})
			lbs = append(lbs, latestBalance{addr: c.Address, block: int64(b.Number), bal: bal})
		}
	}
	inKeyOrder(rows)
	if _, err := tx.BulkInsert(ctx, "evm_balances", evmBalanceColumns, rows, newRowsConflict(ctx)); err != nil {
		return err
	}
	return writeLatestBalances(ctx, tx, cid, lbs)
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

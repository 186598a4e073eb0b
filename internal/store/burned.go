package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// BurnedStore reads the running sums of what the chains burned (migration
// 0033): what GET /v1/avax/supply serves.
type BurnedStore interface {
	// Burned returns the sum under key ("P", "X", "C", "X:dag", or
	// EVMBurnedKey(chainID)) and the next height it has not counted; a sum
	// nothing was counted in yet is zero at next 0.
	Burned(ctx context.Context, key string) (amount *big.Int, next uint64, err error)
	// L1ValidatorFees returns the L1 validators' continuous fees burned.
	L1ValidatorFees(ctx context.Context) (*big.Int, error)
}

// EVMBurnedKey is the burned sum of the EVM chain chainID.
func EVMBurnedKey(chainID uint64) string { return "evm:" + strconv.FormatUint(chainID, 10) }

func (s *sqlStore) Burned(ctx context.Context, key string) (_ *big.Int, _ uint64, err error) {
	defer derrors.Wrap(&err, "store.Burned(%q)", key)
	sum, next, err := loadBurned(ctx, s.db, key)
	return sum, uint64(next), err
}

func loadBurned(ctx context.Context, tx *database.DB, key string) (*big.Int, int64, error) {
	var (
		next int64
		amt  string
	)
	err := tx.QueryRow(ctx, "SELECT next, amount FROM burned WHERE sum_key = ?", key).Scan(&next, &amt)
	if errors.Is(err, sql.ErrNoRows) {
		return new(big.Int), 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	v, ok := new(big.Int).SetString(amt, 10)
	if !ok || v.Sign() < 0 {
		return nil, 0, fmt.Errorf("stored burned sum %q of %s is not a natural number", amt, key)
	}
	return v, next, nil
}

// addBurned adds the burns of heights first..last (ascending; burnOf(h)
// is height h's) to the sum under key, counting only the heights at or
// past the sum's next: a batch applied again, or rederived, counts once.
func addBurned(ctx context.Context, tx *database.DB, key string, heights []uint64, burnOf func(i int) *big.Int) error {
	return addBurnedReading(ctx, tx, tx, key, heights, burnOf)
}

// addBurnedReading is addBurned reading the sum through read, which may
// be tx.Committed() where the transaction has not written it yet.
func addBurnedReading(ctx context.Context, tx, read *database.DB, key string, heights []uint64, burnOf func(i int) *big.Int) error {
	if len(heights) == 0 {
		return nil
	}
	sum, next, err := loadBurned(ctx, read, key)
	if err != nil {
		return err
	}
	last := heights[len(heights)-1]
	if last >= math.MaxInt64 || int64(last) < next {
		return nil
	}
	for i, h := range heights {
		if int64(h) >= next {
			sum.Add(sum, burnOf(i))
		}
	}
	return tx.Append(ctx, "burned", []string{"sum_key", "next", "amount"}, [][]any{{key, int64(last) + 1, sum.String()}},
		"ON CONFLICT (sum_key) DO UPDATE SET next = excluded.next, amount = excluded.amount")
}

// AddBurned adds burns[i], burned in block heights[i] (ascending), to
// the P-chain's burned sum and deposits[i], moved into L1 validators'
// balances, to theirs, skipping the blocks they hold already.
func (t *PTx) AddBurned(ctx context.Context, heights []uint64, burns, deposits []*big.Int) error {
	if err := addBurned(ctx, t.db, BurnedP, heights, func(i int) *big.Int { return burns[i] }); err != nil {
		return err
	}
	return addBurned(ctx, t.db, l1Deposits, heights, func(i int) *big.Int { return deposits[i] })
}

// AVAXAssetID is XTx.AVAXAssetID.
func (t *PTx) AVAXAssetID(ctx context.Context) (ids.ID, bool, error) { return t.avaxAssetID(ctx) }

// addL1Refunds counts the L1 validators' refunds of a batch that the fee
// replay (WriteL1Refunds) made.
func addL1Refunds(ctx context.Context, tx *database.DB, blocks []*internal.PBlockData, refunds []internal.L1Refund) error {
	heights := make([]uint64, len(blocks))
	for i, b := range blocks {
		heights[i] = b.Height
	}
	return addBurned(ctx, tx, l1Refunds, heights, func(i int) *big.Int {
		sum := new(big.Int)
		for _, r := range refunds {
			if r.Height == heights[i] {
				sum.Add(sum, new(big.Int).SetUint64(r.Amount))
			}
		}
		return sum
	})
}

// The sums' keys: the chains' fees (the C-chain's atomic txs'; its EVM txs'
// are EVMBurnedKey's) and the L1 validators' balances.
const (
	BurnedP, BurnedX, BurnedXDAG, BurnedC = "P", "X", "X:dag", "C"
	// l1Deposits is what the P-chain's txs moved into L1 validators'
	// balances, l1Refunds what it paid back of them to their owners.
	l1Deposits, l1Refunds = "P:l1deposits", "P:l1refunds"
)

// L1ValidatorFees returns the L1 validator fees the P-chain burned: what
// the txs deposited into L1 validators' balances less what was refunded
// and what the active validators hold still (their end point less the fee
// accrued, at the last indexed block).
func (s *sqlStore) L1ValidatorFees(ctx context.Context) (_ *big.Int, err error) {
	defer derrors.Wrap(&err, "store.L1ValidatorFees")
	dep, _, err := loadBurned(ctx, s.db, l1Deposits)
	if err != nil {
		return nil, err
	}
	ref, _, err := loadBurned(ctx, s.db, l1Refunds)
	if err != nil {
		return nil, err
	}
	fees := new(big.Int).Sub(dep, ref)
	st, err := loadL1Fees(ctx, s.db)
	if err != nil {
		return nil, err
	}
	for _, v := range st.Validators {
		if v.End > st.Accrued {
			fees.Sub(fees, new(big.Int).SetUint64(v.End-st.Accrued))
		}
	}
	if fees.Sign() < 0 {
		return nil, fmt.Errorf("L1 validator balances exceed the deposits less the refunds by %s", new(big.Int).Neg(fees))
	}
	return fees, nil
}

// AddBurned adds amounts[i], burned in block heights[i] (ascending), to
// the X-chain's burned sum, skipping the blocks it holds already.
func (t *XTx) AddBurned(ctx context.Context, heights []uint64, amounts []*big.Int) error {
	return addBurned(ctx, t.db, BurnedX, heights, func(i int) *big.Int { return amounts[i] })
}

// AddBurned adds amounts[i], burned in block heights[i] (ascending, the
// blocks with atomic txs), to the C-chain's burned sum, skipping the
// blocks it holds already.
func (t *CTx) AddBurned(ctx context.Context, heights []uint64, amounts []*big.Int) error {
	return addBurned(ctx, t.db, BurnedC, heights, func(i int) *big.Int { return amounts[i] })
}

// AVAXAssetID is the stored network's AVAX asset; false in store tests
// that hold no network, which keep no burned sums.
func (t *XTx) AVAXAssetID(ctx context.Context) (ids.ID, bool, error) { return t.avaxAssetID(ctx) }

// AVAXAssetID is XTx.AVAXAssetID.
func (t *CTx) AVAXAssetID(ctx context.Context) (ids.ID, bool, error) { return t.avaxAssetID(ctx) }

// AddBurned adds fees[i], burned in block heights[i] (ascending), to the
// chain's burned sum, skipping the blocks it holds already.
func (t *EVMTx) AddBurned(ctx context.Context, heights []uint64, fees []*big.Int) error {
	return addBurnedReading(ctx, t.db, t.reads(), EVMBurnedKey(uint64(t.cid)), heights, func(i int) *big.Int { return fees[i] })
}

// burnedParts are the parts of the burned backfill, which gives a store
// that held blocks before migration 0033 its burned sums: first the P-,
// X- and C-chains' by a rederive of each chain that holds blocks (their
// derivations count them; an X-chain's DAG txs too), then each EVM chain's
// from its stored blocks' fees.
func burnedParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	parts := []BackfillPart{stepPart("the rederives", askBurnedRederives)}
	chains, err := chainIDs(ctx, db, "SELECT DISTINCT chain_id FROM evm_blocks ORDER BY chain_id")
	if err != nil {
		return nil, err
	}
	for _, cid := range chains {
		p, err := rangePart(ctx, db, fmt.Sprintf("EVM chain %d", cid), "SELECT MIN(number), MAX(number) FROM evm_blocks WHERE chain_id = ?",
			[]any{cid}, inclusive(func(ctx context.Context, tx *database.DB, lo, hi int64) error {
				return backfillEVMBurned(ctx, tx, cid, lo, hi)
			}))
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// askBurnedRederives asks for the rederive of each of the P-, X- and
// C-chains that holds blocks.
func askBurnedRederives(ctx context.Context, tx *database.DB) error {
	for _, c := range []struct {
		chain internal.Chain
		probe string
	}{
		{internal.PChain, "SELECT COUNT(*) FROM (SELECT 1 FROM p_blocks LIMIT 1) AS t"},
		{internal.XChain, "SELECT COUNT(*) FROM (SELECT 1 FROM x_blocks UNION ALL SELECT 1 FROM x_dag_txs LIMIT 1) AS t"},
		{internal.CChain, "SELECT COUNT(*) FROM (SELECT 1 FROM c_atomic_txs LIMIT 1) AS t"},
	} {
		var n int64
		if err := tx.QueryRow(ctx, c.probe).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", c.chain, err)
		}
		if n == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
			RederiveKey(c.chain), []byte(rederiveRequested)); err != nil {
			return err
		}
		if c.chain == internal.PChain {
			// The L1 refunds are counted by the fee replay, which skips
			// what it replayed already: it starts again with the rederive
			// (from the store's blocks, to the same state; the refund
			// UTXOs it writes again are kept as they are).
			for _, q := range []string{"DELETE FROM p_l1_fees", "DELETE FROM p_l1_fee_validators"} {
				if _, err := tx.Exec(ctx, q); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func backfillEVMBurned(ctx context.Context, tx *database.DB, cid, lo, hi int64) error {
	var blocks []*internal.EVMBlock
	err := tx.RunQuery(ctx, "SELECT number, fees_spent FROM evm_blocks WHERE chain_id = ? AND number BETWEEN ? AND ? ORDER BY number",
		func(rows *sql.Rows) error {
			var (
				n    int64
				fees []byte
			)
			if err := rows.Scan(&n, &fees); err != nil {
				return err
			}
			blocks = append(blocks, &internal.EVMBlock{Number: uint64(n), FeesSpent: optBigFrom(fees)})
			return nil
		}, cid, lo, hi)
	if err != nil {
		return err
	}
	heights := make([]uint64, len(blocks))
	for i, b := range blocks {
		if err := fillFeesSpent(ctx, tx, cid, b); err != nil {
			return err
		}
		heights[i] = b.Number
	}
	return addBurned(ctx, tx, EVMBurnedKey(uint64(cid)), heights, func(i int) *big.Int { return blocks[i].FeesSpent })
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

var (
	evmTxColumns = []string{"chain_id", "hash", "block_number", "idx", "from_address", "to_address", "value", "nonce",
		"type", "gas_limit", "gas_price", "max_fee", "max_priority_fee", "gas_used", "status", "input", "contract_address"}
	evmLogColumns      = []string{"chain_id", "block_number", "log_index", "tx_index", "address", "topics", "data"}
	evmInternalColumns = []string{"chain_id", "tx_hash", "idx", "block_number", "from_address", "to_address", "value",
		"call_type", "gas", "gas_used", "reverted"}
)

func applyEVMTxs(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for _, t := range b.Txs {
			rows = append(rows, []any{cid, t.Hash[:], int64(b.Number), int64(t.Index), t.From[:], optAddr(t.To),
				bigBytes(t.Value), clampInt64(t.Nonce), int(t.Type), clampInt64(t.GasLimit), bigBytes(t.GasPrice),
				optBig(t.MaxFeePerGas), optBig(t.MaxPriorityFeePerGas), clampInt64(t.GasUsed), int(t.Status),
				nonNil(t.Input), optAddr(t.ContractAddress)})
		}
	}
	_, err := tx.BulkInsert(ctx, "evm_txs", evmTxColumns, rows, onConflictDoNothing)
	return err
}

func applyEVMLogs(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for _, l := range b.Logs {
			topics := make([]byte, 0, 32*len(l.Topics))
			for _, t := range l.Topics {
				topics = append(topics, t[:]...)
			}
			rows = append(rows, []any{cid, int64(b.Number), int64(l.Index), int64(l.TxIndex), l.Address[:], topics, nonNil(l.Data)})
		}
	}
	_, err := tx.BulkInsert(ctx, "evm_logs", evmLogColumns, rows, onConflictDoNothing)
	return err
}

func applyEVMInternalTxs(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for _, t := range b.InternalTxs {
			rows = append(rows, []any{cid, t.TxHash[:], int64(t.Index), int64(b.Number), t.From[:], t.To[:], bigBytes(t.Value),
				t.CallType, clampInt64(t.Gas), clampInt64(t.GasUsed), boolInt(t.Reverted)})
		}
	}
	_, err := tx.BulkInsert(ctx, "evm_internal_txs", evmInternalColumns, rows, onConflictDoNothing)
	return err
}

func (s *sqlStore) EVMTxDetails(ctx context.Context, chainID uint64, hash common.Hash) (_ *internal.EVMTxDetails, err error) {
	defer derrors.Wrap(&err, "store.EVMTxDetails(%d, %s)", chainID, hash)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	d := &internal.EVMTxDetails{}
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		var (
			t                                     = &d.Tx
			number, idx, nonce, gasLimit, gasUsed int64
			typ, status                           int
			ts                                    int64
			blockHash, from, to, value, gasPrice  []byte
			maxFee, maxPrio, input, created       []byte
		)
		err := tx.QueryRow(ctx, `SELECT t.block_number, b.hash, b.timestamp, t.idx, t.from_address, t.to_address, t.value,
				t.nonce, t.type, t.gas_limit, t.gas_price, t.max_fee, t.max_priority_fee, t.gas_used, t.status, t.input,
				t.contract_address
			FROM evm_txs t JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number
			WHERE t.chain_id = ? AND t.hash = ?`, cid, hash[:]).Scan(
			&number, &blockHash, &ts, &idx, &from, &to, &value, &nonce, &typ, &gasLimit, &gasPrice, &maxFee, &maxPrio,
			&gasUsed, &status, &input, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return derrors.NotFound
		}
		if err != nil {
			return err
		}
		*t = internal.EVMTx{Hash: hash, BlockNumber: uint64(number), BlockHash: common.BytesToHash(blockHash),
			Timestamp: fromUnixSeconds(ts), Index: uint32(idx), From: common.BytesToAddress(from), To: optAddrFrom(to),
			Value: bigFrom(value), Nonce: uint64(nonce), Type: uint8(typ), GasLimit: uint64(gasLimit),
			GasPrice: bigFrom(gasPrice), MaxFeePerGas: optBigFrom(maxFee), MaxPriorityFeePerGas: optBigFrom(maxPrio),
			GasUsed: uint64(gasUsed), Status: uint8(status), Input: nonNil(input), ContractAddress: optAddrFrom(created)}

		err = tx.RunQuery(ctx, `SELECT idx, from_address, to_address, value, call_type, gas, gas_used, reverted
			FROM evm_internal_txs WHERE chain_id = ? AND tx_hash = ? ORDER BY idx`, func(rows *sql.Rows) error {
			var (
				it                 = internal.EVMInternalTx{TxHash: hash, BlockNumber: t.BlockNumber}
				idx, gas, gasUsed  int64
				reverted           int
				from, to, valueRaw []byte
			)
			if err := rows.Scan(&idx, &from, &to, &valueRaw, &it.CallType, &gas, &gasUsed, &reverted); err != nil {
				return err
			}
			it.Index, it.From, it.To, it.Value = uint32(idx), common.BytesToAddress(from), common.BytesToAddress(to), bigFrom(valueRaw)
			it.Gas, it.GasUsed, it.Reverted = uint64(gas), uint64(gasUsed), reverted != 0
			d.InternalTxs = append(d.InternalTxs, it)
			return nil
		}, cid, hash[:])
		if err != nil {
			return fmt.Errorf("internal txs: %w", err)
		}
		if d.Transfers, err = txTransfers(ctx, tx, cid, t.BlockNumber, t.BlockHash, hash); err != nil {
			return fmt.Errorf("transfers: %w", err)
		}
		if d.Teleporter, err = txTeleporter(ctx, tx, cid, hash); err != nil {
			return fmt.Errorf("teleporter: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// blockBound is a block number as a query bound: numbers past int64 are
// past every stored block.
func blockBound(n uint64) int64 { return int64(min(n, math.MaxInt64)) }

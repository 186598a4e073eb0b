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
	return tx.Append(ctx, "evm_txs", evmTxColumns, rows, newRowsConflict(ctx))
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
	return tx.Append(ctx, "evm_logs", evmLogColumns, rows, newRowsConflict(ctx))
}

func applyEVMInternalTxs(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for _, t := range b.InternalTxs {
			rows = append(rows, []any{cid, t.TxHash[:], int64(t.Index), int64(b.Number), t.From[:], t.To[:], bigBytes(t.Value),
				t.CallType, clampInt64(t.Gas), clampInt64(t.GasUsed), boolInt(t.Reverted)})
		}
	}
	return tx.Append(ctx, "evm_internal_txs", evmInternalColumns, rows, newRowsConflict(ctx))
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

// EVMTxKey is a tx's position in a chain: block number, then index.
type EVMTxKey struct {
	BlockNumber uint64
	Index       uint32
}

// EVMChainTx is a tx of one of several chains.
type EVMChainTx struct {
	ChainID uint64
	internal.EVMTx
}

// evmTxListSelect reads the columns a listedTxScanner scans: a tx with its
// block's header fields, its input cut to the method selector (what the
// lists show of it).
const evmTxListSelect = evmTxListColumns + `
	FROM evm_txs t JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number`

// evmTxListColumns are evmTxListSelect's columns, of evm_txs t and
// evm_blocks b.
const evmTxListColumns = `SELECT t.hash, t.block_number, b.hash, b.timestamp, b.time_ms, b.min_delay_excess, t.idx,
	t.from_address, t.to_address, t.value, t.nonce, t.type, t.gas_limit, t.gas_price, t.max_fee, t.max_priority_fee,
	t.gas_used, t.status, substr(t.input, 1, 4), t.contract_address`

// listedTxScanner scans the rows of a tx list into destinations made once
// per query, not once per row (20 a row otherwise escape to the heap). Its
// byte columns but the input are sql.RawBytes: each is copied once, into
// its fixed-size or big.Int field, not first into a slice of its own.
type listedTxScanner struct {
	chainID, number, ts, idx, nonce, typ, gasLimit, gasUsed, status int64
	timeMS, delay                                                   sql.NullInt64
	hash, blockHash, from, to, value                                sql.RawBytes
	gasPrice, maxFee, maxPrio, made                                 sql.RawBytes
	input                                                           []byte
	dest                                                            []any
}

// newListedTxScanner scans evmTxListColumns, after the chain id withChain.
func newListedTxScanner(withChain bool) *listedTxScanner {
	s := &listedTxScanner{}
	if withChain {
		s.dest = append(s.dest, &s.chainID)
	}
	s.dest = append(s.dest, &s.hash, &s.number, &s.blockHash, &s.ts, &s.timeMS, &s.delay, &s.idx, &s.from, &s.to, &s.value,
		&s.nonce, &s.typ, &s.gasLimit, &s.gasPrice, &s.maxFee, &s.maxPrio, &s.gasUsed, &s.status, &s.input, &s.made)
	return s
}

func (s *listedTxScanner) scan(rows *sql.Rows) (internal.EVMTx, error) {
	if err := rows.Scan(s.dest...); err != nil {
		return internal.EVMTx{}, err
	}
	return internal.EVMTx{Hash: common.BytesToHash(s.hash), BlockNumber: uint64(s.number), BlockHash: common.BytesToHash(s.blockHash),
		Timestamp: fromUnixSeconds(s.ts), BlockTimeMilliseconds: optUint64From(s.timeMS), BlockMinDelayExcess: optUint64From(s.delay),
		Index: uint32(s.idx), From: common.BytesToAddress(s.from), To: optAddrFrom(s.to), Value: bigFrom(s.value), Nonce: uint64(s.nonce),
		Type: uint8(s.typ), GasLimit: uint64(s.gasLimit), GasPrice: bigFrom(s.gasPrice), MaxFeePerGas: optBigFrom(s.maxFee),
		MaxPriorityFeePerGas: optBigFrom(s.maxPrio), GasUsed: uint64(s.gasUsed), Status: uint8(s.status), Input: nonNil(s.input),
		ContractAddress: optAddrFrom(s.made)}, nil
}

func (s *sqlStore) EVMBlockTxs(ctx context.Context, chainID, number uint64, after *uint32, limit int) (_ []internal.EVMTx, err error) {
	defer derrors.Wrap(&err, "store.EVMBlockTxs(%d, %d)", chainID, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	from := int64(-1)
	if after != nil {
		from = int64(*after)
	}
	var out []internal.EVMTx
	sc := newListedTxScanner(false)
	err = s.db.RunQuery(ctx, evmTxListSelect+" WHERE t.chain_id = ? AND t.block_number = ? AND t.idx > ? ORDER BY t.idx LIMIT ?",
		func(rows *sql.Rows) error {
			t, err := sc.scan(rows)
			out = append(out, t)
			return err
		}, cid, blockBound(number), from, limit)
	return out, err
}

// statusFilter is the condition of a tx list's status filter, with the
// status written out so that the failed txs' partial index applies.
func statusFilter(status *uint8) string {
	switch {
	case status == nil:
		return ""
	case *status == 0:
		return " AND t.status = 0"
	}
	return " AND t.status = 1"
}

func (s *sqlStore) EVMLatestTxs(ctx context.Context, chainID uint64, status *uint8, after *EVMTxKey, limit int) (_ []internal.EVMTx, err error) {
	defer derrors.Wrap(&err, "store.EVMLatestTxs(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	arm := latestArm{cid: cid}
	if after != nil {
		arm.txBefore(*after)
	}
	q, args := latestTxsQuery(s.db.Dialect(), []latestArm{arm}, status, limit, false)
	out := make([]internal.EVMTx, 0, limit)
	sc := newListedTxScanner(true)
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		t, err := sc.scan(rows)
		out = append(out, t)
		return err
	}, args...)
	return out, err
}

func (s *sqlStore) EVMLatestTxsAllChains(ctx context.Context, chainIDs []uint64, status *uint8, after *EVMTimeKey, limit int) (_ []EVMChainTx, err error) {
	defer derrors.Wrap(&err, "store.EVMLatestTxsAllChains(%v)", chainIDs)
	arms, err := latestArms(chainIDs, after, true)
	if err != nil || len(arms) == 0 {
		return nil, err
	}
	q, args := latestTxsQuery(s.db.Dialect(), arms, status, limit, true)
	out := make([]EVMChainTx, 0, limit)
	sc := newListedTxScanner(true)
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		t, err := sc.scan(rows)
		out = append(out, EVMChainTx{ChainID: uint64(sc.chainID), EVMTx: t})
		return err
	}, args...)
	return out, err
}

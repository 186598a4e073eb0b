package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The address index of the EVM chains (evm_address_txs, migration 0026):
// the txs each address took part in, by role (internal.EVMAddressRole,
// stored as its number), as derive/addresstxs makes them.
const (
	roleNative   = int(internal.RoleNative)
	roleOther    = int(internal.RoleOther)
	roleInternal = int(internal.RoleInternal)
)

// EVMAddressReader reads an address's history on the EVM chains.
type EVMAddressReader interface {
	// EVMAddressTxs lists the txs addr took part in within r (all of
	// them; with native, only those it sent, received or created a
	// contract by), most recent first unless asc, after the key when set.
	// Listed txs are as EVMBlockTxs's.
	EVMAddressTxs(ctx context.Context, chainID uint64, addr common.Address, native bool, r BlockRange, asc bool, after *EVMTxKey, limit int) ([]internal.EVMTx, error)
	// EVMAddressHistory is EVMAddressTxs's all txs with, for each, its
	// token transfers and listed internal txs (internal.EVMInternalTx.Listed).
	EVMAddressHistory(ctx context.Context, chainID uint64, addr common.Address, r BlockRange, asc bool, after *EVMTxKey, limit int) ([]internal.EVMTxDetails, error)
	// EVMAddressInternalTxs lists the listed internal txs addr sent or
	// received within r, most recent first (by block, tx, then frame).
	EVMAddressInternalTxs(ctx context.Context, chainID uint64, addr common.Address, r BlockRange, after *EVMInternalTxKey, limit int) ([]EVMListedInternalTx, error)
	// EVMAddressChains returns those of chainIDs on which addr took part
	// in a tx, in chainIDs' order.
	EVMAddressChains(ctx context.Context, chainIDs []uint64, addr common.Address) ([]uint64, error)
}

// EVMInternalTxKey is an internal tx's position in a chain: its tx's
// block and index, then its frame index.
type EVMInternalTxKey struct {
	BlockNumber uint64
	TxIndex     uint32
	Index       uint32
}

// EVMListedInternalTx is an internal tx with its tx's position and block.
type EVMListedInternalTx struct {
	internal.EVMInternalTx
	TxIndex               uint32
	BlockHash             common.Hash
	Timestamp             time.Time
	BlockTimeMilliseconds *uint64
}

// listedInternalSQL is internal.EVMInternalTx.Listed over evm_internal_txs i (values
// are stored empty for zero); migration 0026 repeats it.
const listedInternalSQL = `(length(i.value) > 0 OR i.call_type IN ('CREATE', 'CREATE2', 'CREATE3'))`

var evmAddressTxColumns = []string{"chain_id", "address", "role", "block_number", "tx_index"}

// WriteAddressTxs writes rows of the address index.
func (t *EVMTx) WriteAddressTxs(ctx context.Context, txs []internal.EVMAddressTx) error {
	rows := make([][]any, len(txs))
	for i, a := range txs {
		rows[i] = []any{t.cid, a.Address[:], int(a.Role), int64(a.Block), int64(a.TxIndex)}
	}
	inKeyOrder(rows)
	return t.db.Append(ctx, "evm_address_txs", evmAddressTxColumns, rows, newRowsConflict(ctx))
}

// addressKeys returns the query of up to limit (block_number, tx_index)
// of addr's rows of role within r, after after, in the order dir, and its
// arguments. inclusive keeps the row at after (a tx whose internal txs
// continue).
func addressKeys(cid int64, addr common.Address, role int, r BlockRange, asc bool, after *EVMTxKey, inclusive bool, limit int) (string, []any) {
	var (
		b    strings.Builder
		args = []any{cid, addr[:], role}
	)
	b.WriteString("SELECT block_number, tx_index FROM evm_address_txs WHERE chain_id = ? AND address = ? AND role = ?")
	if r.From != nil {
		b.WriteString(" AND block_number >= ?")
		args = append(args, blockBound(*r.From))
	}
	if r.To != nil {
		b.WriteString(" AND block_number < ?")
		args = append(args, blockBound(*r.To))
	}
	dir, cmp := " DESC", "<"
	if asc {
		dir, cmp = " ASC", ">"
	}
	if after != nil {
		// The plain bound starts the index range on both engines; the row
		// value settles the block's txs.
		n := blockBound(after.BlockNumber)
		if inclusive {
			cmp += "="
		}
		fmt.Fprintf(&b, " AND block_number %s= ? AND (block_number, tx_index) %s (?, ?)", cmp[:1], cmp)
		args = append(args, n, n, int64(after.Index))
	}
	fmt.Fprintf(&b, " ORDER BY block_number%[1]s, tx_index%[1]s LIMIT ?", dir)
	return b.String(), append(args, limit)
}

func (s *sqlStore) EVMAddressTxs(ctx context.Context, chainID uint64, addr common.Address, native bool, r BlockRange, asc bool, after *EVMTxKey, limit int) (_ []internal.EVMTx, err error) {
	defer derrors.Wrap(&err, "store.EVMAddressTxs(%d, %s)", chainID, addr)
	return s.addressTxs(ctx, chainID, addr, native, r, asc, after, limit)
}

func (s *sqlStore) addressTxs(ctx context.Context, chainID uint64, addr common.Address, native bool, r BlockRange, asc bool, after *EVMTxKey, limit int) ([]internal.EVMTx, error) {
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	dir := " DESC"
	if asc {
		dir = " ASC"
	}
	keys, args := addressKeys(cid, addr, roleNative, r, asc, after, false, limit)
	if !native {
		// Each role's page, merged: no tx is in both.
		other, otherArgs := addressKeys(cid, addr, roleOther, r, asc, after, false, limit)
		keys = "SELECT block_number, tx_index FROM (" + keys + ") n UNION ALL SELECT block_number, tx_index FROM (" + other + ") o"
		args = append(args, otherArgs...)
		keys = fmt.Sprintf("SELECT block_number, tx_index FROM (%s) u ORDER BY block_number%[2]s, tx_index%[2]s LIMIT ?", keys, dir)
		args = append(args, limit)
	}
	q := evmTxListColumns + ` FROM (` + keys + `) k
		JOIN evm_txs t ON t.chain_id = ? AND t.block_number = k.block_number AND t.idx = k.tx_index
		JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number
		ORDER BY k.block_number` + dir + `, k.tx_index` + dir
	var out []internal.EVMTx
	sc := newListedTxScanner(false)
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		t, err := sc.scan(rows)
		out = append(out, t)
		return err
	}, append(args, cid)...)
	return out, err
}

func (s *sqlStore) EVMAddressHistory(ctx context.Context, chainID uint64, addr common.Address, r BlockRange, asc bool, after *EVMTxKey, limit int) (_ []internal.EVMTxDetails, err error) {
	defer derrors.Wrap(&err, "store.EVMAddressHistory(%d, %s)", chainID, addr)
	txs, err := s.addressTxs(ctx, chainID, addr, false, r, asc, after, limit)
	if err != nil || len(txs) == 0 {
		return nil, err
	}
	cid := int64(chainID)
	out := make([]internal.EVMTxDetails, len(txs))
	byHash := make(map[common.Hash]*internal.EVMTxDetails, len(txs))
	hashes := make([]any, 0, len(txs))
	numbers := make([]any, 0, len(txs))
	for i := range txs {
		out[i].Tx = txs[i]
		byHash[txs[i].Hash] = &out[i]
		hashes = append(hashes, txs[i].Hash[:])
		if i == 0 || txs[i].BlockNumber != txs[i-1].BlockNumber {
			numbers = append(numbers, int64(txs[i].BlockNumber))
		}
	}
	marks := func(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
	// One query for the page's transfers, one for its internal txs.
	q := transferSelect + ` FROM evm_transfers t WHERE t.chain_id = ? AND t.block_number IN (` + marks(len(numbers)) +
		`) AND t.tx_hash IN (` + marks(len(hashes)) + `) ORDER BY t.block_number, t.log_index, t.batch_index`
	err = s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		t, err := scanTransfer(rows)
		if err != nil {
			return err
		}
		if d := byHash[t.TxHash]; d != nil {
			d.Transfers = append(d.Transfers, t)
		}
		return nil
	}, append(append([]any{cid}, numbers...), hashes...)...)
	if err != nil {
		return nil, fmt.Errorf("transfers: %w", err)
	}
	q = `SELECT i.tx_hash, i.idx, i.from_address, i.to_address, i.value, i.call_type, i.gas, i.gas_used, i.reverted
		FROM evm_internal_txs i WHERE i.chain_id = ? AND i.tx_hash IN (` + marks(len(hashes)) + `) AND ` + listedInternalSQL +
		` ORDER BY i.tx_hash, i.idx`
	err = s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		var hash []byte
		it, err := scanInternalTx(rows, &hash)
		if err != nil {
			return err
		}
		if d := byHash[common.BytesToHash(hash)]; d != nil {
			it.TxHash, it.BlockNumber = d.Tx.Hash, d.Tx.BlockNumber
			d.InternalTxs = append(d.InternalTxs, it)
		}
		return nil
	}, append([]any{cid}, hashes...)...)
	if err != nil {
		return nil, fmt.Errorf("internal txs: %w", err)
	}
	return out, nil
}

// scanInternalTx scans (hash, idx, from_address, to_address, value,
// call_type, gas, gas_used, reverted) of evm_internal_txs, the hash into
// *hash.
func scanInternalTx(rows *sql.Rows, hash *[]byte, extra ...any) (internal.EVMInternalTx, error) {
	var (
		it                 internal.EVMInternalTx
		idx, gas, gasUsed  int64
		reverted           int
		from, to, valueRaw []byte
	)
	dst := append([]any{hash}, extra...)
	dst = append(dst, &idx, &from, &to, &valueRaw, &it.CallType, &gas, &gasUsed, &reverted)
	if err := rows.Scan(dst...); err != nil {
		return it, err
	}
	it.Index, it.From, it.To, it.Value = uint32(idx), common.BytesToAddress(from), common.BytesToAddress(to), bigFrom(valueRaw)
	it.Gas, it.GasUsed, it.Reverted = uint64(gas), uint64(gasUsed), reverted != 0
	return it, nil
}

func (s *sqlStore) EVMAddressInternalTxs(ctx context.Context, chainID uint64, addr common.Address, r BlockRange, after *EVMInternalTxKey, limit int) (_ []EVMListedInternalTx, err error) {
	defer derrors.Wrap(&err, "store.EVMAddressInternalTxs(%d, %s)", chainID, addr)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	var txKey *EVMTxKey
	cond, condArgs := "", []any(nil)
	if after != nil {
		txKey = &EVMTxKey{BlockNumber: after.BlockNumber, Index: after.TxIndex}
		n := blockBound(after.BlockNumber)
		cond = " AND (k.block_number, k.tx_index, i.idx) < (?, ?, ?)"
		condArgs = []any{n, int64(after.TxIndex), int64(after.Index)}
	}
	// Every tx of the keys has one of addr's internal txs, the one at
	// after perhaps no more: limit+1 keys hold the page. CROSS JOIN keeps
	// the order keys, tx, block, internal txs on SQLite, which otherwise
	// (3.54, no statistics) read the internal txs before the tx, by
	// chain id alone: every internal tx of the chain per key. PostgreSQL
	// plans a CROSS JOIN with a WHERE as an inner join.
	keys, args := addressKeys(cid, addr, roleInternal, r, false, txKey, true, limit+1)
	q := `SELECT i.tx_hash, k.block_number, k.tx_index, b.hash, b.timestamp, b.time_ms, i.idx, i.from_address, i.to_address,
			i.value, i.call_type, i.gas, i.gas_used, i.reverted
		FROM (` + keys + `) k CROSS JOIN evm_txs t CROSS JOIN evm_blocks b CROSS JOIN evm_internal_txs i
		WHERE t.chain_id = ? AND t.block_number = k.block_number AND t.idx = k.tx_index
		AND b.chain_id = t.chain_id AND b.number = t.block_number
		AND i.chain_id = t.chain_id AND i.tx_hash = t.hash
		AND (i.from_address = ? OR i.to_address = ?) AND ` + listedInternalSQL + cond + `
		ORDER BY k.block_number DESC, k.tx_index DESC, i.idx DESC LIMIT ?`
	args = append(append(append(args, cid, addr[:], addr[:]), condArgs...), limit)
	var out []EVMListedInternalTx
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		var (
			hash, blockHash   []byte
			number, txIdx, ts int64
			timeMS            sql.NullInt64
		)
		it, err := scanInternalTx(rows, &hash, &number, &txIdx, &blockHash, &ts, &timeMS)
		if err != nil {
			return err
		}
		it.TxHash, it.BlockNumber = common.BytesToHash(hash), uint64(number)
		out = append(out, EVMListedInternalTx{EVMInternalTx: it, TxIndex: uint32(txIdx), BlockHash: common.BytesToHash(blockHash),
			Timestamp: fromUnixSeconds(ts), BlockTimeMilliseconds: optUint64From(timeMS)})
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) EVMAddressChains(ctx context.Context, chainIDs []uint64, addr common.Address) (_ []uint64, err error) {
	defer derrors.Wrap(&err, "store.EVMAddressChains(%s)", addr)
	var out []uint64
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		for _, id := range chainIDs {
			cid, err := evmChainID(id)
			if err != nil {
				return err
			}
			var one int
			err = tx.QueryRow(ctx, "SELECT 1 FROM evm_address_txs WHERE chain_id = ? AND address = ? LIMIT 1", cid, addr[:]).Scan(&one)
			switch {
			case err == nil:
				out = append(out, id)
			case err != sql.ErrNoRows:
				return err
			}
		}
		return nil
	})
	return out, err
}

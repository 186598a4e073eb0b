package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

var (
	evmTransferColumns = []string{"chain_id", "block_number", "log_index", "batch_index", "tx_hash", "timestamp", "token",
		"erc_type", "operator", "from_address", "to_address", "value", "token_id"}
	evmAddressTransferColumns = []string{"chain_id", "address", "erc_type", "block_number", "log_index", "batch_index"}
)

// applyEVMTransfers writes the transfers and, for each, the rows of its
// sender and its recipient in evm_address_transfers (one when they are
// the same address).
func applyEVMTransfers(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows, addrRows [][]any
	for _, b := range blocks {
		for _, t := range b.Transfers {
			code := ercCode(t.Type)
			var tokenID any
			if t.TokenID != nil {
				tokenID = bigBytes(t.TokenID)
			}
			rows = append(rows, []any{cid, int64(b.Number), int64(t.LogIndex), int64(t.BatchIndex), t.TxHash[:],
				unixSeconds(b.Timestamp), t.Token[:], code, t.Operator[:], t.From[:], t.To[:], bigBytes(t.Value), tokenID})
			addrRows = append(addrRows, []any{cid, t.From[:], code, int64(b.Number), int64(t.LogIndex), int64(t.BatchIndex)})
			if t.To != t.From {
				addrRows = append(addrRows, []any{cid, t.To[:], code, int64(b.Number), int64(t.LogIndex), int64(t.BatchIndex)})
			}
		}
	}
	if err := tx.Append(ctx, "evm_transfers", evmTransferColumns, rows, newRowsConflict(ctx)); err != nil {
		return err
	}
	inKeyOrder(addrRows)
	return tx.Append(ctx, "evm_address_transfers", evmAddressTransferColumns, addrRows, newRowsConflict(ctx))
}

// transferSelect reads evm_transfers rows (alias t) with their block's
// hash, in the order scanTransfer reads them. The hash is a subquery, one
// primary-key seek per row returned, so that no plan joins the blocks by
// scanning them.
const transferSelect = `SELECT t.block_number,
	(SELECT b.hash FROM evm_blocks b WHERE b.chain_id = t.chain_id AND b.number = t.block_number),
	t.timestamp, t.tx_hash, t.log_index, t.batch_index, t.token, t.erc_type, t.operator, t.from_address, t.to_address,
	t.value, t.token_id`

func scanTransfer(rows *sql.Rows) (internal.EVMTransfer, error) {
	var (
		t                                  internal.EVMTransfer
		number, ts, logIndex, batchIndex   int64
		code                               int
		blockHash, txHash, token, operator []byte
		from, to, value, tokenID           []byte
	)
	if err := rows.Scan(&number, &blockHash, &ts, &txHash, &logIndex, &batchIndex, &token, &code, &operator, &from, &to,
		&value, &tokenID); err != nil {
		return t, err
	}
	t.BlockNumber, t.BlockHash, t.Timestamp = uint64(number), common.BytesToHash(blockHash), fromUnixSeconds(ts)
	t.TxHash, t.LogIndex, t.BatchIndex = common.BytesToHash(txHash), uint32(logIndex), uint32(batchIndex)
	t.Token, t.Type, t.Operator = common.BytesToAddress(token), ercType(code), common.BytesToAddress(operator)
	t.From, t.To, t.Value, t.TokenID = common.BytesToAddress(from), common.BytesToAddress(to), bigFrom(value), optBigFrom(tokenID)
	return t, nil
}

// txTransfers returns the transfers of the tx hash in block number.
func txTransfers(ctx context.Context, db *database.DB, cid int64, number uint64, blockHash, hash common.Hash) ([]internal.EVMTransfer, error) {
	var out []internal.EVMTransfer
	err := db.RunQuery(ctx, transferSelect+` FROM evm_transfers t
		WHERE t.chain_id = ? AND t.block_number = ? AND t.tx_hash = ? ORDER BY t.log_index, t.batch_index`, func(rows *sql.Rows) error {
		t, err := scanTransfer(rows)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	}, cid, blockBound(number), hash[:])
	return out, err
}

// transferRange returns the conditions on alias's (block_number,
// log_index, batch_index) of a list within r, strictly after after in
// descending order, and their arguments.
func transferRange(alias string, r BlockRange, after *EVMTransferKey) (string, []any) {
	var (
		b    strings.Builder
		args []any
	)
	if r.From != nil {
		fmt.Fprintf(&b, " AND %s.block_number >= ?", alias)
		args = append(args, blockBound(*r.From))
	}
	if r.To != nil {
		fmt.Fprintf(&b, " AND %s.block_number < ?", alias)
		args = append(args, blockBound(*r.To))
	}
	if after != nil {
		// The bound on block_number alone lets both engines start the
		// index range there; the row value settles ties within a block.
		fmt.Fprintf(&b, " AND %[1]s.block_number <= ? AND (%[1]s.block_number, %[1]s.log_index, %[1]s.batch_index) < (?, ?, ?)", alias)
		n := blockBound(after.BlockNumber)
		args = append(args, n, n, int64(after.LogIndex), int64(after.BatchIndex))
	}
	return b.String(), args
}

func (s *sqlStore) EVMAddressTransfers(ctx context.Context, chainID uint64, addr common.Address, typ internal.ERCType, r BlockRange, after *EVMTransferKey, limit int) (_ []internal.EVMTransfer, err error) {
	defer derrors.Wrap(&err, "store.EVMAddressTransfers(%d, %s, %s)", chainID, addr, typ)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	code := ercCode(typ)
	if code == 0 {
		return nil, fmt.Errorf("no transfers of type %q: %w", typ, derrors.InvalidArgument)
	}
	if limit <= 0 {
		return nil, nil
	}
	// The page's keys first, from the address's range of the index alone
	// (the LIMIT keeps the planners from joining before it), then their
	// rows.
	cond, args := transferRange("a", r, after)
	q := transferSelect + ` FROM (SELECT a.block_number, a.log_index, a.batch_index FROM evm_address_transfers a
			WHERE a.chain_id = ? AND a.address = ? AND a.erc_type = ?` + cond + `
			ORDER BY a.block_number DESC, a.log_index DESC, a.batch_index DESC LIMIT ?) k
		JOIN evm_transfers t ON t.chain_id = ? AND t.block_number = k.block_number AND t.log_index = k.log_index
			AND t.batch_index = k.batch_index
		ORDER BY k.block_number DESC, k.log_index DESC, k.batch_index DESC`
	return s.transfers(ctx, q, append(append([]any{cid, addr[:], code}, args...), limit, cid)...)
}

func (s *sqlStore) EVMTokenTransfers(ctx context.Context, chainID uint64, token common.Address, r BlockRange, after *EVMTransferKey, limit int) (_ []internal.EVMTransfer, err error) {
	defer derrors.Wrap(&err, "store.EVMTokenTransfers(%d, %s)", chainID, token)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	cond, args := transferRange("t", r, after)
	q := transferSelect + ` FROM evm_transfers t WHERE t.chain_id = ? AND t.token = ?` + cond + `
		ORDER BY t.block_number DESC, t.log_index DESC, t.batch_index DESC LIMIT ?`
	return s.transfers(ctx, q, append(append([]any{cid, token[:]}, args...), limit)...)
}

func (s *sqlStore) transfers(ctx context.Context, q string, args ...any) ([]internal.EVMTransfer, error) {
	var out []internal.EVMTransfer
	err := s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		t, err := scanTransfer(rows)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	}, args...)
	return out, err
}

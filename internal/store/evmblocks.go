package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// EVMStore keeps the EVM chains' blocks and everything decoded with them
// (internal.EVMBlockData, decoded by evm), by EVM chain id, and reads them (EVMReader).
type EVMStore interface {
	EVMReader
	// ApplyEVMBlocks stores blocks of the chain (consecutive numbers,
	// ascending) with their txs, logs, internal txs, transfers,
	// contracts, balances and Teleporter messages, and moves the chain's
	// cursor (EVMCursor) to the last block, in one transaction.
	// Re-applying changes nothing.
	ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData) error
	// EVMBlockHash returns the hash of the stored block number; NotFound
	// when it is not stored.
	EVMBlockHash(ctx context.Context, chainID, number uint64) (common.Hash, error)
	// EVMContractTypes returns the ERC types of those of addrs the store
	// holds as contracts (deployed, or seen emitting transfers).
	EVMContractTypes(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]internal.ERCType, error)
}

var evmBlockColumns = []string{"chain_id", "number", "hash", "parent_hash", "timestamp", "miner", "gas_limit",
	"gas_used", "base_fee", "size", "tx_count", "traced"}

func (s *sqlStore) ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData) (err error) {
	if len(blocks) == 0 {
		return nil
	}
	first, last := blocks[0].Number, blocks[len(blocks)-1].Number
	defer derrors.Wrap(&err, "store.ApplyEVMBlocks(%d, %d..%d)", chainID, first, last)
	cid, err := evmChainID(chainID)
	if err != nil {
		return err
	}
	rows := make([][]any, len(blocks))
	allTraced := true
	for i, b := range blocks {
		if b.Number > math.MaxInt64 || (i > 0 && b.Number != blocks[i-1].Number+1) {
			return fmt.Errorf("block numbers not consecutive at %d: %w", b.Number, derrors.InvalidArgument)
		}
		rows[i] = []any{cid, int64(b.Number), b.Hash[:], b.ParentHash[:], unixSeconds(b.Timestamp), b.Miner[:],
			clampInt64(b.GasLimit), clampInt64(b.GasUsed), optBig(b.BaseFee), clampInt64(b.Size), b.TxCount, boolInt(b.Traced)}
		allTraced = allTraced && b.Traced
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		key := EVMCursor(chainID)
		cur, ok, err := cursor(ctx, tx, key)
		if err != nil {
			return err
		}
		if ok && first > cur+1 {
			return fmt.Errorf("batch starts at %d but the cursor is at %d: %w", first, cur, derrors.InvalidArgument)
		}
		n, err := tx.BulkInsert(ctx, "evm_blocks", evmBlockColumns, rows, onConflictDoNothing)
		if err != nil {
			return err
		}
		if n != int64(len(blocks)) {
			// Re-applied blocks must be the stored ones: hashes commit to
			// everything else.
			for _, b := range blocks {
				h, err := evmBlockHash(ctx, tx, cid, b.Number)
				if err != nil {
					return err
				}
				if h != b.Hash {
					return fmt.Errorf("block %d: stored block %s differs from applied block %s", b.Number, h, b.Hash)
				}
			}
		}
		// A chain's balances are exact from its genesis while every block
		// is; the first that is not makes them the node's to answer.
		exact := first == 0 && allTraced
		if _, err := tx.Exec(ctx, "INSERT INTO evm_chains (chain_id, balances) VALUES (?, ?) ON CONFLICT (chain_id) DO NOTHING",
			cid, boolInt(exact)); err != nil {
			return err
		}
		if !allTraced {
			if err := untrustBalances(ctx, tx, cid); err != nil {
				return err
			}
		}
		for _, apply := range evmAppliers {
			if err := apply(ctx, tx, cid, blocks); err != nil {
				return err
			}
		}
		return moveCursor(ctx, tx, key, last, ids.ID(blocks[len(blocks)-1].Hash))
	})
}

// evmAppliers write what an EVM chain's batch of blocks holds and what is
// derived from it, in this order, inside ApplyEVMBlocks's transaction (cid
// is the stored chain id), the metrics last as on every chain. Each is
// idempotent: a batch may be applied again.
var evmAppliers = []func(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error{
	applyEVMTxs, applyEVMLogs, applyEVMInternalTxs, applyEVMTransfers, applyEVMContracts, applyNFTs,
	applyEVMBalances, applyTeleporter, applyEVMMetrics,
}

func untrustBalances(ctx context.Context, tx *database.DB, cid int64) error {
	_, err := tx.Exec(ctx, "UPDATE evm_chains SET balances = 0 WHERE chain_id = ?", cid)
	return err
}

func (s *sqlStore) EVMBlockHash(ctx context.Context, chainID, number uint64) (_ common.Hash, err error) {
	defer derrors.Wrap(&err, "store.EVMBlockHash(%d, %d)", chainID, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return common.Hash{}, err
	}
	if number > math.MaxInt64 {
		return common.Hash{}, derrors.NotFound
	}
	return evmBlockHash(ctx, s.db, cid, number)
}

func evmBlockHash(ctx context.Context, db *database.DB, cid int64, number uint64) (common.Hash, error) {
	var b []byte
	err := db.QueryRow(ctx, "SELECT hash FROM evm_blocks WHERE chain_id = ? AND number = ?", cid, int64(number)).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return common.Hash{}, fmt.Errorf("block %d: %w", number, derrors.NotFound)
	}
	if err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(b), nil
}

func (s *sqlStore) EVMHead(ctx context.Context, chainID uint64) (_ *internal.EVMBlock, err error) {
	defer derrors.Wrap(&err, "store.EVMHead(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	var b *internal.EVMBlock
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		n, ok, err := cursor(ctx, tx, EVMCursor(chainID))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no block indexed: %w", derrors.NotFound)
		}
		b, err = scanEVMBlock(tx.QueryRow(ctx, `SELECT number, hash, parent_hash, timestamp, miner, gas_limit, gas_used,
			base_fee, size, tx_count FROM evm_blocks WHERE chain_id = ? AND number = ?`, cid, int64(n)))
		return err
	})
	return b, err
}

func (s *sqlStore) EVMBlock(ctx context.Context, chainID, number uint64) (_ *internal.EVMBlock, err error) {
	defer derrors.Wrap(&err, "store.EVMBlock(%d, %d)", chainID, number)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	if number > math.MaxInt64 {
		return nil, derrors.NotFound
	}
	return scanEVMBlock(s.db.QueryRow(ctx, `SELECT number, hash, parent_hash, timestamp, miner, gas_limit, gas_used,
		base_fee, size, tx_count FROM evm_blocks WHERE chain_id = ? AND number = ?`, cid, int64(number)))
}

func scanEVMBlock(row scanner) (*internal.EVMBlock, error) {
	var (
		b                               internal.EVMBlock
		number, ts, gasLimit, gasUsed   int64
		size                            int64
		hash, parent, miner, baseFeeRaw []byte
	)
	err := row.Scan(&number, &hash, &parent, &ts, &miner, &gasLimit, &gasUsed, &baseFeeRaw, &size, &b.TxCount)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	b.Number, b.Timestamp = uint64(number), fromUnixSeconds(ts)
	b.Hash, b.ParentHash, b.Miner = common.BytesToHash(hash), common.BytesToHash(parent), common.BytesToAddress(miner)
	b.GasLimit, b.GasUsed, b.Size = uint64(gasLimit), uint64(gasUsed), uint64(size)
	if baseFeeRaw != nil {
		b.BaseFee = new(big.Int).SetBytes(baseFeeRaw)
	}
	return &b, nil
}

// evmChainID is an EVM chain id as stored: chain ids above 2^63 (none
// known) are refused rather than wrapped.
func evmChainID(id uint64) (int64, error) {
	if id > math.MaxInt64 {
		return 0, fmt.Errorf("EVM chain id %d out of range: %w", id, derrors.InvalidArgument)
	}
	return int64(id), nil
}

// bigBytes is a uint256 amount as stored: minimal big-endian bytes, empty
// for zero or nil.
func bigBytes(v *big.Int) []byte {
	if v == nil || v.Sign() == 0 {
		return []byte{}
	}
	return v.Bytes()
}

// optBig is bigBytes for a nullable column: nil stays NULL.
func optBig(v *big.Int) any {
	if v == nil {
		return nil
	}
	return bigBytes(v)
}

func bigFrom(b []byte) *big.Int { return new(big.Int).SetBytes(b) }

// optBigFrom reads a nullable amount column.
func optBigFrom(b []byte) *big.Int {
	if b == nil {
		return nil
	}
	return bigFrom(b)
}

// optAddr is a nullable address column.
func optAddr(a *common.Address) any {
	if a == nil {
		return nil
	}
	return a[:]
}

func optAddrFrom(b []byte) *common.Address {
	if b == nil {
		return nil
	}
	a := common.BytesToAddress(b)
	return &a
}

// clampInt64 stores a uint64 gas value; values above 2^63 (no real block
// has them) are clamped instead of wrapping negative.
func clampInt64(v uint64) int64 { return int64(min(v, math.MaxInt64)) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ercCode and ercType convert an ERC type to and from its stored code.
func ercCode(t internal.ERCType) int {
	switch t {
	case internal.ERC20:
		return 20
	case internal.ERC721:
		return 721
	case internal.ERC1155:
		return 1155
	}
	return 0
}

func ercType(code int) internal.ERCType {
	switch code {
	case 20:
		return internal.ERC20
	case 721:
		return internal.ERC721
	case 1155:
		return internal.ERC1155
	}
	return internal.ERCUnknown
}

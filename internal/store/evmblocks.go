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
	// ascending) with everything decoded with them (txs, logs, internal
	// txs, transfers, contracts, Teleporter and ICM messages), runs derive
	// (the derivation's writes of the state the blocks derive), and moves
	// the chain's cursor (EVMCursor) to the last block, in one
	// transaction. Re-applying changes nothing.
	ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData, derive EVMDerivation) error
	// EVMBlockHash returns the hash of the stored block number; NotFound
	// when it is not stored.
	EVMBlockHash(ctx context.Context, chainID, number uint64) (common.Hash, error)
	// EVMContractTypes returns the ERC types of those of addrs the store
	// holds as contracts (deployed, or seen emitting transfers).
	EVMContractTypes(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]internal.ERCType, error)
}

var evmBlockColumns = []string{"chain_id", "number", "hash", "parent_hash", "timestamp", "miner", "gas_limit",
	"gas_used", "base_fee", "size", "tx_count", "traced", "time_ms", "min_delay_excess", "block_gas_cost", "fees_spent",
	"cumulative_txs"}

// evmBlockCumulative is the index of cumulative_txs in evmBlockColumns,
// set once the previous block's is read.
const evmBlockCumulative = 16

// EVMDerivation writes, through tx, the state an EVM chain's blocks
// derive (package derive/evmstate). It runs in the batch's transaction
// after the blocks' own rows are written, and must be idempotent: a
// batch may be applied again after a crash.
type EVMDerivation func(ctx context.Context, tx *EVMTx, blocks []*internal.EVMBlockData) error

// EVMTx is an EVM chain batch's transaction as ApplyEVMBlocks hands it to
// its derivation: the writes of derived state, each in the file of its
// noun, and the reads they need. It is valid only during that call.
type EVMTx struct {
	db  *database.DB
	cid int64
	// applied is the chain's cursor before the batch, when ok.
	applied uint64
	ok      bool
	// committed, when set, reads what the derivation's steps read of
	// their own tables before writing them (database.DB.Committed), beside
	// the batch's queued writes: ApplyEVMBlocks runs each step once, and
	// no step reads another's rows. Unset, the reads go through db.
	committed *database.DB
}

// reads is the handle for a step's reads of its own tables before its
// writes.
func (t *EVMTx) reads() *database.DB {
	if t.committed != nil {
		return t.committed
	}
	return t.db
}

// Applied is the last block of the chain applied before the batch; false
// when none was. A batch may start at or below it: applied again, or
// overlapping what was.
func (t *EVMTx) Applied() (uint64, bool) { return t.applied, t.ok }

// evmDecoded are the writes of what evm decodes with a block, in the
// order ingestion has always run them; none reads another's rows.
var evmDecoded = []func(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error{
	applyEVMTxs,
	applyEVMLogs,
	applyEVMInternalTxs,
	applyEVMTransfers,
	applyEVMContracts,
	applyTeleporter,
	applyICM,
}

func (s *sqlStore) ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData, derive EVMDerivation) (err error) {
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
			clampInt64(b.GasLimit), clampInt64(b.GasUsed), optBig(b.BaseFee), clampInt64(b.Size), b.TxCount, boolInt(b.Traced),
			optInt64(b.TimeMilliseconds), optInt64(b.MinDelayExcess), optBig(b.BlockGasCost), bigBytes(internal.FeesSpent(b.Txs)), nil}
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
		if !ok || first > cur {
			ctx = withNewBlocks(ctx)
		}
		if err := setCumulativeTxs(ctx, tx, cid, first, blocks, rows); err != nil {
			return err
		}
		n, err := tx.BulkInsert(ctx, "evm_blocks", evmBlockColumns, rows, newRowsConflict(ctx))
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
		for _, write := range evmDecoded {
			if err := write(ctx, tx, cid, blocks); err != nil {
				return err
			}
		}
		if err := derive(ctx, &EVMTx{db: tx, cid: cid, applied: cur, ok: ok, committed: tx.Committed()}, blocks); err != nil {
			return err
		}
		return moveCursor(ctx, tx, key, last, ids.ID(blocks[len(blocks)-1].Hash))
	})
}

// setCumulativeTxs sets the rows' cumulative_txs from the block before
// first: zero before the genesis; left NULL when that block's is unknown
// (a chain not stored from its genesis).
func setCumulativeTxs(ctx context.Context, tx *database.DB, cid int64, first uint64, blocks []*internal.EVMBlockData, rows [][]any) error {
	var total int64
	if first > 0 {
		var prev sql.NullInt64
		err := tx.QueryRow(ctx, "SELECT cumulative_txs FROM evm_blocks WHERE chain_id = ? AND number = ?", cid, int64(first-1)).Scan(&prev)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !prev.Valid) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the cumulative txs of block %d: %w", first-1, err)
		}
		total = prev.Int64
	}
	for i, b := range blocks {
		total += int64(b.TxCount)
		rows[i][evmBlockCumulative] = total
	}
	return nil
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

// evmBlockSelect reads the columns scanEVMBlock scans.
const evmBlockSelect = `SELECT number, hash, parent_hash, timestamp, miner, gas_limit, gas_used, base_fee, size, tx_count,
	time_ms, min_delay_excess, block_gas_cost, fees_spent, cumulative_txs FROM evm_blocks`

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
		if b, err = scanEVMBlock(tx.QueryRow(ctx, evmBlockSelect+" WHERE chain_id = ? AND number = ?", cid, int64(n))); err != nil {
			return err
		}
		return fillFeesSpent(ctx, tx, cid, b)
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
	b, err := scanEVMBlock(s.db.QueryRow(ctx, evmBlockSelect+" WHERE chain_id = ? AND number = ?", cid, int64(number)))
	if err != nil {
		return nil, err
	}
	return b, fillFeesSpent(ctx, s.db, cid, b)
}

func (s *sqlStore) EVMBlockByHash(ctx context.Context, chainID uint64, hash common.Hash) (_ *internal.EVMBlock, err error) {
	defer derrors.Wrap(&err, "store.EVMBlockByHash(%d, %s)", chainID, hash)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	b, err := scanEVMBlock(s.db.QueryRow(ctx, evmBlockSelect+" WHERE chain_id = ? AND hash = ?", cid, hash[:]))
	if err != nil {
		return nil, err
	}
	return b, fillFeesSpent(ctx, s.db, cid, b)
}

func (s *sqlStore) EVMBlocks(ctx context.Context, chainID uint64, before *uint64, limit int) (_ []internal.EVMBlock, err error) {
	defer derrors.Wrap(&err, "store.EVMBlocks(%d)", chainID)
	cid, err := evmChainID(chainID)
	if err != nil {
		return nil, err
	}
	return evmBlocksBefore(ctx, s.db, cid, before, limit)
}

// evmBlocksBefore reads up to limit blocks of the chain below before (nil:
// from the last), most recent first.
func evmBlocksBefore(ctx context.Context, db *database.DB, cid int64, before *uint64, limit int) ([]internal.EVMBlock, error) {
	bound := int64(math.MaxInt64)
	if before != nil {
		bound = blockBound(*before)
	}
	out := make([]internal.EVMBlock, 0, limit)
	sc := newBlockScanner(false, true)
	err := db.RunPrepared(ctx, evmBlockSelect+" WHERE chain_id = ? AND number < ? ORDER BY number DESC LIMIT ?",
		func(rows *sql.Rows) error {
			b, err := sc.scan(rows)
			if err != nil {
				return err
			}
			out = append(out, *b)
			return nil
		}, cid, bound, limit)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if err := fillFeesSpent(ctx, db, cid, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EVMChainBlock is a block of one of several chains.
type EVMChainBlock struct {
	ChainID uint64
	internal.EVMBlock
}

// EVMTimeKey is a position in the lists of several chains, most recent
// first: by block timestamp, then chain id, then block number (and tx
// index), all descending.
type EVMTimeKey struct {
	Timestamp int64
	ChainID   uint64
	Number    uint64
	// Index is the tx's index in its block; unused by the blocks' list.
	Index uint32
}

func (k EVMTimeKey) before(o EVMTimeKey) bool {
	switch {
	case k.Timestamp != o.Timestamp:
		return k.Timestamp > o.Timestamp
	case k.ChainID != o.ChainID:
		return k.ChainID > o.ChainID
	case k.Number != o.Number:
		return k.Number > o.Number
	}
	return k.Index > o.Index
}

func (s *sqlStore) EVMLatestBlocks(ctx context.Context, chainIDs []uint64, after *EVMTimeKey, limit int) (_ []EVMChainBlock, err error) {
	defer derrors.Wrap(&err, "store.EVMLatestBlocks(%v)", chainIDs)
	arms, err := latestArms(chainIDs, after, false)
	if err != nil || len(arms) == 0 {
		return nil, err
	}
	q, args := latestBlocksQuery(arms, limit)
	out := make([]EVMChainBlock, 0, limit)
	sc := newBlockScanner(true, true)
	err = s.db.RunPrepared(ctx, q, func(rows *sql.Rows) error {
		b, err := sc.scan(rows)
		if err != nil {
			return err
		}
		out = append(out, EVMChainBlock{ChainID: uint64(sc.chainID), EVMBlock: *b})
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if err := fillFeesSpent(ctx, s.db, int64(out[i].ChainID), &out[i].EVMBlock); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanEVMBlock(row scanner) (*internal.EVMBlock, error) {
	return newBlockScanner(false, false).scan(row)
}

// blockScanner scans evmBlockSelect's columns (after the chain id
// withChain) into destinations made once, for the rows of a list; raw
// scans the byte columns as sql.RawBytes, which only *sql.Rows allows.
type blockScanner struct {
	chainID, number, ts, gasLimit, gasUsed, size int64
	txCount                                      int
	timeMS, delay, cumulative                    sql.NullInt64
	// hash, parent hash, miner, base fee, block gas cost, fees spent
	b    [6]sql.RawBytes
	dest []any
}

func newBlockScanner(withChain, raw bool) *blockScanner {
	s := &blockScanner{}
	var b [6]any
	for i := range s.b {
		if raw {
			b[i] = &s.b[i]
		} else {
			b[i] = (*[]byte)(&s.b[i])
		}
	}
	if withChain {
		s.dest = append(s.dest, &s.chainID)
	}
	s.dest = append(s.dest, &s.number, b[0], b[1], &s.ts, b[2], &s.gasLimit, &s.gasUsed, b[3], &s.size, &s.txCount,
		&s.timeMS, &s.delay, b[4], b[5], &s.cumulative)
	return s
}

func (s *blockScanner) scan(row scanner) (*internal.EVMBlock, error) {
	err := row.Scan(s.dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	return &internal.EVMBlock{Number: uint64(s.number), Timestamp: fromUnixSeconds(s.ts),
		Hash: common.BytesToHash(s.b[0]), ParentHash: common.BytesToHash(s.b[1]), Miner: common.BytesToAddress(s.b[2]),
		GasLimit: uint64(s.gasLimit), GasUsed: uint64(s.gasUsed), Size: uint64(s.size), TxCount: s.txCount,
		BaseFee: optBigFrom(s.b[3]), BlockGasCost: optBigFrom(s.b[4]), FeesSpent: optBigFrom(s.b[5]),
		TimeMilliseconds: optUint64From(s.timeMS), MinDelayExcess: optUint64From(s.delay), CumulativeTxs: optUint64From(s.cumulative)}, nil
}

// fillFeesSpent sums the fees of a block stored before fees_spent was.
func fillFeesSpent(ctx context.Context, db *database.DB, cid int64, b *internal.EVMBlock) error {
	if b.FeesSpent != nil {
		return nil
	}
	var txs []internal.EVMTx
	err := db.RunQuery(ctx, "SELECT gas_used, gas_price FROM evm_txs WHERE chain_id = ? AND block_number = ?", func(rows *sql.Rows) error {
		var (
			used  int64
			price []byte
		)
		if err := rows.Scan(&used, &price); err != nil {
			return err
		}
		txs = append(txs, internal.EVMTx{GasUsed: uint64(used), GasPrice: bigFrom(price)})
		return nil
	}, cid, int64(b.Number))
	if err != nil {
		return fmt.Errorf("the fees of block %d: %w", b.Number, err)
	}
	b.FeesSpent = internal.FeesSpent(txs)
	return nil
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

// optInt64 is a nullable integer column from an optional uint64.
func optInt64(v *uint64) any {
	if v == nil {
		return nil
	}
	return clampInt64(*v)
}

func optUint64From(v sql.NullInt64) *uint64 {
	if !v.Valid {
		return nil
	}
	n := uint64(v.Int64)
	return &n
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

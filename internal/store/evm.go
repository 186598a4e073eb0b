package store

import (
	"context"
	"math/big"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// EVMCursor is the cursor of an EVM chain's blocks, by EVM chain id.
func EVMCursor(chainID uint64) CursorKey {
	return CursorKey("evm:" + new(big.Int).SetUint64(chainID).String())
}

// BlockRange is a range of block numbers: From inclusive, To exclusive;
// nil ends are open.
type BlockRange struct {
	From *uint64
	To   *uint64
}

// EVMTransferKey is a transfer's position in the lists' order (most
// recent first): block, log, and position within a TransferBatch.
type EVMTransferKey struct {
	BlockNumber uint64
	LogIndex    uint32
	BatchIndex  uint32
}

// EVMContractKey is a deployment's position in the deployer's list (most
// recent first).
type EVMContractKey struct {
	BlockNumber uint64
	Index       uint64
}

// EVMReader is what the EVM Data API reads of the EVM chains. Every method
// takes the EVM chain id; lists return at most limit items strictly after
// the key after (nil: from the start), most recent first.
type EVMReader interface {
	EVMAddressReader
	// EVMHead returns the last indexed block of the chain; NotFound when
	// none is.
	EVMHead(ctx context.Context, chainID uint64) (*internal.EVMBlock, error)
	// EVMBlock returns the indexed block number of the chain (a tx's
	// block, for its baseFeePerGas); NotFound when not indexed.
	EVMBlock(ctx context.Context, chainID uint64, number uint64) (*internal.EVMBlock, error)
	// EVMBlockByHash returns the indexed block of that hash; NotFound
	// when none is.
	EVMBlockByHash(ctx context.Context, chainID uint64, hash common.Hash) (*internal.EVMBlock, error)
	// EVMBlocks lists the chain's blocks below before (nil: from the
	// last indexed).
	EVMBlocks(ctx context.Context, chainID uint64, before *uint64, limit int) ([]internal.EVMBlock, error)
	// EVMLatestBlocks lists the blocks of the chains, most recent first
	// (EVMTimeKey's order).
	EVMLatestBlocks(ctx context.Context, chainIDs []uint64, after *EVMTimeKey, limit int) ([]EVMChainBlock, error)
	// EVMBlockTxs lists the txs of block number in block order, after the
	// tx of index after (nil: from the first). Listed txs carry their
	// block's header fields, and of their input only the method selector.
	EVMBlockTxs(ctx context.Context, chainID, number uint64, after *uint32, limit int) ([]internal.EVMTx, error)
	// EVMLatestTxs lists the chain's txs, most recent first, those of
	// receipt status *status only when status is set.
	EVMLatestTxs(ctx context.Context, chainID uint64, status *uint8, after *EVMTxKey, limit int) ([]internal.EVMTx, error)
	// EVMLatestTxsAllChains is EVMLatestTxs over several chains, in
	// EVMTimeKey's order.
	EVMLatestTxsAllChains(ctx context.Context, chainIDs []uint64, status *uint8, after *EVMTimeKey, limit int) ([]EVMChainTx, error)
	// EVMTxDetails returns a tx with its internal txs, transfers and
	// Teleporter message; NotFound when not indexed.
	EVMTxDetails(ctx context.Context, chainID uint64, hash common.Hash) (*internal.EVMTxDetails, error)
	// EVMContract returns a deployed contract; NotFound when the address
	// is not a contract deployed on the indexed chain. A contract seen
	// emitting transfers that no indexed block deployed (a genesis
	// allocation) is returned too, described, with a zero TxHash and
	// Deployer.
	EVMContract(ctx context.Context, chainID uint64, addr common.Address) (*internal.EVMContract, error)
	// EVMContracts returns those of addrs that EVMContract returns, at
	// once.
	EVMContracts(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]*internal.EVMContract, error)
	// EVMContractsByDeployer lists the contracts whose Deployer or
	// DeployerContract is deployer.
	EVMContractsByDeployer(ctx context.Context, chainID uint64, deployer common.Address, after *EVMContractKey, limit int) ([]internal.EVMContract, error)
	// EVMAddressTransfers lists the transfers of tokens of type typ from
	// or to addr within r.
	EVMAddressTransfers(ctx context.Context, chainID uint64, addr common.Address, typ internal.ERCType, r BlockRange, after *EVMTransferKey, limit int) ([]internal.EVMTransfer, error)
	// EVMTokenTransfers lists the transfers of one token contract within r.
	EVMTokenTransfers(ctx context.Context, chainID uint64, token common.Address, r BlockRange, after *EVMTransferKey, limit int) ([]internal.EVMTransfer, error)
	// EVMNativeBalance returns addr's balance after block number (zero
	// when it never held any); ok is false when the chain's balances are
	// not indexed (no tracer: ask the node).
	EVMNativeBalance(ctx context.Context, chainID uint64, addr common.Address, number uint64) (balance *big.Int, ok bool, err error)
}

package ingest

import (
	"context"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// Store is what the indexer calls of the store: each chain's apply of a
// batch with its cursor, and the few reads a follower needs to resume
// (cursors, the stored block at a cursor) or to decode (the contracts'
// types, a chain's blockchain). store.Store satisfies it.
type Store interface {
	Cursor(ctx context.Context, key store.CursorKey) (height uint64, ok bool, err error)

	// The container indexes' mirror (containers.go).
	ApplyContainers(ctx context.Context, index string, cs []store.Container) error
	SetIndexSource(ctx context.Context, index string, src store.IndexSource) error
	ContainerRange(ctx context.Context, index string, first, last uint64) ([]store.Container, error)

	// The P-, X- and C-chains (xc.go).
	ApplyPBlocks(ctx context.Context, batch *internal.PBatch, derive store.PDerivation) error
	PBlockByHeight(ctx context.Context, height uint64) (*internal.PBlock, error)
	ApplyXBlocks(ctx context.Context, blocks []*internal.XBlockData, derive store.XDerivation) error
	XBlockByHeight(ctx context.Context, height uint64) (*internal.XBlock, error)
	ApplyXDAGTxs(ctx context.Context, txs []*internal.XDAGTxData, derive store.XDAGDerivation) error
	XDAGContainers(ctx context.Context, max int) ([]store.Container, error)
	ApplyXVertices(ctx context.Context, vs []*internal.XVertex) error
	XVertexContainers(ctx context.Context, max int) ([]store.Container, error)
	ApplyCBlocks(ctx context.Context, blocks []*internal.CBlockData, derive store.CDerivation) error
	CLastHash(ctx context.Context) (ids.ID, error)

	// The supply the node reports (ingest.go).
	Supply(ctx context.Context, subnetID ids.ID) (*store.Supply, error)
	PutSupply(ctx context.Context, subnetID ids.ID, height, supply uint64) error

	// The EVM chains (evm.go).
	ApplyEVMBlocks(ctx context.Context, chainID uint64, blocks []*internal.EVMBlockData, derive store.EVMDerivation) error
	EVMBlockHash(ctx context.Context, chainID, number uint64) (common.Hash, error)
	EVMContractTypes(ctx context.Context, chainID uint64, addrs []common.Address) (map[common.Address]internal.ERCType, error)
	NFTTokenIDs(ctx context.Context, chainID uint64, token common.Address, from, to *big.Int, limit int) ([]*big.Int, error)
	Blockchain(ctx context.Context, id ids.ID) (*pchain.Blockchain, error)
	// The ICM events of blocks stored before they were (icm.go).
	ICMBackfill(ctx context.Context, chainID uint64) (upTo uint64, ok bool, err error)
	EVMStoredLogs(ctx context.Context, chainID uint64, address common.Address, from, to uint64) ([]store.StoredLog, error)
	ApplyICMBackfill(ctx context.Context, chainID uint64, events []internal.ICMEvent, done bool) error
	// The ERC-20 balances kept from the logs, checked against the node
	// (erc20check.go).
	store.ERC20Store
}

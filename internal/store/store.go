// Package store is avaindex's persistence: one Store interface, served by
// one implementation over internal/database, which runs on SQLite (the
// embedded default) and PostgreSQL with the same schema and queries.
package store

import (
	"context"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
)

// Store is everything the ingester writes and the API handlers read.
//
// Reads of a missing record return an error wrapping derrors.NotFound.
// Each concern's methods are an interface of their own, in its own file.
type Store interface {
	ContainerStore
	PUTXOStore
	PStateStore
	StakerStore
	XStore
	L1FeeStore
	CStore
	XUTXOStore
	XDAGStore
	AtomicStore
	BlockSummaryStore
	UTXOListStore
	HistoricalRewardStore
	XAssetStore

	// ApplyPBlocks writes blocks (consecutive heights, ascending, decoded
	// by pchain, option blocks linked to their proposal blocks: see
	// pchain.LinkProposals) with their transactions and the state derived
	// from them, and moves the P-chain cursor to the last height, all in
	// one database transaction. Re-applying a block already stored changes
	// nothing, so a crash at any point resumes with nothing lost or doubled;
	// the cursor never moves back. A batch that is not consecutive, or that
	// would leave a gap after the cursor (first height > cursor+1), fails
	// with derrors.InvalidArgument; one that disagrees with what is stored
	// (another block at a stored height, a tx id stored for another block)
	// fails whole. An empty batch does nothing.
	ApplyPBlocks(ctx context.Context, blocks []*pchain.Block) error

	// Cursor returns the last height applied for chain; ok is false when
	// nothing has been applied yet.
	Cursor(ctx context.Context, chain internal.Chain) (height uint64, ok bool, err error)

	// PBlockByHeight and PBlockByID return a stored P-chain block with its
	// transactions.
	PBlockByHeight(ctx context.Context, height uint64) (*internal.PBlock, error)
	PBlockByID(ctx context.Context, id ids.ID) (*internal.PBlock, error)

	// Setting and PutSettingIfAbsent keep small service state, such as the
	// page-token key, that must survive restarts and be shared by every
	// avaindex process using the same database.
	Setting(ctx context.Context, key string) (value []byte, ok bool, err error)
	PutSettingIfAbsent(ctx context.Context, key string, value []byte) error

	// Ping checks the database answers.
	Ping(ctx context.Context) error
	Close() error
}

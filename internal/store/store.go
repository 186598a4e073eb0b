// Package store is avaindex's persistence: one Store interface, served by
// one implementation over internal/database, which runs on SQLite (the
// embedded default) and PostgreSQL with the same schema and queries.
//
// It keeps the tables, the reads, the cursors and the transaction shell in
// which a batch of blocks is written with the state derived from it: each
// chain's Apply*Blocks (and ApplyXDAGTxs) writes the blocks and hands the
// batch's transaction (PTx, XTx, DAGTx, CTx, EVMTx: the writes of derived
// state, and the reads they need) to the derivation it is given, the
// ordered list in derive/pstate, xstate, cstate or evmstate; no write
// derives. The values it writes are the domain types of package internal
// (PBatch, XBlockData, CBlockData, EVMBlockData, UTXOOutput, ...), which
// the chain packages decode and derive; it imports no decoder and no
// derivation. The P-chain's replays over what is stored (L1 fees, staking
// rewards) are PBatch.Replay, which derive/staking runs over the state
// PTx loads.
// Open only migrates: the backfills a migration asks for and the metrics'
// catch-up are per-range fills (BackfillStore) that the derivation layer
// runs, decoding what needs decoding itself.
package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// Store is everything the ingester writes and the API handlers read.
//
// Reads of a missing record return an error wrapping derrors.NotFound.
// Each concern's methods are an interface of their own, in its own file.
type Store interface {
	ContainerStore
	PUTXOStore
	UTXOPageStore
	SubnetStore
	SubnetListStore
	SupplyStore
	BurnedStore
	LockedStore
	StakerStore
	XStore
	L1FeeStore
	L1FeeHistoryStore
	CStore
	XDAGStore
	XVertexStore
	XVertexListStore
	PBlockStore
	CursorStore
	SettingStore
	ChainBlockStore
	TxStore
	AssetTxStore
	AddressTxStore
	ProposerStore
	ActiveStakerStore
	ValidatorListStore
	UTXOListStore
	HistoricalRewardStore
	MetricStore
	LookingGlassReader
	EVMStore
	ERC20Store
	NFTStore
	ICMStore
	ICMBackfillStore
	APIKeyStore
	WebhookStore
	APIRequestStore
	OperationStore
	LeaseStore
	RederiveStore
	BackfillStore

	// Ping checks the database answers.
	Ping(ctx context.Context) error
	// Backup writes a consistent copy of a SQLite store to the new file
	// path while it is in use (database.DB.Backup); a PostgreSQL store
	// answers database.ErrNoOnlineBackup.
	Backup(ctx context.Context, path string) error
	// Generation counts the store's changes; WatchChanges makes it see
	// other processes' writes too (database.DB.Generation).
	Generation() uint64
	WatchChanges(ctx context.Context, interval time.Duration) error
	Close() error
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the schema migrations, for database.DB.Migrate.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	return sub
}

// Open opens the database named by dsn ("sqlite:PATH" or a PostgreSQL URL,
// see database.Open), applies the migrations it lacks, and returns a Store
// over it. It decodes and derives nothing: the backfills the migrations
// ask for, and the metrics' catch-up, are the derivation layer's
// (derive.RunBackfills), which the service runs under the indexer lease.
func Open(ctx context.Context, dsn string) (Store, error) {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx, Migrations()); err != nil {
		db.Close()
		return nil, err
	}
	return New(db), nil
}

// New returns a Store over db, which must be migrated already. The Store
// owns db: its Close closes db.
func New(db *database.DB) Store {
	return &sqlStore{db: db}
}

type sqlStore struct {
	db *database.DB
}

const onConflictDoNothing = "ON CONFLICT DO NOTHING"

type scanner interface{ Scan(dest ...any) error }

func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.db.Ping(ctx); err != nil {
		return fmt.Errorf("store.Ping: %w: %w", derrors.Unavailable, err)
	}
	return nil
}

func (s *sqlStore) Close() error { return s.db.Close() }

// Generation counts the store's changes (database.DB.Generation): what is
// read from it may be kept while the count stays.
func (s *sqlStore) Generation() uint64 { return s.db.Generation() }

// WatchChanges makes Generation follow other instances' and processes'
// writes too, looking every interval until ctx ends (database.DB.WatchChanges).
func (s *sqlStore) WatchChanges(ctx context.Context, interval time.Duration) error {
	return s.db.WatchChanges(ctx, interval)
}

func (s *sqlStore) Backup(ctx context.Context, path string) error { return s.db.Backup(ctx, path) }

// unixSeconds is t in unix seconds, 0 for the zero time.
func unixSeconds(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

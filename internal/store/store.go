// Package store is avaindex's persistence: one Store interface, served by
// one implementation over internal/database, which runs on SQLite (the
// embedded default) and PostgreSQL with the same schema and queries.
//
// It keeps the tables, the reads, the cursors and the transaction shell in
// which a batch of blocks is written with the state derived from it (each
// chain's appliers, one ordered list per chain: pAppliers, xAppliers,
// evmAppliers). The values it writes are the domain types of package
// internal (PBatch, XBlockData, CBlockData, EVMBlockData, UTXOOutput,
// ...), which the chain packages decode and derive; it imports no decoder.
// The P-chain's replays over what is stored (L1 fees, staking rewards)
// reach it as PBatch.Replay, which it calls inside the batch's transaction.
// Open decodes nothing: the metrics' catch-up reads the stored blocks with
// the decoders the derivation layer hands it (WithMetricsCatchUp).
package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/avaindex/avaindex/internal"
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

	// Ping checks the database answers.
	Ping(ctx context.Context) error
	// Backup writes a consistent copy of a SQLite store to the new file
	// path while it is in use (database.DB.Backup); a PostgreSQL store
	// answers database.ErrNoOnlineBackup.
	Backup(ctx context.Context, path string) error
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

// Option configures Open.
type Option func(*openOptions)

type openOptions struct {
	metricDecoders map[internal.Chain]MetricDecoder
}

// WithMetricsCatchUp has Open roll up the chain metrics of the P- and
// X-chain blocks stored before them (a store indexed before migration
// 0018), decoded by decoders (the derivation layer's): the store decodes
// nothing itself.
func WithMetricsCatchUp(decoders map[internal.Chain]MetricDecoder) Option {
	return func(o *openOptions) { o.metricDecoders = decoders }
}

// Open opens the database named by dsn ("sqlite:PATH" or a PostgreSQL URL,
// see database.Open), applies the migrations it lacks and the backfills
// they ask for (and, WithMetricsCatchUp, the metrics' catch-up), and
// returns a Store over it.
func Open(ctx context.Context, dsn string, opts ...Option) (Store, error) {
	var o openOptions
	for _, opt := range opts {
		opt(&o)
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx, Migrations()); err != nil {
		db.Close()
		return nil, err
	}
	if err := runBackfills(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if err := catchUpMetrics(ctx, db, o.metricDecoders, slog.Default()); err != nil {
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

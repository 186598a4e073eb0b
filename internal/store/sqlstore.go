package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
)

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
// see database.Open), applies the migrations it lacks and the backfills
// they ask for, and returns a Store over it.
func Open(ctx context.Context, dsn string) (Store, error) {
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
	return New(db), nil
}

// New returns a Store over db, which must be migrated already. The Store
// owns db: its Close closes db.
func New(db *database.DB) Store {
	return &sqlStore{db: db}
}

type sqlStore struct {
	db *database.DB

	// beforeCursor, when set (by tests), runs inside ApplyPBlocks's
	// transaction after the rows are written and before the cursor moves;
	// an error from it aborts the transaction.
	beforeCursor func(tx *database.DB) error
}

const onConflictDoNothing = "ON CONFLICT DO NOTHING"

// pApplier writes state derived from a batch of P-chain blocks inside
// ApplyPBlocks's transaction. Appliers must be idempotent: a batch may be
// applied again after a crash.
type pApplier func(ctx context.Context, tx *database.DB, blocks []*pchain.Block) error

// pAppliers run in order for every batch: applyPStaking writes L1 refund
// UTXOs that applyPUTXOs may see spent, and the stakers that
// applyPRewardHistory reads; applyPAtomic needs the exports and imports
// applyPUTXOs stores.
var pAppliers = []pApplier{applyPStaking, applyPUTXOs, applyPRewardHistory, applyPAtomic, applyPState}

// NetworkSetting is the setting under which the service keeps the indexed
// network (internal.Network as JSON); the L1 fee and reward replays, which
// need the network's id, AVAX and reward configuration, read it with
// storedNetwork.
const NetworkSetting = "network"

// storedNetwork returns the network the service stored; ok is false in a
// store without one (e.g. in store tests).
func storedNetwork(ctx context.Context, tx *database.DB) (_ *internal.Network, ok bool, _ error) {
	var v []byte
	err := tx.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", NetworkSetting).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var n internal.Network
	if err := json.Unmarshal(v, &n); err != nil {
		return nil, false, fmt.Errorf("decoding the stored network: %w", err)
	}
	return &n, true, nil
}

func (s *sqlStore) ApplyPBlocks(ctx context.Context, blocks []*pchain.Block) (err error) {
	if len(blocks) == 0 {
		return nil
	}
	defer derrors.Wrap(&err, "store.ApplyPBlocks(%s)", batchLabel(blocks))
	rows := make([]blockRow, len(blocks))
	for i, b := range blocks {
		if b == nil {
			return fmt.Errorf("block %d of the batch is nil: %w", i, derrors.InvalidArgument)
		}
		rows[i] = blockRow{height: b.Height, id: b.ID, parent: b.ParentID, typ: b.Type, ts: b.Timestamp, bytes: b.Bytes}
		for _, t := range b.Txs {
			rows[i].txs = append(rows[i].txs, txRow{id: t.ID, typ: t.Type, bytes: t.Bytes})
		}
	}
	return s.applyBlocks(ctx, pTables, rows, func(tx *database.DB) error {
		// Derived state, written with the blocks so that it commits (or
		// not) with them and the cursor.
		for _, apply := range pAppliers {
			if err := apply(ctx, tx, blocks); err != nil {
				return err
			}
		}
		if s.beforeCursor != nil {
			return s.beforeCursor(tx)
		}
		return nil
	})
}

func (s *sqlStore) Cursor(ctx context.Context, chain internal.Chain) (_ uint64, _ bool, err error) {
	defer derrors.Wrap(&err, "store.Cursor(%s)", chain)
	return cursor(ctx, s.db, chain)
}

func cursor(ctx context.Context, db *database.DB, chain internal.Chain) (uint64, bool, error) {
	var h int64
	err := db.QueryRow(ctx, "SELECT height FROM cursors WHERE chain = ?", string(chain)).Scan(&h)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return uint64(h), true, nil
}

const pBlockSelect = "SELECT height, id, parent_id, type, timestamp, bytes FROM p_blocks"

func (s *sqlStore) PBlockByHeight(ctx context.Context, height uint64) (_ *internal.PBlock, err error) {
	defer derrors.Wrap(&err, "store.PBlockByHeight(%d)", height)
	if height > math.MaxInt64 {
		return nil, fmt.Errorf("no block at height %d: %w", height, derrors.NotFound)
	}
	return s.oneBlock(ctx, pBlockSelect+" WHERE height = ?", int64(height))
}

func (s *sqlStore) PBlockByID(ctx context.Context, id ids.ID) (_ *internal.PBlock, err error) {
	defer derrors.Wrap(&err, "store.PBlockByID(%s)", id)
	return s.oneBlock(ctx, pBlockSelect+" WHERE id = ?", id[:])
}

func (s *sqlStore) oneBlock(ctx context.Context, query string, arg any) (*internal.PBlock, error) {
	b, err := scanPBlock(s.db.QueryRow(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.NotFound
	}
	if err != nil {
		return nil, err
	}
	if err := s.attachTxs(ctx, []*internal.PBlock{b}); err != nil {
		return nil, err
	}
	return b, nil
}

// attachTxs reads the transactions of blocks, which have consecutive
// heights in either order, and sets each block's Txs in block order.
func (s *sqlStore) attachTxs(ctx context.Context, blocks []*internal.PBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	lo, hi := blocks[0].Height, blocks[len(blocks)-1].Height
	if lo > hi {
		lo, hi = hi, lo
	}
	byHeight := make(map[uint64]*internal.PBlock, len(blocks))
	for _, b := range blocks {
		byHeight[b.Height] = b
	}
	return s.db.RunQuery(ctx, `SELECT block_height, id, type, bytes FROM p_txs
		WHERE block_height BETWEEN ? AND ? ORDER BY block_height, idx`,
		func(rows *sql.Rows) error {
			var (
				h        int64
				id, data []byte
				t        internal.PTx
			)
			if err := rows.Scan(&h, &id, &t.Type, &data); err != nil {
				return err
			}
			var err error
			if t.ID, err = ids.ToID(id); err != nil {
				return fmt.Errorf("stored tx of block %d: %w", h, err)
			}
			t.Bytes = nonNil(data)
			if b := byHeight[uint64(h)]; b != nil {
				b.Txs = append(b.Txs, t)
			}
			return nil
		}, int64(lo), int64(hi))
}

type scanner interface{ Scan(dest ...any) error }

func scanPBlock(r scanner) (*internal.PBlock, error) {
	var (
		h, ts      int64
		id, parent []byte
		b          internal.PBlock
		err        error
	)
	if err := r.Scan(&h, &id, &parent, &b.Type, &ts, &b.Bytes); err != nil {
		return nil, err
	}
	b.Height = uint64(h)
	if b.ID, err = ids.ToID(id); err != nil {
		return nil, fmt.Errorf("stored block %d: id: %w", h, err)
	}
	if b.ParentID, err = ids.ToID(parent); err != nil {
		return nil, fmt.Errorf("stored block %d: parent id: %w", h, err)
	}
	b.Timestamp = fromUnixSeconds(ts)
	b.Bytes = nonNil(b.Bytes)
	return &b, nil
}

func (s *sqlStore) Setting(ctx context.Context, key string) (_ []byte, _ bool, err error) {
	defer derrors.Wrap(&err, "store.Setting(%q)", key)
	var v []byte
	err = s.db.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return nonNil(v), true, nil
}

func (s *sqlStore) PutSettingIfAbsent(ctx context.Context, key string, value []byte) (err error) {
	defer derrors.Wrap(&err, "store.PutSettingIfAbsent(%q)", key)
	_, err = s.db.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, nonNil(value))
	return err
}

func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.db.Ping(ctx); err != nil {
		return fmt.Errorf("store.Ping: %w: %w", derrors.Unavailable, err)
	}
	return nil
}

func (s *sqlStore) Close() error { return s.db.Close() }

// batchLabel names a batch for errors: its first and last heights.
func batchLabel(blocks []*pchain.Block) string {
	first, last := blocks[0], blocks[len(blocks)-1]
	if first == nil || last == nil {
		return fmt.Sprintf("%d blocks", len(blocks))
	}
	return fmt.Sprintf("%d..%d", first.Height, last.Height)
}

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

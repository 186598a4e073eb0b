// Package database is a thin layer over database/sql that lets the rest of
// avaindex run the same queries on SQLite and PostgreSQL.
//
// Queries are written once, with ? placeholders; on PostgreSQL they are
// rewritten to $1, $2, ... before they are sent (see Rebind). Everything
// else (types, upserts with ON CONFLICT, RETURNING) is the common subset of
// the two dialects that the schema and the queries keep to.
//
// On SQLite a DB holds two connection pools over the same file: a single
// writer connection, which takes every Exec, every transaction and every
// statement that is not a SELECT, and a pool of read-only connections for
// SELECTs made outside a transaction. WAL mode lets the readers run while
// the writer writes. Code running inside Transact must use the *DB it is
// handed: with one writer connection, a write through the outer *DB would
// wait for the transaction that is waiting for it.
//
// Every other difference between the two lives here too: bulk insert (on
// PostgreSQL COPY when there is no conflict clause, else one unnest
// statement of column arrays; a table analyzed once it doubled,
// analyze.go, so that a store growing from empty keeps its index plans),
// lists matched as one array on PostgreSQL (InList), bulk loads
// (BeginBulkLoad: secondary indexes built after the rows), BulkUpdate,
// transaction locks (LockTx), migrations (a version may have one file per backend,
// NNNN_name.sqlite.sql / .postgres.sql), online backup (Backup, SQLite's
// VACUUM INTO), and the leases instances share work by (lease.go: a
// PostgreSQL session advisory lock or a SQLite file lock, with an epoch
// that fences the writes of the Transacts made under WithLease).
package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mattn/go-sqlite3"
)

// Dialect names the SQL backend of a DB.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Parameter limits per statement. SQLite's is read from the connection at
// open (32766 for the bundled library); this is the fallback.
const (
	sqliteDefaultMaxParams = 999
	postgresMaxParams      = 65535
)

// SQLite connection settings. busyTimeout is how long a connection waits
// for another process's lock before failing with SQLITE_BUSY.
const (
	busyTimeout = 10 * time.Second
	// Page cache per connection: the writer keeps the hot index pages of a
	// growing database; readers mostly read recent rows.
	writerCacheKB = 64 * 1024
	readerCacheKB = 16 * 1024
)

// sqlitePageSize is a new database's page size. SQLite's default, 4 KiB,
// makes every commit write its dirty pages to the WAL in twice as many
// system calls as 8 KiB and four times as many as 16 KiB; random-key
// index inserts dirty about as many pages whatever their size. 16 KiB
// made the SQLite ingestion benchmarks 14-29% faster, and a read of
// many random index ranges (A18 by time) up to half slower; 32 and 64
// KiB added nothing measurable (docs/benchmarks.md, "SQLite's page
// size").
const sqlitePageSize = 16 << 10

// createSQLite creates the database at path, when there is none, with
// sqlitePageSize pages. The page size is fixed once the file has its
// first page, which setting the WAL mode writes, so this comes before the
// writer's connection (whose DSN sets the mode); a database that exists
// keeps its page size.
func createSQLite(ctx context.Context, path string) error {
	if path == ":memory:" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	c, err := sql.Open("sqlite3", path+fmt.Sprintf("?_busy_timeout=%d", busyTimeout.Milliseconds()))
	if err != nil {
		return err
	}
	defer c.Close()
	// Processes creating the same file race to switch it to WAL; the
	// losers' switch fails at once, and finds WAL set when tried again.
	return retryLocked(ctx, func() error {
		_, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d; PRAGMA journal_mode = WAL", sqlitePageSize))
		if err != nil {
			return fmt.Errorf("creating the database: %w", err)
		}
		return nil
	})
}

// sqliteDriver is mattn's driver with the settings that have no DSN
// parameter applied to each new connection.
const sqliteDriver = "avaindex-sqlite3"

func init() {
	sql.Register(sqliteDriver, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			pageSize, err := pragmaInt(c, "page_size")
			if err != nil {
				return err
			}
			_, err = c.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint = %d; PRAGMA journal_size_limit = 0", walAutocheckpoint(pageSize)), nil)
			return err
		},
	})
}

// pragmaInt reads an integer pragma on a new connection.
func pragmaInt(c *sqlite3.SQLiteConn, name string) (int64, error) {
	rows, err := c.Query("PRAGMA "+name, nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return 0, fmt.Errorf("PRAGMA %s: %w", name, err)
	}
	n, ok := v[0].(int64)
	if !ok {
		return 0, fmt.Errorf("PRAGMA %s: got %T", name, v[0])
	}
	return n, nil
}

// DB is a handle on the database, or on one transaction when it is the
// argument of a Transact function. It is safe for concurrent use, except
// that a transaction's DB must be used only by the function it was handed
// to.
type DB struct {
	dialect Dialect
	w       *sql.DB   // writes, transactions; on PostgreSQL everything
	r       *sql.DB   // SQLite: read-only pool for SELECTs; else same as w
	tx      *sql.Tx   // non-nil inside Transact and ReadTx
	conn    *sql.Conn // PostgreSQL, inside Transact and ReadTx: tx's connection (COPY, EachRow)
	readTx  bool      // tx is a ReadTx's, on a reader connection
	// analyzeAfter: PostgreSQL, inside Transact: the tables to analyze
	// once the transaction commits (analyze.go).
	analyzeAfter *[]string
	shared       *shared
	path         string // SQLite: the database file
	// queue: inside Transact, the transaction's queued writes (queue.go).
	queue *writeQueue
}

// shared is the state a DB shares with the transaction DBs made from it.
type shared struct {
	maxParams int
	ckpt      *checkpointer // SQLite with readers: the background checkpoints
	analyzer  *analyzer     // PostgreSQL: the ANALYZEs after commits

	mu   sync.Mutex
	sqls map[bulkKey]string // bulk INSERT texts, already rebound
	// colTypes are PostgreSQL tables' column types, by table and column,
	// for BulkInsert's unnest statements.
	colTypes map[string]map[string]string

	// stmts are SQLite readers' statements kept by RunPrepared.
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt

	// growth is BulkInsert's count of rows per table since PostgreSQL's
	// statistics last counted them (analyze.go).
	growMu sync.Mutex
	growth map[string]*growth

	// values are the callers' per-database state (Value).
	values sync.Map

	// gen counts the changes seen (changes.go).
	gen atomic.Uint64

	// trace is Trace's function, when set.
	trace atomic.Pointer[func(query string, args []any)]
}

// Trace makes db, and every transaction made from it, call f with the text
// (with ? placeholders) and arguments of each statement before running it;
// nil stops. It is for tests that check what the statements of a piece of
// code do, such as how SQLite plans them (a plan is chosen per text, and
// without statistics one can scan a whole table per batch).
func (db *DB) Trace(f func(query string, args []any)) {
	if f == nil {
		db.shared.trace.Store(nil)
		return
	}
	db.shared.trace.Store(&f)
}

// traced calls Trace's function, if any, on query.
func (db *DB) traced(query string, args []any) {
	if f := db.shared.trace.Load(); f != nil {
		(*f)(query, args)
	}
}

// Value returns the value kept under key for this database (and every
// transaction made from it), made by mk on first use: per-database
// in-memory state, such as a cache that the store's batch writes, which
// see only a transaction, share across batches.
func (db *DB) Value(key any, mk func() any) any {
	if v, ok := db.shared.values.Load(key); ok {
		return v
	}
	v, _ := db.shared.values.LoadOrStore(key, mk())
	return v
}

// maxPreparedStmts bounds the statements RunPrepared keeps; past it, other
// texts run unprepared. Statements are never closed before the DB: one in
// use would fail.
const maxPreparedStmts = 1024

// sqliteStmtCache is the statements the SQLite driver keeps prepared per
// connection, most recently used first: the hot reads and the ingester's
// inserts are a few dozen texts.
const sqliteStmtCache = 128

// Open opens the database named by dsn and checks that it answers. dsn is
// either "sqlite:PATH" (PATH a file name, created when missing, or
// ":memory:") or a PostgreSQL URL "postgres://..." / "postgresql://...".
// Open does not apply migrations; see Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		return openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return openPostgres(ctx, dsn)
	case dsn == "":
		return nil, errors.New("database.Open: empty database DSN; want sqlite:PATH or postgres://...")
	default:
		scheme := dsn
		if i := strings.IndexAny(scheme, ":/ "); i >= 0 {
			scheme = scheme[:i]
		}
		return nil, fmt.Errorf("database.Open: unsupported database DSN (scheme %q); want sqlite:PATH or postgres://... / postgresql://...", scheme)
	}
}

func openSQLite(ctx context.Context, path string) (_ *DB, err error) {
	switch {
	case path == "":
		return nil, errors.New("database.Open: sqlite DSN has no path; want sqlite:PATH, e.g. sqlite:/var/lib/avaindex/avaindex.db")
	case strings.HasPrefix(path, "//"):
		return nil, fmt.Errorf("database.Open: sqlite DSN %q looks like a URL; write sqlite:PATH, e.g. sqlite:/var/lib/avaindex/avaindex.db", "sqlite:"+path)
	case strings.ContainsAny(path, "?#"):
		return nil, fmt.Errorf("database.Open: sqlite path %q must not contain '?' or '#'", path)
	}
	if err := createSQLite(ctx, path); err != nil {
		return nil, fmt.Errorf("database.Open(sqlite:%s): %w", path, err)
	}
	// _stmt_cache_size keeps each connection's last prepared statements
	// (the driver's LRU by query text): otherwise every Query, QueryRow and
	// Exec prepares its SQL anew, a tenth of a page of blocks' CPU.
	common := fmt.Sprintf("_busy_timeout=%d&_foreign_keys=on&_stmt_cache_size=%d", busyTimeout.Milliseconds(), sqliteStmtCache)
	// _txlock=immediate makes BEGIN take the write lock at once, so two
	// processes' transactions queue on the busy timeout instead of failing
	// when a reader tries to become a writer.
	w, err := sql.Open(sqliteDriver, path+fmt.Sprintf("?_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate&_cache_size=-%d&%s", writerCacheKB, common))
	if err != nil {
		return nil, fmt.Errorf("database.Open: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	maxParams := sqliteDefaultMaxParams
	conn, err := firstConn(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("database.Open(sqlite:%s): %w", path, err)
	}
	err = conn.Raw(func(dc any) error {
		if c, ok := dc.(*sqlite3.SQLiteConn); ok {
			if n := c.GetLimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER); n > 0 {
				maxParams = n
			}
		}
		return nil
	})
	conn.Close()
	if err != nil {
		return nil, fmt.Errorf("database.Open(sqlite:%s): %w", path, err)
	}

	db := &DB{dialect: SQLite, w: w, r: w, shared: newShared(maxParams), path: path}
	if path == ":memory:" {
		// Each connection would get its own empty database: keep to the
		// single writer connection.
		return db, nil
	}
	r, err := sql.Open(sqliteDriver, path+fmt.Sprintf("?_query_only=true&_txlock=deferred&_cache_size=-%d&%s", readerCacheKB, common))
	if err != nil {
		return nil, fmt.Errorf("database.Open: %w", err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	r.SetConnMaxIdleTime(5 * time.Minute)
	if err := r.PingContext(ctx); err != nil {
		r.Close()
		return nil, fmt.Errorf("database.Open(sqlite:%s): readers: %w", path, err)
	}
	db.r = r
	db.shared.ckpt = startCheckpointer(path, r)
	return db, nil
}

// firstConn opens w's connection. Its setup switches a new database to WAL,
// which needs the database to itself: while another process opens or
// migrates the same new file, SQLite answers "database is locked" at once,
// without waiting out the busy timeout, so wait here.
func firstConn(ctx context.Context, w *sql.DB) (conn *sql.Conn, err error) {
	err = retryLocked(ctx, func() error {
		conn, err = w.Conn(ctx)
		return err
	})
	return conn, err
}

// retryLocked runs f until it does not fail with SQLite's "database is
// locked", for up to the busy timeout: the answer SQLite gives at once,
// without its busy handler, when a connection's mode change races another
// process.
func retryLocked(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		err := f()
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// postgresConns is the PostgreSQL pool's size.
const postgresConns = 16

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	c, err := pgx.ParseConfig(dsn) // checks the DSN without connecting
	if err != nil {
		return nil, fmt.Errorf("database.Open: invalid PostgreSQL DSN: %w", err)
	}
	db := stdlib.OpenDB(*c)
	// As many idle as open: with fewer, a burst of readers over the idle
	// bound closes connections that the next burst opens again (a
	// backend start each, and pgx's prepared statements lost).
	db.SetMaxOpenConns(postgresConns)
	db.SetMaxIdleConns(postgresConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("database.Open(postgres %s:%d/%s): %w", c.Host, c.Port, c.Database, err)
	}
	sh := newShared(postgresMaxParams)
	sh.analyzer = startAnalyzer(db)
	return &DB{dialect: Postgres, w: db, r: db, shared: sh}, nil
}

func newShared(maxParams int) *shared {
	return &shared{maxParams: maxParams, sqls: map[bulkKey]string{}}
}

// Dialect reports which backend db runs on.
func (db *DB) Dialect() Dialect { return db.dialect }

// MaxParams is the most bind parameters one statement may carry.
func (db *DB) MaxParams() int { return db.shared.maxParams }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.w.PingContext(ctx); err != nil {
		return err
	}
	if db.r != db.w {
		return db.r.PingContext(ctx)
	}
	return nil
}

// Close closes the database. It must not be called on a transaction's DB.
func (db *DB) Close() error {
	if db.tx != nil {
		return errors.New("database: Close called on a transaction")
	}
	db.shared.stmtMu.Lock()
	for _, st := range db.shared.stmts {
		st.Close()
	}
	db.shared.stmts = nil
	db.shared.stmtMu.Unlock()
	if db.shared.ckpt != nil {
		db.shared.ckpt.close()
	}
	if db.shared.analyzer != nil {
		db.shared.analyzer.close()
	}
	err := db.w.Close()
	if db.r != db.w {
		err = errors.Join(err, db.r.Close())
	}
	return err
}

// Rebind rewrites query's ? placeholders for db's dialect.
func (db *DB) Rebind(query string) string { return Rebind(db.dialect, query) }

// Exec runs a statement and returns the number of rows it affected.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := db.flush(); err != nil {
		return 0, err
	}
	db.traced(query, args)
	res, err := db.execRaw(ctx, db.Rebind(query), args...)
	if err != nil {
		return 0, queryError(err, query)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("RowsAffected: %w", err)
	}
	return n, nil
}

// execRaw runs query as written, without rebinding.
func (db *DB) execRaw(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if db.tx != nil {
		return db.tx.ExecContext(ctx, query, args...)
	}
	defer db.changed()
	return db.w.ExecContext(ctx, query, args...)
}

// Query runs a query that returns rows. Outside a transaction on SQLite, a
// SELECT runs on a read-only connection; anything else (INSERT ...
// RETURNING, say) runs on the writer.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := db.flush(); err != nil {
		return nil, err
	}
	db.traced(query, args)
	rows, err := db.queryPool(query).QueryContext(ctx, db.Rebind(query), args...)
	if err != nil {
		return nil, queryError(err, query)
	}
	return rows, nil
}

// QueryRow runs a query that returns at most one row. Its errors, including
// sql.ErrNoRows, are returned by the Row's Scan.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	// A queued write that failed is the transaction's error, returned by
	// its commit; this read runs either way.
	_ = db.flush()
	db.traced(query, args)
	return db.queryPool(query).QueryRowContext(ctx, db.Rebind(query), args...)
}

// RunQuery runs query and calls f on each row, closing the rows after.
func (db *DB) RunQuery(ctx context.Context, query string, f func(*sql.Rows) error, args ...any) error {
	rows, err := db.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	defer db.iterating()()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RunPrepared is RunQuery for a SELECT run often with the same text. On
// SQLite, whose driver prepares every query anew, preparing a long query
// can cost more than running it (a merged scan over 128 addresses: about
// 2 ms); the statement is prepared once per reader connection and kept.
// PostgreSQL's driver keeps prepared statements itself.
func (db *DB) RunPrepared(ctx context.Context, query string, f func(*sql.Rows) error, args ...any) error {
	if db.dialect != SQLite || db.r == db.w || !isSelect(query) || (db.tx != nil && !db.readTx) {
		return db.RunQuery(ctx, query, f, args...)
	}
	db.traced(query, args)
	st, err := db.shared.prepared(ctx, db.r, query)
	if err != nil {
		return queryError(err, query)
	}
	if st == nil {
		return db.RunQuery(ctx, query, f, args...)
	}
	if db.tx != nil {
		// Reuses the statement when it was prepared on the tx's connection.
		st = db.tx.StmtContext(ctx, st)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return queryError(err, query)
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (sh *shared) prepared(ctx context.Context, r *sql.DB, query string) (*sql.Stmt, error) {
	sh.stmtMu.Lock()
	defer sh.stmtMu.Unlock()
	if st, ok := sh.stmts[query]; ok {
		return st, nil
	}
	if sh.stmts == nil {
		sh.stmts = map[string]*sql.Stmt{}
	}
	if len(sh.stmts) >= maxPreparedStmts {
		return nil, nil
	}
	st, err := r.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	sh.stmts[query] = st
	return st, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (db *DB) queryPool(query string) querier {
	if db.tx != nil {
		return db.tx
	}
	if db.r != db.w && isSelect(query) {
		return db.r
	}
	return db.w
}

// isSelect reports whether query's first keyword is SELECT.
func isSelect(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select")
}

// Transact runs fn in a transaction and commits it when fn returns nil. It
// rolls back when fn returns an error or panics (the panic goes on after
// the rollback). fn must do all its work through the *DB it is handed.
//
// On PostgreSQL the transaction is READ COMMITTED; on SQLite it takes the
// database's write lock when it begins (BEGIN IMMEDIATE), so transactions
// run one at a time.
func (db *DB) Transact(ctx context.Context, fn func(*DB) error) (err error) {
	if db.tx != nil {
		return errors.New("database.Transact: already in a transaction")
	}
	// On PostgreSQL the transaction runs on a connection of its own, so
	// that BulkInsert can COPY on it (pgx's CopyFrom, through Conn.Raw).
	var conn *sql.Conn
	if db.dialect == Postgres {
		if conn, err = db.w.Conn(ctx); err != nil {
			return fmt.Errorf("database.Transact: %w", err)
		}
		defer conn.Close() // after the rollback below, when there is one
	}
	var tx *sql.Tx
	if conn != nil {
		tx, err = conn.BeginTx(ctx, nil)
	} else {
		tx, err = db.w.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("database.Transact: begin: %w", err)
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		if rerr := tx.Rollback(); rerr != nil && err != nil && !errors.Is(rerr, sql.ErrTxDone) {
			err = fmt.Errorf("%w (rollback: %v)", err, rerr)
		}
	}()
	tdb := *db
	tdb.tx, tdb.conn = tx, conn
	var analyze []string
	if db.shared.analyzer != nil {
		tdb.analyzeAfter = &analyze
	}
	if err := tdb.checkLease(ctx); err != nil {
		return err
	}
	// The queued writes end before the commit or the rollback (deferred
	// after it, this runs first when fn panics); the first that failed is
	// the cause of any error fn met after it.
	tdb.queue = &writeQueue{}
	defer tdb.queue.stop()
	err = fn(&tdb)
	if qerr := tdb.queue.stop(); qerr != nil {
		err = qerr
	}
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		committed = true // nothing left to roll back
		return fmt.Errorf("database.Transact: commit: %w", err)
	}
	committed = true
	if len(analyze) > 0 {
		db.shared.analyzer.queue(analyze)
	}
	db.changed()
	return nil
}

// ReadTx runs fn in a read-only transaction, so that the several queries
// of one answer see one snapshot while writers commit: on SQLite a
// deferred transaction on a reader connection (its snapshot is taken by
// the first read), on PostgreSQL REPEATABLE READ READ ONLY. fn must do all
// its work through the *DB it is handed; it must not write.
func (db *DB) ReadTx(ctx context.Context, fn func(*DB) error) (err error) {
	if db.tx != nil {
		return errors.New("database.ReadTx: already in a transaction")
	}
	var (
		opts *sql.TxOptions
		conn *sql.Conn
		tx   *sql.Tx
	)
	if db.dialect == Postgres {
		// On a connection of its own, as Transact's: EachRow reads its
		// rows through pgx on it.
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
		if conn, err = db.r.Conn(ctx); err != nil {
			return fmt.Errorf("database.ReadTx: %w", err)
		}
		defer conn.Close() // after the rollback below
		tx, err = conn.BeginTx(ctx, opts)
	} else {
		tx, err = db.r.BeginTx(ctx, opts)
	}
	if err != nil {
		return fmt.Errorf("database.ReadTx: begin: %w", err)
	}
	// Nothing was written: rolling back ends it as well as a commit would.
	defer func() {
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) && err == nil {
			err = fmt.Errorf("database.ReadTx: %w", rerr)
		}
	}()
	tdb := *db
	tdb.tx, tdb.conn, tdb.readTx = tx, conn, true
	return fn(&tdb)
}

// queryError adds the start of the query to err.
func queryError(err error, query string) error {
	q := strings.Join(strings.Fields(query), " ")
	if len(q) > 120 {
		q = q[:120] + "..."
	}
	return fmt.Errorf("%w (query: %s)", err, q)
}

// ErrNoOnlineBackup is Backup's error on a backend avaindex does not copy
// itself: PostgreSQL has its own tools (pg_dump, base backups).
var ErrNoOnlineBackup = errors.New("avaindex backs up SQLite stores only; back up a PostgreSQL store with pg_dump or a base backup (pg_basebackup)")

// Backup writes a consistent copy of a SQLite database to the new file
// path with VACUUM INTO, online: it reads one snapshot in a read
// transaction (WAL lets the indexer go on writing meanwhile), and the copy
// is compacted and needs no WAL of its own. path must not exist yet.
func (db *DB) Backup(ctx context.Context, path string) error {
	if db.dialect != SQLite {
		return ErrNoOnlineBackup
	}
	if db.tx != nil {
		return errors.New("database: Backup called on a transaction")
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("backup: %s exists already; give a new file", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	if db.path == ":memory:" {
		return errors.New("backup: an in-memory database has no file to copy")
	}
	// The readers are query_only, which VACUUM INTO respects, and the
	// writer's one connection is the indexer's: the copy is made on a
	// connection of its own.
	c, err := sql.Open(sqliteDriver, db.path+fmt.Sprintf("?_busy_timeout=%d", busyTimeout.Milliseconds()))
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		os.Remove(path) // a partial copy is no backup
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}

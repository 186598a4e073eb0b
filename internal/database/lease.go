package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"syscall"
	"time"
)

// ErrLeaseLost is the error of a lease its holder can no longer vouch
// for: of a write made under it (WithLease) after another holder took
// it, and of Check when that happened or when its database session
// failed (which frees it for another). The error wrapping it says which.
var ErrLeaseLost = errors.New("the lease is lost")

// leaseTable records, per lease, who took it last and how many times it
// was taken: the epoch that fences writes made under an older holding.
// The database layer keeps it, as it keeps its migrations' table.
const leaseTable = `CREATE TABLE IF NOT EXISTS avaindex_leases (
	name TEXT PRIMARY KEY,
	holder TEXT NOT NULL,
	epoch BIGINT NOT NULL,
	acquired_at BIGINT NOT NULL
)`

// Lease is a named lease that one holder at a time has among every process
// sharing the database. On PostgreSQL it is a session advisory lock keyed
// by the current schema and the name, held on a connection of its own, so
// it is lost, and free for another, when that connection or its process
// dies; on SQLite, an exclusive flock on a file beside the database,
// released when the process dies. Each taking moves the lease's epoch on;
// writes made under WithLease check it first, so a holder that lost the
// lease without noticing writes nothing more.
type Lease struct {
	db    *DB
	name  string
	epoch int64

	mu   sync.Mutex
	conn *sql.Conn // PostgreSQL
	file *os.File  // SQLite
}

// TryLease takes the lease name for holder if nobody holds it; ok is false
// when another does.
func (db *DB) TryLease(ctx context.Context, name, holder string) (_ *Lease, ok bool, err error) {
	if _, err := db.w.ExecContext(ctx, leaseTable); err != nil {
		return nil, false, fmt.Errorf("database.TryLease: %w", err)
	}
	l := &Lease{db: db, name: name}
	switch {
	case db.dialect == Postgres:
		if l.conn, err = db.w.Conn(ctx); err != nil {
			return nil, false, fmt.Errorf("database.TryLease: %w", err)
		}
		// The key names the schema too: deployments in two schemas of one
		// database each have their own lease (advisory locks are shared
		// by the whole database).
		var schema sql.NullString
		if err := l.conn.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			l.conn.Close()
			return nil, false, fmt.Errorf("database.TryLease: the current schema: %w", err)
		}
		if err := l.conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", leaseKey(schema.String, name)).Scan(&ok); err != nil || !ok {
			l.conn.Close()
			if err != nil {
				return nil, false, fmt.Errorf("database.TryLease: %w", err)
			}
			return nil, false, nil
		}
	case db.path != ":memory:":
		f, err := os.OpenFile(db.path+"-lease-"+name, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, false, fmt.Errorf("database.TryLease: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("database.TryLease: %w", err)
		}
		l.file = f
	}
	// Held: record the taking, whose epoch fences the holders before.
	err = db.Transact(ctx, func(tx *DB) error {
		if _, err := tx.Exec(ctx, `INSERT INTO avaindex_leases (name, holder, epoch, acquired_at) VALUES (?, ?, 1, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, epoch = avaindex_leases.epoch + 1, acquired_at = excluded.acquired_at`,
			name, holder, time.Now().Unix()); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT epoch FROM avaindex_leases WHERE name = ?", name).Scan(&l.epoch)
	})
	if err != nil {
		l.Release()
		return nil, false, fmt.Errorf("database.TryLease: recording the holder: %w", err)
	}
	return l, true, nil
}

// leaseKey is the advisory-lock key of the lease name in schema.
func leaseKey(schema, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("avaindex lease " + name))
	if schema != "" {
		// The schema after a NUL, which no name holds.
		h.Write([]byte{0})
		h.Write([]byte(schema))
	}
	return int64(h.Sum64())
}

// Check tells whether l is still held: on PostgreSQL its connection must
// answer, within ctx. An error means the lease is lost (or cannot be
// vouched for): stop the work it guards.
func (l *Lease) Check(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		if l.db.dialect == Postgres {
			return fmt.Errorf("%w: released", ErrLeaseLost)
		}
		return nil
	}
	if err := l.conn.PingContext(ctx); err != nil {
		// Not necessarily taken: the session that held it failed (the
		// database restarted, the network broke), which frees it.
		return fmt.Errorf("%w: its database session failed, which frees it: %w", ErrLeaseLost, err)
	}
	return nil
}

// Release gives the lease up.
func (l *Lease) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		// Ending the session frees its advisory lock: the connection is
		// discarded, not returned to the pool still holding it.
		_ = l.conn.Raw(func(any) error { return driver.ErrBadConn })
		l.conn.Close()
		l.conn = nil
	}
	if l.file != nil {
		l.file.Close() // releases the flock
		l.file = nil
	}
}

// Epoch is how many times the lease had been taken, this taking included.
func (l *Lease) Epoch() int64 { return l.epoch }

// LeaseHolder tells who took the lease name last and when, "" if nobody
// ever did. The holder may have died since: the lease is free then.
func (db *DB) LeaseHolder(ctx context.Context, name string) (holder string, since time.Time, err error) {
	if _, err := db.w.ExecContext(ctx, leaseTable); err != nil {
		return "", time.Time{}, fmt.Errorf("database.LeaseHolder: %w", err)
	}
	var at int64
	err = db.QueryRow(ctx, "SELECT holder, acquired_at FROM avaindex_leases WHERE name = ?", name).Scan(&holder, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("database.LeaseHolder: %w", err)
	}
	return holder, time.Unix(at, 0), nil
}

type leaseCtxKey struct{}

// WithLease makes every Transact under ctx check first that l is still
// the lease's latest taking, and fail with ErrLeaseLost otherwise. On
// PostgreSQL the check holds a share lock on the lease's row until the
// transaction ends, so a new holder's taking waits for a write already
// checked to commit.
func WithLease(ctx context.Context, l *Lease) context.Context {
	return context.WithValue(ctx, leaseCtxKey{}, l)
}

// checkLease is Transact's fence for a transaction under WithLease.
func (tx *DB) checkLease(ctx context.Context) error {
	l, _ := ctx.Value(leaseCtxKey{}).(*Lease)
	if l == nil {
		return nil
	}
	q := "SELECT epoch FROM avaindex_leases WHERE name = ?"
	if tx.dialect == Postgres {
		q += " FOR SHARE"
	}
	var epoch int64
	if err := tx.QueryRow(ctx, q, l.name).Scan(&epoch); err != nil {
		return fmt.Errorf("checking the lease %s: %w", l.name, err)
	}
	if epoch != l.epoch {
		return fmt.Errorf("%w: lease %s was taken over by another instance (taken %d times, ours the %dth)", ErrLeaseLost, l.name, epoch, l.epoch)
	}
	return nil
}

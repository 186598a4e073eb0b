package database

import (
	"context"
	"database/sql"
	"time"
)

// Generation counts the changes to the database that this process has
// seen: it grows after every commit made through this handle (Transact,
// and Exec outside a transaction; a write by Query outside a transaction
// is not counted, and nothing avaindex serves is written that way), and,
// while WatchChanges runs, after a commit by any other connection or
// process. A value computed from the database after reading Generation g
// may be kept for as long as Generation is still g.
func (db *DB) Generation() uint64 { return db.shared.gen.Load() }

func (db *DB) changed() {
	db.shared.gen.Add(1)
	if db.shared.ckpt != nil {
		db.shared.ckpt.committed()
	}
}

// WatchChanges makes Generation follow the commits of other connections
// and processes (an API-only instance, or one whose indexer lease another
// instance holds), looking every interval until ctx ends: on SQLite by
// PRAGMA data_version on a connection of its own, on PostgreSQL by the
// write-ahead log's position (which any write to the cluster moves: more
// changes than this store's, never fewer). A look that fails counts as a
// change.
func (db *DB) WatchChanges(ctx context.Context, interval time.Duration) error {
	query := "PRAGMA data_version"
	if db.dialect == Postgres {
		query = "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END::text"
	}
	// One connection throughout: data_version is per connection.
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	look := func() (string, error) {
		if conn == nil {
			c, err := db.r.Conn(ctx)
			if err != nil {
				return "", err
			}
			conn = c
		}
		var v string
		if err := conn.QueryRowContext(ctx, query).Scan(&v); err != nil {
			conn.Close()
			conn = nil
			return "", err
		}
		return v, nil
	}
	last, err := look()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		v, lerr := look()
		if lerr != nil || err != nil || v != last {
			db.changed()
		}
		last, err = v, lerr
	}
}

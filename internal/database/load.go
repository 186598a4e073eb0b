package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Bulk loads: a store filled with millions of rows at once (the
// benchmarks' generated stores) loads several times faster with its
// secondary indexes built after the rows than kept up to date row by row,
// and, on SQLite, with a large page cache and without syncing.

// loadCacheKB is the SQLite writer's page cache during a bulk load.
const loadCacheKB = 1 << 20

// BeginBulkLoad prepares db for loading many rows into tables: it drops
// their secondary indexes (all but those of primary keys and unique
// constraints) and, on SQLite, turns off syncing and enlarges the writer's
// page cache. The returned function ends the load: it creates the indexes
// again, as they were, and restores the settings. A crash during the load
// leaves the indexes dropped; the caller starts the load again.
func (db *DB) BeginBulkLoad(ctx context.Context, tables ...string) (end func(context.Context) error, err error) {
	if db.tx != nil {
		return nil, errors.New("database.BeginBulkLoad: in a transaction")
	}
	type index struct{ name, def string }
	var indexes []index
	q := "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'"
	if db.dialect == Postgres {
		q = `SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
			JOIN pg_class t ON t.oid = x.indrelid
			WHERE t.relname = ? AND t.relnamespace = current_schema()::regnamespace AND NOT x.indisunique`
	}
	for _, t := range tables {
		err := db.RunQuery(ctx, q, func(r *sql.Rows) error {
			var i index
			if err := r.Scan(&i.name, &i.def); err != nil {
				return err
			}
			indexes = append(indexes, i)
			return nil
		}, t)
		if err != nil {
			return nil, fmt.Errorf("database.BeginBulkLoad: %w", err)
		}
	}
	for _, i := range indexes {
		if _, err := db.Exec(ctx, "DROP INDEX "+i.name); err != nil {
			return nil, fmt.Errorf("database.BeginBulkLoad: %w", err)
		}
	}
	var restore []string
	if db.dialect == SQLite {
		// The writer is one connection, kept open: its settings stay.
		var sync, cache int64
		if err := db.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			return nil, fmt.Errorf("database.BeginBulkLoad: %w", err)
		}
		if err := db.w.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
			return nil, fmt.Errorf("database.BeginBulkLoad: %w", err)
		}
		for _, p := range []string{"PRAGMA synchronous = OFF", fmt.Sprintf("PRAGMA cache_size = -%d", loadCacheKB)} {
			if _, err := db.w.ExecContext(ctx, p); err != nil {
				return nil, fmt.Errorf("database.BeginBulkLoad: %w", err)
			}
		}
		restore = []string{fmt.Sprintf("PRAGMA synchronous = %d", sync), fmt.Sprintf("PRAGMA cache_size = %d", cache)}
	}
	return func(ctx context.Context) error {
		for _, i := range indexes {
			err := db.Transact(ctx, func(tx *DB) error {
				if tx.dialect == Postgres {
					// A sort in memory builds an index of millions of rows
					// much faster than one spilled to disk.
					if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '512MB'"); err != nil {
						return err
					}
				}
				_, err := tx.Exec(ctx, i.def)
				return err
			})
			if err != nil {
				return fmt.Errorf("database: ending a bulk load: index %s: %w", i.name, err)
			}
		}
		for _, p := range restore {
			if _, err := db.w.ExecContext(ctx, p); err != nil {
				return fmt.Errorf("database: ending a bulk load: %w", err)
			}
		}
		return nil
	}, nil
}

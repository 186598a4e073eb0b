package database

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Migration is one schema change: a file NNNN_name.sql of a migrations
// directory, or NNNN_name.sqlite.sql / NNNN_name.postgres.sql for a change
// of one backend only (a layout the other has no word for); a version may
// have one file of each backend.
type Migration struct {
	Version int64
	Name    string // the file name
	SQL     string
	// Dialect is the one backend the migration is for; empty for both.
	Dialect Dialect
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[A-Za-z0-9_.-]+\.sql$`)

// migrationLockKey is the PostgreSQL advisory lock that serializes Migrate
// across processes ("avaindex" in ASCII).
const migrationLockKey = 0x617661696e646578

// ReadMigrations returns the migrations in the top directory of fsys,
// ordered by version. Every .sql file there must be named NNNN_name.sql,
// with no version used twice.
func ReadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		m := migrationName.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("migration file %q is not named NNNN_name.sql", name)
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migration file %q: %w", name, err)
		}
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		mig := Migration{Version: v, Name: name, SQL: string(text)}
		for _, d := range []Dialect{SQLite, Postgres} {
			if strings.HasSuffix(name, "."+string(d)+".sql") {
				mig.Dialect = d
			}
		}
		ms = append(ms, mig)
	}
	slices.SortFunc(ms, func(a, b Migration) int {
		if c := cmpInt64(a.Version, b.Version); c != 0 {
			return c
		}
		return strings.Compare(string(a.Dialect), string(b.Dialect))
	})
	for i := 1; i < len(ms); i++ {
		a, b := ms[i-1], ms[i]
		if a.Version == b.Version && (a.Dialect == "" || b.Dialect == "" || a.Dialect == b.Dialect) {
			return nil, fmt.Errorf("migrations %q and %q have the same version", a.Name, b.Name)
		}
	}
	return ms, nil
}

// forDialect returns the migrations of ms that d runs.
func forDialect(ms []Migration, d Dialect) []Migration {
	var out []Migration
	for _, m := range ms {
		if m.Dialect == "" || m.Dialect == d {
			out = append(out, m)
		}
	}
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Migrate applies the migrations of fsys (see ReadMigrations) that the
// database has not recorded in its schema_migrations table, in version
// order, in one transaction, and records them. It returns the versions it
// applied.
//
// Processes that migrate the same database at once take turns: on
// PostgreSQL through an advisory lock held to the end of the transaction,
// on SQLite through the write lock the transaction takes when it begins.
// The second finds the work done.
//
// A database carrying a version that fsys lacks was migrated by a newer
// avaindex; Migrate refuses it rather than run an old binary on it.
func (db *DB) Migrate(ctx context.Context, fsys fs.FS) (applied []int64, err error) {
	ms, err := ReadMigrations(fsys)
	if err != nil {
		return nil, fmt.Errorf("database.Migrate: %w", err)
	}
	ms = forDialect(ms, db.dialect)
	err = db.Transact(ctx, func(tx *DB) error {
		applied = nil
		if tx.dialect == Postgres {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(?)", int64(migrationLockKey)); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at BIGINT NOT NULL
		)`); err != nil {
			return err
		}
		done := map[int64]bool{}
		err := tx.RunQuery(ctx, "SELECT version FROM schema_migrations", func(rows *sql.Rows) error {
			var v int64
			if err := rows.Scan(&v); err != nil {
				return err
			}
			done[v] = true
			return nil
		})
		if err != nil {
			return err
		}
		known := map[int64]bool{}
		for _, m := range ms {
			known[m.Version] = true
		}
		for v := range done {
			if !known[v] {
				return fmt.Errorf("database has schema version %d, which this avaindex does not know: it was migrated by a newer release", v)
			}
		}
		for _, m := range ms {
			if done[m.Version] {
				continue
			}
			// Run as written: migration text has no parameters, and both
			// drivers run several statements in one parameterless Exec.
			if _, err := tx.execRaw(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, time.Now().Unix()); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			applied = append(applied, m.Version)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("database.Migrate: %w", err)
	}
	return applied, nil
}

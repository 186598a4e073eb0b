// Package dbtest gives tests a fresh, empty database on each backend the
// store runs on: a SQLite file in the test's temporary directory and a
// PostgreSQL schema of its own.
//
// PostgreSQL is the server at DefaultPostgres, or at the URL in the
// AVAINDEX_TEST_POSTGRES environment variable. When it cannot be reached,
// the PostgreSQL test is skipped with a message starting "SKIP: PostgreSQL
// not reachable" — unless CI=true, where that is a failure.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// DefaultPostgres is the PostgreSQL server tests use when
// AVAINDEX_TEST_POSTGRES is not set.
const DefaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresURL returns the URL of the PostgreSQL server tests use.
func PostgresURL() string {
	if u := os.Getenv("AVAINDEX_TEST_POSTGRES"); u != "" {
		return u
	}
	return DefaultPostgres
}

// Backend is one database backend for tests.
type Backend struct {
	Name string // "sqlite" or "postgres": the subtest name
	// DSN returns the DSN of a new empty database, removed when tb ends.
	// It skips (or, under CI=true, fails) tb when the backend is not
	// available.
	DSN func(tb testing.TB) string
}

// Backends returns the backends every store test runs on.
func Backends() []Backend {
	return []Backend{
		{Name: "sqlite", DSN: SQLite},
		{Name: "postgres", DSN: Postgres},
	}
}

// Runner is *testing.T or *testing.B.
type Runner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// Run runs f as one subtest (or sub-benchmark) per backend, named after it,
// each with the DSN of a new empty database.
func Run[T Runner[T]](t T, f func(t T, dsn string)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t T) {
			f(t, b.DSN(t))
		})
	}
}

// SQLite returns the DSN of a new SQLite database file in tb's temporary
// directory.
func SQLite(tb testing.TB) string {
	tb.Helper()
	return "sqlite:" + filepath.Join(tb.TempDir(), "avaindex.db")
}

var admin struct {
	once sync.Once
	db   *sql.DB
	cfg  *pgx.ConnConfig
	err  error
}

func adminDB() (*sql.DB, *pgx.ConnConfig, error) {
	admin.once.Do(func() {
		cfg, err := pgx.ParseConfig(PostgresURL())
		if err != nil {
			admin.err = fmt.Errorf("invalid URL: %w", err)
			return
		}
		if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 5*time.Second {
			cfg.ConnectTimeout = 5 * time.Second
		}
		db := stdlib.OpenDB(*cfg)
		db.SetMaxOpenConns(4)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			admin.err = err
			return
		}
		admin.db, admin.cfg = db, cfg
	})
	return admin.db, admin.cfg, admin.err
}

// redacted is PostgresURL without its password.
func redacted() string {
	u, err := url.Parse(PostgresURL())
	if err != nil || u.Scheme == "" {
		return "(AVAINDEX_TEST_POSTGRES)"
	}
	return u.Redacted()
}

// Postgres returns the DSN of a new, empty PostgreSQL schema: the test
// server's database with search_path set to a schema made for tb and
// dropped when tb ends.
func Postgres(tb testing.TB) string {
	tb.Helper()
	db, _, err := adminDB()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL not reachable at %s (fatal because CI=true): %v", redacted(), err)
		}
		tb.Skipf("SKIP: PostgreSQL not reachable at %s: %v\n"+
			"  *** the PostgreSQL backend was NOT tested; start PostgreSQL or set AVAINDEX_TEST_POSTGRES ***", redacted(), err)
	}
	schema := schemaName(tb.Name())
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		tb.Fatalf("creating test schema %s: %v", schema, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping test schema %s: %v", schema, err)
		}
	})
	return withSearchPath(PostgresURL(), schema)
}

// schemaName makes a unique PostgreSQL schema name from a test name.
func schemaName(testName string) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 40 {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(rnd[:]))
	return b.String()
}

// withSearchPath adds search_path=schema to a PostgreSQL URL or keyword/value
// connection string; pgx sends it as a run-time parameter.
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}

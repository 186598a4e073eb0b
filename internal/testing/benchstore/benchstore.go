// Package benchstore keeps the large stores the benchmarks query
// (utxobench's UTXOs and stakers, evmbench's EVM transfers) between runs: a
// SQLite file in the user's cache directory (or AVAINDEX_BENCH_CACHE) and a
// PostgreSQL database on the test server, named after the data set's kind,
// size, generator version and the schema, so that any change builds a new
// one.
package benchstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// Size returns a data set's size: def, or the environment variable env
// when set (at least 100000, for a quicker run).
func Size(tb testing.TB, env string, def int) int {
	tb.Helper()
	return Count(tb, env, def, 100_000)
}

// Count returns def, or the environment variable env when set, which
// must be a number of at least least.
func Count(tb testing.TB, env string, def, least int) int {
	tb.Helper()
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		tb.Fatalf("%s=%q: want a number of at least %d", env, v, least)
	}
	return n
}

// Open returns the DSN of the store of n kind (e.g. "utxos") made by
// version of its generator on backend ("sqlite" or "postgres"), calling
// build to fill it, over the migrated store's database, when no run built
// it before.
func Open(tb testing.TB, backend, kind string, version, n int, build func(context.Context, *database.DB) error) string {
	tb.Helper()
	schema, err := schemaHash()
	if err != nil {
		tb.Fatal(err)
	}
	name := fmt.Sprintf("avaindex_bench_%s_v%d_%d_%s", kind, version, n, schema)
	var dsn string
	switch backend {
	case "sqlite":
		dir := os.Getenv("AVAINDEX_BENCH_CACHE")
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				tb.Fatal(err)
			}
			dir = filepath.Join(base, "avaindex", "bench")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		dsn = "sqlite:" + filepath.Join(dir, name+".db")
	case "postgres":
		dsn = postgresDatabase(tb, name)
	default:
		tb.Fatalf("no backend %q", backend)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	if v, ok, err := st.Setting(ctx, "bench:complete"); err != nil {
		tb.Fatal(err)
	} else if ok && string(v) == name {
		return dsn
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	tb.Logf("building the %s benchmark store %s (%d %s); it is kept for later runs", backend, name, n, kind)
	if err := build(ctx, db); err != nil {
		tb.Fatal(err)
	}
	if err := st.PutSettingIfAbsent(ctx, "bench:complete", []byte(name)); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("built in %s", time.Since(start).Round(time.Second))
	return dsn
}

// schemaHash names the migrations the store was built with.
func schemaHash() (string, error) {
	ms, err := database.ReadMigrations(store.Migrations())
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range ms {
		h.Write([]byte(m.SQL))
	}
	return hex.EncodeToString(h.Sum(nil))[:8], nil
}

// postgresDatabase returns the DSN of database name on the test server,
// creating it when missing.
func postgresDatabase(tb testing.TB, name string) string {
	tb.Helper()
	admin := dbtest.PostgresURL()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		tb.Skipf("SKIP: PostgreSQL not reachable at %s: %v", admin, err)
	}
	var exists bool
	if err := db.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if !exists {
		if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
			tb.Fatal(err)
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

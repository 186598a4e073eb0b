package tests

import (
	"context"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/apikeys"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
)

// apiKey creates a standard-tier API key in dsn's store, for the calls
// that send one as a client would: an unknown key is refused (401).
func apiKey(t *testing.T, dsn string) string {
	t.Helper()
	return createKey(t, dsn, "e2e", ratelimit.Standard)
}

// createKey makes an API key named name of tier in the store at dsn, as
// `avaindex keys create` does; serving instances see it within 2 s.
func createKey(tb testing.TB, dsn, name, tier string) string {
	tb.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	key, err := apikeys.Create(context.Background(), st, name, tier, func(string) bool { return true }, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

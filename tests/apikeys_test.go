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
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, err := apikeys.Create(context.Background(), st, "e2e", ratelimit.Standard, func(string) bool { return true }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return key
}

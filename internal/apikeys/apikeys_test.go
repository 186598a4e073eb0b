package apikeys

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k, err := Generate()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(k, Prefix) || len(k) != len(Prefix)+43 || seen[k] {
			t.Fatalf("Generate() = %q: want %s and 43 base64url characters, never twice", k, Prefix)
		}
		seen[k] = true
	}
	if h := Hash("avk_x"); len(h) != 32 || string(h) == string(Hash("avk_y")) {
		t.Errorf("Hash: %x", h)
	}
}

// counting counts the reads of the keys.
type counting struct {
	store.Store
	reads atomic.Int64
}

func (c *counting) APIKeys(ctx context.Context, withRevoked bool) ([]store.APIKey, error) {
	c.reads.Add(1)
	return c.Store.APIKeys(ctx, withRevoked)
}

func TestCreateAndCache(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		known := func(tier string) bool { return tier == "standard" || tier == "read-only" }
		now := time.Now()

		for _, bad := range []struct{ name, tier string }{{"", "standard"}, {"a b", "standard"}, {strings.Repeat("n", 65), "standard"}, {"ok", "gold"}} {
			if _, err := Create(ctx, st, bad.name, bad.tier, known, now); err == nil {
				t.Errorf("Create(%q, %q) did not fail", bad.name, bad.tier)
			}
		}
		alice, err := Create(ctx, st, "alice", "standard", known, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Create(ctx, st, "alice", "standard", known, now); err == nil || !strings.Contains(err.Error(), `"alice" exists`) {
			t.Errorf("a second alice: %v", err)
		}
		keys, err := st.APIKeys(ctx, true)
		if err != nil || len(keys) != 1 || string(keys[0].Hash) != string(Hash(alice)) || strings.Contains(string(keys[0].Hash), alice) {
			t.Fatalf("stored %+v, %v: want alice's hash only", keys, err)
		}

		src := &counting{Store: st}
		const maxAge = 300 * time.Millisecond
		c := NewCache(src, maxAge, nil)
		lookup := func(key string) (Key, bool) {
			t.Helper()
			k, ok, err := c.Lookup(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			return k, ok
		}
		if k, ok := lookup(alice); !ok || k.Name != "alice" || k.Tier != "standard" || len(k.ID) != 24 || strings.Contains(alice, k.ID) {
			t.Fatalf("Lookup(alice) = %+v, %t", k, ok)
		}
		for range 50 {
			if _, ok := lookup(alice + "x"); ok {
				t.Fatal("an unknown key was recognized")
			}
		}
		if n := src.reads.Load(); n != 1 {
			t.Errorf("%d reads of the keys for 51 lookups within maxAge, want 1", n)
		}

		// A key created, and one revoked, take effect within maxAge.
		bob, err := Create(ctx, st, "bob", "read-only", known, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.RevokeAPIKey(ctx, "alice", time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(maxAge)
		if _, ok := lookup(alice); ok {
			t.Error("alice is still recognized after her revocation")
		}
		if k, ok := lookup(bob); !ok || k.Tier != "read-only" {
			t.Errorf("Lookup(bob) = %+v, %t", k, ok)
		}

		// A store that stops answering leaves the last keys in use.
		st.Close()
		time.Sleep(maxAge)
		if _, ok := lookup(bob); !ok {
			t.Error("bob is not recognized while the store is down")
		}
		reads := src.reads.Load()
		lookup(bob)
		if src.reads.Load() != reads {
			t.Error("the store was asked again at once after it failed")
		}
	})
}

func TestCacheNeverRead(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, _, err := NewCache(st, 0, nil).Lookup(context.Background(), "avk_x"); err == nil {
		t.Error("a lookup with the keys never read did not fail")
	}
}

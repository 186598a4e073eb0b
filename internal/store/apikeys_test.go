package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestAPIKeys(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		t0 := time.Unix(1_700_000_000, 0).UTC()
		a := APIKey{Hash: []byte("hash-a"), Name: "alice", Tier: "standard", Created: t0}
		b := APIKey{Hash: []byte("hash-b"), Name: "bob", Tier: "read-only", Created: t0.Add(time.Second)}
		for _, k := range []APIKey{b, a} {
			if err := s.CreateAPIKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateAPIKey(ctx, APIKey{Hash: []byte("hash-a2"), Name: "alice", Tier: "standard", Created: t0}); !errors.Is(err, ErrAPIKeyNameTaken) {
			t.Errorf("a second active key named alice: %v, want ErrAPIKeyNameTaken", err)
		}
		if err := s.CreateAPIKey(ctx, APIKey{Hash: []byte("hash-a"), Name: "carol", Tier: "standard", Created: t0}); err == nil {
			t.Error("a second key with alice's hash was accepted")
		}
		check := func(withRevoked bool, want ...APIKey) {
			t.Helper()
			got, err := s.APIKeys(ctx, withRevoked)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("APIKeys(%t) = %d keys %+v, want %+v", withRevoked, len(got), got, want)
			}
			for i := range want {
				g, w := got[i], want[i]
				if string(g.Hash) != string(w.Hash) || g.Name != w.Name || g.Tier != w.Tier || !g.Created.Equal(w.Created) || !g.Revoked.Equal(w.Revoked) {
					t.Errorf("APIKeys(%t)[%d] = %+v, want %+v", withRevoked, i, g, w)
				}
			}
		}
		check(false, a, b)

		revokedAt := t0.Add(time.Hour)
		if err := s.RevokeAPIKey(ctx, "alice", revokedAt); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeAPIKey(ctx, "alice", revokedAt); !errors.Is(err, derrors.NotFound) {
			t.Errorf("revoking alice twice: %v, want NotFound", err)
		}
		if err := s.RevokeAPIKey(ctx, "nobody", revokedAt); !errors.Is(err, derrors.NotFound) {
			t.Errorf("revoking an unknown name: %v, want NotFound", err)
		}
		check(false, b)
		revokedA := a
		revokedA.Revoked = revokedAt
		check(true, revokedA, b)

		// A revoked key's name is free again.
		a2 := APIKey{Hash: []byte("hash-a2"), Name: "alice", Tier: "pro", Created: t0.Add(2 * time.Hour)}
		if err := s.CreateAPIKey(ctx, a2); err != nil {
			t.Fatalf("reusing a revoked key's name: %v", err)
		}
		check(false, a2, b)
		check(true, revokedA, a2, b)
	})
}

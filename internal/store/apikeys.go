package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
)

// APIKey is an API key as the store keeps it: its hash, never the key.
type APIKey struct {
	// Hash is the SHA-256 of the key (apikeys.Hash).
	Hash    []byte
	Name    string
	Tier    string
	Created time.Time
	// Revoked is zero while the key is active.
	Revoked time.Time
}

// ErrAPIKeyNameTaken is returned by CreateAPIKey when an active key has
// the name already.
var ErrAPIKeyNameTaken = errors.New("an active API key has this name")

// APIKeyStore keeps the API keys; internal/apikeys holds their logic.
type APIKeyStore interface {
	// CreateAPIKey adds k; it fails with ErrAPIKeyNameTaken when an
	// active key has k's name.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// APIKeys returns the keys by name, then creation time; revoked ones
	// too when withRevoked.
	APIKeys(ctx context.Context, withRevoked bool) ([]APIKey, error)
	// RevokeAPIKey revokes the active key named name at the time at; an
	// error wrapping derrors.NotFound when there is none.
	RevokeAPIKey(ctx context.Context, name string, at time.Time) error
}

func (s *sqlStore) CreateAPIKey(ctx context.Context, k APIKey) (err error) {
	defer derrors.Wrap(&err, "store.CreateAPIKey(%q)", k.Name)
	if len(k.Hash) == 0 || k.Name == "" || k.Tier == "" {
		return fmt.Errorf("an API key needs a hash, a name and a tier")
	}
	// The partial unique index on the active names makes a taken name a
	// conflict, which DO NOTHING turns into no row on both engines.
	n, err := s.db.Exec(ctx, `INSERT INTO api_keys (key_hash, name, tier, created_at) VALUES (?, ?, ?, ?) `+onConflictDoNothing,
		k.Hash, k.Name, k.Tier, k.Created.Unix())
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrAPIKeyNameTaken
	}
	return nil
}

func (s *sqlStore) APIKeys(ctx context.Context, withRevoked bool) (_ []APIKey, err error) {
	defer derrors.Wrap(&err, "store.APIKeys")
	q := "SELECT key_hash, name, tier, created_at, revoked_at FROM api_keys"
	if !withRevoked {
		q += " WHERE revoked_at IS NULL"
	}
	var out []APIKey
	err = s.db.RunQuery(ctx, q+" ORDER BY name, created_at, key_hash", func(rows *sql.Rows) error {
		var (
			k       APIKey
			created int64
			revoked sql.NullInt64
		)
		if err := rows.Scan(&k.Hash, &k.Name, &k.Tier, &created, &revoked); err != nil {
			return err
		}
		k.Created = time.Unix(created, 0).UTC()
		if revoked.Valid {
			k.Revoked = time.Unix(revoked.Int64, 0).UTC()
		}
		out = append(out, k)
		return nil
	})
	return out, err
}

func (s *sqlStore) RevokeAPIKey(ctx context.Context, name string, at time.Time) (err error) {
	defer derrors.Wrap(&err, "store.RevokeAPIKey(%q)", name)
	n, err := s.db.Exec(ctx, "UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", at.Unix(), name)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no active API key named %q: %w", name, derrors.NotFound)
	}
	return nil
}

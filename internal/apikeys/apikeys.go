// Package apikeys creates, revokes and recognizes the API keys of the Data
// API. A key is 32 random bytes; the store keeps only its SHA-256. A slow,
// salted password hash would add nothing here: it protects guessable
// secrets, and 256 random bits cannot be guessed, so a plain SHA-256 is as
// safe and lets a key be found by its hash in one lookup on every request.
//
// Cache holds the active keys, read again every 2 s, so that a revocation
// takes effect within seconds without a store read per request.
package apikeys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/store"
)

// Prefix starts every key avaindex makes, so that one is recognizable (by
// people and by secret scanners) wherever it leaks.
const Prefix = "avk_"

// Generate returns a new key: Prefix and 32 random bytes in base64url.
func Generate() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating an API key: %w", err)
	}
	return Prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// Hash is what the store keeps of key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Create makes a key named name at tier, which tierKnown must accept, and
// stores its hash; the key itself is returned once and kept nowhere.
func Create(ctx context.Context, st store.APIKeyStore, name, tier string, tierKnown func(string) bool, now time.Time) (string, error) {
	if !ratelimit.ValidName(name) {
		return "", fmt.Errorf("the key name %q must be 1 to 64 letters, digits, '.', '_' or '-'", name)
	}
	if !tierKnown(tier) {
		return "", fmt.Errorf("unknown tier %q (tiers are configured with --rate-limit-tier)", tier)
	}
	key, err := Generate()
	if err != nil {
		return "", err
	}
	err = st.CreateAPIKey(ctx, store.APIKey{Hash: Hash(key), Name: name, Tier: tier, Created: now})
	if errors.Is(err, store.ErrAPIKeyNameTaken) {
		return "", fmt.Errorf("an API key named %q exists already; revoke it first or choose another name", name)
	}
	if err != nil {
		return "", err
	}
	return key, nil
}

// Key is what a request's key is recognized as.
type Key struct {
	Name, Tier string
	// ID names the key in rate-limit buckets: a prefix of its hash, which
	// tells nothing of the key.
	ID string
}

// Source is what the Cache reads: the store's keys.
type Source interface {
	APIKeys(ctx context.Context, withRevoked bool) ([]store.APIKey, error)
}

// Cache recognizes keys from a copy of the store's active keys, read again
// when a lookup finds it older than MaxAge, so a key created or revoked
// takes effect within MaxAge (plus one read) on every instance, and a
// request never waits for the store otherwise. Unknown keys cost no read.
type Cache struct {
	src    Source
	maxAge time.Duration
	log    *slog.Logger
	now    func() time.Time

	mu   sync.Mutex // one read at a time
	snap atomic.Pointer[snapshot]
}

type snapshot struct {
	// at is when the keys were read; after a failed read, when it failed,
	// so that the store is asked again only MaxAge later.
	at   time.Time
	keys map[[sha256.Size]byte]Key
}

// DefaultMaxAge is how old the Cache's copy of the keys may be.
const DefaultMaxAge = 2 * time.Second

// readTimeout bounds a read of the keys.
const readTimeout = 5 * time.Second

// NewCache returns a Cache over src; maxAge 0 means DefaultMaxAge.
func NewCache(src Source, maxAge time.Duration, log *slog.Logger) *Cache {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{src: src, maxAge: maxAge, log: log, now: time.Now}
}

// Lookup tells whether key is an active key, and which. It fails only when
// the keys were never read; a failed read otherwise leaves the last copy
// in use (logged), until the store answers again.
func (c *Cache) Lookup(ctx context.Context, key string) (Key, bool, error) {
	s := c.snap.Load()
	if s == nil || c.now().Sub(s.at) >= c.maxAge {
		var err error
		if s, err = c.refresh(ctx); err != nil {
			return Key{}, false, err
		}
	}
	k, ok := s.keys[sha256.Sum256([]byte(key))]
	return k, ok, nil
}

func (c *Cache) refresh(ctx context.Context) (*snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.snap.Load()
	if s != nil && c.now().Sub(s.at) < c.maxAge {
		return s, nil // read by another request meanwhile
	}
	// The read serves every waiting request: the first one's end must
	// not cut it short.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readTimeout)
	defer cancel()
	keys, err := c.src.APIKeys(ctx, false)
	if err != nil {
		if s == nil {
			return nil, fmt.Errorf("reading the API keys: %w", err)
		}
		c.log.Warn("reading the API keys failed; the last keys read stay in use", "read", s.at, "err", err)
		s = &snapshot{at: c.now(), keys: s.keys}
		c.snap.Store(s)
		return s, nil
	}
	next := &snapshot{at: c.now(), keys: make(map[[sha256.Size]byte]Key, len(keys))}
	for _, k := range keys {
		var h [sha256.Size]byte
		if copy(h[:], k.Hash) != sha256.Size {
			continue // not made by Hash
		}
		next.keys[h] = Key{Name: k.Name, Tier: k.Tier, ID: fmt.Sprintf("%x", h[:12])}
	}
	c.snap.Store(next)
	return next, nil
}

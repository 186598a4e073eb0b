package store

import (
	"context"
	"time"

	"github.com/avaindex/avaindex/internal/database"
)

// IndexerLease is the lease the instance that indexes holds: one
// instance indexes a store at a time, the others serve and stand by.
const IndexerLease = "indexer"

// LeaseStore hands out the leases by which instances sharing the store
// split the work (database.Lease).
type LeaseStore interface {
	// TryLease takes the lease name for holder unless another holds it.
	TryLease(ctx context.Context, name, holder string) (*database.Lease, bool, error)
	// LeaseHolder tells who took the lease name last, and when.
	LeaseHolder(ctx context.Context, name string) (string, time.Time, error)
}

func (s *sqlStore) TryLease(ctx context.Context, name, holder string) (*database.Lease, bool, error) {
	return s.db.TryLease(ctx, name, holder)
}

func (s *sqlStore) LeaseHolder(ctx context.Context, name string) (string, time.Time, error) {
	return s.db.LeaseHolder(ctx, name)
}

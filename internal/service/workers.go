package service

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/avaindex/avaindex/internal/config"
)

// A worker is one piece of background work: run works until ctx ends.
// Every worker of the service is in the one list surfaces returns, run by
// runWorkers under one errgroup; each tells its progress through
// progress.Reporter, which /readyz and the status page read.
type worker struct {
	name string
	// roles are the --role values of the instances that run it.
	roles []string
	run   func(ctx context.Context) error
}

// storeWatchInterval is how often an instance looks for another's writes
// to the store (database.DB.WatchChanges): at most this long, an API-only
// instance may answer a kept page of the latest blocks.
const storeWatchInterval = 100 * time.Millisecond

// Roles of the workers.
var (
	everyRole     = []string{config.RoleAll, config.RoleAPI, config.RoleIndexer}
	indexingRoles = []string{config.RoleAll, config.RoleIndexer}
)

// runWorkers runs the workers of role until ctx ends, and returns the
// first failure of one (which stops the others); a worker that returns
// because ctx ended has not failed.
func runWorkers(ctx context.Context, role string, workers []worker, log *slog.Logger) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, w := range workers {
		if !slices.Contains(w.roles, role) {
			continue
		}
		log.Debug("starting worker", "worker", w.name)
		g.Go(func() error {
			if err := w.run(gctx); err != nil && gctx.Err() == nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

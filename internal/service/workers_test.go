package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/config"
)

// TestRunWorkers: each role runs its workers until the context ends, and
// the first failure stops the others and is returned, naming the worker.
func TestRunWorkers(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var (
		mu  sync.Mutex
		ran []string
	)
	untilDone := func(name string) func(context.Context) error {
		return func(ctx context.Context) error {
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			<-ctx.Done()
			return ctx.Err()
		}
	}
	workers := []worker{
		{name: "everywhere", roles: everyRole, run: untilDone("everywhere")},
		{name: "indexing", roles: indexingRoles, run: untilDone("indexing")},
	}
	for role, want := range map[string][]string{
		config.RoleAll:     {"everywhere", "indexing"},
		config.RoleIndexer: {"everywhere", "indexing"},
		config.RoleAPI:     {"everywhere"},
	} {
		ran = nil
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := runWorkers(ctx, role, workers, quiet)
		cancel()
		slices.Sort(ran)
		if err != nil || !slices.Equal(ran, want) {
			t.Errorf("role %s: ran %v, err %v; want %v and no error", role, ran, err, want)
		}
	}

	boom := errors.New("boom")
	failing := append(slices.Clone(workers), worker{name: "failing", roles: everyRole,
		run: func(context.Context) error { return boom }})
	done := make(chan error, 1)
	go func() { done <- runWorkers(context.Background(), config.RoleAll, failing, quiet) }()
	select {
	case err := <-done:
		if !errors.Is(err, boom) || err.Error() != "failing: boom" {
			t.Errorf("runWorkers = %v, want failing: boom", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a failed worker did not stop the others")
	}
}

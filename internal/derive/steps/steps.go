// Package steps runs a chain's derivation list: named steps, in order,
// over one batch, through the batch's writer. Each chain's list
// (pstate, xstate, cstate, evmstate) is a []Step.
package steps

import (
	"context"
	"fmt"
)

// Step is one derivation of a chain's list, named for its errors. Apply
// takes the writer first, as a method expression of the writer's
// interface would.
type Step[W, B any] struct {
	Name  string
	Apply func(w W, ctx context.Context, batch B) error
}

// Run runs list over batch through w, in order, and names the step that
// failed.
func Run[W, B any](ctx context.Context, w W, batch B, list []Step[W, B]) error {
	for _, s := range list {
		if err := s.Apply(w, ctx, batch); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return nil
}

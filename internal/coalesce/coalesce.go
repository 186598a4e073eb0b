// Package coalesce lets concurrent requests for the same computed value
// share one computation: the answers kept until the store changes miss
// together at each change, and under load each miss would otherwise
// repeat a read that the others are already making.
package coalesce

import "golang.org/x/sync/singleflight"

// Group runs at most one computation per key at a time; callers that
// arrive while it runs get its result.
type Group[T any] struct {
	g singleflight.Group
}

// Do returns f's result for key, computed by this call or by the call
// already computing key. When that other call's f fails, this one runs f
// itself: the failure may have been the other request's own (its client
// gone, its context canceled).
func (g *Group[T]) Do(key string, f func() (T, error)) (T, error) {
	led := false
	v, err, _ := g.g.Do(key, func() (any, error) {
		led = true
		return f()
	})
	if err != nil && !led {
		return f()
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

package api

import (
	"context"
	"net/http"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
)

// The "Health Check" operations, in the hosted API's shape (NestJS
// Terminus' HealthCheckResult): health-check asks the store, live-check
// only says the process answers.

// Pinger is what the health check asks of the store.
type Pinger interface {
	Ping(ctx context.Context) error
}

// healthTimeout bounds the store's answer to the health check: a store
// slower than this is down for its purpose.
const healthTimeout = 2 * time.Second

// healthCheck serves data-health-check: 200 with the database up, or the
// one error body (503) naming what is down.
func (a *API) healthCheck(w http.ResponseWriter, r *http.Request) error {
	if a.health == nil {
		return derrors.Client(derrors.Unavailable, "database: no store to check")
	}
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := a.health.Ping(ctx); err != nil {
		return derrors.Client(derrors.Unavailable, "database: down")
	}
	up := map[string]HealthIndicator{"database": {Status: "up"}}
	WriteJSON(w, http.StatusOK, HealthCheckResult{Status: "ok", Info: up, Error: map[string]HealthIndicator{}, Details: up})
	return nil
}

// liveCheck serves live-check: the process answers, whatever the store.
func (a *API) liveCheck(w http.ResponseWriter, _ *http.Request) error {
	none := map[string]HealthIndicator{}
	WriteJSON(w, http.StatusOK, HealthCheckResult{Status: "ok", Info: none, Error: none, Details: none})
	return nil
}

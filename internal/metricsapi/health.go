package metricsapi

import (
	"log/slog"
	"net/http"

	"github.com/avaindex/avaindex/internal/param"
)

// healthCheck serves GET /v2/health-check: ok while the store answers the
// Metrics API's reads (its one indicator, database); 503 with status error
// when it does not.
func (a *API) healthCheck(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r); err != nil {
		return err
	}
	if _, err := a.store.MetricChains(r.Context()); err != nil {
		slog.WarnContext(r.Context(), "metrics api health check: the store does not answer", "err", err)
		down := map[string]HealthIndicator{"database": {Status: "down"}}
		writeJSON(w, http.StatusServiceUnavailable, HealthResponse{Status: "error", Info: map[string]HealthIndicator{}, Error: down, Details: down})
		return nil
	}
	up := map[string]HealthIndicator{"database": {Status: "up"}}
	writeJSON(w, http.StatusOK, HealthResponse{Status: "ok", Info: up, Error: map[string]HealthIndicator{}, Details: up})
	return nil
}

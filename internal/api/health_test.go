package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

type failingPinger struct{}

func (failingPinger) Ping(context.Context) error { return errors.New("connection refused") }

// TestHealthChecks: health-check says the database is up when the store
// answers and 503 naming it when not; live-check answers whatever the
// store.
func TestHealthChecks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		var res HealthCheckResult
		getOK(t, h, "/v1/health-check", &res)
		if res.Status != "ok" || res.Info["database"].Status != "up" || res.Details["database"].Status != "up" || len(res.Error) != 0 {
			t.Errorf("health-check = %+v", res)
		}
		var live HealthCheckResult
		getOK(t, h, "/v1/live-check", &live)
		if live.Status != "ok" || len(live.Info)+len(live.Error)+len(live.Details) != 0 {
			t.Errorf("live-check = %+v", live)
		}
	})

	a, err := New(Deps{Network: testNet, TokenKey: bytes.Repeat([]byte{7}, 32), Health: failingPinger{}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	getError(t, mux, "/v1/health-check", http.StatusServiceUnavailable, "database: down")
	getOK(t, mux, "/v1/live-check", nil)
}

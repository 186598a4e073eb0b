package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// APIRequestFilter selects recorded requests; a zero field selects all.
type APIRequestFilter struct {
	// From and To bound the request time, both inclusive (zero: open).
	From, To time.Time
	// KeyID selects one key's requests; with OnlyKey, "" selects the
	// calls without a key.
	KeyID   string
	OnlyKey bool
	Type    string
	ChainID string
	// ChainIDs, when not empty, selects the requests to any of them.
	ChainIDs []string
	Route    string
	// Status selects one response code (0: any).
	Status    int
	RPCMethod string
}

// APIRequestCursor is the keyset of a request in the logs' order, newest
// first.
type APIRequestCursor struct {
	TimeUs int64  `json:"t"`
	ID     string `json:"i"`
}

// APIRequestStore keeps the requests usage recording writes.
type APIRequestStore interface {
	// InsertAPIRequests writes reqs; one already written (by ID and time)
	// is left as it is.
	InsertAPIRequests(ctx context.Context, reqs []internal.APIRequest) error
	// DeleteAPIRequestsBefore deletes the requests older than t and
	// returns how many.
	DeleteAPIRequestsBefore(ctx context.Context, t time.Time) (int64, error)
	// APIRequests returns up to limit requests of f, newest first,
	// after *after when not nil.
	APIRequests(ctx context.Context, f APIRequestFilter, after *APIRequestCursor, limit int) ([]internal.APIRequest, error)
	// ScanAPIRequests calls fn with each request of f, oldest first; an
	// error of fn ends the scan and is returned.
	ScanAPIRequests(ctx context.Context, f APIRequestFilter, fn func(*internal.APIRequest) error) error
}

var apiRequestColumns = []string{"ts_us", "id", "key_id", "key_name", "req_type", "route", "method", "status",
	"duration_us", "chain_id", "rpc_method"}

func (s *sqlStore) InsertAPIRequests(ctx context.Context, reqs []internal.APIRequest) (err error) {
	defer derrors.Wrap(&err, "store.InsertAPIRequests(%d)", len(reqs))
	rows := make([][]any, len(reqs))
	for i, r := range reqs {
		if r.ID == "" {
			return fmt.Errorf("request %d has no ID", i)
		}
		rows[i] = apiRequestRow(r)
	}
	// A batch is new unless the recorder retries one whose write it
	// could not confirm. Without a conflict clause PostgreSQL takes it
	// with COPY, in a little over half the time of the insert that skips
	// conflicts (BenchmarkAPIRequestInserts), and a busy API records
	// every request. A batch written before fails whole, and goes again
	// skipping the rows that are there.
	_, err = s.db.BulkInsert(ctx, "api_requests", apiRequestColumns, rows, "")
	if database.Duplicate(err) {
		_, err = s.db.BulkInsert(ctx, "api_requests", apiRequestColumns, rows, onConflictDoNothing)
	}
	return err
}

// apiRequestRow is r's row of apiRequestColumns.
func apiRequestRow(r internal.APIRequest) []any {
	return []any{r.Time.UnixMicro(), r.ID, r.KeyID, r.KeyName, r.Type, r.Route, r.Method, int64(r.Status),
		r.Duration.Microseconds(), r.ChainID, r.RPCMethod}
}

func (s *sqlStore) DeleteAPIRequestsBefore(ctx context.Context, t time.Time) (_ int64, err error) {
	defer derrors.Wrap(&err, "store.DeleteAPIRequestsBefore")
	return s.db.Exec(ctx, "DELETE FROM api_requests WHERE ts_us < ?", t.UnixMicro())
}

// where is f's WHERE clause (without the keyword, "1=1" for none) and its
// arguments.
func (f APIRequestFilter) where() (string, []any) {
	conds := []string{"1=1"}
	var args []any
	add := func(c string, v any) {
		conds = append(conds, c)
		args = append(args, v)
	}
	if !f.From.IsZero() {
		add("ts_us >= ?", f.From.UnixMicro())
	}
	if !f.To.IsZero() {
		add("ts_us <= ?", f.To.UnixMicro())
	}
	if f.OnlyKey {
		add("key_id = ?", f.KeyID)
	}
	if f.Type != "" {
		add("req_type = ?", f.Type)
	}
	if f.ChainID != "" {
		add("chain_id = ?", f.ChainID)
	}
	if len(f.ChainIDs) > 0 {
		conds = append(conds, "chain_id IN (?"+strings.Repeat(", ?", len(f.ChainIDs)-1)+")")
		for _, c := range f.ChainIDs {
			args = append(args, c)
		}
	}
	if f.Route != "" {
		add("route = ?", f.Route)
	}
	if f.Status != 0 {
		add("status = ?", int64(f.Status))
	}
	if f.RPCMethod != "" {
		add("rpc_method = ?", f.RPCMethod)
	}
	return strings.Join(conds, " AND "), args
}

const apiRequestSelect = "SELECT ts_us, id, key_id, key_name, req_type, route, method, status, duration_us, chain_id, rpc_method FROM api_requests WHERE "

func scanAPIRequest(rows *sql.Rows) (internal.APIRequest, error) {
	var (
		r          internal.APIRequest
		ts, dur    int64
		statusCode int64
	)
	err := rows.Scan(&ts, &r.ID, &r.KeyID, &r.KeyName, &r.Type, &r.Route, &r.Method, &statusCode, &dur, &r.ChainID, &r.RPCMethod)
	r.Time = time.UnixMicro(ts).UTC()
	r.Status = int(statusCode)
	r.Duration = time.Duration(dur) * time.Microsecond
	return r, err
}

func (s *sqlStore) APIRequests(ctx context.Context, f APIRequestFilter, after *APIRequestCursor, limit int) (_ []internal.APIRequest, err error) {
	defer derrors.Wrap(&err, "store.APIRequests")
	where, args := f.where()
	if after != nil {
		where += " AND (ts_us < ? OR (ts_us = ? AND id < ?))"
		args = append(args, after.TimeUs, after.TimeUs, after.ID)
	}
	args = append(args, limit)
	var out []internal.APIRequest
	err = s.db.RunQuery(ctx, apiRequestSelect+where+" ORDER BY ts_us DESC, id DESC LIMIT ?", func(rows *sql.Rows) error {
		r, err := scanAPIRequest(rows)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) ScanAPIRequests(ctx context.Context, f APIRequestFilter, fn func(*internal.APIRequest) error) (err error) {
	defer derrors.Wrap(&err, "store.ScanAPIRequests")
	where, args := f.where()
	return s.db.RunQuery(ctx, apiRequestSelect+where+" ORDER BY ts_us, id", func(rows *sql.Rows) error {
		r, err := scanAPIRequest(rows)
		if err != nil {
			return err
		}
		return fn(&r)
	}, args...)
}

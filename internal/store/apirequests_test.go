package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

func TestAPIRequests(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		t0 := time.Unix(1_700_000_000, 0).UTC()
		req := func(id string, sec int, key, typ, chain string, status int) internal.APIRequest {
			return internal.APIRequest{ID: id, Time: t0.Add(time.Duration(sec) * time.Second), KeyID: key, KeyName: "n-" + key,
				Type: typ, Route: "GET /v1/x", Method: "GET", Status: status, Duration: 1500 * time.Microsecond, ChainID: chain}
		}
		reqs := []internal.APIRequest{
			req("a", 0, "k1", internal.RequestTypeData, "P", 200),
			req("b", 10, "k2", internal.RequestTypeData, "", 404),
			req("c", 20, "k1", internal.RequestTypeRPC, "C", 200),
			req("d", 20, "", internal.RequestTypeRPC, "X", 500),
		}
		reqs[2].RPCMethod = "eth_chainId"
		if err := s.InsertAPIRequests(ctx, reqs); err != nil {
			t.Fatal(err)
		}
		// Written twice (a retried batch): kept once.
		if err := s.InsertAPIRequests(ctx, reqs[:1]); err != nil {
			t.Fatal(err)
		}
		ids := func(f APIRequestFilter, after *APIRequestCursor, limit int) []string {
			t.Helper()
			got, err := s.APIRequests(ctx, f, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, r := range got {
				out = append(out, r.ID)
			}
			return out
		}
		for _, tc := range []struct {
			name string
			f    APIRequestFilter
			want []string
		}{
			{"all, newest first", APIRequestFilter{}, []string{"d", "c", "b", "a"}},
			{"key k1", APIRequestFilter{KeyID: "k1", OnlyKey: true}, []string{"c", "a"}},
			{"anonymous", APIRequestFilter{OnlyKey: true}, []string{"d"}},
			{"rpc", APIRequestFilter{Type: internal.RequestTypeRPC}, []string{"d", "c"}},
			{"status 404", APIRequestFilter{Status: 404}, []string{"b"}},
			{"chains", APIRequestFilter{ChainIDs: []string{"P", "X"}}, []string{"d", "a"}},
			{"method", APIRequestFilter{RPCMethod: "eth_chainId"}, []string{"c"}},
			{"range", APIRequestFilter{From: t0.Add(5 * time.Second), To: t0.Add(10 * time.Second)}, []string{"b"}},
		} {
			if got := ids(tc.f, nil, 10); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
		if got := ids(APIRequestFilter{}, &APIRequestCursor{TimeUs: t0.Add(20 * time.Second).UnixMicro(), ID: "d"}, 2); !reflect.DeepEqual(got, []string{"c", "b"}) {
			t.Errorf("after d: %v, want [c b]", got)
		}
		got, err := s.APIRequests(ctx, APIRequestFilter{RPCMethod: "eth_chainId"}, nil, 1)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], reqs[2]) {
			t.Errorf("read back %+v (%v), want %+v", got, err, reqs[2])
		}
		var scanned []string
		if err := s.ScanAPIRequests(ctx, APIRequestFilter{}, func(r *internal.APIRequest) error {
			scanned = append(scanned, r.ID)
			return nil
		}); err != nil || !reflect.DeepEqual(scanned, []string{"a", "b", "c", "d"}) {
			t.Errorf("scan: %v (%v), want oldest first", scanned, err)
		}
		n, err := s.DeleteAPIRequestsBefore(ctx, t0.Add(15*time.Second))
		if err != nil || n != 2 {
			t.Errorf("DeleteAPIRequestsBefore = %d, %v; want 2", n, err)
		}
		if got := ids(APIRequestFilter{}, nil, 10); !reflect.DeepEqual(got, []string{"d", "c"}) {
			t.Errorf("after the delete: %v, want [d c]", got)
		}
	})
}

// TestAPIRequestsRetriedBatch writes a batch large enough for COPY on
// PostgreSQL, then again with one request more, as the recorder retries
// a batch whose write it could not confirm: no error, each request once.
func TestAPIRequestsRetriedBatch(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		t0 := time.Unix(1_700_000_000, 0).UTC()
		var reqs []internal.APIRequest
		for i := range 301 {
			reqs = append(reqs, internal.APIRequest{ID: fmt.Sprintf("r%d", i), Time: t0.Add(time.Duration(i) * time.Millisecond),
				Type: internal.RequestTypeRPC, Route: "POST /ext/bc/P", Method: "POST", Status: 200, ChainID: "P"})
		}
		if err := s.InsertAPIRequests(ctx, reqs[:300]); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertAPIRequests(ctx, reqs); err != nil {
			t.Fatalf("the batch again, with one request more: %v", err)
		}
		var n, distinct int
		if err := s.db.QueryRow(ctx, "SELECT COUNT(*), COUNT(DISTINCT id) FROM api_requests").Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		if n != 301 || distinct != 301 {
			t.Errorf("%d rows, %d distinct ids; want 301 of each", n, distinct)
		}
	})
}

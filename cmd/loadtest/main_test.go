package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// wrkOut is wrk 4.1.0's --latency output of a run whose answers were all
// 404s (a real run, against a loopback server).
const wrkOut = `Running 1s test @ http://127.0.0.1:38777/nonexistent
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     8.22ms   14.11ms  79.80ms   88.71%
    Req/Sec   701.90    521.70     1.50k    70.00%
  Latency Distribution
     50%  750.00us
     75%    9.23ms
     90%   24.80ms
     99%    1.07s
  727 requests in 1.11s, 369.18KB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 727
Requests/sec:    652.65
Transfer/sec:    331.42KB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOut)
	if err != nil {
		t.Fatal(err)
	}
	want := result{rps: 652.65, p50: 0.75, p99: 1070, non2xx: 727, errors: 5}
	if r != want {
		t.Errorf("parseWrk = %+v, want %+v", r, want)
	}
	if _, err := parseWrk("Running 1s test\n"); err == nil {
		t.Error("parseWrk accepted output without Requests/sec")
	}
}

// TestProbeWantsFullPage: a Data API case's probe refuses a page with fewer
// items than asked for (a list the harness did not grow), and an error.
func TestProbeWantsFullPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("pageSize") {
		case "2":
			fmt.Fprint(w, `{"transactions":[{"txHash":"a"},{"txHash":"b"}],"nextPageToken":"x"}`)
		case "3":
			fmt.Fprint(w, `{"transactions":[{"txHash":"a"},{"txHash":"b"}]}`)
		default:
			http.Error(w, `{"message":"bad"}`, http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	for _, c := range []struct {
		path  string
		items int
		ok    bool
	}{{"/l?pageSize=2", 2, true}, {"/l?pageSize=3", 3, false}, {"/l?pageSize=9", 9, false}} {
		err := loadCase{path: c.path, nodeless: true, list: "transactions", items: c.items}.probe(srv.URL)
		if (err == nil) != c.ok {
			t.Errorf("probe of %s: %v, want ok=%v", c.path, err, c.ok)
		}
	}
}

package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestUsage makes Data API and node API requests with two keys, an admin
// key and none, and checks what the usage operations report of them: each
// key its own, the admin key everyone's, every body valid against the
// reference.
func TestUsage(t *testing.T) {
	n := testnet.Get(t)
	doc := openapitest.Default(t)
	dsn := dbtest.SQLite(t)
	k1 := createKey(t, dsn, "usage-one", ratelimit.Standard)
	k2 := createKey(t, dsn, "usage-two", ratelimit.Standard)
	admin := createKey(t, dsn, "usage-admin", ratelimit.Admin)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	waitIndexed(t, base, 0, time.Minute)
	start := time.Now().Unix()

	const blocksRoute = "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks"
	blocks := base + "/v1/networks/testnet/blockchains/p-chain/blocks"
	call := func(u, key string, want int) {
		t.Helper()
		var h []string
		if key != "" {
			h = []string{"x-glacier-api-key", key}
		}
		if status, body, _ := get(t, u, h...); status != want {
			t.Fatalf("GET %s: %d %s, want %d", u, status, body, want)
		}
	}
	for range 3 {
		call(blocks+"?pageSize=1", k1, http.StatusOK)
	}
	call(blocks+"?pageSize=0", k1, http.StatusBadRequest)
	for range 2 {
		call(blocks+"?pageSize=1", k2, http.StatusOK)
	}
	call(blocks+"?pageSize=1", "", http.StatusOK)
	// The node API takes no keys, but a valid one sent names the caller.
	for range 2 {
		req, err := http.NewRequest(http.MethodPost, base+"/ext/bc/P",
			bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-data-api-key", k1)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("platform.getHeight: %d", resp.StatusCode)
		}
	}

	// usage GETs path?q as key, checks the status and, for a 200, the
	// body against the reference, decoded into out.
	usage := func(path string, q url.Values, key string, want int, out any) {
		t.Helper()
		u := base + path + "?" + q.Encode()
		status, body, _ := get(t, u, "x-data-api-key", key)
		if key == "" {
			status, body, _ = get(t, u)
		}
		if status != want {
			t.Fatalf("GET %s: %d %s, want %d", u, status, body, want)
		}
		if status == http.StatusOK {
			doc.ValidateResponse(t, "GET", path, status, body)
			if err := json.Unmarshal(body, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	type logsPage struct {
		NextPageToken string `json:"nextPageToken"`
		Logs          []struct {
			LogID        string  `json:"logId"`
			APIKeyID     string  `json:"apiKeyId"`
			APIKeyAlias  string  `json:"apiKeyAlias"`
			RequestType  string  `json:"requestType"`
			RequestPath  string  `json:"requestPath"`
			ResponseCode int     `json:"responseCode"`
			ChainID      string  `json:"chainId"`
			Duration     float64 `json:"requestDurationMsecs"`
		} `json:"logs"`
	}
	// logs pages through key's logs of the blocks route, 2 at a time.
	logs := func(key string, extra url.Values) (out []string, keyIDs map[string]string) {
		t.Helper()
		keyIDs = map[string]string{}
		q := url.Values{"requestPath": {blocksRoute}, "startTimestamp": {strconv.FormatInt(start, 10)}, "pageSize": {"2"}}
		for k, v := range extra {
			q[k] = v
		}
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("pagination does not end")
			}
			var p logsPage
			usage("/v1/apiLogs", q, key, http.StatusOK, &p)
			for _, l := range p.Logs {
				if l.RequestType != "data" || l.RequestPath != blocksRoute || l.ChainID != "p-chain" || l.Duration <= 0 {
					t.Errorf("log %+v", l)
				}
				out = append(out, l.APIKeyAlias+":"+strconv.Itoa(l.ResponseCode))
				keyIDs[l.APIKeyAlias] = l.APIKeyID
			}
			if p.NextPageToken == "" {
				return out, keyIDs
			}
			q.Set("pageToken", p.NextPageToken)
		}
	}
	// The worker writes within a second or so: wait for the admin to see
	// all seven Data API calls.
	deadline := time.Now().Add(30 * time.Second)
	for {
		all, _ := logs(admin, nil)
		if len(all) >= 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admin sees %v, want 7 requests", all)
		}
		time.Sleep(200 * time.Millisecond)
	}

	one, ids := logs(k1, nil)
	if want := []string{"usage-one:400", "usage-one:200", "usage-one:200", "usage-one:200"}; !equalStrings(one, want) {
		t.Errorf("k1's logs (newest first) %v, want %v", one, want)
	}
	// A page token from before the clock's second turned still reads the
	// next page: a default endTimestamp is "now" on every page.
	{
		q := url.Values{"requestPath": {blocksRoute}, "startTimestamp": {strconv.FormatInt(start, 10)}, "pageSize": {"2"}}
		var p logsPage
		usage("/v1/apiLogs", q, k1, http.StatusOK, &p)
		if p.NextPageToken == "" {
			t.Fatalf("k1's first page of 2 has no next page: %+v", p)
		}
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		q.Set("pageToken", p.NextPageToken)
		usage("/v1/apiLogs", q, k1, http.StatusOK, &p)
		if len(p.Logs) != 2 {
			t.Errorf("k1's second page after a second: %d logs, want 2", len(p.Logs))
		}
	}
	two, ids2 := logs(k2, nil)
	if want := []string{"usage-two:200", "usage-two:200"}; !equalStrings(two, want) {
		t.Errorf("k2's logs %v, want %v", two, want)
	}
	id1, id2 := ids["usage-one"], ids2["usage-two"]
	if id1 == "" || id2 == "" || id1 == id2 {
		t.Fatalf("key IDs %q and %q", id1, id2)
	}
	// A key cannot read another's; the admin can, and no key none.
	usage("/v1/apiLogs", url.Values{"apiKeyId": {id2}}, k1, http.StatusForbidden, nil)
	usage("/v1/apiLogs", url.Values{}, "", http.StatusUnauthorized, nil)
	if got, _ := logs(admin, url.Values{"apiKeyId": {id2}}); len(got) != 2 {
		t.Errorf("the admin's logs of k2: %v, want 2", got)
	}
	if got, _ := logs(admin, url.Values{"apiKeyId": {""}, "responseCode": {"200"}}); !equalStrings(got, []string{":200"}) {
		t.Errorf("the admin's logs of anonymous calls: %v, want [:200]", got)
	}

	type metrics struct {
		AggregateDuration string `json:"aggregateDuration"`
		Metrics           []struct {
			Timestamp int64 `json:"timestamp"`
			Values    []struct {
				GroupedBy          string  `json:"groupedBy"`
				GroupValue         any     `json:"groupValue"`
				TotalRequests      int     `json:"totalRequests"`
				SuccessRatePercent float64 `json:"successRatePercent"`
				InvalidRequests    int     `json:"invalidRequests"`
			} `json:"values"`
		} `json:"metrics"`
	}
	// totals sums the metrics' values by group.
	totals := func(m metrics) map[string][2]int {
		out := map[string][2]int{}
		for _, b := range m.Metrics {
			for _, v := range b.Values {
				k := v.GroupedBy + "=" + toString(v.GroupValue)
				t := out[k]
				out[k] = [2]int{t[0] + v.TotalRequests, t[1] + v.InvalidRequests}
			}
		}
		return out
	}
	since := strconv.FormatInt(start, 10)
	var m metrics
	usage("/v1/apiUsageMetrics", url.Values{"requestPath": {blocksRoute}, "startTimestamp": {since}, "timeInterval": {"hourly"}}, k1, http.StatusOK, &m)
	if got := totals(m); m.AggregateDuration != "1h" || len(got) != 1 || got["None="] != [2]int{4, 1} {
		t.Errorf("k1's usage %+v: %v, want 4 requests, 1 invalid", m, got)
	}
	m = metrics{}
	usage("/v1/apiUsageMetrics", url.Values{"requestPath": {blocksRoute}, "startTimestamp": {since}, "groupBy": {"apiKeyId"}}, admin, http.StatusOK, &m)
	want := map[string][2]int{"apiKeyId=" + id1: {4, 1}, "apiKeyId=" + id2: {2, 0}, "apiKeyId=": {1, 0}}
	if got := totals(m); !equalMaps(got, want) {
		t.Errorf("the admin's usage by key: %v, want %v", got, want)
	}
	// The node API: k1's two platform.getHeight calls, on the P-chain.
	for _, path := range []string{"/v1/subnetRpcUsageMetrics", "/v1/rpcUsageMetrics"} {
		m = metrics{}
		usage(path, url.Values{"chainId": {"P"}, "startTimestamp": {since}, "groupBy": {"rpcMethod"}}, k1, http.StatusOK, &m)
		if got := totals(m); !equalMaps(got, map[string][2]int{"rpcMethod=platform.getHeight": {2, 0}}) {
			t.Errorf("%s for k1: %v", path, got)
		}
	}
	m = metrics{}
	usage("/v1/primaryNetworkRpcUsageMetrics", url.Values{"network": {"testnet"}, "startTimestamp": {since}, "groupBy": {"rpcMethod"}}, k1, http.StatusOK, &m)
	if got := totals(m); !equalMaps(got, map[string][2]int{"rpcMethod=platform.getHeight": {2, 0}}) {
		t.Errorf("primary network RPC usage for k1: %v", got)
	}
	usage("/v1/primaryNetworkRpcUsageMetrics", url.Values{}, k1, http.StatusBadRequest, nil)
	usage("/v1/apiUsageMetrics", url.Values{"timeInterval": {"yearly"}}, k1, http.StatusBadRequest, nil)
}

func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalMaps(a, b map[string][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

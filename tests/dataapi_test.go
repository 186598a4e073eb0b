package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func get(t *testing.T, u string, header ...string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// TestDataAPIBlocksAndConventions pages through the P-chain blocks of the
// Data API of a real network and checks the conventions on bad input; every
// body is validated against the reference OpenAPI document.
func TestDataAPIBlocksAndConventions(t *testing.T) {
	n, _ := issuedNetwork(t)
	doc := openapitest.Default(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	dsn := dbtest.SQLite(t)
	key := apiKey(t, dsn)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	waitIndexed(t, base, tip, time.Minute)
	const listPath = "/v1/networks/{network}/blockchains/{blockchainId}/blocks"
	list := base + "/v1/networks/testnet/blockchains/p-chain/blocks"

	// Page through every block, 4 at a time, newest first.
	var heights []uint64
	next := list + "?pageSize=4"
	for pages := 0; next != ""; pages++ {
		if pages > 100 {
			t.Fatal("pagination does not end")
		}
		status, body, hdr := get(t, next, "x-glacier-api-key", key)
		if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Fatalf("GET %s: %d %s %s", next, status, hdr.Get("Content-Type"), body)
		}
		doc.ValidateResponse(t, "GET", listPath, status, body)
		var page struct {
			NextPageToken string `json:"nextPageToken"`
			Blocks        []struct {
				BlockNumber string `json:"blockNumber"`
			} `json:"blocks"`
			ChainInfo struct{ ChainName, Network string } `json:"chainInfo"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		if page.ChainInfo.ChainName != "p-chain" || page.ChainInfo.Network != "testnet" {
			t.Errorf("chainInfo = %+v", page.ChainInfo)
		}
		for _, b := range page.Blocks {
			h, err := strconv.ParseUint(b.BlockNumber, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			heights = append(heights, h)
		}
		next = ""
		if page.NextPageToken != "" {
			next = list + "?pageSize=4&pageToken=" + url.QueryEscape(page.NextPageToken)
		}
	}
	// Newer blocks may arrive while paging; what was at the tip must all be
	// there, once each, in descending order.
	for i := 1; i < len(heights); i++ {
		if heights[i] != heights[i-1]-1 {
			t.Fatalf("heights not contiguous and descending: %v", heights)
		}
	}
	if len(heights) == 0 || heights[len(heights)-1] != 0 || heights[0] < tip {
		t.Fatalf("paged heights %v do not cover 0..%d", heights, tip)
	}

	// One block by id, as the list reported it.
	status, body, _ := get(t, list+"?pageSize=1")
	var one struct {
		Blocks []json.RawMessage `json:"blocks"`
	}
	if status != 200 || json.Unmarshal(body, &one) != nil || len(one.Blocks) != 1 {
		t.Fatalf("list: %d %s", status, body)
	}
	var blk struct {
		BlockHash string `json:"blockHash"`
	}
	if err := json.Unmarshal(one.Blocks[0], &blk); err != nil {
		t.Fatal(err)
	}
	status, body, _ = get(t, list+"/"+blk.BlockHash)
	doc.ValidateResponse(t, "GET", listPath+"/{blockId}", status, body)
	if status != 200 || !jsonEqual(body, one.Blocks[0]) {
		t.Errorf("getBlockById = %d %s, want the listed block %s", status, body, one.Blocks[0])
	}

	// A valid token from the first page.
	_, body, _ = get(t, list+"?pageSize=2")
	var first struct {
		NextPageToken string `json:"nextPageToken"`
	}
	if err := json.Unmarshal(body, &first); err != nil || first.NextPageToken == "" {
		t.Fatalf("no nextPageToken in %s", body)
	}
	tok := first.NextPageToken
	// Alter one character in the middle of the token.
	mid := len(tok) / 2
	flip := byte('A')
	if tok[mid] == 'A' {
		flip = 'B'
	}
	altered := tok[:mid] + string(flip) + tok[mid+1:]

	for _, tc := range []struct {
		url, param string
		status     int
	}{
		{list + "?pageSize=0", "pageSize", 400},
		{list + "?pageSize=101", "pageSize", 400},
		{list + "?pageSize=abc", "pageSize", 400},
		{list + "?pageToken=" + url.QueryEscape(altered), "pageToken", 400},
		{list + "?pageToken=" + url.QueryEscape(tok[:len(tok)/2]), "pageToken", 400},
		{base + "/v1/networks/testnet/blockchains/x-chain/blocks?pageToken=" + url.QueryEscape(tok), "pageToken", 400},
		{base + "/v1/networks/mainnet/blockchains/p-chain/blocks", "network", 400},
		{base + "/v1/networks/nowhere/blockchains/p-chain/blocks", "network", 400},
		{base + "/v1/networks/testnet/blockchains/q-chain/blocks", "blockchainId", 400},
		{list + "/notAnID", "blockId", 400},
		{base + "/v1/no/such/route", "/v1/no/such/route", 404},
	} {
		status, body, _ := get(t, tc.url)
		var e struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
			Error      string `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil {
			t.Errorf("GET %s: body %s is not the error body: %v", tc.url, body, err)
			continue
		}
		if status != tc.status || e.StatusCode != tc.status || e.Error != http.StatusText(tc.status) || !strings.Contains(e.Message, tc.param) {
			t.Errorf("GET %s = %d %s; want %d naming %q", tc.url, status, body, tc.status, tc.param)
		}
		if tc.status == 400 {
			doc.ValidateResponse(t, "GET", listPath, status, body)
		}
	}
}

// TestHealthAndMetrics checks the service's own endpoints.
func TestHealthAndMetrics(t *testing.T) {
	n := testnet.Get(t)
	base := startService(t, n.URL, dbtest.SQLite(t))
	waitIndexed(t, base, 0, time.Minute)
	if status, body, _ := get(t, base+"/healthz"); status != 200 {
		t.Errorf("/healthz = %d %s", status, body)
	}
	status, body, _ := get(t, base+"/readyz")
	var ready struct {
		Ready   bool   `json:"ready"`
		Store   string `json:"store"`
		Indexer struct {
			Running bool              `json:"running"`
			Heights map[string]uint64 `json:"heights"`
		} `json:"indexer"`
	}
	if err := json.Unmarshal(body, &ready); err != nil || status != 200 || !ready.Ready || !ready.Indexer.Running || ready.Store != "ok" {
		t.Errorf("/readyz = %d %s", status, body)
	}
	get(t, base+"/v1/networks/local/blockchains/p-chain/blocks?pageSize=0")
	_, metrics, _ := get(t, base+"/metrics")
	for _, want := range []string{
		`avaindex_http_requests_total{route="GET /v1/networks/{network}/blockchains/{blockchainId}/blocks",status="400"}`,
		`avaindex_indexed_height{chain="P"}`,
		`avaindex_upstream_rpc_calls_total{method="platform.getBlockByHeight"}`,
		`avaindex_upstream_rpc_calls_total{method="platform.getHeight"}`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// apiGetter returns getJSON: GET base+path?q, which must answer 200 with a
// body that the reference document validates, decoded into out.
func apiGetter(t *testing.T, base string, doc *openapitest.Doc) func(path string, q url.Values, out any) {
	return func(path string, q url.Values, out any) {
		t.Helper()
		u := base + path
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		status, body, _ := get(t, u)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, status, body)
		}
		doc.ValidateResponse(t, "GET", path, status, body)
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
}

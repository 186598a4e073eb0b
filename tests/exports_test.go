package tests

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/exports"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/ratelimit"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// sdkExportFacts are what tests/sdk/exports.test.mjs checks the SDK's
// answers against.
type sdkExportFacts struct {
	Network string `json:"network"`
	Exports struct {
		APIKey    string   `json:"apiKey"`
		Address   string   `json:"address"`
		FirstDate string   `json:"firstDate"`
		LastDate  string   `json:"lastDate"`
		Columns   []string `json:"columns"`
		// PTxs are the P-chain txs of Address the Data API listed before
		// the export: each is in the SDK's file too.
		PTxs []string `json:"pTxs"`
	} `json:"exports"`
}

// TestExports exports the pre-funded key's transactions (it has C-chain
// EVM txs, C-chain atomic txs and P-chain txs from the shared scenario)
// and checks each file's rows against the Data API's lists of the same
// address: every tx listed before the export is in the file, every row
// is a tx listed after it, with the same fields. The download link works
// without a key under --require-api-key, and refuses tampering (403) and
// expiry (410). Then the SDK's calls of both operations (TestSDK skips
// them).
func TestExports(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a network")
	}
	n, _ := issuedNetwork(t)
	doc := openapitest.Default(t)
	dsn := dbtest.SQLite(t)
	key := createKey(t, dsn, "exports", ratelimit.Standard)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet", "--require-api-key", "--export-link-ttl", "3s")
	waitAllIndexed(t, n, dsn)
	cTip, err := node.New(n.URL).CHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitEVMIndexed(t, dsn, n.EVMChainID, cTip)

	// The range: yesterday to tomorrow (UTC), all of the network's life.
	today := time.Now().UTC().Truncate(24 * time.Hour)
	first, last := today.AddDate(0, 0, -1), today.AddDate(0, 0, 1)
	from, to := first.Unix(), last.AddDate(0, 0, 1).Unix()-1
	pAddr, evmAddr := n.PAddress(), n.EthAddr.Hex()

	list := func(path, key string) []map[string]any {
		t.Helper()
		var out []map[string]any
		token := ""
		for {
			u := base + path + "&pageSize=100"
			if token != "" {
				u += "&pageToken=" + url.QueryEscape(token)
			}
			status, body, _ := get(t, u, "x-glacier-api-key", key)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", u, status, body)
			}
			var page map[string]any
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"transactions"} {
				items, _ := page[k].([]any)
				for _, it := range items {
					out = append(out, it.(map[string]any))
				}
			}
			token, _ = page["nextPageToken"].(string)
			if token == "" {
				return out
			}
		}
	}
	str := func(v any) string {
		switch v := v.(type) {
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case map[string]any:
			s, _ := v["address"].(string)
			return s
		}
		return ""
	}
	// rowsOf lists the Data API's txs of the range as CSV rows keyed by
	// tx hash, in the columns the export documents.
	evmRows := func() map[string]map[string]string {
		out := map[string]map[string]string{}
		for _, it := range list(fmt.Sprintf("/v1/chains/%d/addresses/%s/transactions?sortOrder=asc", n.EVMChainID, evmAddr), key) {
			tx := it["nativeTransaction"].(map[string]any)
			ts, _ := tx["blockTimestamp"].(float64)
			if int64(ts) < from || int64(ts) > to {
				continue
			}
			out[str(tx["txHash"])] = map[string]string{"chainId": strconv.FormatUint(n.EVMChainID, 10), "address": evmAddr,
				"blockNumber": str(tx["blockNumber"]), "blockTimestamp": str(tx["blockTimestamp"]), "blockHash": str(tx["blockHash"]),
				"txHash": str(tx["txHash"]), "txStatus": str(tx["txStatus"]), "txType": str(tx["txType"]), "from": str(tx["from"]),
				"value": str(tx["value"]), "gasLimit": str(tx["gasLimit"]), "gasUsed": str(tx["gasUsed"]), "gasPrice": str(tx["gasPrice"]),
				"nonce": str(tx["nonce"])}
		}
		return out
	}
	primaryRows := func() map[string]map[string]string {
		out := map[string]map[string]string{}
		for _, it := range list("/v1/networks/testnet/blockchains/p-chain/transactions?sortOrder=asc&addresses="+url.QueryEscape(n.Address), key) {
			ts, _ := it["blockTimestamp"].(float64)
			if int64(ts) < from || int64(ts) > to {
				continue
			}
			out[str(it["txHash"])] = map[string]string{"blockchainId": n.PChainID.String(), "chainName": "p-chain", "txHash": str(it["txHash"]),
				"txType": str(it["txType"]), "blockNumber": str(it["blockNumber"]), "blockHash": str(it["blockHash"]), "blockTimestamp": str(it["blockTimestamp"])}
		}
		for _, it := range list("/v1/networks/testnet/blockchains/c-chain/transactions?sortOrder=asc&addresses="+evmAddr, key) {
			ts, _ := it["timestamp"].(float64)
			if int64(ts) < from || int64(ts) > to {
				continue
			}
			out[str(it["txHash"])] = map[string]string{"blockchainId": n.CChainID.String(), "chainName": "c-chain", "txHash": str(it["txHash"]),
				"blockNumber": str(it["blockHeight"]), "blockHash": str(it["blockHash"]), "blockTimestamp": str(it["timestamp"])}
		}
		return out
	}

	type exportCase struct {
		name, body string
		columns    []string
		rows       func() map[string]map[string]string
	}
	dates := fmt.Sprintf(`"firstDate": %q, "lastDate": %q`, first.Format(time.DateOnly), last.Format(time.DateOnly))
	for _, c := range []exportCase{
		{"evm", fmt.Sprintf(`{"type": "TRANSACTION_EXPORT_EVM", %s, "options": {"includeChains": ["%d"], "addresses": [%q]}}`,
			dates, n.EVMChainID, evmAddr), exports.EVMColumns, evmRows},
		{"primary network", fmt.Sprintf(`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", %s, "options": {"includeChains": ["p-chain", "c-chain"], "addresses": [%q], "cChainEvmAddresses": [%q]}}`,
			dates, pAddr, evmAddr), exports.PrimaryNetworkColumns, primaryRows},
	} {
		before := c.rows()
		if len(before) == 0 {
			t.Fatalf("%s: the Data API lists no tx of the address: nothing to compare", c.name)
		}
		status, body := postJSON(t, base+"/v1/operations/transactions:export", key, c.body)
		if status != http.StatusCreated {
			t.Fatalf("%s: export: %d %s", c.name, status, body)
		}
		doc.ValidateResponse(t, "POST", "/v1/operations/transactions:export", status, body)
		var op struct {
			OperationID, OperationStatus, Message string
			Metadata                              struct{ DownloadURL, Code string }
		}
		if err := json.Unmarshal(body, &op); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for op.OperationStatus == "RUNNING" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: still running after a minute: %s", c.name, op.Message)
			}
			time.Sleep(100 * time.Millisecond)
			status, body, _ := get(t, base+"/v1/operations/"+op.OperationID, "x-glacier-api-key", key)
			if status != http.StatusOK {
				t.Fatalf("%s: getOperationResult: %d %s", c.name, status, body)
			}
			doc.ValidateResponse(t, "GET", "/v1/operations/"+op.OperationID, status, body)
			if err := json.Unmarshal(body, &op); err != nil {
				t.Fatal(err)
			}
		}
		if op.OperationStatus != "COMPLETED" || op.Metadata.DownloadURL == "" {
			t.Fatalf("%s: %+v", c.name, op)
		}
		// The link, without a key.
		status, file, hdr := get(t, op.Metadata.DownloadURL)
		if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") {
			t.Fatalf("%s: download: %d %s", c.name, status, file)
		}
		after := c.rows()
		records, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil || len(records) == 0 || !slices.Equal(records[0], c.columns) {
			t.Fatalf("%s: file %q: %v", c.name, file, err)
		}
		seen := map[string]bool{}
		for _, rec := range records[1:] {
			row := map[string]string{}
			for i, col := range c.columns {
				row[col] = rec[i]
			}
			h := row["txHash"]
			want, ok := after[h]
			if !ok {
				t.Errorf("%s: the file's tx %s is not in the Data API's list", c.name, h)
				continue
			}
			if seen[h] {
				t.Errorf("%s: tx %s twice", c.name, h)
			}
			seen[h] = true
			for col, v := range want {
				if row[col] != v {
					t.Errorf("%s: tx %s: %s = %q, the Data API says %q", c.name, h, col, row[col], v)
				}
			}
		}
		for h := range before {
			if !seen[h] {
				t.Errorf("%s: tx %s listed before the export is not in the file", c.name, h)
			}
		}
		t.Logf("%s: %d rows, %d listed before, %d after", c.name, len(records)-1, len(before), len(after))

		// Tampered links: 403; the same link once expired: 410.
		link, err := url.Parse(op.Metadata.DownloadURL)
		if err != nil {
			t.Fatal(err)
		}
		q := link.Query()
		sig := q.Get("signature")
		q.Set("signature", strings.Repeat("0", len(sig)))
		tampered := *link
		tampered.RawQuery = q.Encode()
		q = link.Query()
		exp, _ := strconv.ParseInt(q.Get("expires"), 10, 64)
		q.Set("expires", strconv.FormatInt(exp+3600, 10))
		extended := *link
		extended.RawQuery = q.Encode()
		for _, u := range []string{tampered.String(), extended.String()} {
			if status, body, _ := get(t, u); status != http.StatusForbidden || !strings.Contains(string(body), `"statusCode":403`) {
				t.Errorf("%s: tampered link %s: %d %s", c.name, u, status, body)
			}
		}
		// The expiry is the same for every link: waited for once.
		for c.name == "evm" {
			status, body, _ := get(t, link.String())
			if status == http.StatusGone && strings.Contains(string(body), `"statusCode":410`) {
				break
			}
			if status != http.StatusOK || time.Now().Unix() > exp+2 {
				t.Fatalf("%s: the link at %d (expires %d): %d %s", c.name, time.Now().Unix(), exp, status, body)
			}
			time.Sleep(250 * time.Millisecond)
		}
		if c.name == "primary network" && !t.Failed() {
			var facts sdkExportFacts
			facts.Network = "testnet"
			e := &facts.Exports
			e.APIKey, e.Address, e.FirstDate, e.LastDate, e.Columns = key, pAddr, first.Format(time.DateOnly), last.Format(time.DateOnly), c.columns
			for h, r := range before {
				if r["chainName"] == "p-chain" {
					e.PTxs = append(e.PTxs, h)
				}
			}
			installSDK(t)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			runSDK(t, ctx, base, writeFacts(t, facts), "exports.test.mjs")
		}
	}
}

// postJSON POSTs body as key.
func postJSON(t *testing.T, u, key, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-glacier-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

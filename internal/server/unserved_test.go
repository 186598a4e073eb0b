package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/apidoc"
)

// TestUnservedOperations: a hosted operation no route serves answers 501
// in its API's error body, naming the operation and saying avaindex does
// not serve it; a path that is no operation stays a 404; a served route
// is served, under whatever names its wildcards have.
func TestUnservedOperations(t *testing.T) {
	served := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("served")) })
	h := New(Deps{Store: pinger{}, Routes: []Route{
		{Pattern: "GET /v1/webhooks/{webhookID}", Handler: served, Surface: DataAPI},
		{Pattern: "GET /v2/chains", Handler: served, Surface: MetricsAPI},
		{Pattern: "GET /v1/chains/{chainId}", Handler: served, Surface: DataAPI},
	}})
	for _, tc := range []struct {
		method, path string
		status       int
		// operation is the operationId the message names (the
		// references'), "" for no operation; metrics marks the Metrics
		// API's body, whose message is an array.
		operation string
		metrics   bool
	}{
		{"GET", "/v1/webhooks/abc", 200, "", false},
		{"GET", "/v2/chains", 200, "", false},
		{"GET", "/v1/chains/43114", 200, "", false},
		{"GET", "/v1/webhooks", 501, "listWebhooks", false},
		// An operation a served route's wildcard would take.
		{"GET", "/v1/chains/allBlocks", 501, "listAllLatestBlocks", false},
		{"HEAD", "/v1/webhooks", 501, "listWebhooks", false},
		{"POST", "/v1/webhooks", 501, "createWebhook", false},
		{"PATCH", "/v1/webhooks/abc/addresses", 501, "addAddressesToWebhook", false},
		{"GET", "/v1/webhooks:getSharedSecret", 501, "getSharedSecret", false},
		{"POST", "/v1/chains/43114/nfts/collections/0xabc/tokens/7:reindex", 501, "reindexNft", false},
		{"GET", "/v1/avg_tps/43114/rollingWindow", 501, "getRollingWindowAvgTps", true},
		{"GET", "/v2/icm/summary", 501, "getICMSummary", true},
		// No operation: a typo, a wrong method, a segment too many.
		{"GET", "/v1/webhook", 404, "", false},
		{"PUT", "/v1/webhooks", 404, "", false},
		{"GET", "/v1/webhooks/abc/addresses/more", 404, "", false},
		{"GET", "/v2/icm/summaries", 404, "", true},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status {
			t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, rec.Code, rec.Body, tc.status)
			continue
		}
		if tc.status == 200 || tc.method == "HEAD" {
			continue
		}
		var msg string
		var body struct {
			Message    json.RawMessage `json:"message"`
			StatusCode int             `json:"statusCode"`
			Error      string          `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.StatusCode != tc.status || body.Error != http.StatusText(tc.status) {
			t.Errorf("%s %s: body %s, want an error body with status %d", tc.method, tc.path, rec.Body, tc.status)
			continue
		}
		if tc.metrics {
			var msgs []string
			if err := json.Unmarshal(body.Message, &msgs); err != nil || len(msgs) != 1 {
				t.Errorf("%s %s: message %s, want the Metrics API's array", tc.method, tc.path, body.Message)
				continue
			}
			msg = msgs[0]
		} else if err := json.Unmarshal(body.Message, &msg); err != nil {
			t.Errorf("%s %s: message %s, want the Data API's string", tc.method, tc.path, body.Message)
			continue
		}
		if tc.operation == "" {
			if strings.Contains(msg, "does not serve") {
				t.Errorf("%s %s: %q names an operation for a path that is none", tc.method, tc.path, msg)
			}
			continue
		}
		if !strings.Contains(msg, tc.operation+" (") || !strings.Contains(msg, "avaindex does not serve it") {
			t.Errorf("%s %s: message %q, want it to name %s and say avaindex does not serve it", tc.method, tc.path, msg, tc.operation)
		}
	}
}

// TestUnservedShrinks: a route added to the table leaves the unserved
// list, whatever its wildcards are named.
func TestUnservedShrinks(t *testing.T) {
	all := Unserved(nil)
	if len(all) != len(apidoc.HostedOperations()) {
		t.Fatalf("with no route, %d unserved of %d hosted operations", len(all), len(apidoc.HostedOperations()))
	}
	less := Unserved([]Route{{Pattern: "GET /v1/webhooks/{x}"}, {Pattern: "POST /v1/chains/{c}/nfts/collections/{a}/tokens/{tokenIdReindex}"}})
	if len(less) != len(all)-2 {
		t.Errorf("two routes served: %d unserved, want %d", len(less), len(all)-2)
	}
	for _, op := range less {
		if op.OperationID == "getWebhook" || op.OperationID == "reindexNft" {
			t.Errorf("%s is served but listed as unserved", op.OperationID)
		}
	}
}

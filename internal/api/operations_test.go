package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// newOperationsAPI serves the Data API over a fresh store; the caller is
// the key named in x-data-api-key, an admin when it is "admin".
func newOperationsAPI(t testing.TB, dsn string) (*API, http.Handler, store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := New(Deps{Store: st, EVM: st, Health: st, Chains: evmTestChains(), Network: testNet, TokenKey: bytes.Repeat([]byte{7}, 32),
		Operations: st})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return a, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get(HeaderDataAPIKey); k != "" {
			r = r.WithContext(WithCaller(r.Context(), &Caller{KeyID: k, Tier: "standard", Admin: k == "admin"}))
		}
		mux.ServeHTTP(w, r)
	}), st
}

// TestExportRequestRefusals: each bad request is a 400 naming its field.
func TestExportRequestRefusals(t *testing.T) {
	_, h, _ := newOperationsAPI(t, dbtest.SQLite(t))
	evm := fmt.Sprintf(`"includeChains": ["%d"], "addresses": ["0x00000000000000000000000000000000000000aa"]`, evmTestChain)
	pn := `"includeChains": ["p-chain"], "addresses": ["` + bech(t, ownerA) + `"]`
	for _, tc := range []struct{ body, want string }{
		{`{}`, "type is required"},
		{`{"type": "TRANSACTION_EXPORT_X", "options": {}}`, "type must be one of"},
		{`{"type": "TRANSACTION_EXPORT_EVM"}`, "options is required"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "options": {"addresses": ["0x00000000000000000000000000000000000000aa"]}}`, "options.includeChains is required"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "options": {"includeChains": ["43114"], "addresses": ["0x00000000000000000000000000000000000000aa"]}}`, "options.includeChains: chain 43114 is not served"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "options": {"includeChains": ["c-chain"], "addresses": []}}`, "options.includeChains: \"c-chain\" is not an EVM chain id"},
		{fmt.Sprintf(`{"type": "TRANSACTION_EXPORT_EVM", "options": {"includeChains": ["%d"]}}`, evmTestChain), "options.addresses is required"},
		{fmt.Sprintf(`{"type": "TRANSACTION_EXPORT_EVM", "options": {"includeChains": ["%d"], "addresses": ["0x12"]}}`, evmTestChain), "options.addresses: \"0x12\" is not an EVM address"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "firstDate": "2024-13-01", "options": {` + evm + `}}`, "firstDate must be a date YYYY-MM-DD"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "lastDate": "yesterday", "options": {` + evm + `}}`, "lastDate must be a date"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "endDate": "x", "options": {` + evm + `}}`, "endDate must be a date"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "firstDate": "2024-05-02", "lastDate": "2024-05-01", "options": {` + evm + `}}`, "firstDate 2024-05-02 is after lastDate 2024-05-01"},
		{`{"type": "TRANSACTION_EXPORT_EVM", "firstDate": "2024-05-02", "startDate": "2024-05-01", "options": {` + evm + `}}`, "firstDate and its deprecated startDate differ"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {"includeChains": ["d-chain"], "addresses": ["` + bech(t, ownerA) + `"]}}`, "options.includeChains: \"d-chain\" is none of"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {"includeChains": ["p-chain"], "addresses": ["avax1xyz"]}}`, "options.addresses: \"avax1xyz\" is not a valid bech32 address"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {"includeChains": ["p-chain"]}}`, "options.addresses is required"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {"includeChains": ["p-chain"], "cChainEvmAddresses": ["0x00000000000000000000000000000000000000aa"]}}`, "add c-chain to options.includeChains"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING", "options": {"includeChains": ["x-chain"], "addresses": ["` + bech(t, ownerA) + `"]}}`, "the staking export covers the P-chain only"},
		{`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {` + pn + `}, "firstDate": 7}`, "firstDate must be a JSON string"},
		{`[]`, "request body must be a JSON object"},
	} {
		rec := call(t, h, "k1", "POST", "/v1/operations/transactions:export", tc.body)
		var e ErrorBody
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(e.Message), tc.want) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.body, rec.Code, rec.Body, tc.want)
		}
	}
	// Without a key: 401.
	if rec := call(t, h, "", "POST", "/v1/operations/transactions:export", `{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {`+pn+`}}`); rec.Code != http.StatusUnauthorized {
		t.Errorf("without a key: %d %s", rec.Code, rec.Body)
	}
}

// TestOperationLifecycle creates an export, checks who sees it, completes
// it as the worker does, downloads its file by the link, and checks that
// a tampered or expired link is refused.
func TestOperationLifecycle(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a, h, st := newOperationsAPI(t, dsn)
		var created operationResponse
		callOK(t, h, "k1", "POST", "/v1/operations/transactions:export",
			`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": "2024-05-01", "lastDate": "2024-05-31",
			  "options": {"includeChains": ["p-chain", "`+testNet.CChainID.String()+`"], "addresses": ["P-`+bech(t, ownerA)+`"],
			  "cChainEvmAddresses": ["0x00000000000000000000000000000000000000AA"]}}`, &created)
		if created.OperationStatus != store.OpRunning || created.OperationType != store.OpExportPrimaryNetwork || created.Metadata != nil {
			t.Fatalf("created: %+v", created)
		}
		op, err := st.Operation(ctx, "k1", created.OperationID)
		if err != nil {
			t.Fatal(err)
		}
		if j := op.Job; j.First.Format(time.DateOnly) != "2024-05-01" || j.Last.Format(time.DateOnly) != "2024-05-31" ||
			fmt.Sprint(j.Chains) != "[P C]" || len(j.Addresses) != 2 || j.Addresses[0] != ownerA {
			t.Fatalf("stored job: %+v", j)
		}
		// Another key does not see it; an admin key does.
		if rec := call(t, h, "k2", "GET", "/v1/operations/"+created.OperationID, ""); rec.Code != http.StatusNotFound {
			t.Errorf("another key: %d %s", rec.Code, rec.Body)
		}
		var got operationResponse
		callOK(t, h, "admin", "GET", "/v1/operations/"+created.OperationID, "", &got)
		callOK(t, h, "k1", "GET", "/v1/operations/"+created.OperationID, "", &got)
		if got.OperationStatus != store.OpRunning || got.Message != "running: 0 rows exported so far" {
			t.Errorf("running: %+v", got)
		}

		// The worker's part: claim, two chunks, done.
		claimed, ok, err := st.ClaimOperation(ctx, time.Now(), time.Minute, "c1")
		if err != nil || !ok || claimed.ID != created.OperationID {
			t.Fatalf("claim: %v %v %+v", ok, err, claimed)
		}
		file := "a,b\n1,2\n3,4\n"
		for _, c := range []string{"a,b\n1,2\n", "3,4\n"} {
			if err := st.AppendOperationChunk(ctx, claimed.ID, "c1", store.OperationChunk{Data: []byte(c), Cursor: []byte(`{}`), Rows: 1}); err != nil {
				t.Fatal(err)
			}
		}
		callOK(t, h, "k1", "GET", "/v1/operations/"+created.OperationID, "", &got)
		if got.Message != "running: 2 rows exported so far" {
			t.Errorf("progress: %q", got.Message)
		}
		if err := st.FinishOperation(ctx, claimed.ID, "c1", store.OpCompleted, "", "exported 2 rows", ""); err != nil {
			t.Fatal(err)
		}
		callOK(t, h, "k1", "GET", "/v1/operations/"+created.OperationID, "", &got)
		if got.OperationStatus != store.OpCompleted || got.Metadata == nil || got.Metadata.DownloadURL == "" || got.Message != "exported 2 rows" {
			t.Fatalf("completed: %+v", got)
		}
		link, err := url.Parse(got.Metadata.DownloadURL)
		if err != nil {
			t.Fatal(err)
		}
		if link.Path != "/v1/operations/"+created.OperationID+"/download" {
			t.Fatalf("link %s", link)
		}
		download := func(target string) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil)) // no key: the link is the credential
			return rec
		}
		rec := download(link.RequestURI())
		if rec.Code != http.StatusOK || rec.Body.String() != file || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" ||
			rec.Header().Get("Content-Length") != strconv.Itoa(len(file)) {
			t.Fatalf("download: %d %q %v", rec.Code, rec.Body, rec.Header())
		}

		q := link.Query()
		exp, sig := q.Get("expires"), q.Get("signature")
		flip := string('0'+('1'-sig[0])%2) + sig[1:]
		if sig[0] != '0' && sig[0] != '1' {
			flip = "0" + sig[1:]
		}
		later, _ := strconv.ParseInt(exp, 10, 64)
		other := newUUID()
		for name, target := range map[string]string{
			"signature changed": link.Path + "?expires=" + exp + "&signature=" + flip,
			"expiry extended":   link.Path + "?expires=" + strconv.FormatInt(later+3600, 10) + "&signature=" + sig,
			"other operation":   "/v1/operations/" + other + "/download?expires=" + exp + "&signature=" + sig,
			"signature cut":     link.Path + "?expires=" + exp + "&signature=" + sig[:10],
		} {
			rec := download(target)
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"statusCode":403`) ||
				!strings.Contains(rec.Body.String(), "signature does not match") {
				t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
			}
		}
		// A link signed as the server does, expired: 410.
		past := time.Now().Add(-time.Second).Unix()
		rec = download(fmt.Sprintf("%s?expires=%d&signature=%s", link.Path, past, a.linkSignature(created.OperationID, past)))
		if rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), `"statusCode":410`) || !strings.Contains(rec.Body.String(), `"error":"Gone"`) {
			t.Errorf("expired: %d %s", rec.Code, rec.Body)
		}
		for name, target := range map[string]string{
			"no signature": link.Path + "?expires=" + exp,
			"no expiry":    link.Path + "?signature=" + sig,
			"bad expiry":   link.Path + "?expires=soon&signature=" + sig,
		} {
			if rec := download(target); rec.Code != http.StatusBadRequest {
				t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
			}
		}
		// A link to a RUNNING operation, validly signed: 404.
		var running operationResponse
		callOK(t, h, "k1", "POST", "/v1/operations/transactions:export",
			`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING", "options": {"includeChains": ["p-chain"], "addresses": ["`+bech(t, ownerB)+`"]}}`, &running)
		future := time.Now().Add(time.Minute).Unix()
		if rec := download(fmt.Sprintf("/v1/operations/%s/download?expires=%d&signature=%s", running.OperationID, future, a.linkSignature(running.OperationID, future))); rec.Code != http.StatusNotFound {
			t.Errorf("running: %d %s", rec.Code, rec.Body)
		}
	})
}

// FuzzExportRequest posts bodies to postTransactionExportJob's parser:
// each is refused with a 400 naming a field of the request, or is a job
// with a range in order, chains and addresses, and the request's type.
func FuzzExportRequest(f *testing.F) {
	a, _ := address.FormatBech32("local", ownerA[:])
	for _, s := range []string{
		`{"type": "TRANSACTION_EXPORT_EVM", "firstDate": "2024-05-01", "lastDate": "2024-05-02", "options": {"includeChains": ["99999"], "addresses": ["0x00000000000000000000000000000000000000aa"]}}`,
		`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "startDate": "2024-05-01", "endDate": "2024-05-02", "options": {"includeChains": ["p-chain", "x-chain", "c-chain"], "addresses": ["P-` + a + `"], "cChainEvmAddresses": ["0x00000000000000000000000000000000000000aa"]}}`,
		`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING", "options": {"includeChains": ["11111111111111111111111111111111LpoYY"], "addresses": ["` + a + `"]}}`,
		`{"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE", "firstDate": "2024-05-03", "lastDate": "2024-05-02", "options": {"includeChains": ["p-chain"], "addresses": ["` + a + `"]}}`,
		`{}`, `{"type": 1}`, `{"options": null}`, `[]`, `null`, ``, `{"type": "TRANSACTION_EXPORT_EVM", "options": {"includeChains": [""], "addresses": [""]}}`,
	} {
		f.Add([]byte(s))
	}
	api, _, _ := newOperationsAPI(f, dbtest.SQLite(f))
	fields := []string{"request body", "type", "options", "firstDate", "lastDate", "startDate", "endDate"}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		var req exportRequest
		if err := DecodeJSONBody(r, &req); err != nil {
			wantFuzzParamError(t, "DecodeJSONBody", err, "request body")
			return
		}
		typ, job, err := api.exportJob(&req, time.Now())
		if err != nil {
			msg, _ := derrors.ClientMessage(err)
			if derrors.ToStatus(err) != http.StatusBadRequest || !slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(msg, f) }) {
				t.Fatalf("%q: %v (%d) names no field", body, err, derrors.ToStatus(err))
			}
			return
		}
		if typ != req.Type || job.First.After(job.Last) {
			t.Fatalf("%q: type %s, range %s to %s", body, typ, job.First, job.Last)
		}
		if typ == store.OpExportEVM && (len(job.EVMChains) == 0 || len(job.EVMAddresses) == 0) ||
			typ != store.OpExportEVM && (len(job.Chains) == 0 || len(job.Addresses) == 0) {
			t.Fatalf("%q: an empty job %+v", body, job)
		}
	})
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// newWebhookAPI serves the Data API over a fresh store, the caller being
// the key named in x-data-api-key (as the server's access layer
// recognizes it) at tier "standard".
func newWebhookAPI(t testing.TB, dsn string, limits store.WebhookLimits, opts ...func(*Deps)) (http.Handler, store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := Deps{Store: st, EVM: st, Health: st, Chains: evmTestChains(), Network: testNet, TokenKey: bytes.Repeat([]byte{7}, 32),
		Webhooks: st, WebhookLimits: func(string) store.WebhookLimits { return limits }}
	for _, o := range opts {
		o(&d)
	}
	a, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get(HeaderDataAPIKey); k != "" {
			r = r.WithContext(WithCaller(r.Context(), &Caller{KeyID: k, Tier: "standard"}))
		}
		mux.ServeHTTP(w, r)
	}), st
}

// call makes a request as key and checks the answer against the
// reference document.
func call(t *testing.T, h http.Handler, key, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set(HeaderDataAPIKey, key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	path, _, _ := strings.Cut(target, "?")
	openapitest.Default(t).ValidateRecorder(t, method, path, rec)
	return rec
}

func callOK(t *testing.T, h http.Handler, key, method, target, body string, v any) {
	t.Helper()
	rec := call(t, h, key, method, target, body)
	want := http.StatusOK
	if method == "POST" {
		want = http.StatusCreated // as the reference documents its POSTs
	}
	if rec.Code != want {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

func TestWebhookEndpoints(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h, _ := newWebhookAPI(t, dsn, store.WebhookLimits{Webhooks: 2, Addresses: 3})
		a1, a2, a3 := "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", "0x0000000000000000000000000000000000000001", "0x00000000000000000000000000000000000000aa"
		create := fmt.Sprintf(`{"eventType":"address_activity","url":"https://example.org/hook","name":"n","description":"d","chainId":"%d",
			"metadata":{"addresses":["%s","%s"],"eventSignatures":["0x61cbb2a3dee0b6064c2e681aadd61677fb4ef319f0b547508d495626f5a62f64"]},"includeLogs":true}`,
			evmTestChain, a1, a2)
		var hook testHook
		callOK(t, h, "alice", "POST", "/v1/webhooks", create, &hook)
		wantAddrs := []string{strings.ToLower(a2), strings.ToLower(a1)}
		if !uuidLike(hook.ID) || hook.Status != "active" || hook.ChainID != fmt.Sprint(evmTestChain) || hook.URL != "https://example.org/hook" ||
			!slices.Equal(hook.Metadata.Addresses, wantAddrs) || !hook.IncludeLogs || hook.IncludeInternalTxs || hook.CreatedAt == 0 ||
			len(hook.Metadata.EventSignatures) != 1 {
			t.Errorf("created %+v", hook)
		}
		var got testHook
		callOK(t, h, "alice", "GET", "/v1/webhooks/"+hook.ID, "", &got)
		if got.ID != hook.ID || got.Name != "n" || got.Description != "d" {
			t.Errorf("getWebhook = %+v", got)
		}
		// Another key sees nothing of alice's.
		for _, c := range []struct{ method, target, body string }{
			{"GET", "/v1/webhooks/" + hook.ID, ""},
			{"PATCH", "/v1/webhooks/" + hook.ID, `{"name":"x"}`},
			{"DELETE", "/v1/webhooks/" + hook.ID, ""},
			{"GET", "/v1/webhooks/" + hook.ID + "/addresses", ""},
			{"PATCH", "/v1/webhooks/" + hook.ID + "/addresses", `{"addresses":["` + a3 + `"]}`},
		} {
			if rec := call(t, h, "bob", c.method, c.target, c.body); rec.Code != http.StatusNotFound {
				t.Errorf("bob's %s %s: %d %s", c.method, c.target, rec.Code, rec.Body)
			}
		}
		var list struct {
			Webhooks []testHook `json:"webhooks"`
		}
		callOK(t, h, "bob", "GET", "/v1/webhooks", "", &list)
		if len(list.Webhooks) != 0 {
			t.Errorf("bob lists %d webhooks", len(list.Webhooks))
		}
		// Without a key: 401.
		if rec := call(t, h, "", "GET", "/v1/webhooks", ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("no key: %d", rec.Code)
		}
		// Addresses: add, limit, page, remove.
		callOK(t, h, "alice", "PATCH", "/v1/webhooks/"+hook.ID+"/addresses", `{"addresses":["`+a3+`"]}`, &got)
		if len(got.Metadata.Addresses) != 3 {
			t.Errorf("after adding: %v", got.Metadata.Addresses)
		}
		if rec := call(t, h, "alice", "PATCH", "/v1/webhooks/"+hook.ID+"/addresses", `{"addresses":["0x00000000000000000000000000000000000000bb"]}`); rec.Code != http.StatusForbidden {
			t.Errorf("a fourth address with a limit of 3: %d %s", rec.Code, rec.Body)
		}
		var page struct {
			Addresses      []string `json:"addresses"`
			TotalAddresses int      `json:"totalAddresses"`
			NextPageToken  string   `json:"nextPageToken"`
		}
		callOK(t, h, "alice", "GET", "/v1/webhooks/"+hook.ID+"/addresses?pageSize=2", "", &page)
		all := append([]string{}, page.Addresses...)
		if page.TotalAddresses != 3 || len(page.Addresses) != 2 || page.NextPageToken == "" {
			t.Errorf("first page %+v", page)
		}
		next := page.NextPageToken
		page.NextPageToken = ""
		callOK(t, h, "alice", "GET", "/v1/webhooks/"+hook.ID+"/addresses?pageSize=2&pageToken="+next, "", &page)
		all = append(all, page.Addresses...)
		want := []string{strings.ToLower(a2), strings.ToLower(a3), strings.ToLower(a1)}
		if !slices.Equal(all, want) || page.NextPageToken != "" {
			t.Errorf("addresses %v (next %q), want %v", all, page.NextPageToken, want)
		}
		callOK(t, h, "alice", "DELETE", "/v1/webhooks/"+hook.ID+"/addresses", `{"addresses":["`+a1+`"]}`, &got)
		if len(got.Metadata.Addresses) != 2 || slices.Contains(got.Metadata.Addresses, strings.ToLower(a1)) {
			t.Errorf("after removing: %v", got.Metadata.Addresses)
		}
		// Update, deactivate (with the reason), list by status.
		callOK(t, h, "alice", "PATCH", "/v1/webhooks/"+hook.ID, `{"name":"renamed","includeInternalTxs":true}`, &got)
		if got.Name != "renamed" || !got.IncludeInternalTxs || !got.IncludeLogs {
			t.Errorf("updated %+v", got)
		}
		var second testHook
		callOK(t, h, "alice", "POST", "/v1/webhooks", create, &second)
		if rec := call(t, h, "alice", "POST", "/v1/webhooks", create); rec.Code != http.StatusForbidden {
			t.Errorf("a third webhook with a limit of 2: %d %s", rec.Code, rec.Body)
		}
		callOK(t, h, "alice", "DELETE", "/v1/webhooks/"+hook.ID, "", &got)
		if got.Status != "inactive" || got.InactiveReason == "" {
			t.Errorf("deactivated %+v", got)
		}
		for status, want := range map[string][]string{"active": {second.ID}, "inactive": {hook.ID}, "": {hook.ID, second.ID}} {
			var ids []string
			target := "/v1/webhooks?pageSize=1&status=" + status
			for {
				var l struct {
					Webhooks      []testHook `json:"webhooks"`
					NextPageToken string     `json:"nextPageToken"`
				}
				callOK(t, h, "alice", "GET", target, "", &l)
				for _, w := range l.Webhooks {
					ids = append(ids, w.ID)
				}
				if l.NextPageToken == "" {
					break
				}
				target = "/v1/webhooks?pageSize=1&status=" + status + "&pageToken=" + l.NextPageToken
			}
			if !slices.Equal(ids, want) {
				t.Errorf("status %q: %v, want %v", status, ids, want)
			}
		}
		// Secrets: one per key, made with the first webhook, rotated.
		var s1, s2, s3 struct{ Secret string }
		callOK(t, h, "alice", "GET", "/v1/webhooks:getSharedSecret", "", &s1)
		callOK(t, h, "alice", "POST", "/v1/webhooks:generateOrRotateSharedSecret", "", &s2)
		callOK(t, h, "alice", "GET", "/v1/webhooks:getSharedSecret", "", &s3)
		if len(s1.Secret) != 64 || s2.Secret == s1.Secret || s3.Secret != s2.Secret {
			t.Errorf("secrets %q %q %q", s1.Secret, s2.Secret, s3.Secret)
		}
		var sb struct{ Secret string }
		callOK(t, h, "bob", "GET", "/v1/webhooks:getSharedSecret", "", &sb)
		if sb.Secret == s3.Secret {
			t.Error("bob has alice's secret")
		}
	})
}

func uuidLike(s string) bool {
	return len(s) == 36 && strings.Count(s, "-") == 4
}

func TestWebhookBadRequests(t *testing.T) {
	h, _ := newWebhookAPI(t, dbtest.SQLite(t), store.WebhookLimits{Webhooks: 2, Addresses: 3})
	ok := func(mod string) string {
		return `{"eventType":"address_activity","url":"https://example.org/h","chainId":"99999","metadata":{"addresses":[]}` + mod + `}`
	}
	for _, c := range []struct{ body, param string }{
		{``, "body"},
		{`[]`, "body"},
		{`{"eventType":"nope","url":"https://example.org","chainId":"99999","metadata":{"addresses":[]}}`, "eventType"},
		{`{"eventType":"address_activity","url":"ftp://example.org","chainId":"99999","metadata":{"addresses":[]}}`, "url"},
		{`{"eventType":"address_activity","url":"https://u:p@example.org","chainId":"99999","metadata":{"addresses":[]}}`, "url"},
		{`{"eventType":"address_activity","url":"https://example.org","chainId":"1","metadata":{"addresses":[]}}`, "chainId"},
		{`{"eventType":"address_activity","url":"https://example.org","chainId":"x","metadata":{"addresses":[]}}`, "chainId"},
		{`{"eventType":"address_activity","url":"https://example.org","chainId":"99999"}`, "metadata"},
		{`{"eventType":"address_activity","url":"https://example.org","chainId":"99999","metadata":{"addresses":["0x12"]}}`, "metadata.addresses"},
		{`{"eventType":"address_activity","url":"https://example.org","chainId":"99999","metadata":{"addresses":[],"eventSignatures":["0x12"]}}`, "metadata.eventSignatures"},
		{ok(`,"name":"` + strings.Repeat("n", 300) + `"`), "name"},
		{ok(`,"includeLogs":"yes"`), "includeLogs"},
	} {
		rec := call(t, h, "k", "POST", "/v1/webhooks", c.body)
		body := decodeError(t, rec, http.StatusBadRequest)
		if c.param != "body" && !strings.Contains(body.Message, c.param) {
			t.Errorf("body %.80s: message %q does not name %s", c.body, body.Message, c.param)
		}
	}
	if rec := call(t, h, "k", "GET", "/v1/webhooks?status=maybe", ""); rec.Code != http.StatusBadRequest {
		t.Errorf("status=maybe: %d", rec.Code)
	}
	if rec := call(t, h, "k", "GET", "/v1/webhooks/nope", ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown webhook: %d", rec.Code)
	}
}

// FuzzWebhookBodies sends arbitrary bodies to the webhook operations that
// take one: each answers 2xx with a body of the reference's shape, or a
// 4xx; never a 5xx. An accepted webhook holds only valid addresses and an
// http(s) URL.
func FuzzWebhookBodies(f *testing.F) {
	for _, s := range []string{
		`{"eventType":"address_activity","url":"https://example.org/h","chainId":"99999","metadata":{"addresses":["0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"]}}`,
		`{"eventType":"address_activity","url":"http://[::1]:80/x","chainId":"99999","metadata":{"addresses":[],"eventSignatures":["0x61cbb2a3dee0b6064c2e681aadd61677fb4ef319f0b547508d495626f5a62f64"]},"includeLogs":true,"includeInternalTxs":true}`,
		`{"name":"x","status":"inactive","url":"https://a.b"}`, `{"addresses":["0x0000000000000000000000000000000000000001"]}`,
		`{"eventType":"primary_network_address_activity","url":"https://a.b","chainId":"p-chain","network":"local","metadata":{"keyType":"addresses","keys":["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"],"subEvents":{"addressActivitySubEvents":["balance_change","balance_threshold"]},"balanceThresholdFilter":{"balanceType":"unlockedUnstaked","balanceThreshold":"5"}}}`,
		`{"eventType":"validator_activity","url":"https://a.b","network":"local","metadata":{"keyType":"nodeId","keys":["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]},"subnetIds":["11111111111111111111111111111111LpoYY"]}}`,
		`{"addresses":null}`, `{}`, `null`, `[]`, `{"metadata":{"addresses":[1]}}`, `{"chainId":99999}`, "\x00", `{"url":"https://%zz"}`,
	} {
		f.Add(s)
	}
	h, _ := newWebhookAPI(f, "sqlite:"+filepath.Join(f.TempDir(), "fuzz.db"), store.WebhookLimits{Webhooks: 1 << 30, Addresses: 1 << 30})
	doc := openapitest.Default(f)
	send := func(t testing.TB, method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(HeaderDataAPIKey, "fuzz")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, target, body, rec.Code, rec.Body)
		}
		path, _, _ := strings.Cut(target, "?")
		if err := doc.CheckResponse(method, path, rec.Code, rec.Body.Bytes()); err != nil {
			t.Fatalf("%s %s %q: %v", method, target, body, err)
		}
		return rec
	}
	f.Fuzz(func(t *testing.T, body string) {
		var hook testHook
		if rec := send(t, "POST", "/v1/webhooks", body); rec.Code == http.StatusCreated {
			if err := json.Unmarshal(rec.Body.Bytes(), &hook); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(hook.URL, "http://") && !strings.HasPrefix(hook.URL, "https://") {
				t.Fatalf("accepted url %q", hook.URL)
			}
			for _, a := range hook.Metadata.Addresses {
				if len(a) != 42 || a != strings.ToLower(a) {
					t.Fatalf("accepted address %q", a)
				}
			}
			for _, k := range hook.Metadata.Keys {
				_, _, err := address.ParseBech32(k)
				_, nerr := ids.NodeIDFromString(k)
				_, serr := ids.FromString(k)
				if err != nil && nerr != nil && serr != nil {
					t.Fatalf("accepted key %q", k)
				}
			}
		}
		id := hook.ID
		if id == "" {
			id = "00000000-0000-4000-8000-000000000000"
		}
		send(t, "PATCH", "/v1/webhooks/"+id, body)
		send(t, "PATCH", "/v1/webhooks/"+id+"/addresses", body)
		send(t, "DELETE", "/v1/webhooks/"+id+"/addresses", body)
	})
}

// testHook is a webhook as the tests read it, whatever its event type.
type testHook struct {
	ID, URL, ChainID, Status, Name, Description, EventType, InactiveReason string
	CreatedAt                                                              int64
	Metadata                                                               struct {
		Addresses, EventSignatures, Keys, NodeIDs, SubnetIDs []string
		KeyType                                              string
		SubEvents                                            struct {
			AddressActivitySubEvents, ValidatorActivitySubEvents []string
		}
		BalanceThresholdFilter         *struct{ BalanceType, BalanceThreshold string }
		L1ValidatorFeeBalanceThreshold string
	}
	IncludeInternalTxs, IncludeLogs bool
}

// TestPlatformWebhookEndpoints creates, reads and changes
// primary_network_address_activity and validator_activity webhooks, in the
// reference's shapes (call validates each answer), and refuses their bad
// metadata naming the field.
func TestPlatformWebhookEndpoints(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h, _ := newWebhookAPI(t, dsn, store.WebhookLimits{Webhooks: 10, Addresses: 3})
		a1, a2, a3 := "local1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqxrhj9t", "local1qgqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqye75yw", "local1qvqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqagekud"
		var hook testHook
		callOK(t, h, "alice", "POST", "/v1/webhooks", `{"eventType":"primary_network_address_activity","url":"https://example.org/p",
			"chainId":"p-chain","network":"local","metadata":{"keyType":"addresses","keys":["P-`+a2+`","`+a1+`"],
			"subEvents":{"addressActivitySubEvents":["balance_change","balance_threshold","reward_distribution"]},
			"balanceThresholdFilter":{"balanceType":"unlockedUnstaked","balanceThreshold":"5500000000"}}}`, &hook)
		if hook.EventType != internal.EventPlatformAddressActivity || hook.ChainID != "p-chain" || !slices.Equal(hook.Metadata.Keys, []string{a2, a1}) ||
			hook.Metadata.KeyType != "addresses" || len(hook.Metadata.SubEvents.AddressActivitySubEvents) != 3 ||
			hook.Metadata.BalanceThresholdFilter == nil || hook.Metadata.BalanceThresholdFilter.BalanceThreshold != "5500000000" {
			t.Errorf("created %+v", hook)
		}
		// The reference gives the addresses operations the EVM webhook's
		// shape alone: a primary-network webhook answers in its own.
		var got testHook
		addrCall := func(method, body string) {
			t.Helper()
			req := httptest.NewRequest(method, "/v1/webhooks/"+hook.ID+"/addresses", strings.NewReader(body))
			req.Header.Set(HeaderDataAPIKey, "alice")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s addresses: %d %s", method, rec.Code, rec.Body)
			}
			if err := openapitest.Default(t).CheckSchema("PrimaryNetworkAddressActivityResponse", rec.Body.Bytes()); err != nil {
				t.Error(err)
			}
			got = testHook{}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
		}
		addrCall("PATCH", `{"addresses":["X-`+a3+`"]}`)
		if !slices.Equal(got.Metadata.Keys, []string{a2, a3, a1}) {
			t.Errorf("after adding: %v", got.Metadata.Keys)
		}
		if rec := call(t, h, "alice", "PATCH", "/v1/webhooks/"+hook.ID+"/addresses", `{"addresses":["0x0000000000000000000000000000000000000001"]}`); rec.Code != http.StatusBadRequest {
			t.Errorf("an EVM address on a P-chain webhook: %d %s", rec.Code, rec.Body)
		}
		addrCall("DELETE", `{"addresses":["`+a1+`"]}`)
		if !slices.Equal(got.Metadata.Keys, []string{a2, a3}) {
			t.Errorf("after removing: %v", got.Metadata.Keys)
		}

		node, subnet := "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg", "11111111111111111111111111111111LpoYY"
		var vh testHook
		callOK(t, h, "alice", "POST", "/v1/webhooks", `{"eventType":"validator_activity","url":"https://example.org/v","network":"local",
			"metadata":{"keyType":"nodeId","keys":["`+node+`"],"subEvents":{"validatorActivitySubEvents":["validator_stake","delegator_stake"]},
			"subnetIds":["`+subnet+`"]}}`, &vh)
		if vh.EventType != internal.EventValidatorActivity || !slices.Equal(vh.Metadata.Keys, []string{node}) || vh.Metadata.KeyType != "nodeId" ||
			!slices.Equal(vh.Metadata.SubnetIDs, []string{subnet}) || len(vh.Metadata.SubEvents.ValidatorActivitySubEvents) != 2 {
			t.Errorf("created %+v", vh)
		}
		if rec := call(t, h, "alice", "PATCH", "/v1/webhooks/"+vh.ID+"/addresses", `{"addresses":["NodeID-6HgC8KRBEhXYbF4riJyJFLSHt37UNuRt"]}`); rec.Code != http.StatusBadRequest {
			t.Errorf("a second key on a validator webhook: %d %s", rec.Code, rec.Body)
		}
		// The L1 fee's sub-events, with the threshold they need.
		var th testHook
		callOK(t, h, "alice", "POST", "/v1/webhooks", `{"eventType":"validator_activity","url":"https://example.org/v","network":"local",
			"metadata":{"keyType":"subnetId","keys":["`+subnet+`"],"subEvents":{"validatorActivitySubEvents":["l1_validator_disabled","l1_validator_balance_threshold"]},
			"l1ValidatorFeeBalanceThreshold":"1000000000"}}`, &th)
		if !slices.Equal(th.Metadata.SubEvents.ValidatorActivitySubEvents, []string{"l1_validator_balance_threshold", "l1_validator_disabled"}) &&
			!slices.Equal(th.Metadata.SubEvents.ValidatorActivitySubEvents, []string{"l1_validator_disabled", "l1_validator_balance_threshold"}) ||
			th.Metadata.L1ValidatorFeeBalanceThreshold != "1000000000" {
			t.Errorf("created %+v", th)
		}

		pm := func(meta string) string {
			return `{"eventType":"primary_network_address_activity","url":"https://example.org/p","chainId":"p-chain","network":"local","metadata":` + meta + `}`
		}
		vm := func(meta string) string {
			return `{"eventType":"validator_activity","url":"https://example.org/v","network":"local","metadata":` + meta + `}`
		}
		sub := `"subEvents":{"addressActivitySubEvents":["balance_change"]}`
		for _, c := range []struct{ body, param string }{
			{pm(`{"keyType":"addresses","keys":["` + a1 + `"],` + sub + `}`)[:0] + `{"eventType":"primary_network_address_activity","url":"https://example.org/p","chainId":"c-chain","metadata":{"keyType":"addresses","keys":[],` + sub + `}}`, "chainId"},
			{`{"eventType":"primary_network_address_activity","url":"https://example.org/p","chainId":"p-chain","network":"mars","metadata":{"keyType":"addresses","keys":[],` + sub + `}}`, "network"},
			{pm(`{"keyType":"nodeId","keys":[],` + sub + `}`), "metadata.keyType"},
			{pm(`{"keyType":"addresses","keys":["avax1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqndsgdp"],` + sub + `}`), "metadata.keys"},
			{pm(`{"keyType":"addresses","keys":["0x0000000000000000000000000000000000000001"],` + sub + `}`), "metadata.keys"},
			{pm(`{"keyType":"addresses","keys":[],"subEvents":{"addressActivitySubEvents":[]}}`), "metadata.subEvents"},
			{pm(`{"keyType":"addresses","keys":[],"subEvents":{"addressActivitySubEvents":["validator_stake"]}}`), "metadata.subEvents"},
			{pm(`{"keyType":"addresses","keys":[],"subEvents":{"addressActivitySubEvents":["balance_threshold"]}}`), "metadata.balanceThresholdFilter"},
			{pm(`{"keyType":"addresses","keys":[],` + sub + `,"balanceThresholdFilter":{"balanceType":"lockedStaked","balanceThreshold":"1"}}`), "metadata.balanceThresholdFilter.balanceType"},
			{pm(`{"keyType":"addresses","keys":[],` + sub + `,"balanceThresholdFilter":{"balanceType":"unlockedUnstaked","balanceThreshold":"-1"}}`), "metadata.balanceThresholdFilter.balanceThreshold"},
			{pm(`{"keyType":"addresses","keys":"x"}`), "metadata"},
			{vm(`{"keyType":"addresses","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]}}`), "metadata.keyType"},
			{vm(`{"keyType":"nodeId","keys":[],"subEvents":{"validatorActivitySubEvents":["validator_stake"]}}`), "metadata.keys"},
			{vm(`{"keyType":"nodeId","keys":["` + node + `","NodeID-6HgC8KRBEhXYbF4riJyJFLSHt37UNuRt"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]}}`), "metadata.keys"},
			{vm(`{"keyType":"subnetId","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]}}`), "metadata.keys"},
			{vm(`{"keyType":"nodeId","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["balance_change"]}}`), "metadata.subEvents"},
			{vm(`{"keyType":"nodeId","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["l1_validator_balance_threshold"]}}`), "metadata.l1ValidatorFeeBalanceThreshold"},
			{vm(`{"keyType":"nodeId","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]},"nodeIds":["x"]}`), "metadata.nodeIds"},
			{vm(`{"keyType":"nodeId","keys":["` + node + `"],"subEvents":{"validatorActivitySubEvents":["validator_stake"]},"l1ValidatorFeeBalanceThreshold":"1.5"}`), "metadata.l1ValidatorFeeBalanceThreshold"},
		} {
			rec := call(t, h, "alice", "POST", "/v1/webhooks", c.body)
			body := decodeError(t, rec, http.StatusBadRequest)
			if !strings.Contains(body.Message, c.param) {
				t.Errorf("body %.200s: message %q does not name %s", c.body, body.Message, c.param)
			}
		}
	})
}

// TestWebhookURLRules refuses, at creation and update, a URL the
// delivery's outbound rules refuse (400 naming url), with the check the
// service wires.
func TestWebhookURLRules(t *testing.T) {
	refused := map[string]bool{"10.0.0.1": true, "metadata.internal": true}
	h, _ := newWebhookAPI(t, dbtest.SQLite(t), store.WebhookLimits{Webhooks: 10, Addresses: 3}, func(d *Deps) {
		d.CheckWebhookURL = func(_ context.Context, u *url.URL) error {
			if refused[u.Hostname()] {
				return fmt.Errorf("host %s is non-public", u.Hostname())
			}
			return nil
		}
	})
	create := func(u string) string {
		return fmt.Sprintf(`{"eventType":"address_activity","url":%q,"chainId":"%d","metadata":{"addresses":[]}}`, u, evmTestChain)
	}
	for _, u := range []string{"http://10.0.0.1/hook", "https://metadata.internal/x"} {
		body := decodeError(t, call(t, h, "k", "POST", "/v1/webhooks", create(u)), http.StatusBadRequest)
		if !strings.Contains(body.Message, "url") || !strings.Contains(body.Message, "non-public") {
			t.Errorf("%s: %q", u, body.Message)
		}
	}
	var hook testHook
	callOK(t, h, "k", "POST", "/v1/webhooks", create("https://example.org/hook"), &hook)
	body := decodeError(t, call(t, h, "k", "PATCH", "/v1/webhooks/"+hook.ID, `{"url":"http://10.0.0.1/x"}`), http.StatusBadRequest)
	if !strings.Contains(body.Message, "url") {
		t.Errorf("update: %q", body.Message)
	}
	var got testHook
	callOK(t, h, "k", "GET", "/v1/webhooks/"+hook.ID, "", &got)
	if got.URL != "https://example.org/hook" {
		t.Errorf("the refused update changed the url to %s", got.URL)
	}
}

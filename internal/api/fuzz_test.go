package api

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/warpagg"
)

// The fuzz targets of the Data API's parameter parsing (FuzzPageSize is
// beside TestPageSize, FuzzDecodeToken beside the token tests). `make fuzz`
// runs each for a short budget; plain `go test` runs their seeds.

// wantParamError requires err to be a 400 with a client message that names
// param, or, when the query string itself is malformed, says so.
func wantFuzzParamError(t *testing.T, what string, err error, param string) {
	t.Helper()
	if derrors.ToStatus(err) != http.StatusBadRequest {
		t.Fatalf("%s: %v is a %d, not a 400", what, err, derrors.ToStatus(err))
	}
	msg, ok := derrors.ClientMessage(err)
	if !ok || msg == "" {
		t.Fatalf("%s: %v has no client message", what, err)
	}
	if msg != "malformed query string" && !strings.Contains(msg, param) {
		t.Fatalf("%s: message %q does not name %s", what, msg, param)
	}
}

// queryForms are the raw query strings a fuzzed value v of param is tried
// in: escaped, raw, repeated, and beside another parameter.
func queryForms(param, v string) []string {
	e := url.QueryEscape(v)
	return []string{param + "=" + e, param + "=" + v, param + "=" + e + "&" + param + "=" + e, "x=1&" + param + "=" + e, param + "=" + e + "," + e}
}

// theValue is the one value of param in the raw query q, if q parses and
// holds exactly one.
func theValue(q, param string) (string, bool) {
	vs, err := url.ParseQuery(q)
	if err != nil || len(vs[param]) != 1 {
		return "", false
	}
	return vs[param][0], true
}

// FuzzQueryParams feeds one value to every query parameter parser, in
// several query forms. A rejection is a 400 naming the parameter; an
// accepted value is what the parser's contract allows.
func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{"", "0", "1", "-1", "-0", "007", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"18446744073709551615", "18446744073709551616", "1.5", "1.", ".5", "1e3", "+1", " 1", "true", "false", "TRUE", "asc", "desc",
		"usd", "eur", "a,b", ",", "a,,b", " a , b ", "%zz", "\x00", "\xff", "é", "1&x=2", ";", strings.Repeat("9", 400)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, q := range queryForms("p", v) {
			r := req(q)
			one, single := theValue(q, "p")

			if n, ok, err := param.OptionalUint(r, "p"); err != nil {
				wantFuzzParamError(t, "OptionalUint "+q, err, "p")
			} else if ok {
				want, perr := strconv.ParseInt(one, 10, 64)
				if !single || perr != nil || n != want || n < 0 {
					t.Fatalf("param.OptionalUint(%q) = %d", q, n)
				}
			}
			if b, err := param.Bool(r, "p", true); err != nil {
				wantFuzzParamError(t, "Bool "+q, err, "p")
			} else if single && strconv.FormatBool(b) != one {
				t.Fatalf("param.Bool(%q) = %v", q, b)
			}
			if s, err := param.Enum(r, "p", "dflt", "asc", "desc"); err != nil {
				wantFuzzParamError(t, "Enum "+q, err, "p")
			} else if s != "dflt" && s != "asc" && s != "desc" || single && s != one {
				t.Fatalf("param.Enum(%q) = %q", q, s)
			}
			if n, ok, err := Amount(r, "p"); err != nil {
				wantFuzzParamError(t, "Amount "+q, err, "p")
			} else if ok {
				whole, _, _ := strings.Cut(one, ".")
				w, perr := strconv.ParseUint(whole, 10, 64)
				if !single || perr != nil || (n != w && n != w+1) {
					t.Fatalf("Amount(%q) = %d", q, n)
				}
			}
			if p, err := BlockNumber(r, "p"); err != nil {
				wantFuzzParamError(t, "BlockNumber "+q, err, "p")
			} else if p != nil {
				if !single || strconv.FormatUint(*p, 10) != strings.TrimLeft(one, "0") && *p != 0 {
					t.Fatalf("BlockNumber(%q) = %d", q, *p)
				}
			}
			if items, err := param.List(r, "p", 3); err != nil {
				wantFuzzParamError(t, "List "+q, err, "p")
			} else {
				if len(items) > 3 {
					t.Fatalf("param.List(%q) = %d items, over 3", q, len(items))
				}
				for _, it := range items {
					if it == "" || strings.TrimSpace(it) != it {
						t.Fatalf("param.List(%q) has item %q", q, it)
					}
				}
			}
			if items, err := param.EnumList(r, "p", "a", "b"); err != nil {
				wantFuzzParamError(t, "EnumList "+q, err, "p")
			} else if len(items) > 2 || len(items) == 2 && items[0] == items[1] {
				t.Fatalf("param.EnumList(%q) = %q", q, items)
			}
			if ns, err := NodeIDs(r, "p", 4); err != nil {
				wantFuzzParamError(t, "NodeIDs "+q, err, "p")
			} else {
				for _, id := range ns {
					if !strings.Contains(one, id.String()) && !strings.Contains(q, id.String()) {
						t.Fatalf("NodeIDs(%q) = %s, not given", q, id)
					}
				}
			}
		}

		// The named parameters, in their own query strings.
		for _, name := range []string{"pageSize", "sortOrder", "currency", "startBlock", "endBlock", "startTimestamp", "endTimestamp", "pageToken"} {
			for _, q := range queryForms(name, v) {
				r := req(q)
				one, single := theValue(q, name)
				var err error
				switch name {
				case "pageSize":
					var n int
					if n, err = param.PageSize(r, 10, 100); err == nil && (n < 1 || n > 100) {
						t.Fatalf("param.PageSize(%q) = %d", q, n)
					}
				case "sortOrder":
					var s string
					if s, err = SortOrder(r, Desc); err == nil && s != Asc && s != Desc {
						t.Fatalf("SortOrder(%q) = %q", q, s)
					}
				case "currency":
					var s string
					if s, err = Currency(r); err == nil && (single && s != one || !strings.Contains(strings.Join(Currencies, " "), s)) {
						t.Fatalf("Currency(%q) = %q", q, s)
					}
				case "startBlock", "endBlock":
					var s, e *uint64
					if s, e, err = BlockRange(r); err == nil && s != nil && e != nil && *e < *s {
						t.Fatalf("BlockRange(%q) = %d, %d", q, *s, *e)
					}
				case "startTimestamp", "endTimestamp":
					var s, e *int64
					if s, e, err = timeRange(r); err == nil && (s != nil && *s < 0 || e != nil && *e < 0) {
						t.Fatalf("timeRange(%q) = %v, %v", q, s, e)
					}
				case "pageToken":
					var tok string
					if tok, err = param.PageToken(r); err == nil && single && tok != one {
						t.Fatalf("param.PageToken(%q) = %q", q, tok)
					}
				}
				if err != nil {
					wantFuzzParamError(t, name+" "+q, err, name)
				}
			}
		}
	})
}

// FuzzRawQuery parses arbitrary query strings: repeated keys, bad escapes,
// separators. A query string url.ParseQuery rejects is rejected by every
// parser; OnlyParams accepts exactly the queries whose keys are allowed.
func FuzzRawQuery(f *testing.F) {
	for _, s := range []string{"", "pageSize=1", "pageSize=1&pageSize=2", "a=1;b=2", "%", "%zz=1", "=", "&&", "pageSize", "sortOrder=asc&x=%00",
		"addresses=a,b&addresses=c", "pageSize=%31", "+=+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r := req(q)
		vals, perr := url.ParseQuery(q)
		err := param.OnlyParams(r, "pageSize", "sortOrder", "pageToken")
		switch {
		case perr != nil:
			wantFuzzParamError(t, "OnlyParams "+q, err, "malformed query string")
		case err != nil:
			unknown := false
			for k := range vals {
				if k != "pageSize" && k != "sortOrder" && k != "pageToken" {
					unknown = true
				}
			}
			if !unknown {
				t.Fatalf("param.OnlyParams(%q) rejected known parameters: %v", q, err)
			}
			wantFuzzParamError(t, "OnlyParams "+q, err, "unknown query parameter")
		default:
			for k := range vals {
				if k != "pageSize" && k != "sortOrder" && k != "pageToken" {
					t.Fatalf("param.OnlyParams(%q) accepted %q", q, k)
				}
			}
		}
		for name, parse := range map[string]func() error{
			"pageSize":  func() error { _, err := param.PageSize(r, 10, 100); return err },
			"sortOrder": func() error { _, err := SortOrder(r, Asc); return err },
			"pageToken": func() error { _, err := param.PageToken(r); return err },
			"addresses": func() error { _, err := Addresses(r, "addresses", 64, "local"); return err },
			"nodeIds":   func() error { _, err := NodeIDs(r, "nodeIds", 64); return err },
			"txTypes":   func() error { _, err := param.EnumList(r, "txTypes", "a", "b"); return err },
		} {
			err := parse()
			if err != nil {
				wantFuzzParamError(t, name+" "+q, err, name)
			} else if perr != nil {
				t.Fatalf("%s accepted the malformed query %q", name, q)
			} else if vs := vals[name]; len(vs) > 1 && name != "addresses" && name != "nodeIds" && name != "txTypes" {
				t.Fatalf("%s accepted %d values in %q", name, len(vs), q)
			}
		}
	})
}

// FuzzAddresses parses address lists. Every accepted address is its
// canonical bech32 with the wanted hrp, decodes to its ID, and appears once.
func FuzzAddresses(f *testing.F) {
	a1, _ := address.FormatBech32("local", make([]byte, 20))
	a2, _ := address.FormatBech32("fuji", []byte("0123456789abcdefghij"))
	for _, s := range []string{a1, "P-" + a1, "X-" + a1 + ",C-" + a1, a2, strings.ToUpper(a1), a1 + "," + a2, "", ",", "P-", "local1", "x-" + a1,
		a1[:len(a1)-1] + "q", strings.Repeat(a1+",", 70)} {
		f.Add(s, "local")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, v, hrp string) {
		out, err := ParseAddresses("addresses", v, 64, hrp)
		if err != nil {
			wantFuzzParamError(t, "ParseAddresses "+v, err, "addresses")
			return
		}
		if len(out) == 0 || len(out) > 64 {
			t.Fatalf("ParseAddresses(%q) = %d addresses", v, len(out))
		}
		seen := map[ids.ShortID]bool{}
		for _, a := range out {
			gotHRP, b, err := address.ParseBech32(a.Bech32)
			if err != nil || ids.ShortID(b) != a.ID || hrp != "" && gotHRP != hrp || seen[a.ID] {
				t.Fatalf("ParseAddresses(%q, %q) gave %+v (%s, %v)", v, hrp, a, gotHRP, err)
			}
			seen[a.ID] = true
			// Parsing the canonical form gives it back.
			again, err := ParseAddresses("addresses", a.Bech32, 1, hrp)
			if err != nil || len(again) != 1 || again[0] != a {
				t.Fatalf("%s does not parse back: %v %v", a.Bech32, again, err)
			}
		}
	})
}

// FuzzPathParams parses path segments: EVM addresses, chain ids, block ids
// of each chain, subnet ids, network names. An accepted segment decodes to
// a value that encodes back to it (up to case where case is free).
func FuzzPathParams(f *testing.F) {
	id := ids.ID{1, 2, 3}
	for _, s := range []string{"", "0x", "0x0000000000000000000000000000000000000000", "0XABCDEFabcdef0000000000000000000000000000",
		"0x000000000000000000000000000000000000000g", "43114", "0", "18446744073709551616", "-1", id.String(), "0x" + hex.EncodeToString(id[:]),
		"11111111111111111111111111111111LpoYY", "0x" + strings.Repeat("ab", 32), "0X" + strings.Repeat("Cd", 32), "mainnet", "fuji", "testnet", "local", "NodeID-111111111111111111116DBWJs", "é", "\x00"} {
		f.Add(s)
	}
	nets := NewNetworks("local", Testnet)
	f.Fuzz(func(t *testing.T, v string) {
		r := httptest.NewRequest("GET", "/", nil)
		for _, name := range []string{"address", "chainId", "network", "blockId", "txHash"} {
			r.SetPathValue(name, v)
		}
		if a, err := EVMAddress(r, "address"); err != nil {
			wantFuzzParamError(t, "EVMAddress "+v, err, "address")
		} else if !strings.EqualFold(a.Hex(), "0x"+v[2:]) {
			t.Fatalf("EVMAddress(%q) = %s", v, a.Hex())
		}
		if h, err := EVMHash(r, "txHash"); err != nil {
			wantFuzzParamError(t, "EVMHash "+v, err, "txHash")
		} else if !strings.EqualFold(h.Hex(), "0x"+v[2:]) {
			t.Fatalf("EVMHash(%q) = %s", v, h.Hex())
		}
		if b, err := EVMBlockIDParam(r, "blockId"); err != nil {
			wantFuzzParamError(t, "EVMBlockIDParam "+v, err, "blockId")
		} else if b.IsHash && !strings.EqualFold(b.Hash.Hex(), "0x"+v[2:]) || !b.IsHash && strconv.FormatUint(b.Number, 10) != strings.TrimLeft(v, "0") && b.Number != 0 {
			t.Fatalf("EVMBlockIDParam(%q) = %+v", v, b)
		}
		if c, err := ChainIDParam(r); err != nil {
			wantFuzzParamError(t, "ChainIDParam "+v, err, "chainId")
		} else if c.Text != v || c.IsEVM && strconv.FormatUint(c.EVM, 10) != strings.TrimLeft(v, "0") && c.EVM != 0 || !c.IsEVM && c.Blockchain.String() != v {
			t.Fatalf("ChainIDParam(%q) = %+v", v, c)
		}
		for _, chain := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
			if got, err := parseBlockID(chain, v); err != nil {
				wantFuzzParamError(t, "parseBlockID "+v, err, "blockId")
			} else if chain == internal.CChain && !strings.EqualFold(v, "0x"+hex.EncodeToString(got[:])) || chain != internal.CChain && got.String() != v {
				t.Fatalf("parseBlockID(%s, %q) = %s", chain, v, got)
			}
		}
		if got, err := parseSubnetID(v); err != nil {
			wantFuzzParamError(t, "parseSubnetID "+v, err, "signingSubnetId")
		} else if got.String() != v && !strings.EqualFold(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X"), hex.EncodeToString(got[:])) {
			t.Fatalf("parseSubnetID(%q) = %s", v, got)
		}
		if got, err := nets.Network(r); err != nil {
			wantFuzzParamError(t, "Network "+v, err, "network")
		} else if got != v || (v != "local" && v != Testnet) {
			t.Fatalf("Network(%q) = %q", v, got)
		}
	})
}

// FuzzUTXOsBody decodes the body of POST .../utxos as the handler does:
// any body is accepted only if it is one JSON value, and its addresses
// field parses or is a 400 naming it.
func FuzzUTXOsBody(f *testing.F) {
	a1, _ := address.FormatBech32("local", make([]byte, 20))
	for _, s := range []string{`{"addresses":"` + a1 + `"}`, `{"addresses":"P-` + a1 + `,X-` + a1 + `"}`, `{}`, `{"addresses":1}`, `{"addresses":null}`,
		`[]`, `null`, ``, `{`, `{"addresses":"a"} {}`, `{"addresses":"a"}x`, `"x"`, strings.Repeat("[", 10000), `{"addresses":"\u0000"}`,
		`{"a":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat("}", 201)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/", strings.NewReader(string(body)))
		var v struct {
			Addresses *string `json:"addresses"`
		}
		if err := DecodeJSONBody(r, &v); err != nil {
			wantFuzzParamError(t, "DecodeJSONBody", err, "request body")
			return
		}
		if !json.Valid(body) {
			t.Fatalf("DecodeJSONBody accepted invalid JSON %q", body)
		}
		if v.Addresses == nil {
			return
		}
		if _, err := ParseAddresses("addresses", *v.Addresses, MaxUTXOAddressesPost, "local"); err != nil {
			wantFuzzParamError(t, "ParseAddresses", err, "addresses")
		}
	})
}

// FuzzAggregateSignaturesBody posts bodies to the signature aggregator
// (with an aggregator that signs whatever it is asked): every answer is a
// 201 for a request naming a warp message, or a 4xx with the Data API's
// error body; a 201 only for a body whose message or justification
// decodes.
func FuzzAggregateSignaturesBody(f *testing.F) {
	msg := hex.EncodeToString(testUnsigned(f).Bytes())
	for _, s := range []string{`{"message":"` + msg + `"}`, `{"message":"0x` + msg + `","quorumPercentage":67,"quorumPercentageBuffer":33}`,
		`{"message":"` + msg + `","signingSubnetId":"11111111111111111111111111111111LpoYY"}`, `{"message":"` + msg + `","pChainHeight":1e300}`,
		`{"message":"zz"}`, `{"justification":"00"}`, `{"message":"00","quorumPercentage":-1}`, `{"message":"` + msg + `","quorumPercentage":100.5}`,
		`{}`, `[]`, `{"message":1}`, `{"message":"` + msg + `","signingSubnetId":"0x00"}`, ``, `{`} {
		f.Add([]byte(s))
	}
	h := newAggAPI(f, &fakeAggregator{}, nil)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/v1/signatureAggregator/testnet/aggregateSignatures", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusCreated {
			var b struct {
				Message       *string `json:"message"`
				Justification *string `json:"justification"`
			}
			if json.Unmarshal(body, &b) != nil || b.Message == nil && b.Justification == nil {
				t.Fatalf("201 for %q", body)
			}
			if b.Message != nil && *b.Message != "" {
				m, err := hexField("message", b.Message)
				if err != nil {
					t.Fatalf("201 for a message that does not decode: %q", body)
				}
				if _, err := warpagg.ParseMessage(m); err != nil {
					t.Fatalf("201 for a message that does not parse: %q", body)
				}
			}
			return
		}
		wantErrorBody(t, "POST "+string(body), rec)
	})
}

// wantErrorBody requires rec to be a 4xx with the Data API's error body.
func wantErrorBody(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var e ErrorBody
	if rec.Code < 400 || rec.Code >= 500 {
		t.Fatalf("%s: status %d: %s", what, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.StatusCode != rec.Code || e.Message == "" || e.Error != http.StatusText(rec.Code) {
		t.Fatalf("%s: error body %s (%v)", what, rec.Body, err)
	}
}

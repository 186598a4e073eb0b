package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/paramtest"
)

// The parameter tests' helpers.
var (
	req         = paramtest.Request
	wantInvalid = paramtest.WantInvalid
)

// TestPageSizeResponse is the acceptance test: every bad pageSize answers
// 400 with the documented body and a message naming pageSize.
func TestPageSizeResponse(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := param.PageSize(r, DefaultPageSize, MaxPageSize); err != nil {
			WriteError(w, r, err)
			return
		}
		WriteJSON(w, 200, map[string]any{})
	})
	for _, v := range []string{"0", "101", "abc", "-1", "1e3", ""} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/x?pageSize="+url.QueryEscape(v), nil))
		b := decodeError(t, rec, 400)
		if !strings.HasPrefix(b.Message, "pageSize must be an integer between 1 and 100") {
			t.Errorf("pageSize=%q: message %q", v, b.Message)
		}
	}
}

func TestEnums(t *testing.T) {
	if c, err := Currency(req("")); c != "usd" || err != nil {
		t.Errorf("default currency = %q %v", c, err)
	}
	if c, err := Currency(req("currency=nzd")); c != "nzd" || err != nil {
		t.Errorf("currency = %q %v", c, err)
	}
	if len(Currencies) != 14 {
		t.Errorf("%d currencies, want 14", len(Currencies))
	}
	for _, q := range []string{"currency=USD", "currency=btc", "currency=", "currency=usd&currency=eur"} {
		_, err := Currency(req(q))
		wantInvalid(t, err, "currency")
	}
	_, err := Currency(req("currency=USD"))
	wantInvalid(t, err, "currency must be one of usd, eur, aud", `got "USD"`)

	if s, err := SortOrder(req(""), Desc); s != Desc || err != nil {
		t.Errorf("default sortOrder = %q %v", s, err)
	}
	if s, err := SortOrder(req("sortOrder=asc"), Desc); s != Asc || err != nil {
		t.Errorf("sortOrder = %q %v", s, err)
	}
	_, err = SortOrder(req("sortOrder=up"), Asc)
	wantInvalid(t, err, `sortOrder must be one of asc, desc, got "up"`)
}

func bech32(t testing.TB, hrp string, n int, fill byte) string {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = fill + byte(i)
	}
	s, err := address.FormatBech32(hrp, b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddresses(t *testing.T) {
	a1 := bech32(t, "fuji", 20, 1)
	a2 := bech32(t, "fuji", 20, 2)
	value := "P-" + a1 + ", X-" + a2 + ",c-" + a1 + "," + strings.ToUpper(a2)
	got, err := Addresses(req("addresses="+url.QueryEscape(value)), "addresses", 64, "fuji")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Bech32 != a1 || got[1].Bech32 != a2 || got[0].ID[0] != 1 {
		t.Errorf("Addresses = %+v, want %s and %s", got, a1, a2)
	}
	if got, err := Addresses(req(""), "addresses", 64, "fuji"); got != nil || err != nil {
		t.Errorf("absent Addresses = %v, %v", got, err)
	}
	if _, err := ParseAddresses("addresses", a1, 1, ""); err != nil {
		t.Errorf("any-hrp parse: %v", err)
	}

	bad := []struct{ value, want string }{
		{bech32(t, "avax", 20, 1), "is not an address of this network (want prefix fuji)"},
		{a1[:len(a1)-1] + "q", "is not a valid bech32 address"},
		{"P-", "is not a valid bech32 address"},
		{"Z-" + a1, "is not a valid bech32 address"},
		{bech32(t, "fuji", 32, 1), "is not a valid bech32 address"},
		{"0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "is not a valid bech32 address"},
		{a1 + ",", "without empty items"},
		{"", "without empty items"},
		{strings.Repeat(a1+",", 64) + a1, "addresses must list at most 64 items"},
		{strings.Repeat("x", 10000), "is not a valid bech32 address"},
	}
	for _, tc := range bad {
		_, err := ParseAddresses("addresses", tc.value, 64, "fuji")
		wantInvalid(t, err, "addresses", tc.want)
	}
	_, err = Addresses(req("addresses=a&addresses=b"), "addresses", 64, "fuji")
	wantInvalid(t, err, "addresses must be given at most once")
}

func TestNetworks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		aliases []string
		names   []string
		report  map[string]string // requested -> reported; "" = rejected
	}{
		{"mainnet", nil, []string{"mainnet"},
			map[string]string{"mainnet": "mainnet", "fuji": "", "testnet": "", "local": ""}},
		{"fuji", nil, []string{"fuji", "testnet"},
			map[string]string{"fuji": "fuji", "testnet": "fuji", "mainnet": "", "Fuji": ""}},
		{"local", []string{"testnet", "", "testnet"}, []string{"local", "testnet"},
			map[string]string{"testnet": "testnet", "local": "local", "fuji": "", "mainnet": ""}},
		{"network-88888", []string{"fuji", "custom"}, []string{"network-88888", "fuji", "custom"},
			map[string]string{"fuji": "fuji", "custom": "custom", "testnet": ""}},
		{"fuji", []string{"dev"}, []string{"fuji", "testnet", "dev"},
			map[string]string{"dev": "fuji"}},
	} {
		n := NewNetworks(tc.name, tc.aliases...)
		if !reflect.DeepEqual(n.Names(), tc.names) {
			t.Errorf("NewNetworks(%q, %q).Names() = %q, want %q", tc.name, tc.aliases, n.Names(), tc.names)
		}
		for requested, want := range tc.report {
			got, err := n.Parse(requested)
			if want == "" {
				wantInvalid(t, err, "network must be one of "+strings.Join(tc.names, ", "), `got "`+requested+`"`)
				continue
			}
			if err != nil || got != want {
				t.Errorf("%s: Parse(%q) = %q, %v; want %q", tc.name, requested, got, err, want)
			}
		}
	}

	n := NewNetworks("fuji")
	r := httptest.NewRequest("GET", "/v1/networks/testnet/blockchains/p-chain/blocks", nil)
	r.SetPathValue("network", "testnet")
	if got, err := n.Network(r); got != "fuji" || err != nil {
		t.Errorf("Network = %q, %v", got, err)
	}
	r.SetPathValue("network", "mainnet")
	_, err := n.Network(r)
	wantInvalid(t, err, `network must be one of fuji, testnet, got "mainnet"`)
}

// TestCurrenciesAreTheSchemas: every currency accepted is one of the
// reference's CurrencyCode enum (and with the 14 counted above, all of it).
func TestCurrenciesAreTheSchemas(t *testing.T) {
	doc := openapitest.Default(t)
	for _, c := range Currencies {
		doc.ValidateSchema(t, "CurrencyCode", []byte(`"`+c+`"`))
	}
	if err := doc.CheckSchema("CurrencyCode", []byte(`"btc"`)); err == nil {
		t.Error("btc is a CurrencyCode")
	}
}

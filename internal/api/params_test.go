package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

func req(rawQuery string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/x", nil)
	r.URL.RawQuery = rawQuery
	return r
}

// wantInvalid requires err to be a 400 whose client message contains every
// fragment.
func wantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if derrors.ToStatus(err) != http.StatusBadRequest {
		t.Errorf("err = %v (status %d), want a 400", err, derrors.ToStatus(err))
		return
	}
	msg, ok := derrors.ClientMessage(err)
	if !ok {
		t.Errorf("err %v has no client message", err)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("message %q does not contain %q", msg, f)
		}
	}
}

func TestPageSize(t *testing.T) {
	for _, tc := range []struct {
		query string
		max   int
		want  int
	}{
		{"", 100, 10},
		{"other=1", 100, 10},
		{"pageSize=1", 100, 1},
		{"pageSize=100", 100, 100},
		{"pageSize=007", 100, 7},
		{"pageSize=1024", 1024, 1024},
	} {
		got, err := PageSize(req(tc.query), 10, tc.max)
		if err != nil || got != tc.want {
			t.Errorf("PageSize(%q, max %d) = %d, %v; want %d", tc.query, tc.max, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		query string
		max   int
		want  string
	}{
		{"pageSize=0", 100, `pageSize must be an integer between 1 and 100, got "0"`},
		{"pageSize=101", 100, `pageSize must be an integer between 1 and 100, got "101"`},
		{"pageSize=1025", 1024, `pageSize must be an integer between 1 and 1024, got "1025"`},
		{"pageSize=abc", 100, `pageSize must be an integer between 1 and 100, got "abc"`},
		{"pageSize=-1", 100, `got "-1"`},
		{"pageSize=1e3", 100, `got "1e3"`},
		{"pageSize=", 100, `got ""`},
		{"pageSize", 100, `got ""`},
		{"pageSize=%2B5", 100, `got "+5"`},
		{"pageSize=+5", 100, `got " 5"`},
		{"pageSize=%205", 100, `got " 5"`},
		{"pageSize=5.0", 100, `got "5.0"`},
		{"pageSize=99999999999999999999999", 100, `pageSize must be an integer between 1 and 100`},
		{"pageSize=1&pageSize=2", 100, `pageSize must be given at most once`},
		{"pageSize=%zz", 100, `malformed query string`},
	} {
		_, err := PageSize(req(tc.query), 10, tc.max)
		wantInvalid(t, err, tc.want)
	}
	long := strings.Repeat("9", 5000)
	_, err := PageSize(req("pageSize="+long), 10, 100)
	if msg, _ := derrors.ClientMessage(err); len(msg) > 200 {
		t.Errorf("message of %d bytes echoes a long value", len(msg))
	}
}

// TestPageSizeResponse is the acceptance test: every bad pageSize answers
// 400 with the documented body and a message naming pageSize.
func TestPageSizeResponse(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := PageSize(r, DefaultPageSize, MaxPageSize); err != nil {
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

func TestOptionalInts(t *testing.T) {
	n, ok, err := OptionalUint(req("startTimestamp=1700000000"), "startTimestamp")
	if n != 1700000000 || !ok || err != nil {
		t.Errorf("OptionalUint = %d %v %v", n, ok, err)
	}
	if n, ok, err := OptionalUint(req(""), "startTimestamp"); n != 0 || ok || err != nil {
		t.Errorf("absent OptionalUint = %d %v %v", n, ok, err)
	}
	for _, q := range []string{"startTimestamp=-1", "startTimestamp=", "startTimestamp=x", "startTimestamp=1.5", "startTimestamp=9223372036854775808"} {
		_, _, err := OptionalUint(req(q), "startTimestamp")
		wantInvalid(t, err, "startTimestamp must be a non-negative integer")
	}
	_, _, err = OptionalUint(req("endBlock=1&endBlock=2"), "endBlock")
	wantInvalid(t, err, "endBlock must be given at most once")

	if n, ok, err := OptionalInt(req("q=50"), "q", 0, 100); n != 50 || !ok || err != nil {
		t.Errorf("OptionalInt = %d %v %v", n, ok, err)
	}
	if n, ok, err := OptionalInt(req("q=-5"), "q", -10, 10); n != -5 || !ok || err != nil {
		t.Errorf("OptionalInt negative = %d %v %v", n, ok, err)
	}
	_, _, err = OptionalInt(req("q=101"), "q", 0, 100)
	wantInvalid(t, err, `q must be an integer between 0 and 100, got "101"`)
	_, _, err = OptionalInt(req("q=-"), "q", -10, 10)
	wantInvalid(t, err, `got "-"`)
}

func TestBool(t *testing.T) {
	for q, want := range map[string]bool{"": true, "includeSpent=true": true, "includeSpent=false": false} {
		if got, err := Bool(req(q), "includeSpent", true); got != want || err != nil {
			t.Errorf("Bool(%q) = %v, %v", q, got, err)
		}
	}
	for _, q := range []string{"includeSpent=1", "includeSpent=TRUE", "includeSpent=", "includeSpent=yes"} {
		_, err := Bool(req(q), "includeSpent", false)
		wantInvalid(t, err, "includeSpent must be true or false")
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

	if s, err := Enum(req("sortBy=amount"), "sortBy", "timestamp", "timestamp", "amount"); s != "amount" || err != nil {
		t.Errorf("Enum = %q %v", s, err)
	}
}

func TestLists(t *testing.T) {
	got, err := EnumList(req("txTypes=A,B&txTypes=A&txTypes=%20C%20"), "txTypes", "A", "B", "C")
	if err != nil || !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Errorf("EnumList = %q, %v", got, err)
	}
	if got, err := EnumList(req(""), "txTypes", "A"); got != nil || err != nil {
		t.Errorf("absent EnumList = %q, %v", got, err)
	}
	_, err = EnumList(req("txTypes=A,D"), "txTypes", "A", "B")
	wantInvalid(t, err, `txTypes items must be among A, B, got "D"`)
	_, err = EnumList(req("txTypes=A,,B"), "txTypes", "A", "B")
	wantInvalid(t, err, "without empty items")
	_, err = EnumList(req("txTypes="+strings.Repeat("A,", 200)+"A"), "txTypes", "A")
	wantInvalid(t, err, "at most 100 items")

	got, err = List(req("nodeIds=a,b&nodeIds=c"), "nodeIds", 3)
	if err != nil || !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("List = %q, %v", got, err)
	}
	_, err = List(req("nodeIds=a,b&nodeIds=c,d"), "nodeIds", 3)
	wantInvalid(t, err, "nodeIds must list at most 3 items")
}

func TestOnlyParams(t *testing.T) {
	if err := OnlyParams(req("pageSize=1&pageToken=x"), "pageSize", "pageToken"); err != nil {
		t.Error(err)
	}
	wantInvalid(t, OnlyParams(req("pageSize=1&pagesize=2"), "pageSize"), `unknown query parameter "pagesize"; allowed: pageSize`)
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

func FuzzPageSize(f *testing.F) {
	for _, s := range []string{"", "0", "1", "10", "100", "101", "abc", "-1", "1e3", "+1", " 1", "%zz", "1&pageSize=2", "\xff", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, raw := range []string{"pageSize=" + url.QueryEscape(s), "pageSize=" + s, s} {
			n, err := PageSize(req(raw), 10, 100)
			if err != nil {
				if derrors.ToStatus(err) != http.StatusBadRequest {
					t.Fatalf("PageSize(%q): %v is not a 400", raw, err)
				}
				if msg, ok := derrors.ClientMessage(err); !ok || msg == "" {
					t.Fatalf("PageSize(%q): %v has no client message", raw, err)
				}
				continue
			}
			if n < 1 || n > 100 {
				t.Fatalf("PageSize(%q) = %d, out of range", raw, n)
			}
		}
	})
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

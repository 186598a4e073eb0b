package param

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/paramtest"
)

// The parameter tests' helpers.
var (
	req         = paramtest.Request
	wantInvalid = paramtest.WantInvalid
)

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

func TestEnum(t *testing.T) {
	if s, err := Enum(req(""), "sortBy", "timestamp", "timestamp", "amount"); s != "timestamp" || err != nil {
		t.Errorf("default Enum = %q %v", s, err)
	}
	if s, err := Enum(req("sortBy=amount"), "sortBy", "timestamp", "timestamp", "amount"); s != "amount" || err != nil {
		t.Errorf("Enum = %q %v", s, err)
	}
	_, err := Enum(req("sortBy=Amount"), "sortBy", "timestamp", "timestamp", "amount")
	wantInvalid(t, err, `sortBy must be one of timestamp, amount, got "Amount"`)
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

package api

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
)

type intCursor struct {
	I int `json:"i"`
}

// intList is a list of the ints 0..n-1 in a fake query.
type intList struct {
	n      int
	desc   bool
	limits []int // the limit of every query call
}

func (l *intList) query(_ context.Context, after *intCursor, limit int) ([]int, error) {
	l.limits = append(l.limits, limit)
	var out []int
	for i := range l.n {
		v := i
		if l.desc {
			v = l.n - 1 - i
		}
		if after != nil && ((!l.desc && v <= after.I) || (l.desc && v >= after.I)) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, v)
	}
	return out, nil
}

// otherCursor is a keyset of another shape than intCursor.
type otherCursor struct {
	Height int64  `json:"h"`
	TxID   string `json:"t,omitempty"`
}

func intKey(v int) intCursor { return intCursor{I: v} }

func testAPI(t *testing.T) *API {
	return &API{tokens: newTestTokens(t, 3)}
}

func newTestTokens(t testing.TB, fill byte) *param.Tokens {
	t.Helper()
	tk, err := param.NewTokens(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func listSort(desc bool) string {
	if desc {
		return Desc
	}
	return Asc
}

// TestListPageVisitsEveryItemOnce pages through lists with several page
// sizes both ways: every item comes once, in order, in ceil(n/size) pages,
// and the last page has no token.
func TestListPageVisitsEveryItemOnce(t *testing.T) {
	a := testAPI(t)
	for _, n := range []int{0, 1, 20, 23} {
		for _, desc := range []bool{false, true} {
			for _, size := range []int{0, 1, 3, 10, 23, 100} { // 0: no pageSize
				l := &intList{n: n, desc: desc}
				spec := listSpec{Op: "listInts", Filters: []string{listSort(desc)}}
				var got []int
				pages, token := 0, ""
				for {
					q := url.Values{}
					if size > 0 {
						q.Set("pageSize", fmt.Sprint(size))
					}
					if token != "" {
						q.Set("pageToken", token)
					}
					items, next, err := listPage(a, req(q.Encode()), spec, l.query, intKey)
					if err != nil {
						t.Fatalf("n=%d desc=%t size=%d page %d: %v", n, desc, size, pages, err)
					}
					pages++
					got = append(got, items...)
					if next == "" {
						break
					}
					if pages > n+1 {
						t.Fatalf("n=%d desc=%t size=%d: more pages than items", n, desc, size)
					}
					token = next
				}
				want := []int{}
				for i := range n {
					if desc {
						want = append(want, n-1-i)
					} else {
						want = append(want, i)
					}
				}
				pageSize := size
				if size == 0 {
					pageSize = DefaultPageSize
				}
				wantPages := max(1, (n+pageSize-1)/pageSize)
				if !reflect.DeepEqual(append([]int{}, got...), want) || pages != wantPages {
					t.Errorf("n=%d desc=%t size=%d: %d pages of %v, want %d pages of %v", n, desc, size, pages, got, wantPages, want)
				}
				for _, lim := range l.limits {
					if lim != pageSize+1 {
						t.Errorf("n=%d desc=%t size=%d: query asked for %d items, want %d", n, desc, size, lim, pageSize+1)
					}
				}
			}
		}
	}
}

// wantParamError checks that err is a 400 whose message names param.
func wantParamError(t *testing.T, err error, param, what string) {
	t.Helper()
	msg, _ := derrors.ClientMessage(err)
	if derrors.ToStatus(err) != http.StatusBadRequest || !strings.Contains(msg, param) {
		t.Errorf("%s: err = %v (message %q), want a 400 naming %s", what, err, msg, param)
	}
}

// TestListPageTokenScope replays a token against other queries: each is a
// 400 naming pageToken, and the query is not asked.
func TestListPageTokenScope(t *testing.T) {
	a := testAPI(t)
	l := &intList{n: 30}
	spec := listSpec{Op: "listInts", Filters: []string{"p-chain", Asc}}
	_, tok, err := listPage(a, req("pageSize=5"), spec, l.query, intKey)
	if err != nil || tok == "" {
		t.Fatalf("first page: token %q, %v", tok, err)
	}
	// The token continues its own query, whatever the page size.
	items, _, err := listPage(a, req("pageSize=2&pageToken="+url.QueryEscape(tok)), spec, l.query, intKey)
	if err != nil || !reflect.DeepEqual(items, []int{5, 6}) {
		t.Fatalf("second page = %v, %v; want [5 6]", items, err)
	}
	for name, other := range map[string]listSpec{
		"another filter":    {Op: "listInts", Filters: []string{"x-chain", Asc}},
		"another order":     {Op: "listInts", Filters: []string{"p-chain", Desc}},
		"another operation": {Op: "listOtherInts", Filters: []string{"p-chain", Asc}},
		"filters shifted":   {Op: "listInts", Filters: []string{"p-chain" + Asc}},
		"no filters":        {Op: "listInts"},
	} {
		calls := len(l.limits)
		_, _, err := listPage(a, req("pageToken="+url.QueryEscape(tok)), other, l.query, intKey)
		wantParamError(t, err, "pageToken", name)
		if len(l.limits) != calls {
			t.Errorf("%s: the query was asked despite a bad token", name)
		}
	}
	// Another key's token for the same query.
	other := &API{tokens: newTestTokens(t, 4)}
	_, _, err = listPage(other, req("pageToken="+url.QueryEscape(tok)), spec, l.query, intKey)
	wantParamError(t, err, "pageToken", "another key")
	// A token whose cursor is not the query's keyset.
	_, _, err = listPage(a, req("pageToken="+url.QueryEscape(tok)), spec,
		func(context.Context, *otherCursor, int) ([]int, error) { return nil, nil },
		func(int) otherCursor { return otherCursor{} })
	wantParamError(t, err, "pageToken", "another cursor type")
}

// TestListPageSize checks pageSize's default and bounds, normal and large.
func TestListPageSize(t *testing.T) {
	a := testAPI(t)
	large := listSpec{Op: "listInts", MaxPageSize: MaxPageSizeLarge}
	for _, tc := range []struct {
		spec  listSpec
		query string
		want  int // the page size, 0 for an error
	}{
		{listSpec{Op: "listInts"}, "", DefaultPageSize},
		{listSpec{Op: "listInts"}, "pageSize=1", 1},
		{listSpec{Op: "listInts"}, "pageSize=100", 100},
		{listSpec{Op: "listInts"}, "pageSize=101", 0},
		{listSpec{Op: "listInts"}, "pageSize=0", 0},
		{listSpec{Op: "listInts"}, "pageSize=-1", 0},
		{listSpec{Op: "listInts"}, "pageSize=ten", 0},
		{listSpec{Op: "listInts"}, "pageSize=5&pageSize=5", 0},
		{large, "", DefaultPageSize},
		{large, "pageSize=1024", 1024},
		{large, "pageSize=1025", 0},
		{large, "pageSize=0", 0},
	} {
		l := &intList{n: 2000}
		items, _, err := listPage(a, req(tc.query), tc.spec, l.query, intKey)
		what := fmt.Sprintf("max %d, %q", tc.spec.MaxPageSize, tc.query)
		if tc.want == 0 {
			wantParamError(t, err, "pageSize", what)
			if len(l.limits) != 0 {
				t.Errorf("%s: the query was asked despite a bad pageSize", what)
			}
			continue
		}
		if err != nil || len(items) != tc.want {
			t.Errorf("%s: %d items, %v; want %d", what, len(items), err, tc.want)
		}
	}
}

// TestListPageQueryError passes the query's error through with its kind
// and client message.
func TestListPageQueryError(t *testing.T) {
	a := testAPI(t)
	_, _, err := listPage(a, req(""), listSpec{Op: "listInts"},
		func(context.Context, *intCursor, int) ([]int, error) {
			return nil, derrors.Missing("ints are not indexed")
		}, intKey)
	if msg, _ := derrors.ClientMessage(err); derrors.ToStatus(err) != http.StatusNotFound || msg != "ints are not indexed" {
		t.Errorf("err = %v (message %q), want the query's 404", err, msg)
	}
}

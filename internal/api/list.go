package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/avaindex/avaindex/internal/param"
)

// Keyset pagination, the one way every list endpoint pages.
//
// A list handler declares a listSpec and calls listPage with its query and
// the keyset of an item. listPage reads pageSize and pageToken, asks the
// query for one item more than the page to learn whether another page
// exists, and signs nextPageToken from the keyset of the page's last item.
// The handler is left with its query and its wire mapping.

// listSpec is what defines a list query for its page tokens and sizes.
type listSpec struct {
	// Op is the endpoint's operation id, e.g.
	// "listLatestPrimaryNetworkBlocks".
	Op string
	// Filters are the values of every parameter that selects or orders the
	// items (chain, addresses, sortOrder, time range, ...), in a fixed
	// order, "" for an absent one. With Op they scope page tokens, so that
	// a token continues only the query it came from. pageSize is not one: a
	// client may change it between pages.
	Filters []string
	// MaxPageSize bounds pageSize: MaxPageSize when zero, MaxPageSizeLarge
	// for the endpoints with large pages (POST .../utxos).
	MaxPageSize int
	// DefaultPageSize is the pageSize when absent: DefaultPageSize when
	// zero. With ZeroPageSize a pageSize of 0 is accepted and means it
	// too (the schema's minimum of getTransactionsForBlock).
	DefaultPageSize int
	ZeroPageSize    bool
}

// scope is the page-token scope of the query.
func (s listSpec) scope() string {
	return param.Scope(append([]string{s.Op}, s.Filters...)...)
}

// listPage returns one page of a keyset-paginated list and its
// nextPageToken, "" on the last page.
//
// query returns up to limit items in the list's order, starting after the
// item whose keyset is *after, or at the first item when after is nil.
// keyOf returns an item's keyset: a JSON-encodable value that, given back
// as after, selects exactly the items that follow the item. pageSize and
// pageToken are checked before query is called, so that a bad one is a 400
// naming it whatever the query would answer.
func listPage[Item, Cursor any](a *API, r *http.Request, spec listSpec,
	query func(ctx context.Context, after *Cursor, limit int) ([]Item, error),
	keyOf func(Item) Cursor,
) (items []Item, next string, err error) {
	maxSize := spec.MaxPageSize
	if maxSize == 0 {
		maxSize = MaxPageSize
	}
	def := spec.DefaultPageSize
	if def == 0 {
		def = DefaultPageSize
	}
	size, err := param.PageSize(r, def, maxSize)
	if err != nil {
		if v, _, _ := param.QueryValue(r, "pageSize"); !spec.ZeroPageSize || v != "0" {
			return nil, "", err
		}
		size = def
	}
	scope := spec.scope()
	var (
		cur   Cursor
		after *Cursor
	)
	ok, err := a.tokens.FromRequest(r, scope, &cur)
	if err != nil {
		return nil, "", err
	}
	if ok {
		after = &cur
	}
	// One extra item tells whether another page exists.
	items, err = query(r.Context(), after, size+1)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", spec.Op, err)
	}
	if len(items) <= size {
		return items, "", nil
	}
	items = items[:size]
	if next, err = a.tokens.Encode(scope, keyOf(items[size-1])); err != nil {
		return nil, "", fmt.Errorf("%s: %w", spec.Op, err)
	}
	return items, next, nil
}

// renderPage maps a page's items, in order, to their wire form with
// render; the first error ends it.
func renderPage[T, R any](ctx context.Context, items []T, render func(context.Context, *T) (R, error)) ([]R, error) {
	out := make([]R, 0, len(items))
	for i := range items {
		v, err := render(ctx, &items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

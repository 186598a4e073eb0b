package metricsapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The composite query (POST /v{1,2}/lookingGlass/compositeQuery,
// CompositeQueryRequestDto): sub-queries, each a Looking Glass query with
// an id, a type and its params, combined by one operator, AND (the
// addresses every sub-query matches) or OR (those any matches). The
// answer counts each sub-query's addresses and the combination's, and
// pages the combination by address.

// Bounds of a composite query: its body, its sub-queries, the addresses
// each may match, the page.
const (
	maxCompositeBody     = 64 << 10
	maxCompositeQueries  = 16
	maxQueryIDLen        = 128
	defaultCompositePage = 1000
	maxCompositePage     = 10000
)

// The sub-query types of the reference's discriminator.
const (
	qAllTimeNative = "AllTimeNativeBalance"
	qAnyTimeNative = "AnyTimeNativeBalance"
	qAllTimeERC20  = "AllTimeErc20Balance"
	qAnyTimeERC20  = "AnyTimeErc20Balance"
	qAllTimeNFT    = "AllTimeNftHolders"
	qAnyTimeNFT    = "AnyTimeNftHolders"
	qLatest        = "LatestBalance"
	qAllTimeStars  = "AllTimeStarsArenaBalance"
	qAnyTimeStars  = "AnyTimeStarsArenaBalance"
	qLatestStars   = "LatestBalanceStarsArena"
)

var queryTypes = []string{qAllTimeNative, qAnyTimeNative, qAllTimeERC20, qAnyTimeERC20, qAllTimeNFT, qAnyTimeNFT,
	qLatest, qAllTimeStars, qAnyTimeStars, qLatestStars}

// CompositeQueryResponse is the composite query's answer.
type CompositeQueryResponse struct {
	NextPageToken  string           `json:"nextPageToken,omitempty"`
	SubQueryCounts map[string]int64 `json:"subQueryCounts"`
	TotalCount     int64            `json:"totalCount"`
	Addresses      []string         `json:"addresses"`
}

// compositeRequest is a parsed, checked CompositeQueryRequestDto.
type compositeRequest struct {
	pageToken string
	pageSize  int
	and       bool
	queries   []subQuery
}

// subQuery is one checked sub-query: a store query of one kind.
type subQuery struct {
	id  string
	nft bool
	q   store.BalanceQuery
}

// key is what identifies the request's answer (for its page tokens): its
// operator and its sub-queries, in order.
func (c compositeRequest) key() string {
	h := sha256.New()
	fmt.Fprintf(h, "%t|%d", c.and, len(c.queries))
	for _, s := range c.queries {
		tok := ""
		if s.q.Token != nil {
			tok = s.q.Token.Hex()
		}
		fmt.Fprintf(h, "|%q|%t|%d|%s|%d|%d|%s|%d", s.id, s.nft, s.q.ChainID, tok, s.q.From, s.q.To, s.q.Min, s.q.Mode)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fieldError is a 400 naming field.
func fieldError(field, format string, args ...any) error {
	return derrors.Invalid("%s", field+" "+fmt.Sprintf(format, args...))
}

// decodeObject decodes the JSON object raw into v strictly (unknown
// fields refused), naming field in its errors.
func decodeObject(raw []byte, v any, field string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			return fieldError(field, "must hold a single JSON object")
		}
		return nil
	}
	var (
		typeErr *json.UnmarshalTypeError
		maxErr  *http.MaxBytesError
	)
	switch {
	case errors.As(err, &maxErr):
		return derrors.Invalid("request body exceeds %d bytes", maxErr.Limit)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fieldError(field+"."+param.Clip(typeErr.Field, param.MaxEcho), "must be a JSON %s, got %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &typeErr):
		return fieldError(field, "must be a JSON object, got %s", typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fieldError(field, "has an unknown field %s", param.Clip(name, param.MaxEcho))
	case errors.Is(err, io.EOF):
		return fieldError(field, "must be a JSON object")
	}
	return fieldError(field, "is not valid JSON")
}

// jsonKind names the JSON type that decodes into a Go kind.
func jsonKind(kind string) string {
	switch {
	case kind == "string":
		return "string"
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		return "number"
	case kind == "slice", kind == "array":
		return "array"
	}
	return "object"
}

// The wire forms, with pointers for the required fields.
type (
	wireComposite struct {
		PageToken *string           `json:"pageToken"`
		PageSize  *json.RawMessage  `json:"pageSize"`
		Queries   []json.RawMessage `json:"queries"`
		Operator  *string           `json:"operator"`
	}
	wireSubQuery struct {
		ID     *string         `json:"id"`
		Type   *string         `json:"type"`
		Params json.RawMessage `json:"params"`
	}
	wireParams struct {
		FirstDate       *string          `json:"firstDate"`
		LastDate        *string          `json:"lastDate"`
		MinBalance      *string          `json:"minBalance"`
		EVMChainID      *string          `json:"evmChainId"`
		ContractAddress *string          `json:"contractAddress"`
		StartTs         *json.RawMessage `json:"startTs"`
		EndTs           *json.RawMessage `json:"endTs"`
		TokenType       *string          `json:"tokenType"`
		SubjectAddress  *string          `json:"subjectAddress"`
	}
)

// parseComposite reads and checks a composite query's body.
func (a *API) parseComposite(body []byte) (compositeRequest, error) {
	var w wireComposite
	if err := decodeObject(body, &w, "body"); err != nil {
		return compositeRequest{}, err
	}
	c := compositeRequest{pageSize: defaultCompositePage}
	if w.PageToken != nil {
		c.pageToken = *w.PageToken
	}
	if w.PageSize != nil {
		n, ok := jsonNumber(*w.PageSize)
		if !ok || n < 1 || n > maxCompositePage || n != math.Trunc(n) {
			return c, fieldError("pageSize", "must be an integer between 1 and %d, got %s", maxCompositePage, derrors.Echo(string(*w.PageSize)))
		}
		c.pageSize = int(n)
	}
	if w.Operator == nil {
		return c, fieldError("operator", "is required: AND or OR")
	}
	switch *w.Operator {
	case "AND":
		c.and = true
	case "OR":
	default:
		return c, fieldError("operator", "must be AND or OR, got %s", derrors.Echo(*w.Operator))
	}
	if w.Queries == nil {
		return c, fieldError("queries", "is required: an array of sub-queries")
	}
	if len(w.Queries) == 0 || len(w.Queries) > maxCompositeQueries {
		return c, fieldError("queries", "must hold 1 to %d sub-queries, got %d", maxCompositeQueries, len(w.Queries))
	}
	ids := map[string]bool{}
	for i, raw := range w.Queries {
		field := fmt.Sprintf("queries[%d]", i)
		s, err := a.parseSubQuery(raw, field)
		if err != nil {
			return c, err
		}
		if ids[s.id] {
			return c, fieldError(field+".id", "%s is the id of an earlier sub-query: ids must be unique", derrors.Echo(s.id))
		}
		ids[s.id] = true
		c.queries = append(c.queries, s)
	}
	return c, nil
}

// parseSubQuery reads and checks the sub-query raw, at field.
func (a *API) parseSubQuery(raw json.RawMessage, field string) (subQuery, error) {
	var w wireSubQuery
	if err := decodeObject(raw, &w, field); err != nil {
		return subQuery{}, err
	}
	switch {
	case w.ID == nil:
		return subQuery{}, fieldError(field+".id", "is required")
	case *w.ID == "" || len(*w.ID) > maxQueryIDLen:
		return subQuery{}, fieldError(field+".id", "must be a string of 1 to %d bytes", maxQueryIDLen)
	case w.Type == nil:
		return subQuery{}, fieldError(field+".type", "is required: one of %s", strings.Join(queryTypes, ", "))
	case !slices.Contains(queryTypes, *w.Type):
		return subQuery{}, fieldError(field+".type", "must be one of %s, got %s", strings.Join(queryTypes, ", "), derrors.Echo(*w.Type))
	case w.Params == nil || string(w.Params) == "null":
		return subQuery{}, fieldError(field+".params", "is required")
	}
	typ := *w.Type
	field += ".params"
	var p wireParams
	if err := decodeObject(w.Params, &p, field); err != nil {
		return subQuery{}, err
	}
	s := subQuery{id: *w.ID, q: store.BalanceQuery{Max: maxLookingGlassResults, Mode: store.AnyTime}}
	// Each type's params: what it requires and what it takes.
	var required, allowed []string
	switch typ {
	case qAllTimeNative, qAnyTimeNative:
		required = []string{"firstDate", "lastDate", "minBalance", "evmChainId"}
	case qAllTimeERC20, qAnyTimeERC20:
		required = []string{"firstDate", "lastDate", "minBalance", "evmChainId", "contractAddress"}
	case qAllTimeNFT, qAnyTimeNFT:
		required = []string{"evmChainId", "contractAddress"}
		allowed = []string{"firstDate", "lastDate", "startTs", "endTs"}
	case qLatest:
		required = []string{"minBalance", "evmChainId", "tokenType"}
		allowed = []string{"contractAddress"}
	default:
		return subQuery{}, fieldError(strings.TrimSuffix(field, ".params")+".type", "%s is not served: avaindex indexes no Stars Arena contract", typ)
	}
	present := map[string]bool{
		"firstDate": p.FirstDate != nil, "lastDate": p.LastDate != nil, "minBalance": p.MinBalance != nil,
		"evmChainId": p.EVMChainID != nil, "contractAddress": p.ContractAddress != nil, "startTs": p.StartTs != nil,
		"endTs": p.EndTs != nil, "tokenType": p.TokenType != nil, "subjectAddress": p.SubjectAddress != nil,
	}
	for _, name := range required {
		if !present[name] {
			return subQuery{}, fieldError(field+"."+name, "is required for a %s query", typ)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(present)) {
		if present[name] && !slices.Contains(required, name) && !slices.Contains(allowed, name) {
			return subQuery{}, fieldError(field+"."+name, "is not a parameter of a %s query", typ)
		}
	}
	var err error
	if s.q.ChainID, err = a.evmChainParam(field+".evmChainId", *p.EVMChainID); err != nil {
		return subQuery{}, err
	}
	if p.ContractAddress != nil {
		addr, err := addressParam(field+".contractAddress", *p.ContractAddress)
		if err != nil {
			return subQuery{}, err
		}
		s.q.Token = &addr
	}
	if p.MinBalance != nil {
		if s.q.Min, err = amountParam(field+".minBalance", *p.MinBalance); err != nil {
			return subQuery{}, err
		}
	}
	switch typ {
	case qAllTimeNative, qAllTimeERC20, qAllTimeNFT:
		s.q.Mode = store.AllTime
	}
	switch typ {
	case qAllTimeNative, qAnyTimeNative, qAllTimeERC20, qAnyTimeERC20:
		if s.q.From, s.q.To, err = dateRange(field, *p.FirstDate, *p.LastDate); err != nil {
			return subQuery{}, err
		}
	case qAllTimeNFT, qAnyTimeNFT:
		// An NFT holder holds at least one of the contract's tokens, in
		// one of the params' two forms.
		s.nft, s.q.Min = true, big.NewInt(1)
		dates, stamps := p.FirstDate != nil || p.LastDate != nil, p.StartTs != nil || p.EndTs != nil
		switch {
		case dates && stamps:
			return subQuery{}, fieldError(field, "must give either firstDate and lastDate or startTs and endTs, not both")
		case dates:
			if p.FirstDate == nil || p.LastDate == nil {
				return subQuery{}, fieldError(field, "must give both firstDate and lastDate")
			}
			if s.q.From, s.q.To, err = dateRange(field, *p.FirstDate, *p.LastDate); err != nil {
				return subQuery{}, err
			}
		case stamps:
			if p.StartTs == nil || p.EndTs == nil {
				return subQuery{}, fieldError(field, "must give both startTs and endTs")
			}
			if s.q.From, err = timestampNumber(field+".startTs", *p.StartTs); err != nil {
				return subQuery{}, err
			}
			if s.q.To, err = timestampNumber(field+".endTs", *p.EndTs); err != nil {
				return subQuery{}, err
			}
			if s.q.From > s.q.To {
				return subQuery{}, fieldError(field+".startTs", "(%d) is after endTs (%d)", s.q.From, s.q.To)
			}
		default:
			return subQuery{}, fieldError(field, "must give firstDate and lastDate, or startTs and endTs")
		}
	case qLatest:
		s.q.Mode, s.q.From, s.q.To = store.Latest, maxTimestamp, maxTimestamp
		switch *p.TokenType {
		case "ERC20":
			if s.q.Token == nil {
				return subQuery{}, fieldError(field+".contractAddress", "is required for tokenType ERC20")
			}
		case "NATIVE":
			if s.q.Token != nil {
				return subQuery{}, fieldError(field+".contractAddress", "is not taken with tokenType NATIVE")
			}
		default:
			return subQuery{}, fieldError(field+".tokenType", "must be ERC20 or NATIVE, got %s", derrors.Echo(*p.TokenType))
		}
	}
	if s.nft || s.q.Mode == store.Latest {
		// The answer lists addresses only. The latest balances' and
		// the NFT spans' reads can skip the amounts (a tenth to a
		// quarter of their time), and only this query asks for these
		// lists; the other balance lists are shared, with their
		// amounts, with the balance endpoint.
		s.q.NoAmounts = true
	}
	return s, nil
}

// dateRange reads firstDate and lastDate: UTC days (YYYY-MM-DD), the
// range from the first's start to the last's end; or RFC 3339 times.
func dateRange(field, first, last string) (from, to int64, err error) {
	if from, err = dateParam(field+".firstDate", first, false); err != nil {
		return 0, 0, err
	}
	if to, err = dateParam(field+".lastDate", last, true); err != nil {
		return 0, 0, err
	}
	if from > to {
		return 0, 0, fieldError(field+".firstDate", "(%s) is after lastDate (%s)", derrors.Echo(first), derrors.Echo(last))
	}
	return from, to, nil
}

// dateParam reads a date (its start, or its last second when end) or an
// RFC 3339 time.
func dateParam(field, v string, end bool) (int64, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			t = t.Add(24*time.Hour - time.Second)
		}
		if t.Unix() < 0 || t.Unix() > maxTimestamp {
			return 0, fieldError(field, "must be a date from 1970-01-01 to 9999-12-31, got %s", derrors.Echo(v))
		}
		return t.Unix(), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.Unix() < 0 || t.Unix() > maxTimestamp {
		return 0, fieldError(field, "must be a date (YYYY-MM-DD, UTC) or an RFC 3339 time from 1970 to 9999, got %s", derrors.Echo(v))
	}
	return t.Unix(), nil
}

// jsonNumber reads raw as a JSON number (not a string holding one).
func jsonNumber(raw json.RawMessage) (float64, bool) {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// timestampNumber reads a JSON number of unix seconds.
func timestampNumber(field string, raw json.RawMessage) (int64, error) {
	f, ok := jsonNumber(raw)
	if !ok || f < 0 || f > maxTimestamp || f != math.Trunc(f) {
		return 0, fieldError(field, "must be a whole number of unix seconds from 0 to %d, got %s", maxTimestamp, derrors.Echo(string(raw)))
	}
	return int64(f), nil
}

// compositeQuery serves the composite query; version names it in its
// page tokens' scope.
func (a *API) compositeQuery(version string) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			return derrors.Invalid("the composite query takes no query parameters (%s): pageToken and pageSize go in the body",
				derrors.Echo(r.URL.RawQuery))
		}
		if r.Body == nil {
			return derrors.Invalid("request body must be a JSON object")
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCompositeBody))
		if err != nil {
			var maxErr *http.MaxBytesError
			if errors.As(err, &maxErr) {
				return derrors.Invalid("request body exceeds %d bytes", maxErr.Limit)
			}
			return derrors.Invalid("request body could not be read")
		}
		c, err := a.parseComposite(body)
		if err != nil {
			return err
		}
		scope := param.Scope(version+"/lookingGlass/compositeQuery", c.key())
		var offset int64
		if c.pageToken != "" {
			if offset, err = a.tokens.decode(c.pageToken, scope, a.now()); err != nil {
				msg, _ := derrors.ClientMessage(err)
				return fieldError("pageToken", "is not valid: %s", msg)
			}
		}
		res, err := a.runComposite(r, c, scope, offset)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// runComposite evaluates c's sub-queries and answers the page at offset
// of their combination.
func (a *API) runComposite(r *http.Request, c compositeRequest, scope string, offset int64) (CompositeQueryResponse, error) {
	res := CompositeQueryResponse{SubQueryCounts: map[string]int64{}, Addresses: []string{}}
	lists, errs := a.subQueryLists(r.Context(), c.queries)
	var combined []common.Address
	for i, s := range c.queries {
		list, err := lists[i], errs[i]
		if err != nil {
			if errors.Is(err, derrors.InvalidArgument) || errors.Is(err, derrors.NotFound) || errors.Is(err, derrors.Unavailable) {
				msg, _ := derrors.ClientMessage(err)
				kind := derrors.InvalidArgument
				switch {
				case errors.Is(err, derrors.NotFound):
					kind = derrors.NotFound
				case errors.Is(err, derrors.Unavailable):
					kind = derrors.Unavailable
				}
				return res, derrors.Client(kind, "queries[%d] (id %s): %s", i, derrors.Echo(s.id), msg)
			}
			return res, err
		}
		res.SubQueryCounts[s.id] = int64(len(list))
		addrs := make([]common.Address, len(list))
		for j, x := range list {
			addrs[j] = x.Address
		}
		switch {
		case i == 0:
			combined = addrs
		case c.and:
			combined = intersect(combined, addrs)
		default:
			combined = union(combined, addrs)
		}
	}
	res.TotalCount = int64(len(combined))
	if offset < int64(len(combined)) {
		page := combined[offset:]
		if len(page) > c.pageSize {
			res.NextPageToken = a.tokens.encode(scope, offset+int64(c.pageSize), a.now())
			page = page[:c.pageSize]
		}
		for _, addr := range page {
			res.Addresses = append(res.Addresses, addr.Hex())
		}
	}
	return res, nil
}

// subQueryLists answers each of queries, at most GOMAXPROCS at a time: a
// cold sub-query is a scan of its own (the NFT holders' spans, the
// balances' index), and the answer waits for all of them.
func (a *API) subQueryLists(ctx context.Context, queries []subQuery) ([][]store.AddressAmount, []error) {
	lists, errs := make([][]store.AddressAmount, len(queries)), make([]error, len(queries))
	if len(queries) == 1 {
		lists[0], errs[0] = a.balanceList(ctx, queries[0].q, queries[0].nft)
		return lists, errs
	}
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, s := range queries {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() {
				// The handler's recovery does not reach this goroutine:
				// a panic here would end the process.
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("queries[%d]: panic: %v", i, p)
				}
				<-slots
				wg.Done()
			}()
			lists[i], errs[i] = a.balanceList(ctx, s.q, s.nft)
		}()
	}
	wg.Wait()
	return lists, errs
}

// intersect returns the addresses of both sorted lists, sorted.
func intersect(x, y []common.Address) []common.Address {
	out := x[:0:0]
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch c := bytes.Compare(x[i][:], y[j][:]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			out = append(out, x[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// union returns the addresses of either sorted list, sorted, once each.
func union(x, y []common.Address) []common.Address {
	out := make([]common.Address, 0, max(len(x), len(y)))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y):
			out = append(out, x[i])
			i++
		case i == len(x):
			out = append(out, y[j])
			j++
		default:
			switch c := bytes.Compare(x[i][:], y[j][:]); {
			case c < 0:
				out = append(out, x[i])
				i++
			case c > 0:
				out = append(out, y[j])
				j++
			default:
				out = append(out, x[i])
				i, j = i+1, j+1
			}
		}
	}
	return out
}

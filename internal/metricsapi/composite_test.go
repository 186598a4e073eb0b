package metricsapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// sub is a sub-query of the tests: its wire form and the addresses the
// fixture says it matches.
type sub struct {
	wire map[string]any
	want map[common.Address]string
}

// compositeCases are sub-queries of every served type over the fixture.
func compositeCases(f *lgFixture) []sub {
	day := time.Unix(f.times[0], 0).UTC().Format(time.DateOnly)
	mid, end := f.times[15], f.times[25]
	chain := fmt.Sprint(lgChain)
	q := func(id, typ string, params map[string]any, want map[common.Address]string) sub {
		return sub{map[string]any{"id": id, "type": typ, "params": params}, want}
	}
	dayStart, _ := time.Parse(time.DateOnly, day)
	dayEnd := dayStart.Unix() + 86399
	return []sub{
		q("native-any", qAnyTimeNative, map[string]any{"firstDate": day, "lastDate": day, "minBalance": "900", "evmChainId": chain},
			f.expect(f.native, dayStart.Unix(), dayEnd, big.NewInt(900), store.AnyTime)),
		q("native-all", qAllTimeNative, map[string]any{"firstDate": time.Unix(mid, 0).UTC().Format(time.RFC3339), "lastDate": time.Unix(end, 0).UTC().Format(time.RFC3339), "minBalance": "200", "evmChainId": chain},
			f.expect(f.native, mid, end, big.NewInt(200), store.AllTime)),
		q("erc20-any", qAnyTimeERC20, map[string]any{"firstDate": day, "lastDate": day, "minBalance": "1000", "evmChainId": chain, "contractAddress": lgERC20.Hex()},
			f.expect(f.erc20, dayStart.Unix(), dayEnd, big.NewInt(1000), store.AnyTime)),
		q("erc20-all", qAllTimeERC20, map[string]any{"firstDate": time.Unix(mid, 0).UTC().Format(time.RFC3339), "lastDate": time.Unix(end, 0).UTC().Format(time.RFC3339), "minBalance": "100", "evmChainId": chain, "contractAddress": strings.ToLower(lgERC20.Hex())},
			f.expect(f.erc20, mid, end, big.NewInt(100), store.AllTime)),
		q("nft-any", qAnyTimeNFT, map[string]any{"firstDate": day, "lastDate": day, "evmChainId": chain, "contractAddress": lgERC721.Hex()},
			f.expect(f.nfts, dayStart.Unix(), dayEnd, big.NewInt(1), store.AnyTime)),
		q("nft-all", qAllTimeNFT, map[string]any{"startTs": mid, "endTs": end, "evmChainId": chain, "contractAddress": lgERC721.Hex()},
			f.expect(f.nfts, mid, end, big.NewInt(1), store.AllTime)),
		q("multi-any", qAnyTimeNFT, map[string]any{"startTs": f.times[3], "endTs": f.times[8], "evmChainId": chain, "contractAddress": lgMulti.Hex()},
			f.expect(f.multi, f.times[3], f.times[8], big.NewInt(1), store.AnyTime)),
		q("latest-native", qLatest, map[string]any{"minBalance": "500", "evmChainId": chain, "tokenType": "NATIVE"},
			f.expect(f.native, 0, maxTimestamp, big.NewInt(500), store.Latest)),
		q("latest-erc20", qLatest, map[string]any{"minBalance": "700", "evmChainId": chain, "tokenType": "ERC20", "contractAddress": lgERC20.Hex()},
			f.expect(f.erc20, 0, maxTimestamp, big.NewInt(700), store.Latest)),
	}
}

// TestCompositeQuery: AND and OR of sub-queries of every type over the
// fixture count and page the addresses the test computes from its
// blocks, on both stores, on both versions; malformed bodies are 400s
// naming the field.
func TestCompositeQuery(t *testing.T) {
	f := newLGFixture(40)
	cases := compositeCases(f)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		mux, _ := lgServer(t, dsn, f, nil)
		for _, c := range cases {
			if len(c.want) == 0 {
				t.Errorf("sub-query %s matches none of the fixture's addresses: it checks little", c.wire["id"])
			}
		}
		combos := [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {0, 2}, {2, 4, 7}, {1, 3, 5}, {4, 6, 8}, {0, 1, 2, 3, 4, 5, 6, 7, 8}}
		for _, combo := range combos {
			for _, op := range []string{"AND", "OR"} {
				var queries []map[string]any
				var want map[common.Address]bool
				counts := map[string]int64{}
				for k, i := range combo {
					queries = append(queries, cases[i].wire)
					counts[cases[i].wire["id"].(string)] = int64(len(cases[i].want))
					set := map[common.Address]bool{}
					for a := range cases[i].want {
						set[a] = true
					}
					switch {
					case k == 0:
						want = set
					case op == "AND":
						for a := range want {
							if !set[a] {
								delete(want, a)
							}
						}
					default:
						for a := range set {
							want[a] = true
						}
					}
				}
				var wantList []string
				for a := range want {
					wantList = append(wantList, a.Hex())
				}
				slices.SortFunc(wantList, func(x, y string) int {
					return bytes.Compare(common.HexToAddress(x).Bytes(), common.HexToAddress(y).Bytes())
				})
				for _, version := range []string{"v1", "v2"} {
					var got []string
					token := ""
					for pages := 0; ; pages++ {
						if pages > 50 {
							t.Fatal("paging does not end")
						}
						body := map[string]any{"operator": op, "queries": queries, "pageSize": 2}
						if token != "" {
							body["pageToken"] = token
						}
						b, _ := json.Marshal(body)
						var res CompositeQueryResponse
						lgDo(t, mux, "POST", "/"+version+"/lookingGlass/compositeQuery", string(b), 200, &res)
						if res.TotalCount != int64(len(wantList)) || !mapsEqual(res.SubQueryCounts, counts) {
							t.Errorf("%s %v %s: totalCount %d, subQueryCounts %v; want %d, %v", version, combo, op, res.TotalCount, res.SubQueryCounts, len(wantList), counts)
						}
						got = append(got, res.Addresses...)
						if token = res.NextPageToken; token == "" {
							break
						}
					}
					if !slices.Equal(got, wantList) {
						t.Errorf("%s %v %s: %v, want %v", version, combo, op, got, wantList)
					}
				}
			}
		}

		// Malformed bodies: a 400 (404 for a chain not indexed) naming
		// the field.
		good := cases[0].wire
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for x, y := range good {
				m[x] = y
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		params := func(k string, v any) map[string]any {
			p := map[string]any{}
			for x, y := range good["params"].(map[string]any) {
				p[x] = y
			}
			if v == nil {
				delete(p, k)
			} else {
				p[k] = v
			}
			return with("params", p)
		}
		many := make([]any, maxCompositeQueries+1)
		for i := range many {
			many[i] = with("id", fmt.Sprint(i))
		}
		for _, c := range []struct {
			body   any
			status int
			names  string
		}{
			{"", 400, "body"},
			{"[]", 400, "body"},
			{`{"operator":"AND","queries":[]}x`, 400, "body"},
			{map[string]any{"queries": []any{good}}, 400, "operator"},
			{map[string]any{"operator": "XOR", "queries": []any{good}}, 400, "operator"},
			{map[string]any{"operator": "AND"}, 400, "queries"},
			{map[string]any{"operator": "AND", "queries": []any{}}, 400, "queries"},
			{map[string]any{"operator": "AND", "queries": many}, 400, "queries"},
			{map[string]any{"operator": "AND", "queries": "x"}, 400, "queries"},
			{map[string]any{"operator": "AND", "queries": []any{good}, "pageSize": 0}, 400, "pageSize"},
			{map[string]any{"operator": "AND", "queries": []any{good}, "pageSize": 10001}, 400, "pageSize"},
			{map[string]any{"operator": "AND", "queries": []any{good}, "pageSize": "5"}, 400, "pageSize"},
			{map[string]any{"operator": "AND", "queries": []any{good}, "pageToken": "abc"}, 400, "pageToken"},
			{map[string]any{"operator": "AND", "queries": []any{good}, "extra": 1}, 400, "extra"},
			{map[string]any{"operator": "AND", "queries": []any{good, good}}, 400, "queries[1].id"},
			{map[string]any{"operator": "AND", "queries": []any{with("id", nil)}}, 400, "queries[0].id"},
			{map[string]any{"operator": "AND", "queries": []any{with("id", "")}}, 400, "queries[0].id"},
			{map[string]any{"operator": "AND", "queries": []any{with("type", nil)}}, 400, "queries[0].type"},
			{map[string]any{"operator": "AND", "queries": []any{with("type", "Nope")}}, 400, "queries[0].type"},
			{map[string]any{"operator": "AND", "queries": []any{with("type", qLatestStars)}}, 400, "queries[0].type"},
			{map[string]any{"operator": "AND", "queries": []any{with("params", nil)}}, 400, "queries[0].params"},
			{map[string]any{"operator": "AND", "queries": []any{with("params", 5)}}, 400, "queries[0].params"},
			{map[string]any{"operator": "AND", "queries": []any{params("minBalance", nil)}}, 400, "queries[0].params.minBalance"},
			{map[string]any{"operator": "AND", "queries": []any{params("minBalance", "-5")}}, 400, "queries[0].params.minBalance"},
			{map[string]any{"operator": "AND", "queries": []any{params("minBalance", 5)}}, 400, "queries[0].params.minBalance"},
			{map[string]any{"operator": "AND", "queries": []any{params("firstDate", "yesterday")}}, 400, "queries[0].params.firstDate"},
			{map[string]any{"operator": "AND", "queries": []any{params("lastDate", "1999-01-01")}}, 400, "queries[0].params.firstDate"},
			{map[string]any{"operator": "AND", "queries": []any{params("evmChainId", "x")}}, 400, "queries[0].params.evmChainId"},
			{map[string]any{"operator": "AND", "queries": []any{params("evmChainId", "7")}}, 404, "queries[0].params.evmChainId"},
			{map[string]any{"operator": "AND", "queries": []any{params("contractAddress", lgERC20.Hex())}}, 400, "queries[0].params.contractAddress"},
			{map[string]any{"operator": "AND", "queries": []any{params("startTs", 5)}}, 400, "queries[0].params.startTs"},
			{map[string]any{"operator": "OR", "queries": []any{good, cases[2].wire, with("id", cases[2].wire["id"])}}, 400, "queries[2].id"},
			{map[string]any{"operator": "AND", "queries": []any{cases[4].wire, map[string]any{"id": "n", "type": qAnyTimeNFT,
				"params": map[string]any{"startTs": 9, "endTs": 1, "evmChainId": "43114", "contractAddress": lgERC721.Hex()}}}}, 400, "queries[1].params.startTs"},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "n", "type": qAnyTimeNFT,
				"params": map[string]any{"startTs": 1.5, "endTs": 3, "evmChainId": "43114", "contractAddress": lgERC721.Hex()}}}}, 400, "queries[0].params.startTs"},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "n", "type": qAnyTimeNFT,
				"params": map[string]any{"startTs": 1, "endTs": 3, "firstDate": "2024-01-01", "evmChainId": "43114", "contractAddress": lgERC721.Hex()}}}}, 400, "queries[0].params"},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "n", "type": qAnyTimeNFT,
				"params": map[string]any{"startTs": 1, "endTs": 3, "evmChainId": "43114", "contractAddress": lgERC20.Hex()}}}}, 200, ""},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "l", "type": qLatest,
				"params": map[string]any{"minBalance": "1", "evmChainId": "43114", "tokenType": "ERC721"}}}}, 400, "queries[0].params.tokenType"},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "l", "type": qLatest,
				"params": map[string]any{"minBalance": "1", "evmChainId": "43114", "tokenType": "ERC20"}}}}, 400, "queries[0].params.contractAddress"},
			{map[string]any{"operator": "AND", "queries": []any{map[string]any{"id": "l", "type": qLatest,
				"params": map[string]any{"minBalance": "1", "evmChainId": "43114", "tokenType": "ERC20", "contractAddress": lgERC721.Hex()}}}}, 404, "queries[0]"},
			// Sub-queries run at once: of two that fail, the first is named.
			{map[string]any{"operator": "AND", "queries": []any{good, map[string]any{"id": "x1", "type": qLatest,
				"params": map[string]any{"minBalance": "1", "evmChainId": "43114", "tokenType": "ERC20", "contractAddress": lgERC721.Hex()}},
				map[string]any{"id": "x2", "type": qLatest, "params": map[string]any{"minBalance": "1", "evmChainId": "43114", "tokenType": "ERC20", "contractAddress": "0x000000000000000000000000000000000000dEaD"}}}}, 404, "queries[1] (id"},
			{strings.Repeat(" ", maxCompositeBody+1), 400, "exceeds"},
		} {
			b, ok := c.body.(string)
			if !ok {
				raw, _ := json.Marshal(c.body)
				b = string(raw)
			}
			out := lgDo(t, mux, "POST", "/v2/lookingGlass/compositeQuery", b, c.status, nil)
			if !strings.Contains(out, c.names) {
				t.Errorf("%.200s: %s does not name %s", b, out, c.names)
			}
		}
	})
}

func mapsEqual(x, y map[string]int64) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if w, ok := y[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// FuzzCompositeQuery posts arbitrary bodies to the composite query over a
// small stored chain: every answer is a 200 that the reference's schema
// accepts, or a 4xx with the Metrics API's error body whose message names
// what was wrong; never a 5xx.
func FuzzCompositeQuery(f *testing.F) {
	fx := newLGFixture(30)
	for _, c := range compositeCases(fx) {
		b, _ := json.Marshal(map[string]any{"operator": "OR", "queries": []any{c.wire}})
		f.Add(b)
		b, _ = json.Marshal(map[string]any{"operator": "AND", "queries": []any{c.wire, compositeCases(fx)[0].wire}, "pageSize": 1})
		f.Add(b)
	}
	for _, s := range []string{"", "{}", "null", "[]", `{"operator":"AND","queries":[{}]}`, `{"operator":"OR","queries":[{"id":"a","type":"LatestBalance","params":{}}]}`,
		`{"operator":"AND","queries":[{"id":"a","type":"AnyTimeNftHolders","params":{"startTs":1e308,"endTs":-1,"evmChainId":"43114","contractAddress":"0x0"}}]}`,
		`{"pageSize":1e400,"operator":"AND","queries":[]}`, `{"operator":"AND","queries":[[[[[[[[]]]]]]]]}`} {
		f.Add([]byte(s))
	}
	dsn := dbtest.SQLite(f)
	mux, _ := lgServer(f, dsn, fx, nil)
	doc := openapitest.Metrics(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v2/lookingGlass/compositeQuery", bytes.NewReader(body))
		mux.ServeHTTP(rec, req)
		if err := doc.CheckResponse("POST", "/v2/lookingGlass/compositeQuery", rec.Code, rec.Body.Bytes()); err != nil {
			t.Fatalf("%q: %d %s: %v", body, rec.Code, rec.Body, err)
		}
		switch {
		case rec.Code == http.StatusOK:
			return
		case rec.Code != http.StatusBadRequest && rec.Code != http.StatusNotFound:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
		var e ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || len(e.Message) != 1 {
			t.Fatalf("%q: error body %s", body, rec.Body)
		}
		named := false
		for _, n := range []string{"body", "operator", "queries", "pageSize", "pageToken"} {
			named = named || strings.Contains(e.Message[0], n)
		}
		if !named {
			t.Fatalf("%q: %s names no field", body, e.Message[0])
		}
	})
}

package metricsapi

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// lgChain is the fixture's EVM chain: the C-chain's id, so that the BTC.b
// route (whose path names 43114) reads it.
const lgChain = 43114

var (
	lgERC20  = lgAddr("erc20")
	lgERC721 = lgAddr("erc721")
	lgMulti  = lgAddr("erc1155")
	lgBTCb   = lgAddr("btcb")
	lgZero   = common.Address{}
)

func lgAddr(s string) common.Address { return common.BytesToAddress(crypto.Keccak256([]byte(s))) }

// lgFixture is a chain of blocks whose native balances, ERC-20, ERC-721,
// ERC-1155 and BTC.b transfers are random, and the state after each block
// as the test follows it (independently of the store).
type lgFixture struct {
	blocks []*internal.EVMBlockData
	times  []int64
	// after[h] are the balances after block h: native, ERC-20, ERC-721
	// count, ERC-1155 units, by address.
	native, erc20, nfts, multi []map[common.Address]*big.Int
	owner                      map[int64]common.Address // ERC-721 token id → owner now
	multiBal                   map[[2]any]*big.Int      // (holder, id) → ERC-1155 balance now
	bridged                    map[common.Address]*big.Int
	addrs                      []common.Address
}

func clone(m map[common.Address]*big.Int) map[common.Address]*big.Int {
	out := make(map[common.Address]*big.Int, len(m))
	for k, v := range m {
		out[k] = new(big.Int).Set(v)
	}
	return out
}

func add(m map[common.Address]*big.Int, a common.Address, v *big.Int) {
	if a == lgZero {
		return
	}
	if m[a] == nil {
		m[a] = new(big.Int)
	}
	m[a].Add(m[a], v)
}

func newLGFixture(n int) *lgFixture {
	r := rand.New(rand.NewPCG(7, 9))
	f := &lgFixture{owner: map[int64]common.Address{}, multiBal: map[[2]any]*big.Int{}, bridged: map[common.Address]*big.Int{}}
	for i := range 12 {
		f.addrs = append(f.addrs, lgAddr(fmt.Sprint("holder", i)))
	}
	native, erc20, nfts, multi := map[common.Address]*big.Int{}, map[common.Address]*big.Int{}, map[common.Address]*big.Int{}, map[common.Address]*big.Int{}
	pick := func() common.Address { return f.addrs[r.IntN(len(f.addrs))] }
	nextID := int64(1)
	parent := common.Hash{}
	for h := range uint64(n) {
		ts := int64(1_700_000_000 + 100*h)
		b := &internal.EVMBlockData{Traced: true, EVMBlock: internal.EVMBlock{Number: h, Hash: common.BytesToHash(crypto.Keccak256([]byte(fmt.Sprint("b", h)))),
			ParentHash: parent, Timestamp: time.Unix(ts, 0).UTC(), GasLimit: 8_000_000}}
		parent = b.Hash
		if h == 0 {
			for _, c := range []struct {
				a common.Address
				t internal.ERCType
				n string
			}{{lgERC20, internal.ERC20, "Token"}, {lgERC721, internal.ERC721, "Apes"}, {lgMulti, internal.ERC1155, "Multi"}, {lgBTCb, internal.ERC20, "BTC.b"}} {
				b.Seen = append(b.Seen, internal.EVMContract{Address: c.a, Type: c.t, Name: c.n, Symbol: strings.ToUpper(c.n[:3]), Timestamp: b.Timestamp, CreateType: "CREATE"})
			}
		}
		// Native balances: a few addresses set to new values.
		changed := map[common.Address]bool{}
		for range 3 {
			a := pick()
			if changed[a] {
				continue
			}
			changed[a] = true
			native[a] = big.NewInt(int64(r.IntN(1000)))
		}
		for _, a := range f.addrs {
			if changed[a] {
				b.Balances = append(b.Balances, internal.EVMBalanceChange{Address: a, Balance: new(big.Int).Set(native[a])})
			}
		}
		slices.SortFunc(b.Balances, func(x, y internal.EVMBalanceChange) int { return bytes.Compare(x.Address[:], y.Address[:]) })
		logIdx := uint32(0)
		transfer := func(tok common.Address, typ internal.ERCType, from, to common.Address, v *big.Int, id *big.Int) {
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: b.Timestamp,
				TxHash: common.BytesToHash(crypto.Keccak256([]byte(fmt.Sprint("tx", h, logIdx)))), LogIndex: logIdx, Token: tok, Type: typ,
				From: from, To: to, Value: v, TokenID: id})
			logIdx++
		}
		// ERC-20: a mint, a transfer of part of a balance, sometimes a burn.
		a := pick()
		v := big.NewInt(int64(1 + r.IntN(500)))
		transfer(lgERC20, internal.ERC20, lgZero, a, v, nil)
		add(erc20, a, v)
		if from := pick(); erc20[from] != nil && erc20[from].Sign() > 0 {
			to := pick()
			if r.IntN(4) == 0 {
				to = lgZero
			}
			v := big.NewInt(r.Int64N(erc20[from].Int64() + 1))
			transfer(lgERC20, internal.ERC20, from, to, v, nil)
			add(erc20, from, new(big.Int).Neg(v))
			add(erc20, to, v)
		}
		// ERC-721: a mint, a transfer or a burn of an owned token.
		a = pick()
		transfer(lgERC721, internal.ERC721, lgZero, a, big.NewInt(1), big.NewInt(nextID))
		f.owner[nextID] = a
		add(nfts, a, big.NewInt(1))
		nextID++
		if id := 1 + r.Int64N(nextID-1); f.owner[id] != lgZero {
			from, to := f.owner[id], pick()
			if r.IntN(5) == 0 {
				to = lgZero
			}
			transfer(lgERC721, internal.ERC721, from, to, big.NewInt(1), big.NewInt(id))
			f.owner[id] = to
			add(nfts, from, big.NewInt(-1))
			add(nfts, to, big.NewInt(1))
		}
		// ERC-1155: a mint of one of three ids, a transfer of some.
		id := int64(r.IntN(3))
		a, v = pick(), big.NewInt(int64(1+r.IntN(3)))
		transfer(lgMulti, internal.ERC1155, lgZero, a, v, big.NewInt(id))
		f.multiMove(a, id, v)
		add(multi, a, v)
		if from := pick(); f.multiBal[[2]any{from, id}] != nil && f.multiBal[[2]any{from, id}].Sign() > 0 {
			to := pick()
			v := new(big.Int).Set(f.multiBal[[2]any{from, id}])
			transfer(lgMulti, internal.ERC1155, from, to, v, big.NewInt(id))
			f.multiMove(from, id, new(big.Int).Neg(v))
			f.multiMove(to, id, v)
			add(multi, from, new(big.Int).Neg(v))
			add(multi, to, v)
		}
		// BTC.b: the bridge mints, a holder burns to bridge out, and
		// plain transfers move none.
		a, v = pick(), big.NewInt(int64(1+r.IntN(1000)))
		transfer(lgBTCb, internal.ERC20, lgZero, a, v, nil)
		add(f.bridged, a, v)
		if r.IntN(3) == 0 {
			from, v := pick(), big.NewInt(int64(1+r.IntN(300)))
			transfer(lgBTCb, internal.ERC20, from, lgZero, v, nil)
			add(f.bridged, from, new(big.Int).Neg(v))
		}
		f.blocks = append(f.blocks, b)
		f.times = append(f.times, ts)
		f.native, f.erc20, f.nfts, f.multi = append(f.native, clone(native)), append(f.erc20, clone(erc20)), append(f.nfts, clone(nfts)), append(f.multi, clone(multi))
	}
	return f
}

func (f *lgFixture) multiMove(a common.Address, id int64, v *big.Int) {
	if a == lgZero {
		return
	}
	k := [2]any{a, id}
	if f.multiBal[k] == nil {
		f.multiBal[k] = new(big.Int)
	}
	f.multiBal[k].Add(f.multiBal[k], v)
}

// expect answers a balance query from the fixture: the addresses whose
// balance (after[h], per block) met min at some/every time of [from, to]
// or at to, each with its balance at to.
func (f *lgFixture) expect(after []map[common.Address]*big.Int, from, to int64, min *big.Int, mode store.BalanceMode) map[common.Address]string {
	at := func(ts int64) map[common.Address]*big.Int {
		var m map[common.Address]*big.Int
		for h, t := range f.times {
			if t <= ts {
				m = after[h]
			}
		}
		return m
	}
	last := at(to)
	if last == nil {
		return map[common.Address]string{}
	}
	// The states of the range: at from, then after each block in it.
	states := []map[common.Address]*big.Int{at(from)}
	for h, t := range f.times {
		if t > from && t <= to {
			states = append(states, after[h])
		}
	}
	out := map[common.Address]string{}
	for a, bal := range last {
		meets := func(m map[common.Address]*big.Int) bool {
			v := new(big.Int)
			if m != nil && m[a] != nil {
				v = m[a]
			}
			return v.Cmp(min) >= 0
		}
		ok := false
		switch mode {
		case store.Latest:
			ok = meets(last)
		case store.AllTime:
			ok = true
			for _, s := range states {
				ok = ok && meets(s)
			}
		default:
			for _, s := range states {
				ok = ok || meets(s)
			}
		}
		if ok {
			out[a] = bal.String()
		}
	}
	return out
}

// lgServer serves the fixture, stored with the store's appliers.
func lgServer(t testing.TB, dsn string, f *lgFixture, bridges map[uint64]common.Address) (*http.ServeMux, store.Store) {
	ctx := context.Background()
	db, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx, store.Migrations()); err != nil {
		t.Fatal(err)
	}
	st := store.New(db)
	t.Cleanup(func() { st.Close() })
	for i := 0; i < len(f.blocks); i += 7 {
		if err := st.ApplyEVMBlocks(ctx, lgChain, f.blocks[i:min(i+7, len(f.blocks))], evmstate.Apply[*store.EVMTx]); err != nil {
			t.Fatal(err)
		}
	}
	a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), BTCbBridges: bridges,
		EVMChains: func() []EVMChain { return []EVMChain{{EVMChainID: lgChain, Name: "c_chain"}} }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return mux, st
}

// lgGet gets path, checks its status and body against the reference, and
// decodes a 200 into v.
func lgDo(t *testing.T, mux *http.ServeMux, method, path, body string, status int, v any) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	mux.ServeHTTP(rec, req)
	if rec.Code != status {
		t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, rec.Code, rec.Body, status)
	}
	openapitest.Metrics(t).ValidateResponse(t, method, strings.Split(path, "?")[0], rec.Code, rec.Body.Bytes())
	if status == 200 && v != nil {
		if err := jsonDecode(rec.Body.Bytes(), v); err != nil {
			t.Fatal(err)
		}
	}
	return rec.Body.String()
}

// pages follows a Looking Glass list's pages of size.
func lgPages(t *testing.T, mux *http.ServeMux, path, q string, size int) (map[common.Address]string, []string, NftHoldersResponse) {
	t.Helper()
	got := map[common.Address]string{}
	var order []string
	var first NftHoldersResponse
	next := q + "&pageSize=" + strconv.Itoa(size)
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("paging does not end")
		}
		var res NftHoldersResponse
		lgDo(t, mux, "GET", path+"?"+next, "", 200, &res)
		if pages == 0 {
			first = res
		}
		for _, d := range res.Addresses {
			if _, dup := got[common.HexToAddress(d.Address)]; dup {
				t.Fatalf("%s twice", d.Address)
			}
			got[common.HexToAddress(d.Address)] = d.SortKey
			order = append(order, d.Address)
		}
		if res.NextPageToken == "" {
			break
		}
		next = q + "&pageSize=" + strconv.Itoa(size) + "&pageToken=" + url.QueryEscape(res.NextPageToken)
	}
	return got, order, first
}

func sameMap(t *testing.T, what string, got, want map[common.Address]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d addresses %v, want %d %v", what, len(got), got, len(want), want)
		return
	}
	for a, v := range want {
		if got[a] != v {
			t.Errorf("%s: %s = %q, want %q", what, a.Hex(), got[a], v)
		}
	}
}

func positive(m map[common.Address]*big.Int) map[common.Address]string {
	out := map[common.Address]string{}
	for a, v := range m {
		if v.Sign() > 0 {
			out[a] = v.String()
		}
	}
	return out
}

// TestLookingGlassEVM: the NFT holders, the ERC-20 holders over time and
// the BTC.b bridged amounts of a random chain stored by the appliers are
// what the test follows of its blocks, paged, on both stores; bad input
// is a 4xx naming it.
func TestLookingGlassEVM(t *testing.T) {
	f := newLGFixture(40)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		mux, _ := lgServer(t, dsn, f, map[uint64]common.Address{lgChain: lgBTCb})
		last := len(f.blocks) - 1

		// NFT holders now: ERC-721 tokens held; ERC-1155 ids held.
		holders := "/v2/chains/43114/contracts/" + lgERC721.Hex() + "/nfts:listHolders"
		got, order, first := lgPages(t, mux, holders, "", 3)
		want := positive(f.nfts[last])
		sameMap(t, "ERC-721 holders", got, want)
		if !slices.IsSortedFunc(order, func(x, y string) int {
			return bytes.Compare(common.HexToAddress(x).Bytes(), common.HexToAddress(y).Bytes())
		}) {
			t.Errorf("holders not by address: %v", order)
		}
		tokens := 0
		for _, o := range f.owner {
			if o != lgZero {
				tokens++
			}
		}
		if first.TotalHolders != int64(len(want)) || first.TotalTokens != int64(tokens) ||
			!slices.Equal(first.NftCollectionName, []string{"Apes"}) || !slices.Equal(first.NftSymbol, []string{"APE"}) {
			t.Errorf("ERC-721 summary %+v, want %d holders, %d tokens", first, len(want), tokens)
		}
		got, _, first = lgPages(t, mux, "/v2/chains/43114/contracts/"+lgMulti.Hex()+"/nfts:listHolders", "", 1000)
		wantIDs, ids := map[common.Address]string{}, map[int64]bool{}
		for k, v := range f.multiBal {
			if v.Sign() > 0 {
				a := k[0].(common.Address)
				n, _ := strconv.Atoi(wantIDs[a])
				wantIDs[a] = strconv.Itoa(n + 1)
				ids[k[1].(int64)] = true
			}
		}
		sameMap(t, "ERC-1155 holders", got, wantIDs)
		if first.TotalHolders != int64(len(wantIDs)) || first.TotalTokens != int64(len(ids)) {
			t.Errorf("ERC-1155 summary %+v, want %d holders, %d ids", first, len(wantIDs), len(ids))
		}

		// ERC-20 holders over ranges, thresholds and pages.
		balances := "/v2/chains/43114/contracts/" + lgERC20.Hex() + "/balances"
		for _, c := range []struct {
			from, to int64
			min      int64
		}{{0, 1 << 40, 0}, {f.times[5] + 50, f.times[20], 300}, {f.times[10], f.times[10], 1}, {f.times[30], f.times[39] + 1000, 900}, {0, f.times[0] - 1, 0}} {
			q := fmt.Sprintf("threshold=%d&startTimestamp=%d&endTimestamp=%d", c.min, c.from, c.to)
			got, _, _ := lgPages(t, mux, balances, q, 4)
			sameMap(t, "balances "+q, got, f.expect(f.erc20, c.from, c.to, big.NewInt(c.min), store.AnyTime))
		}
		got, _, _ = lgPages(t, mux, balances, "threshold=250", 1000)
		sameMap(t, "balances now", got, f.expect(f.erc20, 0, maxTimestamp, big.NewInt(250), store.AnyTime))

		// BTC.b: net minted less burned, at least the threshold.
		for _, th := range []int64{0, 700, 5000} {
			got, _, _ := lgPages(t, mux, "/v2/chains/43114/btcb/bridged:getAddresses", fmt.Sprintf("threshold=%d", th), 5)
			want := map[common.Address]string{}
			for a, v := range f.bridged {
				if v.Cmp(big.NewInt(th)) >= 0 {
					want[a] = v.String()
				}
			}
			sameMap(t, fmt.Sprintf("bridged ≥ %d", th), got, want)
		}

		// Bad input: a 4xx whose message names the parameter.
		for path, c := range map[string]struct {
			status int
			names  string
		}{
			"/v2/chains/x/contracts/" + lgERC721.Hex() + "/nfts:listHolders":         {400, "chainId"},
			"/v2/chains/99/contracts/" + lgERC721.Hex() + "/nfts:listHolders":        {404, "chainId"},
			"/v2/chains/43114/contracts/0x12/nfts:listHolders":                       {400, "address"},
			"/v2/chains/43114/contracts/" + lgERC20.Hex() + "/nfts:listHolders":      {404, lgERC20.Hex()},
			holders + "?pageSize=5001":                                               {400, "pageSize"},
			holders + "?pageToken=nope":                                              {400, "page token"},
			holders + "?sort=asc":                                                    {400, "sort"},
			balances:                                                                 {400, "threshold"},
			balances + "?threshold=-1":                                               {400, "threshold"},
			balances + "?threshold=1e3":                                              {400, "threshold"},
			balances + "?threshold=1&startTimestamp=9&endTimestamp=1":                {400, "startTimestamp"},
			balances + "?threshold=1&endTimestamp=x":                                 {400, "endTimestamp"},
			"/v2/chains/43114/contracts/" + lgERC721.Hex() + "/balances?threshold=1": {404, lgERC721.Hex()},
			"/v2/chains/43114/btcb/bridged:getAddresses":                             {400, "threshold"},
			"/v2/chains/43114/btcb/bridged:getAddresses?threshold=1&pageSize=0":      {400, "pageSize"},
		} {
			body := lgDo(t, mux, "GET", path, "", c.status, nil)
			if !strings.Contains(body, c.names) {
				t.Errorf("%s: %s does not name %s", path, body, c.names)
			}
		}
	})
}

// TestBTCbNotConfigured: without a BTC.b contract for the chain, the
// route is a 404 saying so.
func TestBTCbNotConfigured(t *testing.T) {
	dsn := dbtest.SQLite(t)
	mux, _ := lgServer(t, dsn, &lgFixture{}, nil)
	body := lgDo(t, mux, "GET", "/v2/chains/43114/btcb/bridged:getAddresses?threshold=1", "", 404, nil)
	if !strings.Contains(body, "--btcb-bridge") {
		t.Errorf("404 body %s does not say how to configure it", body)
	}
}

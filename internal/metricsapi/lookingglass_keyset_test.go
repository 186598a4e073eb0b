package metricsapi

import (
	"bytes"
	"fmt"
	"math/big"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestNFTHoldersKeyset pages the holders of a collection whose holders
// mostly hold the same number of tokens (so that equal counts straddle
// every page boundary) at several page sizes, on both stores: the pages
// together are every holder once, in address order, with its count, as
// the test minted them; a token of another collection is refused.
func TestNFTHoldersKeyset(t *testing.T) {
	const holders = 23
	nft := lgAddr("keyset-nft")
	other := lgAddr("keyset-other")
	t0 := time.Unix(1_700_000_000, 0).UTC()
	b0 := &internal.EVMBlockData{Traced: true, EVMBlock: internal.EVMBlock{Number: 0, Hash: common.BytesToHash(crypto.Keccak256([]byte("k0"))),
		Timestamp: t0, GasLimit: 8_000_000}}
	for _, a := range []common.Address{nft, other} {
		b0.Seen = append(b0.Seen, internal.EVMContract{Address: a, Type: internal.ERC721, Name: "Keys", Symbol: "KEY", Timestamp: t0, CreateType: "CREATE"})
	}
	b1 := &internal.EVMBlockData{Traced: true, EVMBlock: internal.EVMBlock{Number: 1, Hash: common.BytesToHash(crypto.Keccak256([]byte("k1"))),
		ParentHash: b0.Hash, Timestamp: t0.Add(time.Second), GasLimit: 8_000_000}}
	want := map[common.Address]int{}
	id := int64(1)
	mint := func(token, to common.Address) {
		b1.Transfers = append(b1.Transfers, internal.EVMTransfer{BlockNumber: 1, BlockHash: b1.Hash, Timestamp: b1.Timestamp,
			TxHash: common.BytesToHash(crypto.Keccak256([]byte(fmt.Sprint("ktx", id)))), LogIndex: uint32(id), Token: token,
			Type: internal.ERC721, From: common.Address{}, To: to, Value: big.NewInt(1), TokenID: big.NewInt(id)})
		id++
	}
	for i := range holders {
		a := lgAddr(fmt.Sprint("keyset-holder", i))
		n := 2 // most hold two: equal counts on both sides of each boundary
		if i%5 == 0 {
			n = 1
		}
		for range n {
			mint(nft, a)
		}
		want[a] = n
	}
	mint(other, lgAddr("keyset-holder0"))
	order := make([]common.Address, 0, holders)
	for a := range want {
		order = append(order, a)
	}
	slices.SortFunc(order, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })

	dbtest.Run(t, func(t *testing.T, dsn string) {
		f := &lgFixture{blocks: []*internal.EVMBlockData{b0, b1}}
		mux, _ := lgServer(t, dsn, f, nil)
		path := "/v2/chains/43114/contracts/" + nft.Hex() + "/nfts:listHolders"
		var firstToken string
		for _, size := range []int{1, 2, 4, 7, holders - 1, holders, 100} {
			var got []common.Address
			q := "?pageSize=" + strconv.Itoa(size)
			for pages := 0; ; pages++ {
				if pages > holders+1 {
					t.Fatalf("size %d: paging does not end", size)
				}
				var res NftHoldersResponse
				lgDo(t, mux, "GET", path+q, "", 200, &res)
				if len(res.Addresses) > size || (res.NextPageToken != "" && len(res.Addresses) != size) {
					t.Fatalf("size %d, page %d: %d holders, next %q", size, pages, len(res.Addresses), res.NextPageToken)
				}
				if res.TotalHolders != holders {
					t.Errorf("size %d: totalHolders %d, want %d", size, res.TotalHolders, holders)
				}
				for _, d := range res.Addresses {
					a := common.HexToAddress(d.Address)
					got = append(got, a)
					if d.SortKey != strconv.Itoa(want[a]) {
						t.Errorf("size %d: %s holds %s, want %d", size, d.Address, d.SortKey, want[a])
					}
				}
				if res.NextPageToken == "" {
					break
				}
				if firstToken == "" {
					firstToken = res.NextPageToken
				}
				q = "?pageSize=" + strconv.Itoa(size) + "&pageToken=" + url.QueryEscape(res.NextPageToken)
			}
			if !slices.Equal(got, order) {
				t.Errorf("size %d: paged\n%v\nwant each holder once, by address:\n%v", size, got, order)
			}
		}
		// The token names its collection: another's is refused.
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/chains/43114/contracts/"+other.Hex()+"/nfts:listHolders?pageSize=1&pageToken="+
			url.QueryEscape(firstToken), nil))
		if rec.Code != 400 || !bytes.Contains(rec.Body.Bytes(), []byte("page token")) {
			t.Errorf("another collection's token: %d %s, want 400 naming the page token", rec.Code, rec.Body)
		}
	})
}

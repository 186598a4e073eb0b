package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkERC20Balances measures listErc20Balances (the whole handler:
// the balances, each token's metadata and spam rule, the native balance)
// for an address holding 1,000 tokens, on each store: pages of 100 and of
// 500 at the last block, and a page of 100 at a past block (the history's
// seek). Each token was minted to the address, then moved 20 times (so
// 20,000 history rows of its own), among 50,000 other holders' transfers.
// Reported as p50 and p99 in milliseconds, after 50 requests of warm-up;
// the target is a p99 of 20 ms.
func BenchmarkERC20Balances(b *testing.B) {
	const (
		tokens   = 1000
		moves    = 20
		noise    = 50
		perBlock = 100
	)
	heavy := common.HexToAddress("0x4ea7400000000000000000000000000000000000")
	addr := func(kind string, i int) common.Address {
		return common.BytesToAddress(crypto.Keccak256([]byte(kind), big.NewInt(int64(i)).Bytes()))
	}
	eighteen := uint8(18)
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		st, err := store.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		var blocks []*internal.EVMBlockData
		parent := common.Hash{}
		newBlock := func() *internal.EVMBlockData {
			n := uint64(len(blocks))
			blk := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: n, Hash: crypto.Keccak256Hash([]byte("bench block"), big.NewInt(int64(n)).Bytes()),
				ParentHash: parent, Timestamp: time.Unix(1_700_000_000+int64(n), 0).UTC(), GasLimit: 15_000_000}, Traced: true}
			parent = blk.Hash
			blocks = append(blocks, blk)
			return blk
		}
		transfer := func(blk *internal.EVMBlockData, token, from, to common.Address, v int64) {
			blk.Transfers = append(blk.Transfers, internal.EVMTransfer{BlockNumber: blk.Number, LogIndex: uint32(len(blk.Transfers)),
				Token: token, Type: internal.ERC20, From: from, To: to, Value: big.NewInt(v)})
		}
		newBlock()
		// Blocks 1..1000 deploy a token each, mint it to the address and
		// to others.
		for i := range tokens {
			blk := newBlock()
			tok := addr("token", i)
			blk.Seen = []internal.EVMContract{{Address: tok, BlockNumber: blk.Number, Timestamp: blk.Timestamp, CreateType: "CREATE",
				Type: internal.ERC20, Name: fmt.Sprintf("Bench Token %d", i), Symbol: fmt.Sprintf("BT%d", i), Decimals: &eighteen}}
			transfer(blk, tok, common.Address{}, heavy, 1_000_000)
			for j := range noise {
				transfer(blk, tok, common.Address{}, addr("holder", (i*noise+j)%50_000), 1000)
			}
		}
		// Then each token moves 20 times from the address.
		blk := newBlock()
		for m := range moves {
			for i := range tokens {
				if len(blk.Transfers) == perBlock {
					blk = newBlock()
				}
				transfer(blk, addr("token", i), heavy, addr("holder", m*tokens+i), int64(m+1))
			}
		}
		past := uint64(len(blocks) - (moves/2)*tokens/perBlock)
		for i := 0; i < len(blocks); i += 256 {
			if err := st.ApplyEVMBlocks(ctx, evmTestChain, blocks[i:min(len(blocks), i+256)], evmstate.Apply[*store.EVMTx]); err != nil {
				b.Fatal(err)
			}
		}
		a, err := New(Deps{Store: st, EVM: st, Health: st, Chains: evmTestChains(), Network: testNet,
			Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32)})
		if err != nil {
			b.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		path := "/v1/chains/99999/addresses/" + heavy.Hex() + "/balances:listErc20"
		for _, sc := range []struct {
			name, query string
			want        int
		}{
			{fmt.Sprintf("block-%d-100", past), fmt.Sprintf("?pageSize=100&blockNumber=%d", past), 100},
			{"latest-100", "?pageSize=100", 100},
			{"latest-500", "?pageSize=500", 500},
		} {
			b.Run(sc.name, func(b *testing.B) {
				// Warm up: the store's caches, and a fresh store's
				// background work (PostgreSQL's autovacuum) settled.
				for range 50 {
					mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path+sc.query, nil))
				}
				var lat []time.Duration
				for b.Loop() {
					start := time.Now()
					rec := httptest.NewRecorder()
					mux.ServeHTTP(rec, httptest.NewRequest("GET", path+sc.query, nil))
					lat = append(lat, time.Since(start))
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
					var r ListErc20BalancesResponse
					if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || len(r.Erc20TokenBalances) != sc.want || r.NextPageToken == "" {
						b.Fatalf("%d balances (%v), next %q", len(r.Erc20TokenBalances), err, r.NextPageToken)
					}
				}
				slices.Sort(lat)
				ms := func(p float64) float64 {
					return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
				}
				b.ReportMetric(ms(0.50), "p50-ms")
				b.ReportMetric(ms(0.99), "p99-ms")
				b.ReportMetric(0, "ns/op")
			})
		}
	})
}

package nftmeta_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/nftmeta"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// benchTokens is how many tokens BenchmarkMetadata fetches
// (AVAINDEX_BENCH_NFTS for another count).
func benchTokens(b *testing.B) int {
	if v := os.Getenv("AVAINDEX_BENCH_NFTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("AVAINDEX_BENCH_NFTS=%q", v)
		}
		return n
	}
	return 100_000
}

// BenchmarkMetadata measures the metadata worker fetching, parsing and
// storing the metadata of 100,000 freshly minted tokens (one ERC-721
// collection, its URIs on a loopback stub server), on each store: the
// time from the worker's start until the queue is empty, reported as
// seconds and tokens/s. The target is 60 s on SQLite. Run it with
// -benchtime=1x.
func BenchmarkMetadata(b *testing.B) {
	count := benchTokens(b)
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/meta/")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"Token %s","description":"benchmark token","image":"ipfs://QmImage/%s.png","attributes":[{"trait_type":"n","value":%s}]}`, id, id, id)
	}))
	defer stub.Close()
	dbtest.Run(b, func(b *testing.B, dsn string) {
		for range b.N {
			b.StopTimer()
			ctx := context.Background()
			st, err := store.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			chainID := uint64(900_000 + b.N) // a new chain per run: every token queued
			if err := st.ApplyEVMBlocks(ctx, chainID, mintBlocks(count, stub.URL), evmstate.Apply[*store.EVMTx]); err != nil {
				b.Fatal(err)
			}
			w := nftmeta.NewWorker(st, nftmeta.Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
				Concurrency: 64, PerHost: 64, PollInterval: 20 * time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			b.StartTimer()
			start := time.Now()
			go func() { done <- w.Run(runCtx) }()
			for {
				n, err := st.NFTQueueLength(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if n == 0 { // a token leaves the queue when its result is saved
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			stop()
			<-done
			tok, err := st.NFTToken(ctx, chainID, benchCollection, big.NewInt(int64(count-1)))
			if err != nil || tok.Metadata.Status != internal.NFTIndexed || tok.Metadata.Name != fmt.Sprint("Token ", count-1) {
				b.Fatalf("the last token: %+v, %v", tok, err)
			}
			st.Close()
			b.ReportMetric(elapsed.Seconds(), "s-total")
			b.ReportMetric(float64(count)/elapsed.Seconds(), "tokens/s")
			b.StartTimer()
		}
	})
}

var benchCollection = common.BytesToAddress(crypto.Keccak256([]byte("bench collection")))

// mintBlocks are blocks 0 and 1 of a chain, block 1 minting count tokens
// of benchCollection with their URIs read.
func mintBlocks(count int, base string) []*internal.EVMBlockData {
	b0 := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: 0, Hash: crypto.Keccak256Hash([]byte("b0")), Timestamp: time.Unix(1, 0)}}
	b1 := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: 1, Hash: crypto.Keccak256Hash([]byte("b1")), ParentHash: b0.Hash,
		Timestamp: time.Unix(2, 0)}}
	owner := common.BytesToAddress(crypto.Keccak256([]byte("owner")))
	for i := range count {
		id := big.NewInt(int64(i))
		b1.Transfers = append(b1.Transfers, internal.EVMTransfer{BlockNumber: 1, BlockHash: b1.Hash, Timestamp: b1.Timestamp,
			LogIndex: uint32(i), Token: benchCollection, Type: internal.ERC721, To: owner, Value: big.NewInt(1), TokenID: id})
		uri := fmt.Sprintf("%s/meta/%d", base, i)
		b1.NFTURIs = append(b1.NFTURIs, internal.NFTURI{Token: benchCollection, TokenID: id, Type: internal.ERC721, URI: &uri})
	}
	return []*internal.EVMBlockData{b0, b1}
}

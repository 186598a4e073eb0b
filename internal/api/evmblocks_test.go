package api

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// pagesOf GETs target page after page of size (pageSize) and returns every
// page's body decoded, checking each with getOK.
func pagesOf[T any](t *testing.T, h http.Handler, target string, size int, next func(*T) string) []T {
	t.Helper()
	sep := "?"
	for _, c := range target {
		if c == '?' {
			sep = "&"
		}
	}
	var out []T
	token := ""
	for range 100 {
		u := target + sep + "pageSize=" + strconv.Itoa(size)
		if token != "" {
			u += "&pageToken=" + token
		}
		var page T
		getOK(t, h, u, &page)
		out = append(out, page)
		if token = next(&page); token == "" {
			return out
		}
	}
	t.Fatalf("%s: more than 100 pages", target)
	return nil
}

// TestEVMBlocksEndpoints: a chain's latest blocks paged, a block by
// number and by hash with every field (the header's Granite fields where
// it has them, the fees its txs paid, the chain's txs up to it), and the
// latest blocks of every chain, by either path, filtered by network.
func TestEVMBlocksEndpoints(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		bs := evmTestBlocks()

		// What each block should say, worked out from evmTestBlocks: each
		// tx uses 1,000,000 gas at 26 gwei.
		want := map[uint64]EvmBlock{}
		cumulative := 0
		for _, b := range bs {
			cumulative += len(b.Txs)
			want[b.Number] = EvmBlock{ChainID: "99999", BlockNumber: strconv.FormatUint(b.Number, 10),
				BlockTimestamp: 1_700_000_000 + int64(b.Number)*2, BlockHash: b.Hash.Hex(), TxCount: len(b.Txs),
				BaseFee: "25000000000", GasUsed: "0", GasLimit: "15000000", GasCost: "0", ParentHash: b.ParentHash.Hex(),
				FeesSpent: strconv.Itoa(len(b.Txs)*26_000) + "000000000000", CumulativeTransactions: strconv.Itoa(cumulative)}
		}
		fees := want[0]
		fees.FeesSpent = "0"
		want[0] = fees
		b4 := want[4]
		ms, delay := uint64(1_700_000_008_375), uint64(7_477_290)
		b4.BlockTimestampMilliseconds, b4.BlockMinDelayExcess, b4.GasCost = &ms, &delay, "40000"
		want[4] = b4

		var listed []EvmBlock
		pages := pagesOf(t, h, "/v1/chains/99999/blocks", 2, func(p *ListEvmBlocksResponse) string { return p.NextPageToken })
		for _, p := range pages {
			listed = append(listed, p.Blocks...)
		}
		if len(pages) != 3 {
			t.Errorf("5 blocks by 2 came in %d pages", len(pages))
		}
		jsonEqual(t, "the latest blocks", listed, []EvmBlock{want[4], want[3], want[2], want[1], want[0]})

		for _, b := range bs {
			for _, id := range []string{strconv.FormatUint(b.Number, 10), b.Hash.Hex()} {
				var got EvmBlock
				getOK(t, h, "/v1/chains/99999/blocks/"+id, &got)
				jsonEqual(t, "block "+id, got, want[b.Number])
			}
			var got EvmBlock
			getOK(t, h, "/v1/chains/"+evmBlockchainID.String()+"/blocks/"+strconv.FormatUint(b.Number, 10), &got)
			jsonEqual(t, "block by blockchain id", got, want[b.Number])
		}
		getError(t, h, "/v1/chains/99999/blocks/5", 404, "block 5 is not indexed on chain 99999")
		getError(t, h, "/v1/chains/99999/blocks/"+common.Hash{0xee}.Hex(), 404, "is not indexed")
		getError(t, h, "/v1/chains/99999/blocks/latest", 400, "blockId must be a decimal block number or a 0x-prefixed")
		getError(t, h, "/v1/chains/99999/blocks/0x1234", 400, "blockId must be")
		getError(t, h, "/v1/chains/12/blocks/1", 404, "chainId 12 is not a chain served here")
		getError(t, h, "/v1/chains/99999/blocks?pageSize=101", 400, "pageSize must be an integer between 1 and 100")

		// Every chain's: chain 7 has no block, so chain 99999's.
		for _, path := range []string{"/v1/blocks", "/v1/chains/allBlocks"} {
			var all []EvmBlock
			for _, p := range pagesOf(t, h, path, 3, func(p *ListEvmBlocksResponse) string { return p.NextPageToken }) {
				all = append(all, p.Blocks...)
			}
			jsonEqual(t, path, all, listed)
			var none ListEvmBlocksResponse
			getOK(t, h, path+"?network=mainnet", &none)
			if len(none.Blocks) != 0 {
				t.Errorf("%s?network=mainnet: %+v", path, none.Blocks)
			}
			var some ListEvmBlocksResponse
			getOK(t, h, path+"?network=testnet", &some)
			if len(some.Blocks) != 5 {
				t.Errorf("%s?network=testnet: %d blocks", path, len(some.Blocks))
			}
			getError(t, h, path+"?network=devnet", 400, "network must be one of")
		}
		// A token is bound to its query.
		var first ListEvmBlocksResponse
		getOK(t, h, "/v1/blocks?pageSize=1", &first)
		getError(t, h, "/v1/chains/99999/blocks?pageToken="+first.NextPageToken, 400, "pageToken")
	})
}

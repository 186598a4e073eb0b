package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// wireBlock is a PrimaryNetworkBlock as the tests read it.
type wireBlock struct {
	BlockNumber    string   `json:"blockNumber"`
	BlockHash      string   `json:"blockHash"`
	ParentHash     string   `json:"parentHash"`
	BlockTimestamp int64    `json:"blockTimestamp"`
	BlockType      string   `json:"blockType"`
	TxCount        int      `json:"txCount"`
	Transactions   []string `json:"transactions"`
	BlockSizeBytes int      `json:"blockSizeBytes"`
}

// listAllBlocks pages through a chain's block list with query (which may
// be empty), newest first, validating every page.
func listAllBlocks(t *testing.T, doc *openapitest.Doc, base, chain, query string) []wireBlock {
	t.Helper()
	list := base + "/v1/networks/testnet/blockchains/" + chain + "/blocks?pageSize=100" + query
	var out []wireBlock
	for next, pages := list, 0; next != ""; pages++ {
		if pages > 1000 {
			t.Fatal("pagination does not end")
		}
		status, body, _ := get(t, next)
		doc.ValidateResponse(t, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks", status, body)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", next, status, body)
		}
		var page struct {
			NextPageToken string      `json:"nextPageToken"`
			Blocks        []wireBlock `json:"blocks"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Blocks...)
		next = ""
		if page.NextPageToken != "" {
			next = list + "&pageToken=" + url.QueryEscape(page.NextPageToken)
		}
	}
	return out
}

// TestPrimaryNetworkBlocksMatchNode lists every C-chain block on both
// stores and compares each with the node's eth_getBlockByNumber (hash,
// parent, size, time) and its atomic txs with the store's; it then checks
// startTimestamp/endTimestamp on the P-, X- and C-chains against the
// blocks' timestamps as the node tells them, and getBlockById.
func TestPrimaryNetworkBlocksMatchNode(t *testing.T) {
	n, _ := issuedNetwork(t)
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		waitAllIndexed(t, n, dsn)
		ctx := context.Background()
		ec, err := n.EthClient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer ec.Close()
		tip, err := ec.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waitEVMIndexed(t, dsn, n.EVMChainID, tip)

		cBlocks := listAllBlocks(t, doc, base, "c-chain", "")
		if uint64(len(cBlocks)) < tip+1 {
			t.Fatalf("c-chain lists %d blocks, want every one of 0..%d", len(cBlocks), tip)
		}
		atomicBlocks := 0
		for i, b := range cBlocks {
			h, err := strconv.ParseUint(b.BlockNumber, 10, 64)
			if err != nil || (i > 0 && h+1 != mustUint(t, cBlocks[i-1].BlockNumber)) {
				t.Fatalf("block %d: number %q not the one below the previous", i, b.BlockNumber)
			}
			var nb struct {
				Hash, ParentHash string
				Timestamp, Size  hexutil.Uint64
			}
			if err := ec.Client().CallContext(ctx, &nb, "eth_getBlockByNumber", hexutil.Uint64(h), false); err != nil {
				t.Fatal(err)
			}
			if b.BlockHash != nb.Hash || b.ParentHash != nb.ParentHash || b.BlockTimestamp != int64(nb.Timestamp) ||
				b.BlockSizeBytes != int(nb.Size) || b.BlockType != "EVMBlock" || b.TxCount != len(b.Transactions) {
				t.Errorf("c-chain block %d = %+v; node's %+v", h, b, nb)
			}
			if len(b.Transactions) > 0 {
				atomicBlocks++
			}
		}
		if atomicBlocks == 0 {
			t.Error("no c-chain block lists an atomic tx, though the scenario issued imports and exports")
		}

		// getBlockById by hash and by number is the listed block.
		for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
			blocks := cBlocks
			if chain != "c-chain" {
				blocks = listAllBlocks(t, doc, base, chain, "")
			}
			one := blocks[len(blocks)/2]
			for _, id := range []string{one.BlockHash, one.BlockNumber} {
				u := base + "/v1/networks/testnet/blockchains/" + chain + "/blocks/" + id
				status, body, _ := get(t, u)
				doc.ValidateResponse(t, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}", status, body)
				var got wireBlock
				if status != 200 || json.Unmarshal(body, &got) != nil || fmt.Sprint(got) != fmt.Sprint(one) {
					t.Errorf("GET %s = %d %s; want %+v", u, status, body, one)
				}
			}
			checkTimeRange(t, doc, base, chain, blocks)
		}

		// The P-chain's timestamps are the node's.
		pc := platformvm.NewClient(n.URL)
		pBlocks := listAllBlocks(t, doc, base, "p-chain", "")
		for _, b := range pBlocks[:min(len(pBlocks), 20)] {
			raw, err := pc.GetBlockByHeight(ctx, mustUint(t, b.BlockNumber))
			if err != nil {
				t.Fatal(err)
			}
			if ts := pBlockTime(t, raw); ts != b.BlockTimestamp {
				t.Errorf("p-chain block %s: blockTimestamp %d, node's %d", b.BlockNumber, b.BlockTimestamp, ts)
			}
		}

		for _, tc := range []struct{ query, param string }{
			{"?startTimestamp=-1", "startTimestamp"},
			{"?endTimestamp=x", "endTimestamp"},
			{"?startTimestamp=10&endTimestamp=9", "startTimestamp"},
		} {
			status, body, _ := get(t, base+"/v1/networks/testnet/blockchains/c-chain/blocks"+tc.query)
			if status != 400 || !strings.Contains(string(body), tc.param) {
				t.Errorf("blocks%s = %d %s; want 400 naming %s", tc.query, status, body, tc.param)
			}
		}
	})
}

// checkTimeRange lists chain's blocks in a time range cut from blocks (all
// of chain's, newest first) and compares them with the blocks in it.
func checkTimeRange(t *testing.T, doc *openapitest.Doc, base, chain string, blocks []wireBlock) {
	t.Helper()
	var stamped []wireBlock
	for _, b := range blocks {
		if b.BlockTimestamp > 0 {
			stamped = append(stamped, b)
		}
	}
	if len(stamped) < 3 {
		t.Fatalf("%s: %d blocks with timestamps, too few for a range", chain, len(stamped))
	}
	hi, lo := stamped[len(stamped)/4].BlockTimestamp, stamped[3*len(stamped)/4].BlockTimestamp
	var want []string
	for _, b := range blocks {
		if b.BlockTimestamp >= lo && b.BlockTimestamp <= hi {
			want = append(want, b.BlockNumber)
		}
	}
	var got []string
	for _, b := range listAllBlocks(t, doc, base, chain, fmt.Sprintf("&startTimestamp=%d&endTimestamp=%d", lo, hi)) {
		got = append(got, b.BlockNumber)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == len(blocks) {
		t.Errorf("%s in [%d, %d]: %v; want %v (of %d blocks)", chain, lo, hi, got, want, len(blocks))
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pBlockTime is the timestamp of a P-chain block as the node's JSON
// renders it: 0 for a block without one.
func pBlockTime(t *testing.T, raw []byte) int64 {
	t.Helper()
	blk, err := pblock.Parse(pblock.Codec, raw)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := blk.(pblock.BanffBlock); ok {
		return b.Timestamp().Unix()
	}
	return 0
}

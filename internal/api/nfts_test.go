package api

import (
	"net/http"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// TestNFTEndpoints serves the NFTs of evmTestBlocks (ERC-721 token 7 of
// nft721, minted to bob, moved to carol and back to bob; ERC-1155
// multi1155 ids moved from alice to carol, which no indexed mint made): the tokens, their
// holders, and every parameter's 400 or 404.
func TestNFTEndpoints(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		base := "/v1/chains/99999"
		var list ListNftTokens
		getOK(t, h, base+"/nfts/collections/"+nft721.Hex()+"/tokens", &list)
		if len(list.Tokens) != 1 {
			t.Fatalf("listTokens = %+v", list)
		}
		tok := list.Tokens[0].(map[string]any)
		meta := tok["metadata"].(map[string]any)
		if tok["tokenId"] != "7" || tok["ownerAddress"] != bob.Hex() || tok["name"] != "Pictures" || tok["tokenUri"] != "" ||
			meta["indexStatus"] != "UNINDEXED" {
			t.Errorf("token 7 = %+v", tok)
		}
		var det Erc721Token
		getOK(t, h, base+"/nfts/collections/"+nft721.Hex()+"/tokens/7", &det)
		if det.OwnerAddress != bob.Hex() || det.TokenID != "7" {
			t.Errorf("getTokenDetails = %+v", det)
		}
		getOK(t, h, base+"/nfts/collections/"+nft721.Hex()+"/tokens/0x7", &det)
		var owned ListErc721BalancesResponse
		getOK(t, h, base+"/addresses/"+bob.Hex()+"/balances:listErc721?pageSize=500", &owned)
		if len(owned.Erc721TokenBalances) != 1 || owned.Erc721TokenBalances[0].TokenID != "7" || owned.Erc721TokenBalances[0].ChainID != "99999" ||
			owned.NativeTokenBalance.Symbol != "TST" {
			t.Errorf("listErc721Balances = %+v", owned)
		}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc721", &owned)
		if len(owned.Erc721TokenBalances) != 0 {
			t.Errorf("carol's ERC-721 balances = %+v", owned)
		}
		var held ListErc1155BalancesResponse
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc1155?blockNumber=4", &held)
		if b := held.Erc1155TokenBalances; len(b) != 2 || b[0].TokenID != "100" || b[0].Balance != "5" || b[1].TokenID != "101" || b[1].Balance != "6" {
			t.Errorf("listErc1155Balances = %+v", held)
		}
		// At past blocks: summed from the transfers.
		held = ListErc1155BalancesResponse{}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc1155?blockNumber=2", &held)
		if len(held.Erc1155TokenBalances) != 0 {
			t.Errorf("listErc1155Balances at block 2 = %+v", held)
		}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc1155?blockNumber=3&pageSize=1", &held)
		if b := held.Erc1155TokenBalances; len(b) != 1 || b[0].TokenID != "100" || b[0].Balance != "5" || held.NextPageToken == "" {
			t.Errorf("listErc1155Balances at block 3, page 1 = %+v", held)
		}
		next1155 := held.NextPageToken
		held = ListErc1155BalancesResponse{}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc1155?blockNumber=3&pageSize=1&pageToken="+next1155, &held)
		if b := held.Erc1155TokenBalances; len(b) != 1 || b[0].TokenID != "101" || b[0].Balance != "6" || held.NextPageToken != "" {
			t.Errorf("listErc1155Balances at block 3, page 2 = %+v", held)
		}
		// A page token of the past block's list does not continue the tip's.
		getError(t, h, base+"/addresses/"+carol.Hex()+"/balances:listErc1155?pageSize=1&pageToken="+next1155, http.StatusBadRequest, "pageToken")
		var all ListCollectibleBalancesResponse
		getOK(t, h, base+"/addresses/"+bob.Hex()+"/balances:listCollectibles?contractAddress="+nft721.Hex(), &all)
		if len(all.CollectibleBalances) != 1 {
			t.Errorf("listCollectibleBalances = %+v", all)
		}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listCollectibles?pageSize=1", &all)
		if len(all.CollectibleBalances) != 1 || all.NextPageToken == "" {
			t.Errorf("listCollectibleBalances page 1 = %+v", all)
		}
		next := all.NextPageToken
		all = ListCollectibleBalancesResponse{}
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/balances:listCollectibles?pageSize=1&pageToken="+next, &all)
		if len(all.CollectibleBalances) != 1 || all.NextPageToken != "" || all.CollectibleBalances[0].(map[string]any)["tokenId"] != "101" {
			t.Errorf("listCollectibleBalances page 2 = %+v", all)
		}

		for target, want := range map[string][]string{
			base + "/nfts/collections/" + token20.Hex() + "/tokens":                          {"404", "is not an ERC-721 or ERC-1155 contract"},
			base + "/nfts/collections/0xabc/tokens":                                          {"400", "address"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens?pageSize=0":                {"400", "pageSize"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens?pageSize=101":              {"400", "pageSize"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/8":                         {"404", "token 8"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/-1":                        {"400", "tokenId"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/1e5":                       {"400", "tokenId"},
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/0x1" + zeros(64):           {"400", "tokenId"},
			"/v1/chains/12/nfts/collections/" + nft721.Hex() + "/tokens":                     {"404", "chainId"},
			base + "/addresses/" + carol.Hex() + "/balances:listErc721?contractAddress=0x12": {"400", "contractAddress"},
			base + "/addresses/" + carol.Hex() + "/balances:listErc721?pageSize=501":         {"400", "pageSize"},
			base + "/addresses/" + carol.Hex() + "/balances:listErc1155?blockNumber=9":       {"404", "blockNumber 9"},
			base + "/addresses/" + carol.Hex() + "/balances:listErc1155?blockNumber=x":       {"400", "blockNumber"},
			base + "/addresses/" + carol.Hex() + "/balances:listCollectibles?pageToken=x":    {"400", "pageToken"},
		} {
			status := map[string]int{"400": http.StatusBadRequest, "404": http.StatusNotFound}[want[0]]
			getError(t, h, target, status, want[1:]...)
		}

		// reindexNft: 201, then 429 with its headers; bad segments.
		doc := openapitest.Default(t)
		reindex := base + "/nfts/collections/" + nft721.Hex() + "/tokens/7:reindex"
		rec := do(t, h, "POST", reindex, "")
		doc.ValidateRecorder(t, "POST", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", rec)
		if rec.Code != http.StatusCreated || rec.Body.Len() != 0 {
			t.Fatalf("reindex: %d %q", rec.Code, rec.Body)
		}
		rec = do(t, h, "POST", reindex, "")
		doc.ValidateRecorder(t, "POST", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", rec)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || rec.Header().Get("RateLimit-Remaining") != "0" ||
			rec.Header().Get("RateLimit-Policy") != `1;w=3600;name="reindex"` {
			t.Errorf("second reindex: %d %v %s", rec.Code, rec.Header(), rec.Body)
		}
		for target, status := range map[string]int{
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/8:reindex": http.StatusNotFound,
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/7:refresh": http.StatusNotFound,
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/7":         http.StatusNotFound,
			base + "/nfts/collections/" + nft721.Hex() + "/tokens/z:reindex": http.StatusBadRequest,
		} {
			if rec := do(t, h, "POST", target, ""); rec.Code != status {
				t.Errorf("POST %s: %d %s, want %d", target, rec.Code, rec.Body, status)
			}
		}
	})
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

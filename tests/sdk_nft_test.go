package tests

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkNFTFacts are what tests/sdk/nfts.test.mjs checks the SDK's answers
// against.
type sdkNFTFacts struct {
	Network string `json:"network"`
	NFTs    struct {
		ChainID   string `json:"chainId"`
		ERC721    string `json:"erc721"`
		ERC1155   string `json:"erc1155"`
		Name      string `json:"name"`
		Symbol    string `json:"symbol"`
		Owner     string `json:"owner"`
		Recipient string `json:"recipient"`
		URI1155   string `json:"uri1155"`
		Tokens    map[string]struct {
			TokenURI string `json:"tokenUri"`
			Status   string `json:"status"`
			Name     string `json:"name,omitempty"`
		} `json:"tokens"`
	} `json:"nfts"`
}

// TestSDKNFTs runs the real @avalanche-sdk/chainkit client's nfts.list,
// .get and .reindex and the address balances' NFT lists against avaindex
// indexing NFTs minted on the local network (the contracts and stub of
// TestNFTMetadata).
func TestSDKNFTs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	n := testnet.Get(t)
	a := newStub(t, "127.0.0.1:0")
	b := newStub(t, "127.0.0.2:0")
	a.set("/meta/2", stubPage{body: `{"name":"Two"}`})
	a.set("/meta/3", stubPage{body: `{"name":"Three","image":"ipfs://QmThree"}`})
	b.set("/meta/4", stubPage{body: `{"name":"Four"}`})
	a.set(fmt.Sprintf("/1155/%064x.json", 0x2a), stubPage{body: `{"name":"Gold","decimals":2}`})
	a.set(fmt.Sprintf("/1155/%064x.json", 0x2b), stubPage{body: `{"name":"Silver"}`})
	uris := map[int64]string{
		1: "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(`{"name":"One"}`)),
		2: a.url + "/meta/2",
		3: a.url + "/meta/3",
		4: b.url + "/meta/4",
		5: "ftp://example.com/5",
	}
	s := issueNFTs(ctx, t, n, uris, a.url+"/1155/{id}.json")

	var facts sdkNFTFacts
	facts.Network = "testnet"
	f := &facts.NFTs
	f.ChainID = strconv.FormatUint(n.EVMChainID, 10)
	f.ERC721, f.ERC1155, f.Name, f.Symbol = s.erc721.Hex(), s.erc1155.Hex(), "Answer Punks", "APUNK"
	f.Owner, f.Recipient = n.EthAddr.Hex(), s.recipient.Hex()
	f.URI1155 = fmt.Sprintf("%s/1155/%064x.json", a.url, 0x2a)
	f.Tokens = map[string]struct {
		TokenURI string `json:"tokenUri"`
		Status   string `json:"status"`
		Name     string `json:"name,omitempty"`
	}{}
	for id, st := range map[int64][2]string{1: {"INDEXED", "One"}, 2: {"INDEXED", "Two"}, 3: {"INDEXED", "Three"},
		4: {"INVALID_TOKEN_URI", ""}, 5: {"INVALID_TOKEN_URI_SCHEME", ""}} {
		f.Tokens[strconv.FormatInt(id, 10)] = struct {
			TokenURI string `json:"tokenUri"`
			Status   string `json:"status"`
			Name     string `json:"name,omitempty"`
		}{uris[id], st[0], st[1]}
	}
	factsFile := filepath.Join(t.TempDir(), "facts.json")
	raw, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(factsFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	base := startService(t, n.URL, dbtest.SQLite(t), "--network-alias", "testnet", "--metadata-allow-private-network", "127.0.0.1/32")
	// Every token's metadata fetched, the ERC-1155 ones' included.
	var paths []string
	for id := range f.Tokens {
		paths = append(paths, "/v1/chains/"+f.ChainID+"/nfts/collections/"+f.ERC721+"/tokens/"+id)
	}
	for _, id := range []string{"42", "43"} {
		paths = append(paths, "/v1/chains/"+f.ChainID+"/nfts/collections/"+f.ERC1155+"/tokens/"+id)
	}
	for _, u := range paths {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			status, body, _ := get(t, base+u)
			var tok nftToken
			if status == http.StatusOK && json.Unmarshal(body, &tok) == nil && tok.Metadata.IndexStatus != "UNINDEXED" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not fetched within 3 minutes: %d %s", u, status, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	runSDK(t, ctx, base, factsFile, "nfts.test.mjs")
}

package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// stub serves NFT metadata documents for the tests, on a loopback address.
type stub struct {
	mu    sync.Mutex
	pages map[string]stubPage
	url   string
}

type stubPage struct {
	status   int
	body     string
	redirect string
}

func newStub(t *testing.T, addr string) *stub {
	t.Helper()
	s := &stub{pages: map[string]stubPage{}}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		p, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case p.redirect != "":
			http.Redirect(w, r, p.redirect, http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(max(p.status, 200))
			_, _ = io.WriteString(w, p.body)
		}
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *stub) set(path string, p stubPage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = p
}

// nftScenario is what issueNFTs put on the C-chain.
type nftScenario struct {
	erc721, erc1155 common.Address
	recipient       common.Address
}

// issueNFTs deploys an ERC-721 and an ERC-1155 (evmcode.Answerer) and
// mints their tokens with the URIs uris (token id -> URI; "" for a token
// whose tokenURI reverts), ERC-1155 id 0x2a with a {id} uri, and id 0x2b
// whose uri reverts at its mint and that a URI event then sets.
func issueNFTs(ctx context.Context, t *testing.T, n *testnet.Network, uris map[int64]string, uri1155 string) nftScenario {
	t.Helper()
	s := nftScenario{recipient: common.BytesToAddress(crypto.Keccak256([]byte("nft recipient " + t.Name())))}
	send := func(step string, to *common.Address, input []byte) common.Address {
		t.Helper()
		r, err := n.SendEVMTx(ctx, to, nil, input, 0)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if r.Status != 1 {
			t.Fatalf("%s: tx %s failed", step, r.TxHash)
		}
		return r.ContractAddress
	}
	s.erc721 = send("deploy erc721", nil, evmcode.AnswererInit(evmcode.NFTAnswers(false, "Answer Punks", "APUNK")))
	s.erc1155 = send("deploy erc1155", nil, evmcode.AnswererInit(evmcode.NFTAnswers(true, "", "")))
	me := n.EthAddr
	zero := common.Hash{}
	for id := int64(1); id <= int64(len(uris)); id++ {
		if u := uris[id]; u != "" {
			send(fmt.Sprint("tokenURI ", id), &s.erc721, evmcode.SetAnswerCall(evmcode.TokenURICall(false, big.NewInt(id)), evmcode.ABIString(u)))
		}
		to := me
		if id == 3 {
			to = s.recipient
		}
		send(fmt.Sprint("mint ", id), &s.erc721, evmcode.AnswererLogCall([]common.Hash{evmcode.TopicTransfer, zero, evmcode.AddrTopic(to),
			common.BigToHash(big.NewInt(id))}, nil))
	}
	w := func(v int64) []byte { return common.BigToHash(big.NewInt(v)).Bytes() }
	send("uri 0x2a", &s.erc1155, evmcode.SetAnswerCall(evmcode.TokenURICall(true, big.NewInt(0x2a)), evmcode.ABIString(uri1155)))
	single := func(step string, from, to common.Address, id, v int64) {
		send(step, &s.erc1155, evmcode.AnswererLogCall([]common.Hash{evmcode.TopicTransferSingle, evmcode.AddrTopic(me),
			evmcode.AddrTopic(from), evmcode.AddrTopic(to)}, append(w(id), w(v)...)))
	}
	single("mint 0x2a", common.Address{}, me, 0x2a, 10)
	single("transfer 0x2a", me, s.recipient, 0x2a, 4)
	single("mint 0x2b", common.Address{}, s.recipient, 0x2b, 1)
	send("URI 0x2b", &s.erc1155, evmcode.AnswererLogCall([]common.Hash{evmcode.TopicURI, common.BigToHash(big.NewInt(0x2b))},
		evmcode.ABIString(uri1155)))
	return s
}

type nftMetadata struct {
	IndexStatus                  string   `json:"indexStatus"`
	MetadataLastUpdatedTimestamp *float64 `json:"metadataLastUpdatedTimestamp"`
	Name                         string   `json:"name"`
	Description                  string   `json:"description"`
	ImageURI                     string   `json:"imageUri"`
	AnimationURI                 string   `json:"animationUri"`
	ExternalURL                  string   `json:"externalUrl"`
	Background                   string   `json:"background"`
	Attributes                   string   `json:"attributes"`
	Properties                   string   `json:"properties"`
	Decimals                     *int     `json:"decimals"`
}

type nftToken struct {
	Address      string      `json:"address"`
	Name         string      `json:"name"`
	Symbol       string      `json:"symbol"`
	ERCType      string      `json:"ercType"`
	TokenID      string      `json:"tokenId"`
	TokenURI     string      `json:"tokenUri"`
	OwnerAddress string      `json:"ownerAddress"`
	ChainID      string      `json:"chainId"`
	Balance      string      `json:"balance"`
	Metadata     nftMetadata `json:"metadata"`
}

func postEmpty(t *testing.T, u string) (int, []byte, http.Header) {
	t.Helper()
	resp, err := http.Post(u, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// TestNFTMetadata indexes NFTs minted on the real local network whose
// URIs cover every outcome of the metadata worker, through avaindex's
// service with the loopback 127.0.0.1 allowed, on both stores: the tokens'
// indexStatus and values, the holdings reads, a URI changed by
// MetadataUpdate, and reindex (201, then 429 across a restart and from a
// second instance). Every body is validated against the reference schema.
func TestNFTMetadata(t *testing.T) {
	n := testnet.Get(t)
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		a := newStub(t, "127.0.0.1:0") // allowed
		b := newStub(t, "127.0.0.2:0") // loopback too, not allowed
		closed := func() string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			return "http://" + l.Addr().String()
		}()
		three := `{"name":"Three","description":"the third","image":"ipfs://QmThree","animation_url":"https://x.example/a.mp4",
			"external_url":"https://x.example/3","background_color":"00ff00","attributes":[{"trait_type":"eyes","value":"blue"}]}`
		a.set("/meta/3", stubPage{body: three})
		a.set("/meta/6", stubPage{body: `{"name": "Six",`})
		a.set("/meta/8", stubPage{body: `{"name":"` + strings.Repeat("x", 8000) + `"}`})
		a.set("/meta/9", stubPage{redirect: b.url + "/meta/9"})
		a.set("/meta/11a", stubPage{body: `{"name":"Eleven A"}`})
		a.set("/meta/11b", stubPage{body: `{"name":"Eleven B"}`})
		b.set("/meta/4", stubPage{body: `{"name":"Four"}`})
		b.set("/meta/9", stubPage{body: `{"name":"Nine"}`})
		a.set(fmt.Sprintf("/1155/%064x.json", 0x2a), stubPage{body: `{"name":"Gold","decimals":2,"properties":{"rarity":"common"}}`})
		a.set(fmt.Sprintf("/1155/%064x.json", 0x2b), stubPage{body: `{"name":"Silver"}`})
		uris := map[int64]string{
			1:  "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(`{"name":"Data One","image":"data:image/svg+xml;base64,PHN2Zy8+"}`)),
			2:  `data:application/json,{"name":"Data%20Two"}`,
			3:  a.url + "/meta/3",
			4:  b.url + "/meta/4",
			5:  closed + "/meta/5",
			6:  a.url + "/meta/6",
			7:  "ftp://example.com/7.json",
			8:  a.url + "/meta/8",
			9:  a.url + "/meta/9",
			10: "",
			11: a.url + "/meta/11a",
		}
		s := issueNFTs(ctx, t, n, uris, a.url+"/1155/{id}.json")
		ec, err := n.EthClient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer ec.Close()

		flags := []string{"--metadata-allow-private-network", "127.0.0.1/32", "--metadata-max-bytes", "4096", "--metadata-timeout", "3s"}
		base, stop := runService(t, 2*time.Minute, n.URL, dsn, flags...)
		chain := strconv.FormatUint(n.EVMChainID, 10)
		tokensPath := "/v1/chains/{chainId}/nfts/collections/{address}/tokens"
		list := func(addr common.Address) map[string]nftToken {
			t.Helper()
			out := map[string]nftToken{}
			next := ""
			for {
				u := base + "/v1/chains/" + chain + "/nfts/collections/" + addr.Hex() + "/tokens?pageSize=4"
				if next != "" {
					u += "&pageToken=" + next
				}
				status, body, _ := get(t, u)
				if status != http.StatusOK {
					t.Fatalf("listTokens: %d %s", status, body)
				}
				doc.ValidateResponse(t, "GET", tokensPath, status, body)
				var page struct {
					NextPageToken string     `json:"nextPageToken"`
					Tokens        []nftToken `json:"tokens"`
				}
				if err := json.Unmarshal(body, &page); err != nil {
					t.Fatal(err)
				}
				for _, tok := range page.Tokens {
					out[tok.TokenID] = tok
				}
				if next = page.NextPageToken; next == "" {
					return out
				}
			}
		}
		// waitFor polls listTokens until done holds.
		waitFor := func(what string, addr common.Address, done func(map[string]nftToken) bool) map[string]nftToken {
			t.Helper()
			deadline := time.Now().Add(3 * time.Minute)
			for {
				status, body, _ := get(t, base+"/v1/chains/"+chain+"/nfts/collections/"+addr.Hex()+"/tokens?pageSize=100")
				if status == http.StatusOK {
					if got := list(addr); done(got) {
						return got
					}
				} else if status != http.StatusNotFound && status != http.StatusServiceUnavailable {
					t.Fatalf("listTokens: %d %s", status, body)
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: not within 3 minutes: %s", what, body)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		fetched := func(want int) func(map[string]nftToken) bool {
			return func(m map[string]nftToken) bool {
				if len(m) < want {
					return false
				}
				for _, tok := range m {
					if tok.Metadata.IndexStatus == "UNINDEXED" {
						return false
					}
				}
				return true
			}
		}
		got := waitFor("the ERC-721 tokens' metadata", s.erc721, fetched(len(uris)))
		wantStatus := map[string]string{"1": "INDEXED", "2": "INDEXED", "3": "INDEXED", "4": "INVALID_TOKEN_URI",
			"5": "UNREACHABLE_TOKEN_URI", "6": "INVALID_METADATA_JSON", "7": "INVALID_TOKEN_URI_SCHEME",
			"8": "METADATA_CONTENT_TOO_LARGE", "9": "INVALID_TOKEN_URI", "10": "MISSING_TOKEN", "11": "INDEXED"}
		for id, want := range wantStatus {
			tok := got[id]
			if tok.Metadata.IndexStatus != want {
				t.Errorf("token %s: indexStatus %s, want %s (%+v)", id, tok.Metadata.IndexStatus, want, tok)
			}
			if tok.ERCType != "ERC-721" || tok.Name != "Answer Punks" || tok.Symbol != "APUNK" || !strings.EqualFold(tok.Address, s.erc721.Hex()) {
				t.Errorf("token %s: %+v", id, tok)
			}
			if tok.Metadata.MetadataLastUpdatedTimestamp == nil {
				t.Errorf("token %s: no metadataLastUpdatedTimestamp", id)
			}
			k, _ := strconv.ParseInt(id, 10, 64)
			if tok.TokenURI != uris[k] {
				t.Errorf("token %s: tokenUri %q, want %q", id, tok.TokenURI, uris[k])
			}
		}
		if m := got["1"].Metadata; m.Name != "Data One" || m.ImageURI != "data:image/svg+xml;base64,PHN2Zy8+" {
			t.Errorf("token 1's metadata: %+v", m)
		}
		if m := got["2"].Metadata; m.Name != "Data Two" {
			t.Errorf("token 2's metadata: %+v", m)
		}
		if m := got["3"].Metadata; m.Name != "Three" || m.Description != "the third" || m.ImageURI != "ipfs://QmThree" ||
			m.AnimationURI != "https://x.example/a.mp4" || m.ExternalURL != "https://x.example/3" || m.Background != "00ff00" ||
			m.Attributes != `[{"trait_type":"eyes","value":"blue"}]` {
			t.Errorf("token 3's metadata: %+v", m)
		}
		if got["3"].OwnerAddress != s.recipient.Hex() || got["1"].OwnerAddress != n.EthAddr.Hex() {
			t.Errorf("owners: token 3 %s, token 1 %s", got["3"].OwnerAddress, got["1"].OwnerAddress)
		}
		if got["4"].Metadata.Name != "" || got["9"].Metadata.Name != "" {
			t.Errorf("a refused address was fetched: %+v %+v", got["4"], got["9"])
		}

		g1155 := waitFor("the ERC-1155 tokens' metadata", s.erc1155, fetched(2))
		gold := g1155[strconv.Itoa(0x2a)]
		if want := fmt.Sprintf("%s/1155/%064x.json", a.url, 0x2a); gold.TokenURI != want || gold.ERCType != "ERC-1155" ||
			gold.Metadata.IndexStatus != "INDEXED" || gold.Metadata.Name != "Gold" || gold.Metadata.Decimals == nil ||
			*gold.Metadata.Decimals != 2 || gold.Metadata.Properties != `{"rarity":"common"}` {
			t.Errorf("ERC-1155 0x2a: %+v, want URI %s", gold, want)
		}
		if silver := g1155[strconv.Itoa(0x2b)]; silver.Metadata.IndexStatus != "INDEXED" || silver.Metadata.Name != "Silver" {
			t.Errorf("ERC-1155 0x2b (URI event): %+v", silver)
		}

		// getTokenDetails.
		detailsPath := tokensPath + "/{tokenId}"
		status, body, _ := get(t, base+"/v1/chains/"+chain+"/nfts/collections/"+s.erc721.Hex()+"/tokens/3")
		doc.ValidateResponse(t, "GET", detailsPath, status, body)
		var det nftToken
		if err := json.Unmarshal(body, &det); err != nil || status != 200 || det.Metadata.Name != "Three" || det.OwnerAddress != s.recipient.Hex() {
			t.Errorf("getTokenDetails: %d %s", status, body)
		}
		status, body, _ = get(t, base+"/v1/chains/"+chain+"/nfts/collections/"+s.erc1155.Hex()+"/tokens/42")
		doc.ValidateResponse(t, "GET", detailsPath, status, body)
		if err := json.Unmarshal(body, &det); err != nil || status != 200 || det.ERCType != "ERC-1155" || det.Metadata.Name != "Gold" {
			t.Errorf("getTokenDetails of ERC-1155: %d %s", status, body)
		}
		for path, want := range map[string]int{
			"/nfts/collections/" + s.erc721.Hex() + "/tokens/99":              404,
			"/nfts/collections/" + s.erc721.Hex() + "/tokens/x":               400,
			"/nfts/collections/" + s.recipient.Hex() + "/tokens":              404,
			"/nfts/collections/0x12/tokens":                                   400,
			"/nfts/collections/" + s.erc721.Hex() + "/tokens?pageSize=101":    400,
			"/nfts/collections/" + s.erc721.Hex() + "/tokens?pageToken=bogus": 400,
		} {
			status, body, _ := get(t, base+"/v1/chains/"+chain+path)
			if status != want {
				t.Errorf("GET %s: %d %s, want %d", path, status, body, want)
			}
		}

		// The holdings.
		addrPath := "/v1/chains/{chainId}/addresses/{address}/"
		status, body, _ = get(t, base+"/v1/chains/"+chain+"/addresses/"+s.recipient.Hex()+"/balances:listErc721?contractAddress="+s.erc721.Hex())
		doc.ValidateResponse(t, "GET", addrPath+"balances:listErc721", status, body)
		var b721 struct {
			Native struct {
				Balance string `json:"balance"`
			} `json:"nativeTokenBalance"`
			Tokens []nftToken `json:"erc721TokenBalances"`
		}
		if err := json.Unmarshal(body, &b721); err != nil || len(b721.Tokens) != 1 || b721.Tokens[0].TokenID != "3" ||
			b721.Tokens[0].ChainID != chain || b721.Tokens[0].Metadata.Name != "Three" || b721.Native.Balance != "0" {
			t.Errorf("listErc721Balances: %d %s", status, body)
		}
		status, body, _ = get(t, base+"/v1/chains/"+chain+"/addresses/"+n.EthAddr.Hex()+"/balances:listErc1155?contractAddress="+s.erc1155.Hex())
		doc.ValidateResponse(t, "GET", addrPath+"balances:listErc1155", status, body)
		var b1155 struct {
			Tokens []nftToken `json:"erc1155TokenBalances"`
		}
		if err := json.Unmarshal(body, &b1155); err != nil || len(b1155.Tokens) != 1 || b1155.Tokens[0].Balance != "6" || b1155.Tokens[0].TokenID != "42" {
			t.Errorf("listErc1155Balances: %d %s", status, body)
		}
		var items []nftToken
		next := ""
		for {
			u := base + "/v1/chains/" + chain + "/addresses/" + s.recipient.Hex() + "/balances:listCollectibles?pageSize=1"
			if next != "" {
				u += "&pageToken=" + next
			}
			status, body, _ = get(t, u)
			doc.ValidateResponse(t, "GET", addrPath+"balances:listCollectibles", status, body)
			var page struct {
				NextPageToken string     `json:"nextPageToken"`
				Items         []nftToken `json:"collectibleBalances"`
			}
			if err := json.Unmarshal(body, &page); err != nil || status != 200 {
				t.Fatalf("listCollectibleBalances: %d %s", status, body)
			}
			items = append(items, page.Items...)
			if next = page.NextPageToken; next == "" {
				break
			}
		}
		kinds := map[string]string{}
		for _, it := range items {
			kinds[it.ERCType+" "+it.TokenID] = it.Balance
		}
		if len(items) != 3 || kinds["ERC-721 3"] != "" || kinds["ERC-1155 42"] != "4" || kinds["ERC-1155 43"] != "1" {
			t.Errorf("listCollectibleBalances: %+v", items)
		}

		// The URI of token 11 changes (MetadataUpdate): its new URI and metadata.
		eleven := big.NewInt(11)
		send := func(step string, input []byte) {
			if r, err := n.SendEVMTx(ctx, &s.erc721, nil, input, 0); err != nil || r.Status != 1 {
				t.Fatalf("%s: %v", step, err)
			}
		}
		send("tokenURI 11b", evmcode.SetAnswerCall(evmcode.TokenURICall(false, eleven), evmcode.ABIString(a.url+"/meta/11b")))
		send("MetadataUpdate 11", evmcode.AnswererLogCall([]common.Hash{evmcode.TopicMetadataUpdate}, common.BigToHash(eleven).Bytes()))
		waitFor("token 11's new URI", s.erc721, func(m map[string]nftToken) bool {
			return m["11"].TokenURI == a.url+"/meta/11b" && m["11"].Metadata.Name == "Eleven B"
		})

		// Reindex token 3 after its document changed: 201, then 429.
		a.set("/meta/3", stubPage{body: `{"name":"Three v2"}`})
		reindexPath := detailsPath + ":reindex"
		reindex := func(base string) (int, []byte, http.Header) {
			return postEmpty(t, base+"/v1/chains/"+chain+"/nfts/collections/"+s.erc721.Hex()+"/tokens/3:reindex")
		}
		status, body, _ = reindex(base)
		doc.ValidateResponse(t, "POST", reindexPath, status, body)
		if status != http.StatusCreated || len(body) != 0 {
			t.Fatalf("reindex: %d %q", status, body)
		}
		waitFor("token 3 reindexed", s.erc721, func(m map[string]nftToken) bool { return m["3"].Metadata.Name == "Three v2" })
		// Token 10 gets a URI without an event: a reindex reads it again.
		a.set("/meta/10", stubPage{body: `{"name":"Ten"}`})
		send("tokenURI 10", evmcode.SetAnswerCall(evmcode.TokenURICall(false, big.NewInt(10)), evmcode.ABIString(a.url+"/meta/10")))
		if status, body, _ := postEmpty(t, base+"/v1/chains/"+chain+"/nfts/collections/"+s.erc721.Hex()+"/tokens/10:reindex"); status != http.StatusCreated {
			t.Fatalf("reindex of token 10: %d %s", status, body)
		}
		waitFor("token 10's URI read again", s.erc721, func(m map[string]nftToken) bool {
			return m["10"].TokenURI == a.url+"/meta/10" && m["10"].Metadata.IndexStatus == "INDEXED" && m["10"].Metadata.Name == "Ten"
		})
		check429 := func(who string, status int, body []byte, h http.Header) {
			t.Helper()
			doc.ValidateResponse(t, "POST", reindexPath, status, body)
			retry, _ := strconv.Atoi(h.Get("Retry-After"))
			if status != http.StatusTooManyRequests || retry < 3000 || retry > 3600 || h.Get("RateLimit-Remaining") != "0" ||
				h.Get("RateLimit-Limit") != "1" || h.Get("RateLimit-Reset") == "" || !bytes.Contains(body, []byte("reindexed less than an hour ago")) {
				t.Errorf("%s: second reindex: %d %s %v", who, status, body, h)
			}
		}
		status, body, h := reindex(base)
		check429("same instance", status, body, h)
		for path, want := range map[string]int{"/tokens/99:reindex": 404, "/tokens/x:reindex": 400, "/tokens/3:refresh": 404} {
			status, body, _ := postEmpty(t, base+"/v1/chains/"+chain+"/nfts/collections/"+s.erc721.Hex()+path)
			if status != want {
				t.Errorf("POST %s: %d %s, want %d", path, status, body, want)
			}
		}
		// Another instance on the same store, and this one restarted.
		other, _ := runService(t, 2*time.Minute, n.URL, dsn, flags...)
		status, body, h = reindex(other)
		check429("another instance", status, body, h)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		restarted, _ := runService(t, 2*time.Minute, n.URL, dsn, flags...)
		status, body, h = reindex(restarted)
		check429("restarted", status, body, h)

		// /readyz shows the queue, once the worker has looked at it.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			status, body, _ = get(t, restarted+"/readyz")
			var ready struct {
				Indexer struct {
					Queues map[string]int `json:"queues"`
				} `json:"indexer"`
			}
			if json.Unmarshal(body, &ready) == nil {
				if _, ok := ready.Indexer.Queues["nft-metadata"]; ok {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Errorf("/readyz has no nft-metadata queue: %d %s", status, body)
				break
			}
		}
	})
}

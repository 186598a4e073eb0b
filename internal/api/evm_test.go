package api

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// The EVM endpoints over a real store holding a small chain applied
// through the store's writer.

const evmTestChain = 99999

var (
	alice     = common.HexToAddress("0x00000000000000000000000000000000000A11CE")
	bob       = common.HexToAddress("0x0000000000000000000000000000000000000B0B")
	carol     = common.HexToAddress("0x00000000000000000000000000000000000CA401")
	token20   = common.HexToAddress("0x2020202020202020202020202020202020202020")
	nft721    = common.HexToAddress("0x7217217217217217217217217217217217217217")
	multi1155 = common.HexToAddress("0x1155115511551155115511551155115511551155")
	factory   = common.HexToAddress("0xFAC7FAC7FAC7FAC7FAC7FAC7FAC7FAC7FAC7FAC7")

	evmBlockchainID = ids.ID{0x99}
	evmSubnetID     = ids.ID{0x5b}
	teleporterDest  = ids.ID{0xde}
)

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

func txHash(n byte) common.Hash { return common.Hash{0x7a, n} }

// evmTestBlocks is a chain of five blocks: 0 funds alice; 1 deploys the
// ERC-20 token20 (minting to alice); 2 deploys the ERC-721 nft721 through
// factory with CREATE2 (minting token 7 to bob) and sends a Teleporter
// message; 3 has bob send token 7 to carol, alice an ERC-1155 batch of
// multi1155 (a contract no indexed tx deployed) to carol and 10 of token20
// to bob; 4 has carol send token 7 back to bob.
func evmTestBlocks() []*internal.EVMBlockData {
	var bs []*internal.EVMBlockData
	parent := common.Hash{}
	for n := range uint64(5) {
		ts := time.Unix(1_700_000_000+int64(n)*2, 0).UTC()
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: n, Hash: common.Hash{0xb1, byte(n)}, ParentHash: parent,
			Timestamp: ts, GasLimit: 15_000_000, BaseFee: big.NewInt(25_000_000_000), Size: 700}, Traced: true}
		parent = b.Hash
		bs = append(bs, b)
	}
	tx := func(b *internal.EVMBlockData, n byte, from common.Address, to *common.Address, input []byte) *internal.EVMTx {
		b.Txs = append(b.Txs, internal.EVMTx{Hash: txHash(n), BlockNumber: b.Number, BlockHash: b.Hash, Timestamp: b.Timestamp,
			Index: uint32(len(b.Txs)), From: from, To: to, Value: new(big.Int), Nonce: uint64(n), Type: 2, GasLimit: 3_000_000,
			GasPrice: big.NewInt(26_000_000_000), MaxFeePerGas: big.NewInt(50_000_000_000), MaxPriorityFeePerGas: big.NewInt(1_000_000_000),
			GasUsed: 1_000_000, Status: 1, Input: input})
		b.TxCount = len(b.Txs)
		return &b.Txs[len(b.Txs)-1]
	}
	transfer := func(b *internal.EVMBlockData, t *internal.EVMTx, log, batch uint32, token common.Address, typ internal.ERCType, from, to common.Address, value, id int64) {
		tr := internal.EVMTransfer{BlockNumber: b.Number, BlockHash: b.Hash, Timestamp: b.Timestamp, TxHash: t.Hash,
			LogIndex: log, BatchIndex: batch, Token: token, Type: typ, From: from, To: to, Value: big.NewInt(value)}
		if typ != internal.ERC20 {
			tr.TokenID = big.NewInt(id)
		}
		if typ == internal.ERC1155 {
			tr.Operator = from
		}
		b.Transfers = append(b.Transfers, tr)
	}
	eighteen := uint8(18)

	bs[0].Balances = []evm.BalanceChange{{Address: alice, Balance: ether(10)}}

	t1 := tx(bs[1], 1, alice, nil, []byte{0x60, 0x80, 0x60, 0x40})
	t1.ContractAddress = &token20
	transfer(bs[1], t1, 0, 0, token20, internal.ERC20, common.Address{}, alice, 1000, 0)
	bs[1].Contracts = []internal.EVMContract{{Address: token20, Deployer: alice, TxHash: t1.Hash, BlockNumber: 1,
		Timestamp: bs[1].Timestamp, CreateType: "CREATE", Type: internal.ERC20, Name: "Token", Symbol: "TOK", Decimals: &eighteen}}
	bs[1].Balances = []evm.BalanceChange{{Address: alice, Balance: ether(9)}}

	f := factory
	t2 := tx(bs[2], 2, alice, &f, []byte{0xde, 0xad, 0xbe, 0xef, 1})
	bs[2].InternalTxs = []internal.EVMInternalTx{
		{TxHash: t2.Hash, BlockNumber: 2, Index: 0, From: factory, To: nft721, Value: big.NewInt(5), CallType: "CREATE2", Gas: 900_000, GasUsed: 800_000},
		{TxHash: t2.Hash, BlockNumber: 2, Index: 1, From: nft721, To: alice, Value: new(big.Int), CallType: "SELFDESTRUCT", Gas: 0, GasUsed: 0, Reverted: true},
	}
	transfer(bs[2], t2, 0, 0, nft721, internal.ERC721, common.Address{}, bob, 1, 7)
	bs[2].Contracts = []internal.EVMContract{{Address: nft721, Deployer: alice, DeployerContract: &f, TxHash: t2.Hash, BlockNumber: 2,
		Timestamp: bs[2].Timestamp, Index: 1, CreateType: "CREATE2", Type: internal.ERC721, Name: "Pictures", Symbol: "PIC"}}
	bs[2].Teleporter = []internal.TeleporterMessage{{TxHash: t2.Hash, BlockNumber: 2, LogIndex: 1, Direction: internal.TeleporterSource,
		MessageID: common.Hash{0x3e, 0x55}, SourceBlockchainID: evmBlockchainID, DestinationBlockchainID: teleporterDest}}

	n7 := nft721
	t3 := tx(bs[3], 3, bob, &n7, []byte{0x42, 0x84, 0x2e, 0x0e})
	transfer(bs[3], t3, 0, 0, nft721, internal.ERC721, bob, carol, 1, 7)
	m := multi1155
	t4 := tx(bs[3], 4, alice, &m, []byte{0x2e, 0xb2, 0xc2, 0xd6})
	transfer(bs[3], t4, 1, 0, multi1155, internal.ERC1155, alice, carol, 5, 100)
	transfer(bs[3], t4, 1, 1, multi1155, internal.ERC1155, alice, carol, 6, 101)
	bs[3].Seen = []internal.EVMContract{{Address: multi1155, BlockNumber: 3, Timestamp: bs[3].Timestamp, CreateType: "CREATE",
		Type: internal.ERC1155, Name: "Multi"}}
	tk := token20
	t5 := tx(bs[3], 5, alice, &tk, []byte{0xa9, 0x05, 0x9c, 0xbb})
	transfer(bs[3], t5, 2, 0, token20, internal.ERC20, alice, bob, 10, 0)
	bs[3].Balances = []evm.BalanceChange{{Address: alice, Balance: ether(8)}}

	// Block 4 is past Granite: its header has the millisecond time.
	ms, delay := uint64(bs[4].Timestamp.UnixMilli()+375), uint64(7_477_290)
	bs[4].TimeMilliseconds, bs[4].MinDelayExcess, bs[4].BlockGasCost = &ms, &delay, big.NewInt(40_000)
	t6 := tx(bs[4], 6, carol, &n7, []byte{0x42, 0x84, 0x2e, 0x0e})
	transfer(bs[4], t6, 0, 0, nft721, internal.ERC721, carol, bob, 1, 7)
	bs[3].Txs[1].Status = 0 // t4 failed, for the status filter
	return bs
}

// testChains is the registry's lookup over given chains; NativeBalance
// answers from balances (the node's answers are tested against a real
// node in TestNativeBalanceFromNode).
type testChains struct {
	chains   []evmchains.Chain
	balances map[common.Address]*big.Int
	asked    []*uint64
	// tokenBalances are balanceOf answers by token and holder.
	tokenBalances map[[2]common.Address]*big.Int
}

func (c *testChains) List() []evmchains.Chain { return c.chains }

func (c *testChains) ByChainID(id uint64) (evmchains.Chain, bool) {
	for _, ch := range c.chains {
		if ch.ChainID == id {
			return ch, true
		}
	}
	return evmchains.Chain{}, false
}

func (c *testChains) ByBlockchainID(id ids.ID) (evmchains.Chain, bool) {
	for _, ch := range c.chains {
		if ch.BlockchainID == id && id != ids.Empty {
			return ch, true
		}
	}
	return evmchains.Chain{}, false
}

func (c *testChains) NativeBalance(_ context.Context, _ uint64, addr common.Address, number *uint64) (*big.Int, error) {
	c.asked = append(c.asked, number)
	if b, ok := c.balances[addr]; ok {
		return b, nil
	}
	return nil, derrors.NotFound
}

func (c *testChains) TokenBalance(_ context.Context, _ uint64, token, holder common.Address, number uint64) (*big.Int, error) {
	if b, ok := c.tokenBalances[[2]common.Address{token, holder}]; ok {
		return b, nil
	}
	return new(big.Int), nil
}

var multicall = common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

// evmTestChains are a fully described L1 and a bare EVM.
func evmTestChains() *testChains {
	return &testChains{chains: []evmchains.Chain{
		{EVMChain: internal.EVMChain{ChainID: evmTestChain, BlockchainID: evmBlockchainID, SubnetID: evmSubnetID,
			VMID: constants.SubnetEVMID, RPCURL: "http://127.0.0.1:9650/ext/bc/x/rpc", WSURL: "ws://127.0.0.1:9650/ext/bc/x/ws"},
			Name: "Test L1", Description: "An L1", LogoURI: "https://example.org/l1.png", ExplorerURL: "https://explorer.example.org",
			Multicall: &multicall, NetworkToken: evmchains.NetworkToken{Name: "Test", Symbol: "TST", Decimals: 18,
				LogoURI: "https://example.org/tst.png", Description: "The test token"},
			EnabledFeatures: []string{"teleporter", "nftIndexing"}, Private: true, IsTestnet: true, Status: evmchains.OK},
		{EVMChain: internal.EVMChain{ChainID: 7, RPCURL: "https://rpc.example.org"}, Name: "EVM chain 7", Description: "",
			NetworkToken: evmchains.NetworkToken{Name: "Native Token", Symbol: "NATIVE", Decimals: 18}, Status: evmchains.Unavailable},
	}}
}

// testCatalog lists token20 with every curated field.
func testCatalog(t *testing.T) *evmchains.Catalog {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens.json")
	body := `{"tokens": [{"chainId": 99999, "address": "` + strings.ToLower(token20.Hex()) + `", "name": "Curated Token",
	  "symbol": "CUR", "decimals": 18, "logoURI": "https://example.org/cur.png", "tags": ["defi"],
	  "extensions": {"description": "A curated token", "officialSite": "https://example.org", "email": "a@example.org",
	   "bannerURI": "https://example.org/banner.png", "color": "#112233", "coingeckoId": "cur",
	   "resourceLinks": [{"type": "Website", "url": "https://example.org"}, {"type": "Twitter", "url": "https://x.com/cur"}]}}]}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := evmchains.LoadCatalog(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newEVMTestAPI serves the EVM endpoints from a fresh store at dsn that
// holds evmTestBlocks.
func newEVMTestAPI(t *testing.T, dsn string, chains ChainRegistry, prices PriceSource) http.Handler {
	t.Helper()
	return newEVMTestAPIAged(t, dsn, chains, prices, 0)
}

// newEVMTestAPIAged is newEVMTestAPI with a HistoricalPriceMinAge.
func newEVMTestAPIAged(t *testing.T, dsn string, chains ChainRegistry, prices PriceSource, minAge time.Duration) http.Handler {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.ApplyEVMBlocks(ctx, evmTestChain, evmTestBlocks(), evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
	a, err := New(Deps{Store: st, EVM: st, Health: st, Chains: chains, Catalog: testCatalog(t), Network: testNet,
		Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32), Prices: prices, HistoricalPriceMinAge: minAge})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return mux
}

// getOK GETs target, wants a 200 valid against the reference document and
// without null, and decodes it into v.
func getOK(t *testing.T, h http.Handler, target string, v any) []byte {
	t.Helper()
	rec := do(t, h, "GET", target, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	path, _, _ := strings.Cut(target, "?")
	openapitest.Default(t).ValidateRecorder(t, "GET", path, rec)
	body := rec.Body.Bytes()
	if bytes.Contains(body, []byte("null")) {
		t.Errorf("GET %s: body has a null: %s", target, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatal(err)
		}
	}
	return body
}

// getError GETs target and wants an error of status whose message has
// every one of want.
func getError(t *testing.T, h http.Handler, target string, status int, want ...string) {
	t.Helper()
	rec := do(t, h, "GET", target, "")
	body := decodeError(t, rec, status)
	for _, w := range want {
		if !strings.Contains(body.Message, w) {
			t.Errorf("GET %s: message %q does not mention %q", target, body.Message, w)
		}
	}
	path, _, _ := strings.Cut(target, "?")
	openapitest.Default(t).ValidateRecorder(t, "GET", path, rec)
}

func TestEVMChainsEndpoints(t *testing.T) {
	captureLog(t)
	h := newEVMTestAPI(t, dbtest.SQLite(t), evmTestChains(), nil)

	var list ListChainsResponse
	getOK(t, h, "/v1/chains", &list)
	if len(list.Chains) != 2 {
		t.Fatalf("chains = %+v", list.Chains)
	}
	full := EVMChainInfo{ChainID: "99999", Status: "OK", ChainName: "Test L1", Description: "An L1",
		PlatformChainID: evmBlockchainID.String(), SubnetID: evmSubnetID.String(), VMID: constants.SubnetEVMID.String(),
		VMName: "EVM", ExplorerURL: "https://explorer.example.org", RPCURL: "http://127.0.0.1:9650/ext/bc/x/rpc",
		WSURL: "ws://127.0.0.1:9650/ext/bc/x/ws", IsTestnet: true, UtilityAddresses: &UtilityAddresses{Multicall: multicall.Hex()},
		NetworkToken: NetworkToken{Name: "Test", Symbol: "TST", Decimals: 18, LogoURI: "https://example.org/tst.png", Description: "The test token"},
		ChainLogoURI: "https://example.org/l1.png", Private: true, EnabledFeatures: []string{"teleporter", "nftIndexing"}}
	bare := EVMChainInfo{ChainID: "7", Status: "UNAVAILABLE", ChainName: "EVM chain 7", VMName: "EVM", RPCURL: "https://rpc.example.org",
		NetworkToken: NetworkToken{Name: "Native Token", Symbol: "NATIVE", Decimals: 18}, EnabledFeatures: []string{}}
	jsonEqual(t, "chains", list.Chains, []EVMChainInfo{full, bare})

	// network: the served one (by any of its names) lists every chain,
	// another of the schema's networks none, anything else is a 400.
	for q, n := range map[string]int{"network=local": 2, "network=testnet": 2, "network=mainnet": 0, "network=fuji": 0,
		"feature=nftIndexing": 1, "feature=webhooks": 0, "network=testnet&feature=teleporter": 1} {
		var l ListChainsResponse
		getOK(t, h, "/v1/chains?"+q, &l)
		if len(l.Chains) != n {
			t.Errorf("/v1/chains?%s: %d chains, want %d", q, len(l.Chains), n)
		}
	}
	getError(t, h, "/v1/chains?network=devnet", 400, "network must be one of", "mainnet", "local", `"devnet"`)
	getError(t, h, "/v1/chains?feature=bridges", 400, "feature must be one of", "nftIndexing")

	// A chain by its EVM chain id or its blockchain id.
	for _, id := range []string{"99999", evmBlockchainID.String()} {
		var c EVMChainInfo
		getOK(t, h, "/v1/chains/"+id, &c)
		jsonEqual(t, "chain "+id, c, full)
	}
	getError(t, h, "/v1/chains/12", 404, "chainId 12 is not a chain served here")
	getError(t, h, "/v1/chains/"+ids.ID{1}.String(), 404, "chainId "+ids.ID{1}.String())
	getError(t, h, "/v1/chains/c-chain", 400, "chainId must be an EVM chain id", `"c-chain"`)
	getError(t, h, "/v1/chains/99999999999999999999999", 400, "chainId must be")

	// Without a registry no chain is served.
	a, err := New(Deps{Store: &fakeSource{}, Network: testNet, TokenKey: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	h = mux
	getOK(t, h, "/v1/chains", &list)
	if len(list.Chains) != 0 {
		t.Errorf("chains without a registry: %+v", list.Chains)
	}
	getError(t, h, "/v1/chains/43114/addresses/"+alice.Hex(), 404, "chainId 43114")
}

// jsonEqual compares values by their JSON, objects' keys sorted.
func jsonEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	canonical := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(x)
		return string(b)
	}
	if g, w := canonical(got), canonical(want); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func TestEVMContractEndpoints(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		base := "/v1/chains/99999"

		// A5: the ERC-20 with its curated metadata.
		var c20 ContractMetadata
		getOK(t, h, base+"/addresses/"+strings.ToLower(token20.Hex()), &c20)
		eighteen := 18
		jsonEqual(t, "ERC-20 metadata", c20, ContractMetadata{Name: "Curated Token", Description: "A curated token",
			OfficialSite: "https://example.org", Email: "a@example.org", LogoAsset: &ImageAsset{ImageURI: "https://example.org/cur.png"},
			BannerAsset: &ImageAsset{ImageURI: "https://example.org/banner.png"}, Color: "#112233",
			ResourceLinks: []ResourceLink{{"Website", "https://example.org"}, {"Twitter", "https://x.com/cur"}}, Tags: []string{"defi"},
			Address: token20.Hex(), DeploymentDetails: &ContractDeploymentDetails{TxHash: txHash(1).Hex(), DeployerAddress: alice.Hex()},
			ERCType: "ERC-20", Symbol: "CUR", Decimals: &eighteen, PricingProviders: &PricingProviders{CoingeckoCoinID: "cur"}})

		// The ERC-721 a factory deployed; the ERC-1155 no indexed tx
		// deployed; by the blockchain id too.
		var c721, c1155 ContractMetadata
		getOK(t, h, "/v1/chains/"+evmBlockchainID.String()+"/addresses/"+nft721.Hex(), &c721)
		jsonEqual(t, "ERC-721 metadata", c721, ContractMetadata{Name: "Pictures", Address: nft721.Hex(), ERCType: "ERC-721", Symbol: "PIC",
			DeploymentDetails: &ContractDeploymentDetails{TxHash: txHash(2).Hex(), DeployerAddress: alice.Hex(), DeployerContractAddress: factory.Hex()}})
		getOK(t, h, base+"/addresses/"+multi1155.Hex(), &c1155)
		jsonEqual(t, "ERC-1155 metadata", c1155, ContractMetadata{Name: "Multi", Address: multi1155.Hex(), ERCType: "ERC-1155"})

		getError(t, h, base+"/addresses/"+alice.Hex(), 404, alice.Hex(), "is not a contract deployed on chain 99999")
		getError(t, h, base+"/addresses/0x1234", 400, "address must be a 0x-prefixed 20-byte hex address", `"0x1234"`)
		getError(t, h, base+"/addresses/"+strings.TrimPrefix(alice.Hex(), "0x")+"00", 400, "address must be")
		getError(t, h, "/v1/chains/5/addresses/"+alice.Hex(), 404, "chainId 5")
		getError(t, h, "/v1/chains/7/addresses/"+token20.Hex(), 404, "is not a contract deployed on chain 7")
	})
}

func TestEVMDeploymentEndpoints(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		base := "/v1/chains/99999"

		// A7: the ERC-20's creation with its mint.
		var d GetTransactionResponse
		getOK(t, h, base+"/contracts/"+token20.Hex()+"/transactions:getDeployment", &d)
		eighteen := 18
		want := FullNativeTransactionDetails{NativeTransaction: NativeTransaction{BlockNumber: "1", BlockTimestamp: 1_700_000_002,
			BlockHash: common.Hash{0xb1, 1}.Hex(), ChainID: "99999", BlockIndex: 0, TxHash: txHash(1).Hex(), TxStatus: "1", TxType: 2,
			GasLimit: "3000000", GasUsed: "1000000", GasPrice: "26000000000", Nonce: "1", From: RichAddress{Address: alice.Hex()},
			To:     RichAddress{Address: token20.Hex(), Name: "Curated Token", Symbol: "CUR", Decimals: &eighteen, LogoURI: "https://example.org/cur.png"},
			Method: &Method{CallType: "CONTRACT_CREATION", MethodName: "Contract Created"}, Value: "0"}, Input: "0x60806040",
			BaseFeePerGas: "25000000000", MaxFeePerGas: "50000000000", MaxPriorityFeePerGas: "1000000000"}
		jsonEqual(t, "creation tx", d.NativeTransaction, want)
		tok := Erc20Token{Address: token20.Hex(), Name: "Curated Token", Symbol: "CUR", Decimals: 18, LogoURI: "https://example.org/cur.png", ERCType: "ERC-20"}
		jsonEqual(t, "mint", d.Erc20Transfers, []Erc20TransferDetails{{TransferEnds: TransferEnds{From: RichAddress{Address: common.Address{}.Hex()},
			To: RichAddress{Address: alice.Hex()}}, Value: "1000", Erc20Token: tok}})
		if len(d.Erc721Transfers)+len(d.Erc1155Transfers)+len(d.InternalTransactions) != 0 || d.TeleporterMessageInfo != nil {
			t.Errorf("the ERC-20 creation has more: %+v", d)
		}
		jsonEqual(t, "network token", d.NetworkTokenDetails, NetworkTokenDetails{NetworkToken: NetworkToken{Name: "Test", Symbol: "TST",
			Decimals: 18, LogoURI: "https://example.org/tst.png", Description: "The test token"}})

		// The ERC-721's deployment through the factory: a contract call
		// with a CREATE2 frame, a mint and a Teleporter message.
		d = GetTransactionResponse{}
		getOK(t, h, base+"/contracts/"+nft721.Hex()+"/transactions:getDeployment?currency=eur", &d)
		if m := d.NativeTransaction.Method; m == nil || m.CallType != "CONTRACT_CALL" || m.MethodHash != "0xdeadbeef" || m.MethodName != "" ||
			d.NativeTransaction.To.Address != factory.Hex() || d.NativeTransaction.Input != "0xdeadbeef01" {
			t.Errorf("factory call = %+v", d.NativeTransaction)
		}
		jsonEqual(t, "internal txs", d.InternalTransactions, []InternalTransactionDetails{
			{From: RichAddress{Address: factory.Hex()}, To: RichAddress{Address: nft721.Hex(), Name: "Pictures", Symbol: "PIC"},
				InternalTxType: "CREATE2", Value: "5", GasUsed: "800000", GasLimit: "900000"},
			{From: RichAddress{Address: nft721.Hex(), Name: "Pictures", Symbol: "PIC"}, To: RichAddress{Address: alice.Hex()},
				InternalTxType: "UNKNOWN", Value: "0", IsReverted: true, GasUsed: "0", GasLimit: "0"},
		})
		jsonEqual(t, "NFT mint", d.Erc721Transfers, []Erc721TransferDetails{{TransferEnds: TransferEnds{From: RichAddress{Address: common.Address{}.Hex()},
			To: RichAddress{Address: bob.Hex()}}, Erc721Token: Erc721Token{Address: nft721.Hex(), Name: "Pictures", Symbol: "PIC",
			ERCType: "ERC-721", TokenID: "7", Metadata: Erc721TokenMetadata{IndexStatus: "UNINDEXED"}}}})
		jsonEqual(t, "teleporter", d.TeleporterMessageInfo, &TeleporterMessageInfo{
			TeleporterMessageID: "3e55000000000000000000000000000000000000000000000000000000000000",
			Direction:           "SOURCE_TRANSACTION", DestinationChainID: teleporterDest.String()})

		getError(t, h, base+"/contracts/"+multi1155.Hex()+"/transactions:getDeployment", 404, multi1155.Hex(), "not deployed by an indexed transaction")
		getError(t, h, base+"/contracts/"+bob.Hex()+"/transactions:getDeployment", 404, "is not a contract deployed")
		getError(t, h, base+"/contracts/"+bob.Hex()+"/transactions:getDeployment?currency=btc", 400, "currency must be one of")
		getError(t, h, base+"/contracts/bob/transactions:getDeployment", 400, "address must be")

		// A8: alice deployed both (the ERC-721 through the factory), most
		// recent first, one a page; the factory deployed the ERC-721.
		var page ListContractsResponse
		getOK(t, h, base+"/contracts/"+alice.Hex()+"/deployments?pageSize=1", &page)
		if len(page.Contracts) != 1 || page.Contracts[0].Address != nft721.Hex() || page.NextPageToken == "" {
			t.Fatalf("first page = %+v", page)
		}
		jsonEqual(t, "deployment", page.Contracts[0], ContractMetadata{Name: "Pictures", Address: nft721.Hex(), ERCType: "ERC-721", Symbol: "PIC",
			DeploymentDetails: &ContractDeploymentDetails{TxHash: txHash(2).Hex(), DeployerAddress: alice.Hex(), DeployerContractAddress: factory.Hex()}})
		next := page.NextPageToken
		page = ListContractsResponse{}
		getOK(t, h, base+"/contracts/"+alice.Hex()+"/deployments?pageSize=1&pageToken="+url.QueryEscape(next), &page)
		if len(page.Contracts) != 1 || page.Contracts[0].Address != token20.Hex() || page.Contracts[0].Name != "Curated Token" || page.NextPageToken != "" {
			t.Errorf("second page = %+v", page)
		}
		page = ListContractsResponse{}
		getOK(t, h, base+"/contracts/"+factory.Hex()+"/deployments", &page)
		if len(page.Contracts) != 1 || page.Contracts[0].Address != nft721.Hex() {
			t.Errorf("the factory's deployments = %+v", page)
		}
		page = ListContractsResponse{}
		getOK(t, h, base+"/contracts/"+carol.Hex()+"/deployments", &page)
		if len(page.Contracts) != 0 {
			t.Errorf("carol's deployments = %+v", page)
		}
		// A token of one deployer's list does not continue another's.
		getError(t, h, base+"/contracts/"+factory.Hex()+"/deployments?pageToken="+url.QueryEscape(next), 400, "invalid pageToken")
		getError(t, h, base+"/contracts/"+alice.Hex()+"/deployments?pageSize=101", 400, "pageSize must be an integer between 1 and 100")
	})
}

func TestEVMTransferEndpoints(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		base := "/v1/chains/99999"
		ts := func(n int64) int64 { return 1_700_000_000 + 2*n }
		nft := func() Erc721Token {
			return Erc721Token{Address: nft721.Hex(), Name: "Pictures", Symbol: "PIC", ERCType: "ERC-721", TokenID: "7",
				Metadata: Erc721TokenMetadata{IndexStatus: "UNINDEXED"}}
		}
		at := func(n int64, tx byte) TransferBlock {
			return TransferBlock{BlockNumber: big.NewInt(n).String(), BlockTimestamp: ts(n), BlockHash: common.Hash{0xb1, byte(n)}.Hex(), TxHash: txHash(tx).Hex()}
		}
		ends := func(from, to common.Address, log uint32) TransferEnds {
			return TransferEnds{From: RichAddress{Address: from.Hex()}, To: RichAddress{Address: to.Hex()}, LogIndex: log}
		}
		bobs := []Erc721Transfer{
			{at(4, 6), Erc721TransferDetails{ends(carol, bob, 0), nft()}},
			{at(3, 3), Erc721TransferDetails{ends(bob, carol, 0), nft()}},
			{at(2, 2), Erc721TransferDetails{ends(common.Address{}, bob, 0), nft()}},
		}

		// A9: bob's ERC-721 transfers, two a page.
		var p721 ListErc721TransactionsResponse
		getOK(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?pageSize=2", &p721)
		if p721.NextPageToken == "" {
			t.Fatal("no second page")
		}
		jsonEqual(t, "bob's first page", p721.Transactions, bobs[:2])
		next := p721.NextPageToken
		p721 = ListErc721TransactionsResponse{}
		getOK(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?pageSize=2&pageToken="+url.QueryEscape(next), &p721)
		jsonEqual(t, "bob's second page", p721.Transactions, bobs[2:])
		if p721.NextPageToken != "" {
			t.Errorf("a third page: %q", p721.NextPageToken)
		}
		// The range: startBlock inclusive, endBlock exclusive.
		for q, want := range map[string][]Erc721Transfer{
			"startBlock=3": bobs[:2], "endBlock=3": bobs[2:], "startBlock=3&endBlock=4": bobs[1:2],
			"startBlock=3&endBlock=3": {}, "startBlock=5": {},
		} {
			p := ListErc721TransactionsResponse{}
			getOK(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?"+q, &p)
			jsonEqual(t, q, p.Transactions, want)
		}
		// A token of one range does not continue another.
		getError(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?pageSize=2&startBlock=1&pageToken="+url.QueryEscape(next), 400, "invalid pageToken")
		getError(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?startBlock=4&endBlock=3", 400, "endBlock", "startBlock")
		getError(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?startBlock=-1", 400, "startBlock must be a decimal block number")
		getError(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?endBlock=1e3", 400, "endBlock must be")
		getError(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc721?pageSize=0", 400, "pageSize")

		// A10: carol's ERC-1155 batch, most recent first within it.
		var p1155 ListErc1155TransactionsResponse
		getOK(t, h, base+"/addresses/"+carol.Hex()+"/transactions:listErc1155", &p1155)
		multi := func(id string) Erc1155Token {
			return Erc1155Token{Address: multi1155.Hex(), ERCType: "ERC-1155", TokenID: id, Metadata: Erc1155TokenMetadata{IndexStatus: "UNINDEXED"}}
		}
		jsonEqual(t, "carol's ERC-1155", p1155.Transactions, []Erc1155Transfer{
			{at(3, 4), Erc1155TransferDetails{ends(alice, carol, 1), "6", multi("101")}},
			{at(3, 4), Erc1155TransferDetails{ends(alice, carol, 1), "5", multi("100")}},
		})
		p1155 = ListErc1155TransactionsResponse{}
		getOK(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc1155", &p1155)
		if len(p1155.Transactions) != 0 {
			t.Errorf("bob's ERC-1155 = %+v", p1155.Transactions)
		}

		// A11: a token's transfers in its standard's shape.
		tok := Erc20Token{Address: token20.Hex(), Name: "Curated Token", Symbol: "CUR", Decimals: 18, LogoURI: "https://example.org/cur.png", ERCType: "ERC-20"}
		var p20 ListTransfersResponse
		body := getOK(t, h, base+"/tokens/"+token20.Hex()+"/transfers", nil)
		if err := json.Unmarshal(body, &p20); err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, "token20's transfers", p20.Transfers, []any{
			Erc20Transfer{at(3, 5), Erc20TransferDetails{ends(alice, bob, 2), "10", tok}},
			Erc20Transfer{at(1, 1), Erc20TransferDetails{ends(common.Address{}, alice, 0), "1000", tok}},
		})
		// listErc20Transactions: alice's ERC-20 transfers, in and out, and
		// bob's within a range.
		var pe20 ListErc20TransactionsResponse
		getOK(t, h, base+"/addresses/"+alice.Hex()+"/transactions:listErc20", &pe20)
		jsonEqual(t, "alice's ERC-20 transfers", pe20.Transactions, []Erc20Transfer{
			{at(3, 5), Erc20TransferDetails{ends(alice, bob, 2), "10", tok}},
			{at(1, 1), Erc20TransferDetails{ends(common.Address{}, alice, 0), "1000", tok}},
		})
		for q, want := range map[string]int{"": 1, "?endBlock=3": 0, "?startBlock=3": 1} {
			pe20 = ListErc20TransactionsResponse{}
			getOK(t, h, base+"/addresses/"+bob.Hex()+"/transactions:listErc20"+q, &pe20)
			if len(pe20.Transactions) != want {
				t.Errorf("bob's ERC-20 transfers%s: %+v", q, pe20.Transactions)
			}
		}
		p20 = ListTransfersResponse{}
		getOK(t, h, base+"/tokens/"+nft721.Hex()+"/transfers?pageSize=3", &p20)
		if len(p20.Transfers) != 3 || p20.NextPageToken != "" {
			t.Errorf("nft721's transfers = %+v", p20)
		}
		body = getOK(t, h, base+"/tokens/"+multi1155.Hex()+"/transfers?startBlock=3&endBlock=4", nil)
		if !strings.Contains(string(body), `"erc1155Token"`) || strings.Count(string(body), `"logIndex"`) != 2 {
			t.Errorf("multi1155's transfers: %s", body)
		}
		p20 = ListTransfersResponse{}
		getOK(t, h, base+"/tokens/"+carol.Hex()+"/transfers", &p20)
		if len(p20.Transfers) != 0 {
			t.Errorf("transfers of a non-token: %+v", p20.Transfers)
		}
	})
}

// knownPrices knows one price per token.
type knownPrices struct {
	NoPrices
	asked []string
}

func (p *knownPrices) TokenPrice(_ context.Context, chainID uint64, token common.Address, at time.Time, currency string) (float64, bool, error) {
	p.asked = append(p.asked, token.Hex()+"@"+at.UTC().Format(time.RFC3339)+" "+currency)
	return 2.5, true, nil
}

func TestEVMBalanceAndPrices(t *testing.T) {
	captureLog(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		chains := evmTestChains()
		h := newEVMTestAPI(t, dsn, chains, nil)
		base := "/v1/chains/99999/addresses/"

		// A6: alice's balance after the last indexed block, and after
		// earlier ones; an address that never held any has 0.
		for q, want := range map[string]string{"": "8000000000000000000", "?blockNumber=0": "10000000000000000000",
			"?blockNumber=2": "9000000000000000000"} {
			var b GetNativeBalanceResponse
			getOK(t, h, base+alice.Hex()+"/balances:getNative"+q, &b)
			jsonEqual(t, "balance "+q, b.NativeTokenBalance, NativeTokenBalance{Name: "Test", Symbol: "TST", Decimals: 18,
				LogoURI: "https://example.org/tst.png", ChainID: "99999", Balance: want})
		}
		var b GetNativeBalanceResponse
		getOK(t, h, base+carol.Hex()+"/balances:getNative?currency=jpy", &b)
		if b.NativeTokenBalance.Balance != "0" || b.NativeTokenBalance.Price != nil {
			t.Errorf("carol's balance = %+v", b)
		}
		if len(chains.asked) != 0 {
			t.Errorf("the node was asked %d times for balances the store keeps", len(chains.asked))
		}
		getError(t, h, base+alice.Hex()+"/balances:getNative?blockNumber=5", 404, "blockNumber 5 is not indexed yet", "the last indexed block is 4")
		getError(t, h, base+alice.Hex()+"/balances:getNative?blockNumber=0x1", 400, "blockNumber must be a decimal block number")
		getError(t, h, base+alice.Hex()+"/balances:getNative?currency=USD", 400, "currency must be one of")
		getError(t, h, base+"0xZZ00000000000000000000000000000000000000/balances:getNative", 400, "address must be")

		// A chain nothing is indexed of: the registry asks its RPC.
		chains.balances = map[common.Address]*big.Int{alice: big.NewInt(42)}
		getOK(t, h, "/v1/chains/7/addresses/"+alice.Hex()+"/balances:getNative?blockNumber=3", &b)
		if b.NativeTokenBalance.Balance != "42" || b.NativeTokenBalance.ChainID != "7" || len(chains.asked) != 1 || chains.asked[0] == nil || *chains.asked[0] != 3 {
			t.Errorf("balance from the RPC = %+v, asked %v", b, chains.asked)
		}

		// With prices: the balance's value and the deployment's prices.
		prices := &knownPrices{}
		h = newEVMTestAPI(t, dbtest.SQLite(t), evmTestChains(), prices)
		getOK(t, h, base+alice.Hex()+"/balances:getNative?currency=eur", &b)
		jsonEqual(t, "priced balance", b.NativeTokenBalance, NativeTokenBalance{Name: "Test", Symbol: "TST", Decimals: 18,
			LogoURI: "https://example.org/tst.png", ChainID: "99999", Balance: "8000000000000000000",
			Price: &Money{CurrencyCode: "eur", Value: 2.5}, BalanceValue: &Money{CurrencyCode: "eur", Value: 20}})
		var d GetTransactionResponse
		getOK(t, h, "/v1/chains/99999/contracts/"+token20.Hex()+"/transactions:getDeployment?currency=chf", &d)
		if p := d.NetworkTokenDetails; p.CurrentPrice == nil || p.HistoricalPrice == nil || p.CurrentPrice.CurrencyCode != "chf" ||
			d.Erc20Transfers[0].Erc20Token.Price == nil || d.Erc20Transfers[0].Erc20Token.Price.Value != 2.5 {
			t.Errorf("prices of the deployment: %+v %+v", p, d.Erc20Transfers)
		}
		wantAsked := []string{
			common.Address{}.Hex() + "@0001-01-01T00:00:00Z eur",
			token20.Hex() + "@0001-01-01T00:00:00Z chf",
			common.Address{}.Hex() + "@0001-01-01T00:00:00Z chf",
			common.Address{}.Hex() + "@2023-11-14T22:13:22Z chf",
		}
		jsonEqual(t, "prices asked", prices.asked, wantAsked)

		// A tx younger than the min age has no historicalPrice (and none
		// is asked), its currentPrice still.
		prices = &knownPrices{}
		h = newEVMTestAPIAged(t, dbtest.SQLite(t), evmTestChains(), prices, time.Since(time.Unix(1_700_000_002, 0))+time.Hour)
		d = GetTransactionResponse{}
		getOK(t, h, "/v1/chains/99999/contracts/"+token20.Hex()+"/transactions:getDeployment?currency=chf", &d)
		if p := d.NetworkTokenDetails; p.CurrentPrice == nil || p.HistoricalPrice != nil {
			t.Errorf("prices of a recent deployment: %+v", p)
		}
		jsonEqual(t, "prices asked", prices.asked, wantAsked[1:3])
	})
}

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

// TestNativeBalanceFromNode serves the local network's C-chain from the
// real registry: balances the store does not keep come from the node.
func TestNativeBalanceFromNode(t *testing.T) {
	captureLog(t)
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: client})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := New(Deps{Store: st, EVM: st, Chains: reg, Network: network, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	balanceAt := func(number *big.Int) string {
		b, err := ec.BalanceAt(ctx, n.EthAddr, number)
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}

	var list ListChainsResponse
	getOK(t, mux, "/v1/chains", &list)
	if len(list.Chains) != 1 || list.Chains[0].ChainID != "43112" || list.Chains[0].PlatformChainID != n.CChainID.String() ||
		list.Chains[0].NetworkToken.Symbol != "AVAX" {
		t.Errorf("chains = %+v", list.Chains)
	}

	// Nothing of the C-chain is indexed: the node's latest, or at a block.
	var b GetNativeBalanceResponse
	getOK(t, mux, "/v1/chains/43112/addresses/"+n.EthAddr.Hex()+"/balances:getNative", &b)
	if want := balanceAt(nil); b.NativeTokenBalance.Balance != want || b.NativeTokenBalance.Symbol != "AVAX" || b.NativeTokenBalance.ChainID != "43112" {
		t.Errorf("latest balance = %+v, want %s AVAX", b, want)
	}
	getOK(t, mux, "/v1/chains/"+n.CChainID.String()+"/addresses/"+n.EthAddr.Hex()+"/balances:getNative?blockNumber=0", &b)
	if want := balanceAt(big.NewInt(0)); b.NativeTokenBalance.Balance != want {
		t.Errorf("genesis balance = %s, want %s", b.NativeTokenBalance.Balance, want)
	}
	// The node's refusal is a 503 in its words.
	getError(t, mux, "/v1/chains/43112/addresses/"+n.EthAddr.Hex()+"/balances:getNative?blockNumber=1000000000", 503,
		"the RPC of chain 43112 cannot tell the balance at block 1000000000")

	// A block indexed without traces keeps no balances: the node is asked
	// at the last indexed block, not at its latest.
	if err := st.ApplyEVMBlocks(ctx, 43112, []*internal.EVMBlockData{{EVMBlock: internal.EVMBlock{Number: 0, Hash: common.Hash{0xcc}}}}, evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
	if _, err := n.SendEVM(ctx, common.Address{0xee}, big.NewInt(1e9)); err != nil {
		t.Fatal(err)
	}
	getOK(t, mux, "/v1/chains/43112/addresses/"+n.EthAddr.Hex()+"/balances:getNative", &b)
	if want, latest := balanceAt(big.NewInt(0)), balanceAt(nil); b.NativeTokenBalance.Balance != want || want == latest {
		t.Errorf("balance after the last indexed block = %s, want the node's at block 0: %s (latest %s)", b.NativeTokenBalance.Balance, want, latest)
	}
	getError(t, mux, "/v1/chains/43112/addresses/"+n.EthAddr.Hex()+"/balances:getNative?blockNumber=1", 404, "blockNumber 1 is not indexed yet")
}

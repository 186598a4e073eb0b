package contracts

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }

// TestScenarioState runs the scenario on the local network and reads the
// contracts' state back with eth_call: the balances, owners and URIs the
// steps must have left, the interfaces each says it supports, and the
// native balances the factory's children and the recipients hold.
func TestScenarioState(t *testing.T) {
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := Run(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	at := new(big.Int).SetUint64(s.Last)
	call := func(c *Contract, to common.Address, method string, args ...any) any {
		t.Helper()
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &to, Data: c.Call(method, args...)}, at)
		if err != nil {
			t.Fatalf("%s.%s: %v", c.Name, method, err)
		}
		v, err := c.Unpack(method, out)
		if err != nil || len(v) != 1 {
			t.Fatalf("%s.%s: %v %v", c.Name, method, v, err)
		}
		return v[0]
	}
	eq := func(what string, got, want any) {
		t.Helper()
		if g, ok := got.(*big.Int); ok {
			got = g.String()
			want = big.NewInt(int64(want.(int))).String()
		}
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	b := func(v int64) *big.Int { return big.NewInt(v) }
	me := s.Deployer

	t20 := s.Token20.Address
	eq("name", call(Token20, t20, "name"), s.Token20.Name)
	eq("symbol", call(Token20, t20, "symbol"), s.Token20.Symbol)
	eq("decimals", call(Token20, t20, "decimals"), s.Token20.Decimals)
	eq("totalSupply", call(Token20, t20, "totalSupply"), 1_000_000)
	eq("deployer's ERC-20", call(Token20, t20, "balanceOf", me), 1_000_000-1000-250)
	eq("Alice's ERC-20", call(Token20, t20, "balanceOf", s.Alice), 1000)
	eq("Bob's ERC-20", call(Token20, t20, "balanceOf", s.Bob), 250)
	eq("allowance left", call(Token20, t20, "allowance", me, me), 250)

	nft := s.NFT721.Address
	eq("owner of 1", call(NFT721, nft, "ownerOf", b(1)), s.Alice)
	eq("owner of 2", call(NFT721, nft, "ownerOf", b(2)), s.Bob)
	eq("tokenURI 1", call(NFT721, nft, "tokenURI", b(1)), s.NFT721.URIs[1])
	eq("tokenURI 2", call(NFT721, nft, "tokenURI", b(2)), s.NFT721.URIs[2])
	for id, want := range map[[4]byte]bool{{0x01, 0xff, 0xc9, 0xa7}: true, {0x80, 0xac, 0x58, 0xcd}: true,
		{0x49, 0x06, 0x49, 0x06}: true, {0xd9, 0xb6, 0x7a, 0x26}: false, {0xff, 0xff, 0xff, 0xff}: false} {
		eq("ERC-721 supportsInterface", call(NFT721, nft, "supportsInterface", id), want)
	}
	if r := s.Receipts["setTokenURI erc721"]; len(r.Logs) != 1 || r.Logs[0].Topics[0] != NFT721.Topic("MetadataUpdate") {
		t.Errorf("setTokenURI logged %+v, want one MetadataUpdate", r.Logs)
	}

	if r := s.Receipts["refreshMetadata erc721"]; len(r.Logs) != 1 || r.Logs[0].Topics[0] != NFT721.Topic("BatchMetadataUpdate") {
		t.Errorf("refreshMetadata logged %+v, want one BatchMetadataUpdate", r.Logs)
	}

	m := s.Multi1155.Address
	eq("deployer's id 1", call(Multi1155, m, "balanceOf", me, b(1)), 100-10-5)
	eq("deployer's id 2", call(Multi1155, m, "balanceOf", me, b(2)), 50-7)
	eq("Alice's id 1", call(Multi1155, m, "balanceOf", s.Alice, b(1)), 10)
	eq("Bob's id 1", call(Multi1155, m, "balanceOf", s.Bob, b(1)), 5)
	eq("Bob's id 2", call(Multi1155, m, "balanceOf", s.Bob, b(2)), 7)
	eq("uri 1 (the template)", call(Multi1155, m, "uri", b(1)), s.Multi1155.Template)
	eq("uri 2 (its own)", call(Multi1155, m, "uri", b(2)), s.Multi1155.URIs[2])
	for id, want := range map[[4]byte]bool{{0x01, 0xff, 0xc9, 0xa7}: true, {0xd9, 0xb6, 0x7a, 0x26}: true,
		{0x0e, 0x89, 0x34, 0x1c}: true, {0x80, 0xac, 0x58, 0xcd}: false, {0xff, 0xff, 0xff, 0xff}: false} {
		eq("ERC-1155 supportsInterface", call(Multi1155, m, "supportsInterface", id), want)
	}
	if r := s.Receipts["setURI erc1155"]; len(r.Logs) != 1 || r.Logs[0].Topics[0] != Multi1155.Topic("URI") {
		t.Errorf("setURI logged %+v, want one URI", r.Logs)
	}

	eq("CREATE2 prediction", call(Factory, s.Factory, "predict", [32]byte(s.Salt), b(2)), s.ChildCreate2)
	eq("CREATE child's tag", call(Child, s.ChildCreate, "tag"), 1)
	eq("CREATE2 child's factory", call(Child, s.ChildCreate2, "factory"), s.Factory)
	bal := func(a common.Address) string {
		v, err := ec.BalanceAt(ctx, a, at)
		if err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
	eq("the CREATE child's balance", bal(s.ChildCreate), "7000000000000000")    // 1e16 - 3e15 paid to Alice
	eq("the CREATE2 child's balance", bal(s.ChildCreate2), "10000000000000000") // 1e16
	eq("Alice's balance", bal(s.Alice), "104000000000000000")                   // 1e15 + 3e15 + 1e17
	eq("Bob's balance", bal(s.Bob), "1000000000000000")                         // 1e15
	eq("the factory's balance", bal(s.Factory), "0")
}

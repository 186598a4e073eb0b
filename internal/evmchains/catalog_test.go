package evmchains_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/evmchains"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "list.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const usdc = "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"

func TestCatalog(t *testing.T) {
	first := write(t, `{"name": "test list", "tags": {"stable": {"name": "Stablecoin"}},
	 "tokens": [
	  {"chainId": 43114, "address": "`+strings.ToLower(usdc)+`", "name": "USD Coin", "symbol": "USDC", "decimals": 6,
	   "logoURI": "https://example.org/usdc.png", "tags": ["stable", "bridged"],
	   "extensions": {"ercType": "ERC-20", "description": "A dollar", "officialSite": "https://example.org",
	    "email": "x@example.org", "bannerURI": "https://example.org/b.png", "color": "#2775CA",
	    "resourceLinks": [{"type": "Website", "url": "https://example.org"}], "coingeckoId": "usd-coin"}},
	  {"chainId": 43113, "address": "`+usdc+`", "name": "Fuji USDC", "symbol": "USDC"}
	 ]}`)
	second := write(t, `{"tokens": [{"chainId": 43113, "address": "`+usdc+`", "name": "Test USDC", "symbol": "tUSDC"}]}`)
	c, err := evmchains.LoadCatalog(first, second)
	if err != nil {
		t.Fatal(err)
	}
	six := uint8(6)
	want := evmchains.ContractInfo{Name: "USD Coin", Symbol: "USDC", Decimals: &six, ERCType: internal.ERC20,
		LogoURI: "https://example.org/usdc.png", BannerURI: "https://example.org/b.png", Description: "A dollar",
		OfficialSite: "https://example.org", Email: "x@example.org", Color: "#2775CA",
		ResourceLinks: []evmchains.ResourceLink{{Type: "Website", URL: "https://example.org"}},
		Tags:          []string{"Stablecoin", "bridged"}, CoingeckoID: "usd-coin"}
	got, ok := c.Contract(43114, common.HexToAddress(usdc))
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("Contract(43114, USDC) = %+v, %t; want %+v", got, ok, want)
	}
	// A later file replaces an entry; chains are apart.
	if got, ok := c.Contract(43113, common.HexToAddress(usdc)); !ok || got.Name != "Test USDC" || got.Symbol != "tUSDC" {
		t.Errorf("Contract(43113, USDC) = %+v, %t", got, ok)
	}
	if _, ok := c.Contract(1, common.HexToAddress(usdc)); ok {
		t.Error("a contract of another chain was found")
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d", c.Len())
	}
	var none *evmchains.Catalog
	if _, ok := none.Contract(43114, common.HexToAddress(usdc)); ok || none.Len() != 0 {
		t.Error("the nil catalog knows a contract")
	}
	if empty, err := evmchains.LoadCatalog(); err != nil || empty.Len() != 0 {
		t.Errorf("no files: %v, %v", empty, err)
	}
}

func TestCatalogErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"tokens": [{"chainId": 1, "address": "0x12"}]}`, `tokens[0]: address "0x12"`},
		{`{"tokens": [{"address": "` + usdc + `"}]}`, "tokens[0]: chainId is missing"},
		{`{"tokens": [{"chainId": 1, "address": "` + usdc + `", "extensions": {"ercType": "ERC-777"}}]}`, `ercType "ERC-777"`},
		{`{"tokens": [{"chainId": 1, "address": "` + usdc + `", "extensions": {"resourceLinks": [{"type": "Homepage", "url": "x"}]}}]}`, `resource link type "Homepage"`},
		{`{"tokens": [{"chainId": 1, "address": "` + usdc + `", "extensions": {"resourceLinks": [{"type": "Blog"}]}}]}`, `has no url`},
		{`{"tokens": [`, "unexpected EOF"},
	} {
		p := write(t, tc.body)
		_, err := evmchains.LoadCatalog(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error = %v, want one naming the file and %q", tc.body, err, tc.want)
		}
	}
	if _, err := evmchains.LoadCatalog(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file loaded")
	}
}

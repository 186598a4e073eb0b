package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

func TestPrices(t *testing.T) {
	asset := ids.ID{1, 2, 3}
	file := filepath.Join(t.TempDir(), "avaindex.yaml")
	yaml := "price-api-url: https://pro-api.coingecko.com/api/v3\nprice-coins:\n  \"43114:0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E\": usd-coin\n  avax: avalanche-2\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load("t", []string{"--config", file, "--price-coin", "99:native=my-l1", "--price-coin", asset.String() + "=other",
		"--historical-price-min-age", "0s", "--price-rate-limit", "500"},
		env(map[string]string{"AVAINDEX_PRICE_API_KEY": "secret"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Prices{APIURL: "https://pro-api.coingecko.com/api/v3", APIKey: "secret", RequestsPerMinute: 500, CacheTTL: time.Minute,
		Coins: []PriceCoin{
			{ChainID: 43114, Token: common.HexToAddress("0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"), Coin: "usd-coin"},
			{AVAX: true, Coin: "avalanche-2"},
			{ChainID: 99, Coin: "my-l1"},
			{Asset: asset, Coin: "other"},
		},
		fileCoins: c.Prices.fileCoins}
	if !reflect.DeepEqual(c.Prices, want) {
		t.Errorf("got %+v\nwant %+v", c.Prices, want)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--price-coin", "avalanche-2"}, "must be KEY=COIN"},
		{[]string{"--price-coin", "avax="}, "must be KEY=COIN"},
		{[]string{"--price-coin", "foo=bar"}, "is not avax, an asset id"},
		{[]string{"--price-coin", "0:native=x"}, "chain id \"0\" is not a positive"},
		{[]string{"--price-coin", "1:0x12=x"}, "token \"0x12\" is not native"},
		{[]string{"--price-coin", "avax=a/b"}, "has a character no coin id has"},
		{[]string{"--price-api-url", "ftp://x"}, "--price-api-url must be an http(s) URL"},
		{[]string{"--price-api-key-header", "x: y"}, "is not a header name"},
		{[]string{"--price-rate-limit", "0"}, "--price-rate-limit must be positive"},
		{[]string{"--price-cache-ttl", "0s"}, "--price-cache-ttl must be positive"},
		{[]string{"--historical-price-min-age", "-1s"}, "must not be negative"},
	} {
		_, err := Load("t", tc.args, env(nil), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

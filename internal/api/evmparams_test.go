package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

func pathReq(name, value string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/x", nil)
	r.SetPathValue(name, value)
	return r
}

func TestEVMAddress(t *testing.T) {
	want := common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")
	for _, v := range []string{"0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc",
		"0X8DB97C7CECE249C2B98BDC0226CC4C2A57BF52FC"} {
		if got, err := EVMAddress(pathReq("address", v), "address"); err != nil || got != want {
			t.Errorf("EVMAddress(%s) = %s, %v", v, got, err)
		}
	}
	for _, v := range []string{"", "8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52", "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC00",
		"0xZdb97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"} {
		_, err := EVMAddress(pathReq("address", v), "address")
		wantInvalid(t, err, "address must be a 0x-prefixed 20-byte hex address")
	}
}

func TestBlockRange(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	for q, want := range map[string][2]*uint64{
		"": {}, "startBlock=3": {u(3), nil}, "endBlock=0": {nil, u(0)}, "startBlock=2&endBlock=2": {u(2), u(2)},
		"startBlock=18446744073709551615": {u(1<<64 - 1), nil},
	} {
		s, e, err := BlockRange(req(q))
		if err != nil || !((s == nil && want[0] == nil) || (s != nil && want[0] != nil && *s == *want[0])) ||
			!((e == nil && want[1] == nil) || (e != nil && want[1] != nil && *e == *want[1])) {
			t.Errorf("BlockRange(%q) = %v, %v, %v", q, s, e, err)
		}
	}
	for q, frag := range map[string]string{
		"startBlock=-1": "startBlock must be a decimal block number", "endBlock=+1": "endBlock must be",
		"startBlock=1.5": "startBlock must be", "endBlock=18446744073709551616": "endBlock must be",
		"startBlock=5&endBlock=4": "endBlock (exclusive) must not be below startBlock", "startBlock=1&startBlock=2": "startBlock must be given at most once",
	} {
		_, _, err := BlockRange(req(q))
		wantInvalid(t, err, frag)
	}
}

func TestChainIDParam(t *testing.T) {
	c := ids.ID{9}
	for v, want := range map[string]ChainID{
		"43114":    {IsEVM: true, EVM: 43114, Text: "43114"},
		c.String(): {Blockchain: c, Text: c.String()},
	} {
		if got, err := ChainIDParam(pathReq("chainId", v)); err != nil || got != want {
			t.Errorf("ChainIDParam(%s) = %+v, %v", v, got, err)
		}
	}
	for _, v := range []string{"", "C", "c-chain", "-1", "0x43114", "99999999999999999999"} {
		_, err := ChainIDParam(pathReq("chainId", v))
		wantInvalid(t, err, "chainId must be an EVM chain id (decimal) or a blockchain id (cb58)")
	}
}

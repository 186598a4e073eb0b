package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

func TestGenesisData(t *testing.T) {
	doc := openapitest.Default(t)
	in := `{
		"config": {"chainId": 99999, "homesteadBlock": "0x10", "eip150Hash": "0xabc", "unknownKey": 1,
			"feeConfig": {"gasLimit": 8000000, "targetBlockRate": "2", "minBaseFee": "not a number"},
			"warpConfig": {"blockTimestamp": 5, "requirePrimaryNetworkSigners": true},
			"txAllowListConfig": {"blockTimestamp": 0, "adminAddresses": ["0x01", 7]},
			"allowFeeRecipients": "yes"},
		"alloc": {"8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": {"balance": 4096, "code": "0x00", "storage": {"0x01": "0x02"}, "nonce": "0x1"}},
		"gasLimit": 8000000, "difficulty": "0x0", "timestamp": "0x0", "baseFeePerGas": null, "airdropAmount": "0x10",
		"number": -1, "extra": "dropped"
	}`
	got := genesisData([]byte(in))
	doc.ValidateSchema(t, "EvmGenesisDto", got)
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"config": map[string]any{"chainId": 99999.0, "homesteadBlock": 16.0, "eip150Hash": "0xabc",
			"feeConfig":         map[string]any{"gasLimit": 8000000.0, "targetBlockRate": 2.0},
			"warpConfig":        map[string]any{"blockTimestamp": 5.0, "requirePrimaryNetworkSigners": true},
			"txAllowListConfig": map[string]any{"blockTimestamp": 0.0, "adminAddresses": []any{"0x01"}}},
		"alloc": map[string]any{"8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": map[string]any{
			"balance": "0x1000", "code": "0x00", "storage": map[string]any{"0x01": "0x02"}}},
		"gasLimit": "0x7a1200", "difficulty": "0x0", "timestamp": "0x0", "airdropAmount": 16.0,
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("genesisData =\n%s\nwant\n%v", got, want)
	}

	// Another VM's genesis is its bytes, 0x-hex.
	if got := string(genesisData([]byte{0, 1, 0xff})); got != `"0x0001ff"` {
		t.Errorf("binary genesis = %s", got)
	}
	if got := string(genesisData([]byte(`[1]`))); got != `"0x5b315d"` {
		t.Errorf("non-object JSON genesis = %s", got)
	}
}

package api

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
)

// A CreateChainTx's genesis is rendered as the schema's EvmGenesisDto when
// it is a JSON object (an EVM genesis), keeping only the keys the schema
// defines with the JSON types it gives them (a geth-style genesis writes
// many quantities either as hex strings or as numbers), and as a 0x-hex
// string otherwise (another VM's genesis, in that VM's encoding).

// genesisKind is the JSON type the schema gives a genesis key.
type genesisKind int

const (
	gString genesisKind = iota
	gNumber
	gBool
	gStrings   // an array of strings
	gStringMap // an object of strings
	gObject    // an object with the keys of fields
	gMap       // an object whose every value is elem
)

type genesisField struct {
	kind   genesisKind
	fields map[string]genesisField
	elem   *genesisField
}

var (
	gStr  = genesisField{kind: gString}
	gNum  = genesisField{kind: gNumber}
	gBoo  = genesisField{kind: gBool}
	gList = genesisField{kind: gStrings}

	allowListConfig = genesisField{kind: gObject, fields: map[string]genesisField{
		"blockTimestamp": gNum, "adminAddresses": gList, "managerAddresses": gList, "enabledAddresses": gList,
	}}

	// evmGenesis is the schema's EvmGenesisDto.
	evmGenesis = genesisField{kind: gObject, fields: map[string]genesisField{
		"airdropAmount": gNum, "airdropHash": gStr,
		"alloc": {kind: gMap, elem: &genesisField{kind: gObject, fields: map[string]genesisField{
			"balance": gStr, "code": gStr, "storage": {kind: gStringMap},
		}}},
		"baseFeePerGas": gNum, "blobGasUsed": gStr, "coinbase": gStr,
		"config": {kind: gObject, fields: map[string]genesisField{
			"berlinBlock": gNum, "byzantiumBlock": gNum, "chainId": gNum, "constantinopleBlock": gNum,
			"eip150Block": gNum, "eip150Hash": gStr, "eip155Block": gNum, "eip158Block": gNum,
			"homesteadBlock": gNum, "istanbulBlock": gNum, "londonBlock": gNum, "muirGlacierBlock": gNum,
			"petersburgBlock": gNum, "subnetEVMTimestamp": gNum, "allowFeeRecipients": gBoo,
			"feeConfig": {kind: gObject, fields: map[string]genesisField{
				"baseFeeChangeDenominator": gNum, "blockGasCostStep": gNum, "gasLimit": gNum, "maxBlockGasCost": gNum,
				"minBaseFee": gNum, "minBlockGasCost": gNum, "targetBlockRate": gNum, "targetGas": gNum,
			}},
			"warpConfig": {kind: gObject, fields: map[string]genesisField{
				"blockTimestamp": gNum, "quorumNumerator": gNum, "requirePrimaryNetworkSigners": gBoo,
			}},
			"txAllowListConfig":               allowListConfig,
			"contractDeployerAllowListConfig": allowListConfig,
			"contractNativeMinterConfig":      allowListConfig,
			"feeManagerConfig":                allowListConfig,
			"rewardManagerConfig":             allowListConfig,
		}},
		"difficulty": gStr, "excessBlobGas": gStr, "extraData": gStr, "gasLimit": gStr, "gasUsed": gStr,
		"mixHash": gStr, "nonce": gStr, "number": gStr, "parentHash": gStr, "timestamp": gStr,
	}}
)

// genesisData renders a CreateChainTx's genesis bytes as genesisData.
func genesisData(genesis []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(genesis))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		if obj, ok := v.(map[string]any); ok {
			out, _ := shapeGenesis(obj, evmGenesis)
			if b, err := json.Marshal(out); err == nil {
				return b
			}
		}
	}
	b, _ := json.Marshal(hex0x(genesis))
	return b
}

// shapeGenesis returns v as f says, and false when v cannot be.
func shapeGenesis(v any, f genesisField) (any, bool) {
	switch f.kind {
	case gString:
		switch x := v.(type) {
		case string:
			return x, true
		case json.Number:
			// geth writes quantities as hex strings.
			n, ok := new(big.Int).SetString(x.String(), 10)
			if !ok || n.Sign() < 0 {
				return nil, false
			}
			return "0x" + n.Text(16), true
		}
	case gNumber:
		switch x := v.(type) {
		case json.Number:
			if _, err := x.Float64(); err == nil {
				return x, true
			}
		case string:
			n, ok := parseQuantity(x)
			if !ok {
				return nil, false
			}
			return json.Number(n.String()), true
		}
	case gBool:
		b, ok := v.(bool)
		return b, ok
	case gStrings:
		arr, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := []string{}
		for _, e := range arr {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out, true
	case gStringMap, gMap, gObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		out := map[string]any{}
		for k, e := range obj {
			var ef genesisField
			switch f.kind {
			case gStringMap:
				ef = gStr
			case gMap:
				ef = *f.elem
			default:
				if ef, ok = f.fields[k]; !ok {
					continue
				}
			}
			if s, ok := shapeGenesis(e, ef); ok {
				out[k] = s
			}
		}
		return out, true
	}
	return nil, false
}

// parseQuantity parses a 0x-hex or decimal integer.
func parseQuantity(s string) (*big.Int, bool) {
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		if h == "" {
			return nil, false
		}
		return new(big.Int).SetString(h, 16)
	}
	return new(big.Int).SetString(s, 10)
}

package evm

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/libevm/common"

	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
)

// GenesisAlloc reads the balances of an EVM genesis (coreth's or
// subnet-evm's JSON, as a CreateChainTx carries it): its alloc, whose
// addresses may come with or without 0x and balances in hex or decimal.
func GenesisAlloc(genesisJSON []byte) (map[common.Address]*big.Int, error) {
	var g struct {
		Alloc map[string]struct {
			Balance string `json:"balance"`
		} `json:"alloc"`
	}
	if err := json.Unmarshal(genesisJSON, &g); err != nil {
		return nil, fmt.Errorf("reading the EVM genesis: %w", err)
	}
	out := make(map[common.Address]*big.Int, len(g.Alloc))
	for k, acct := range g.Alloc {
		raw, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(k, "0x"), "0X"))
		if err != nil || len(raw) != common.AddressLength {
			return nil, fmt.Errorf("EVM genesis: bad alloc address %q", k)
		}
		v, ok := new(big.Int), true
		switch s := acct.Balance; {
		case s == "":
		case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
			_, ok = v.SetString(s[2:], 16)
		default:
			_, ok = v.SetString(s, 10)
		}
		if !ok || v.Sign() < 0 {
			return nil, fmt.Errorf("EVM genesis: bad balance %q of %s", acct.Balance, k)
		}
		out[common.Address(raw)] = v
	}
	return out, nil
}

var networkChains struct {
	mu      sync.Mutex
	builtin map[ids.ID][]byte // the shipped networks' geneses, by hash
	read    map[ids.ID]bool   // network geneses read, by hash
	genesis map[ids.ID][]byte // chain genesis data, by blockchain id
}

// NetworkGenesisData returns the genesis data of a chain a network's
// genesis creates (the C-chain's EVM genesis), from the geneses of the
// networks avalanchego ships and networkGeneses (a custom network's, from
// --genesis-file); ok is false when none creates blockchainID.
func NetworkGenesisData(blockchainID ids.ID, networkGeneses ...[]byte) (_ []byte, ok bool, _ error) {
	c := &networkChains
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.builtin == nil {
		c.builtin, c.read, c.genesis = map[ids.ID][]byte{}, map[ids.ID]bool{}, map[ids.ID][]byte{}
		for _, id := range []uint32{constants.LocalID, constants.FujiID, constants.MainnetID} {
			gb, _, err := genesis.FromConfig(genesis.GetConfig(id))
			if err != nil {
				c.builtin = nil
				return nil, false, fmt.Errorf("building the genesis of network %d: %w", id, err)
			}
			c.builtin[hashing.ComputeHash256Array(gb)] = gb
		}
	}
	if b, ok := c.genesis[blockchainID]; ok {
		return b, true, nil
	}
	sources := make(map[ids.ID][]byte, len(c.builtin)+len(networkGeneses))
	for _, gb := range networkGeneses {
		if len(gb) > 0 { // none without --genesis-file
			sources[hashing.ComputeHash256Array(gb)] = gb
		}
	}
	for h, gb := range c.builtin {
		sources[h] = gb
	}
	for h, gb := range sources {
		if c.read[h] {
			continue
		}
		pg, err := pgenesis.Parse(gb)
		if err != nil {
			return nil, false, fmt.Errorf("parsing the network genesis %s: %w", ids.ID(h), err)
		}
		for _, chain := range pg.Chains {
			if cc, ok := chain.Unsigned.(*ptxs.CreateChainTx); ok {
				c.genesis[chain.ID()] = cc.GenesisData
			}
		}
		c.read[h] = true
	}
	b, ok := c.genesis[blockchainID]
	return b, ok, nil
}

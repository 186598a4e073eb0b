package pchain

import (
	"fmt"
	"sync"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
)

// The P-chain's genesis state (UTXOs, validators) is in no block: the
// height-0 block only names its hash as parent. avaindex rebuilds the
// genesis of the networks avalanchego ships, and knows any other network's
// from its genesis bytes, registered with RegisterGenesis.
var genesisRegistry struct {
	mu      sync.Mutex
	known   map[ids.ID][]byte // sha256(genesis bytes) -> bytes
	builtin bool
}

// RegisterGenesis makes the P-chain genesis bytes of a custom network known.
func RegisterGenesis(genesisBytes []byte) {
	genesisRegistry.mu.Lock()
	defer genesisRegistry.mu.Unlock()
	if genesisRegistry.known == nil {
		genesisRegistry.known = map[ids.ID][]byte{}
	}
	genesisRegistry.known[hashing.ComputeHash256Array(genesisBytes)] = genesisBytes
}

// genesisBytes returns the genesis whose hash is genesisID (the parent id
// of the P-chain block at height 0); ok is false when it is not known.
func genesisBytes(genesisID ids.ID) (_ []byte, ok bool, _ error) {
	genesisRegistry.mu.Lock()
	defer genesisRegistry.mu.Unlock()
	if genesisRegistry.known == nil {
		genesisRegistry.known = map[ids.ID][]byte{}
	}
	if b, ok := genesisRegistry.known[genesisID]; ok {
		return b, true, nil
	}
	if !genesisRegistry.builtin {
		for _, id := range []uint32{constants.LocalID, constants.FujiID, constants.MainnetID} {
			gb, _, err := genesis.FromConfig(genesis.GetConfig(id))
			if err != nil {
				return nil, false, fmt.Errorf("building the genesis of network %d: %w", id, err)
			}
			genesisRegistry.known[hashing.ComputeHash256Array(gb)] = gb
		}
		genesisRegistry.builtin = true
	}
	b, ok := genesisRegistry.known[genesisID]
	return b, ok, nil
}

// ReadGenesisFile returns the network genesis bytes of the avalanchego
// genesis file at path (the JSON given to the node's --genesis-file).
func ReadGenesisFile(path string) ([]byte, error) {
	cfg, err := genesis.GetConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the genesis file: %w", err)
	}
	b, _, err := genesis.FromConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the genesis of %s: %w", path, err)
	}
	return b, nil
}

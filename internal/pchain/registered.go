package pchain

import "github.com/ava-labs/avalanchego/ids"

// RegisteredGeneses returns the network genesis bytes known so far, keyed
// by their hash: those registered with RegisterGenesis, and the built-in
// networks' once a lookup has built them. Other chains' genesis readers
// (the X-chain's) find custom networks here; the bytes must not be
// modified.
func RegisteredGeneses() map[ids.ID][]byte {
	genesisRegistry.mu.Lock()
	defer genesisRegistry.mu.Unlock()
	out := make(map[ids.ID][]byte, len(genesisRegistry.known))
	for id, b := range genesisRegistry.known {
		out[id] = b
	}
	return out
}

package testnet

import "testing"

// The custom network GetCustom starts: cmd/localnet --network custom.
const (
	// CustomNetworkID is its network id.
	CustomNetworkID uint32 = 88888
	// CustomHRP is its bech32 human-readable part.
	CustomHRP = "custom"
)

// GetCustom returns the process's custom network, starting it on first use:
// a second single-node network (id CustomNetworkID, HRP "custom") whose only
// genesis validator is the node itself, with sybil protection on, so that
// the P-chain knows every L1's validator set and warp messages verify. The
// local key is funded on P, X and C. Main stops it with the local network.
//
// Its Network works with every helper; primary-network staking does not
// (an offline primary-network validator stalls its consensus): use Get for
// that. GetCustom fails the test if the network cannot be started and skips
// it in -short mode.
func GetCustom(t testing.TB) *Network { return custom.get(t) }

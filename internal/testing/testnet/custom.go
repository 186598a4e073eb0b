package testnet

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// The custom network GetCustom starts: cmd/localnet --network custom.
const (
	// CustomNetworkID is its network id.
	CustomNetworkID uint32 = 88888
	// CustomHRP is its bech32 human-readable part.
	CustomHRP = "custom"
)

var customShared struct {
	mu      sync.Mutex
	started bool
	net     *Network
	proc    *process
	err     error
}

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
func GetCustom(t testing.TB) *Network {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	n, err := startCustom()
	if err != nil {
		t.Fatalf("testnet: the real custom network is not available: %v", err)
	}
	return n
}

func startCustom() (*Network, error) {
	customShared.mu.Lock()
	defer customShared.mu.Unlock()
	if customShared.started {
		return customShared.net, customShared.err
	}
	customShared.started = true
	customShared.net, customShared.proc, customShared.err = launchCustom()
	return customShared.net, customShared.err
}

// stopCustom stops the custom network's node if it is running and removes
// its data; later calls to GetCustom fail. Main calls it.
func stopCustom() error {
	customShared.mu.Lock()
	defer customShared.mu.Unlock()
	p := customShared.proc
	customShared.proc = nil
	customShared.net = nil
	if customShared.err == nil {
		customShared.err = errors.New("the custom network was stopped")
	}
	customShared.started = true
	if p == nil {
		return nil
	}
	return p.stop(StopTimeout)
}

func launchCustom() (*Network, *process, error) {
	buildCtx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	bin, err := localnetBinary(buildCtx)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("localnet binary: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, uri, err := startProcess(ctx, bin, "--network", "custom", "--network-id", fmt.Sprint(CustomNetworkID))
	if err != nil {
		return nil, nil, err
	}
	n, err := describe(ctx, uri, CustomNetworkID)
	if err != nil {
		if stopErr := p.stop(StopTimeout); stopErr != nil {
			err = fmt.Errorf("%w (and stopping it: %v)", err, stopErr)
		}
		return nil, nil, err
	}
	n.GenesisFile = filepath.Join(p.dir, "node", "genesis.json")
	return n, p, nil
}

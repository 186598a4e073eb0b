package testnet

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
)

// OwnNode is a local-network node of one test's own, which the test may
// stop and start again: on the same data directory and the same HTTP port,
// so that a restarted node is the same node (same chains, same blocks, same
// URL), as a production node that restarts. It is a separate instance of
// the local network from Get's: the same network id and chain ids, another
// history.
type OwnNode struct {
	// Network describes the node; its URL stays the same across restarts.
	*Network

	bin  string
	dir  string
	port int

	mu   sync.Mutex
	proc *process // nil while stopped
}

// StartOwn starts a node of the local network for the calling test alone,
// from the cached localnet binary, and stops it and removes its data when
// the test ends. It skips the test in -short mode. Each one is a whole node
// (about a core while it starts): a test should start one at most.
func StartOwn(t testing.TB) *OwnNode {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	buildCtx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	bin, err := localnetBinary(buildCtx)
	cancel()
	if err != nil {
		t.Fatalf("testnet: localnet binary: %v", err)
	}
	dir, err := os.MkdirTemp("", "avaindex-ownnode-")
	if err != nil {
		t.Fatal(err)
	}
	o := &OwnNode{bin: bin, dir: dir}
	t.Cleanup(func() {
		if err := o.Stop(); err != nil {
			t.Errorf("testnet: stopping the test's own node: %v", err)
		}
		os.RemoveAll(dir)
	})
	if err := o.Start(); err != nil {
		t.Fatalf("testnet: the test's own node: %v", err)
	}
	return o
}

// Start starts the node again after Stop, on its data and port, and waits
// until it is bootstrapped; it does nothing while the node runs.
func (o *OwnNode) Start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, uri, err := startProcessIn(ctx, o.bin, o.dir, o.port, true)
	if err != nil {
		return err
	}
	n, err := describe(ctx, uri, LocalNetworkID)
	if err == nil && o.Network != nil && (n.URL != o.URL || n.NodeID != o.NodeID) {
		err = fmt.Errorf("restarted as %s at %s, was %s at %s", n.NodeID, n.URL, o.NodeID, o.URL)
	}
	if err != nil {
		if stopErr := p.stop(StopTimeout); stopErr != nil {
			err = fmt.Errorf("%w (and stopping it: %v)", err, stopErr)
		}
		return err
	}
	if o.Network == nil {
		u, err := url.Parse(uri)
		if err == nil {
			o.port, err = strconv.Atoi(u.Port())
		}
		if err != nil {
			return errors.Join(fmt.Errorf("the node's URL %q: %w", uri, err), p.stop(StopTimeout))
		}
		o.Network = n
	}
	o.proc = p
	return nil
}

// Stop stops the node (SIGTERM, then SIGKILL after StopTimeout) and keeps
// its data for Start; it does nothing while the node is stopped.
func (o *OwnNode) Stop() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.proc == nil {
		return nil
	}
	p := o.proc
	o.proc = nil
	return p.stop(StopTimeout)
}

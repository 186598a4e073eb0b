package ingest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"
)

// A node may be pointed, while avaindex runs, at another network than the
// store holds (a load balancer's pool changed, a node restarted with other
// flags). The indexer then refuses it: every loop that reads the node waits,
// one error in /readyz and one log line say why, and what is stored is
// still served. It resumes once the node answers the store's network again.

// networkCheckTimeout bounds one check of the node's network.
const networkCheckTimeout = 10 * time.Second

// refusedKey is the entry of the refusal among the loops' errors.
const refusedKey = "node"

// watchNetwork checks the node's network every NetworkCheckEvery, and soon
// after a loop's step fails (checkNetworkSoon), at most once a second,
// until ctx is done.
func (ix *Indexer) watchNetwork(ctx context.Context) {
	if ix.network == nil {
		return
	}
	tick := time.NewTicker(ix.opts.NetworkCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-ix.checkNetwork:
		}
		ix.verifyNetwork(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// checkNetworkSoon asks watchNetwork for a check; asks while one is
// pending are one ask.
func (ix *Indexer) checkNetworkSoon() {
	select {
	case ix.checkNetwork <- struct{}{}:
	default:
	}
}

// verifyNetwork asks the node its network id, and its X- and C-chain ids
// when the id is the store's, and refuses the node or stops refusing it.
// A node that does not answer changes nothing: the loops' own errors say
// it is unreachable.
func (ix *Indexer) verifyNetwork(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, networkCheckTimeout)
	defer cancel()
	id, err := ix.node.NetworkID(ctx)
	if err != nil {
		return
	}
	want := ix.network
	if id != want.ID {
		ix.setRefused(fmt.Errorf("the node at %s is now on network %s (%d), the store holds %s (%d); refusing",
			ix.node.URL(), constants.NetworkName(id), id, want.Name, want.ID))
		return
	}
	for _, ch := range []struct {
		alias string
		want  string
	}{{"X", want.XChainID.String()}, {"C", want.CChainID.String()}} {
		got, err := ix.node.BlockchainID(ctx, ch.alias)
		if err != nil {
			return
		}
		if got.String() != ch.want {
			ix.setRefused(fmt.Errorf("the node at %s is on network %s (%d) but its %s-chain is %s, the store's is %s (another genesis); refusing",
				ix.node.URL(), want.Name, id, ch.alias, got, ch.want))
			return
		}
	}
	ix.setRefused(nil)
}

// setRefused records the refusal (nil: none), and logs when it starts,
// changes or ends.
func (ix *Indexer) setRefused(err error) {
	ix.mu.Lock()
	prev := ix.refused
	ix.refused = err
	if err == nil {
		delete(ix.errors, refusedKey)
	} else {
		ix.errors[refusedKey] = err.Error()
	}
	ix.mu.Unlock()
	switch {
	case err != nil && (prev == nil || prev.Error() != err.Error()):
		ix.log.Error(err.Error())
	case err == nil && prev != nil:
		ix.log.Info("the node is on the store's network again; resuming", "url", ix.node.URL(), "network", ix.network.Name, "id", ix.network.ID)
	}
}

// refusal returns why the node is refused, or nil.
func (ix *Indexer) refusal() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.refused
}

// guarded wraps a step of a loop that reads the node: while the node is
// refused the step does not run, and the loop waits without an error of
// its own (the refusal is the indexer's one error).
func (ix *Indexer) guarded(step func(context.Context) (bool, error)) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		if ix.refusal() != nil {
			ix.checkNetworkSoon()
			return false, &idleError{wait: ix.opts.PollInterval}
		}
		return step(ctx)
	}
}

// readsNode reports whether an EVM chain is served by the indexer's node
// (the C-chain, or an L1 the node validates), rather than by a node of its
// own.
func (ix *Indexer) readsNode(rpcURL string) bool {
	return strings.HasPrefix(rpcURL, strings.TrimRight(ix.node.URL(), "/")+"/")
}

package ingest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestVerifyNetwork asks the real local node which network it runs, for
// an indexer of the local network, of another network id, and of the same
// id with another X-chain (another genesis): only the first is not
// refused, and a refusal ends once the node is checked against its own
// network again.
func TestVerifyNetwork(t *testing.T) {
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	local := &internal.Network{Name: "local", ID: n.NetworkID, XChainID: n.XChainID, CChainID: n.CChainID}
	otherID := *local
	otherID.Name, otherID.ID = "fuji", 5
	otherX := *local
	otherX.XChainID = ids.ID{1}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		name    string
		network *internal.Network
		want    string // in the refusal; "" for none
	}{
		{"the same network", local, ""},
		{"another network id", &otherID, "is now on network local (12345), the store holds fuji (5); refusing"},
		{"another X-chain", &otherX, "but its X-chain is " + n.XChainID.String() + ", the store's is " + ids.ID{1}.String()},
	} {
		ix := New(node.New(n.URL), c.network, nil, log, Options{})
		ix.verifyNetwork(ctx)
		err := ix.refusal()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: refusal %v, want one with %q", c.name, err, c.want)
		case c.want != "":
			if got := ix.Status().LastError; got != "node: "+err.Error() {
				t.Errorf("%s: /readyz's lastError %q, want the refusal", c.name, got)
			}
			// The guarded steps do not run while refused.
			ran := false
			_, stepErr := ix.guarded(func(context.Context) (bool, error) { ran = true; return false, nil })(ctx)
			if _, idle := stepErr.(*idleError); ran || !idle {
				t.Errorf("%s: a step ran (%v) or did not idle (%v) while refused", c.name, ran, stepErr)
			}
			// Back on the store's network: the refusal ends.
			ix.network = local
			ix.verifyNetwork(ctx)
			if err := ix.refusal(); err != nil || ix.Status().LastError != "" {
				t.Errorf("%s: still refused on the store's network: %v, %q", c.name, err, ix.Status().LastError)
			}
		}
	}
}

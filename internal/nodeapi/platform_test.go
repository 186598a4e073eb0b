package nodeapi

import (
	"context"
	"errors"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// The store and the node client serve the narrow interfaces.
var (
	_ PlatformSource  = store.Store(nil)
	_ ContainerSource = store.Store(nil)
	_ Upstream        = (*node.Client)(nil)
)

// fakeUpstream answers every chain's status with st and fails the rest.
type fakeUpstream struct{ st status.BlockchainStatus }

var errFake = errors.New("fake upstream: not answered")

func (fakeUpstream) CurrentValidators(context.Context, platformvm.GetCurrentValidatorsArgs) ([]node.CurrentValidator, error) {
	return nil, errFake
}

func (u fakeUpstream) BlockchainStatus(context.Context, string) (status.BlockchainStatus, error) {
	return u.st, nil
}

func (fakeUpstream) CurrentSupply(context.Context, ids.ID) (*platformvm.GetCurrentSupplyReply, error) {
	return nil, errFake
}

// TestPlatformUpstream serves the node-only answers with no upstream, and
// with one that answers.
func TestPlatformUpstream(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := pchain.NewFormatter(12345)
	if err != nil {
		t.Fatal(err)
	}
	network := &internal.Network{ID: 12345, Name: "local", HRP: "local", XChainID: ids.GenerateTestID(), CChainID: ids.GenerateTestID()}
	for _, tc := range []struct {
		name       string
		upstream   Upstream
		wantStatus string
	}{
		{"nil", nil, `{"status":"Created"}`},
		{"validating", fakeUpstream{status.Validating}, `{"status":"Validating"}`},
	} {
		h, err := NewPlatformHandler(st, f, network, tc.upstream)
		if err != nil {
			t.Fatal(err)
		}
		if code, res, msg := call(t, h, "platform.getBlockchainStatus", `{"blockchainID":"X"}`); code != 200 || res != tc.wantStatus {
			t.Errorf("%s: getBlockchainStatus(X) = %d %s %q, want %s", tc.name, code, res, msg, tc.wantStatus)
		}
		// The store has no supply and the upstream gives none.
		const want = "fetching current supply failed"
		if _, res, msg := call(t, h, "platform.getCurrentSupply", `{}`); res != "" || len(msg) < len(want) || msg[:len(want)] != want {
			t.Errorf("%s: getCurrentSupply = %s %q, want an error %q...", tc.name, res, msg, want)
		}
	}
}

package nodeapi

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

var _ TxStatusUpstream = (*node.Client)(nil)

// statusUpstream answers platform.getTxStatus with reply, or err.
type statusUpstream struct {
	fakeUpstream
	reply *platformvm.GetTxStatusResponse
	err   error
}

func (u statusUpstream) PTxStatus(context.Context, ids.ID) (*platformvm.GetTxStatusResponse, error) {
	return u.reply, u.err
}

// TestGetTxStatusOfUnindexedTx: a tx the store does not hold is what the
// node's mempool says (processing, dropped and why), but one the node
// already accepted is still Processing until indexed, so that getTx
// finds every tx reported accepted; with no node, Unknown.
func TestGetTxStatusOfUnindexedTx(t *testing.T) {
	st, err := store.Open(context.Background(), dbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tc := range []struct {
		name     string
		upstream Upstream
		want     platformvm.GetTxStatusResponse
	}{
		{"no node", nil, platformvm.GetTxStatusResponse{Status: status.Unknown}},
		{"node down", statusUpstream{err: errFake}, platformvm.GetTxStatusResponse{Status: status.Unknown}},
		{"accepted by the node", statusUpstream{reply: &platformvm.GetTxStatusResponse{Status: status.Committed}},
			platformvm.GetTxStatusResponse{Status: status.Processing}},
		{"aborted by the node", statusUpstream{reply: &platformvm.GetTxStatusResponse{Status: status.Aborted}},
			platformvm.GetTxStatusResponse{Status: status.Processing}},
		{"dropped", statusUpstream{reply: &platformvm.GetTxStatusResponse{Status: status.Dropped, Reason: "insufficient funds"}},
			platformvm.GetTxStatusResponse{Status: status.Dropped, Reason: "insufficient funds"}},
		{"processing", statusUpstream{reply: &platformvm.GetTxStatusResponse{Status: status.Processing}},
			platformvm.GetTxStatusResponse{Status: status.Processing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Platform{store: st, network: &internal.Network{ID: 12345}, upstream: tc.upstream}
			var got platformvm.GetTxStatusResponse
			req := httptest.NewRequest("POST", "/ext/bc/P", nil)
			if err := p.GetTxStatus(req, &platformvm.GetTxStatusArgs{TxID: ids.GenerateTestID()}, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

package node

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
)

// TestEVMBatchReplies checks how a batch's replies are matched to its
// requests: by id, whatever their order; a missing, doubled or unknown id,
// or a batch refused whole, is an error of the node. These are answers a
// real node does not give.
func TestEVMBatchReplies(t *testing.T) {
	for _, c := range []struct {
		name, reply string
		want        error // nil: balances 0x1 and 0x2
	}{
		{"in order", `[{"id":0,"result":"0x1"},{"id":1,"result":"0x2"}]`, nil},
		{"out of order", `[{"id":1,"result":"0x2"},{"id":0,"result":"0x1"}]`, nil},
		{"missing", `[{"id":1,"result":"0x2"}]`, derrors.BadGateway},
		{"doubled", `[{"id":0,"result":"0x1"},{"id":0,"result":"0x1"}]`, derrors.BadGateway},
		{"unknown id", `[{"id":0,"result":"0x1"},{"id":7,"result":"0x2"}]`, derrors.BadGateway},
		{"refused whole", `{"id":null,"error":{"code":-32600,"message":"batch too large"}}`, &RPCError{}},
		{"one failed", `[{"id":0,"result":"0x1"},{"id":1,"error":{"code":-32000,"message":"missing trie node"}}]`, &RPCError{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, c.reply)
			}))
			defer srv.Close()
			a, b := common.Address{1}, common.Address{2}
			got, err := NewEVM(srv.URL).Balances(context.Background(), []common.Address{a, b}, 5)
			switch want := c.want.(type) {
			case nil:
				if err != nil || got[a].Int64() != 1 || got[b].Int64() != 2 {
					t.Errorf("balances %v, %v; want 1 and 2", got, err)
				}
			case *RPCError:
				var re *RPCError
				if !errors.As(err, &re) {
					t.Errorf("err %v; want the node's error", err)
				}
			default:
				if !errors.Is(err, want) {
					t.Errorf("err %v; want %v", err, want)
				}
			}
		})
	}
	if !IsStateUnavailable(fmt.Errorf("x: %w", &RPCError{Message: "missing trie node abc (path )"})) ||
		!IsMethodNotFound(&RPCError{Code: -32601, Message: "the method debug_traceBlockByNumber does not exist/is not available"}) ||
		IsMethodNotFound(&RPCError{Code: -32000, Message: "execution reverted"}) {
		t.Error("error classification")
	}
}

package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
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

// replyCases are batch replies: first those readReplies reads (the node's
// plain shape), then those it leaves to encoding/json.
var replyCases = []string{
	`[{"jsonrpc":"2.0","id":0,"result":{"number":"0x1","transactions":[]}},{"jsonrpc":"2.0","id":1,"result":[]}]`,
	`[{"jsonrpc":"2.0","id":2,"result":null}]`,
	" [ { \"result\" : \"0x1\" ,\n\"id\" : 10 } ] ",
	`[{"id":0,"result":{"a":[1,2.5e3,{"b":"c\"d"}],"u":"\u00e9"}}]`,
	`[]`,
	`[{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"no"}}]`,
	`[{"id":0,"result":1,"result":2}]`,
	`[{"ID":0,"result":1}]`,
	`[{"id":1.0,"result":1}]`,
	`[{"id":-1,"result":1}]`,
	`[{"id":007,"result":1}]`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch refused"}}`,
	`[{"id":0,"result":1}`,
	`[{"id":0,"result":"a` + "\x01" + `"}]`,
}

// plainReplies is how many of replyCases readReplies reads.
const plainReplies = 5

// TestReadReplies: readReplies reads the node's plain replies, and what it
// reads is what encoding/json reads.
func TestReadReplies(t *testing.T) {
	for i, c := range replyCases {
		_, ok := readReplies([]byte(c))
		if want := i < plainReplies; ok != want {
			t.Errorf("readReplies(%s) read it: %t, want %t", c, ok, want)
		}
		sameReplies(t, []byte(c))
	}
}

// sameReplies fails when readReplies reads raw other than encoding/json.
func sameReplies(t testing.TB, raw []byte) {
	fast, ok := readReplies(raw)
	if !ok {
		return
	}
	var slow []evmReply
	if err := json.Unmarshal(raw, &slow); err != nil {
		t.Fatalf("readReplies read %q, which encoding/json refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("readReplies(%q) = %+v, encoding/json %+v", raw, fast, slow)
	}
}

func FuzzReadReplies(f *testing.F) {
	for _, c := range replyCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameReplies(t, raw) })
}

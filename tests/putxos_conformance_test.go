package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

type utxosReply struct {
	NumFetched string   `json:"numFetched"`
	UTXOs      []string `json:"utxos"`
	EndIndex   struct {
		Address string `json:"address"`
		UTXO    string `json:"utxo"`
	} `json:"endIndex"`
	Encoding string `json:"encoding"`
}

// TestGetUTXOsMatchNode compares platform.getUTXOs and avm.getUTXOs on
// avaindex and on the node: the same UTXOs of one or several addresses,
// the same pages' sizes and end addresses, the atomic UTXOs of the other
// chains (asked of the node), and the same errors for bad inputs. The
// node lists the UTXOs one block added in the order of a Go map, so lists
// of several UTXOs are compared as sets, and paging is checked to walk
// each set once.
func TestGetUTXOsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	xTip, err := avm.NewClient(n.URL, "X").GetHeight(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if h, err := avm.NewClient(base, "X").GetHeight(t.Context()); err == nil && h >= xTip {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("avaindex did not index X-chain height %d", xTip)
			}
		}
		t.Run("P", func(t *testing.T) {
			checkGetUTXOs(t, n, issued, base, "P", "platform", []string{"P", "platform", constants.PlatformChainID.String()},
				[]string{"X", "C", n.XChainID.String(), "avm", "evm"})
		})
		t.Run("X", func(t *testing.T) {
			checkGetUTXOs(t, n, issued, base, "X", "avm", []string{"X", "avm", n.XChainID.String()},
				[]string{"P", "C", constants.PlatformChainID.String(), "platform", "evm"})
		})
	})
}

// checkGetUTXOs compares service.getUTXOs at /ext/bc/chain; own are the
// names of the chain itself, atomic those of the others.
func checkGetUTXOs(t *testing.T, n *testnet.Network, issued *testnet.Issued, base, chain, service string, own, atomic []string) {
	method := service + ".getUTXOs"
	recipient := n.FormatAddress(chain, issued.Recipient)
	nobody := n.FormatAddress(chain, ids.GenerateTestShortID())
	owners := []string{n.FormatAddress(chain, n.Addr), recipient, nobody}
	other := "P"
	if chain == "P" {
		other = "X"
	}
	{
		nodeP, ourP := n.URL+"/ext/bc/"+chain, base+"/ext/bc/"+chain
		same := sameAsNode(t, nodeP, ourP, t.Errorf)
		list := func(url string, params map[string]any) utxosReply {
			t.Helper()
			res, rpcErr := rpc(t, url, method, params)
			var r utxosReply
			if len(rpcErr) > 0 || json.Unmarshal(res, &r) != nil {
				t.Fatalf("%s getUTXOs %v: %s %s", url, params, res, rpcErr)
			}
			return r
		}
		// sameSet compares the answers as sets of UTXOs; a page cut short
		// by the limit only as a subset of the whole list of the node (the
		// UTXOs one tx added come in map order).
		var full utxosReply
		sameSet := func(params map[string]any) utxosReply {
			t.Helper()
			want, got := list(nodeP, params), list(ourP, params)
			wantSet, gotSet := slices.Sorted(slices.Values(want.UTXOs)), slices.Sorted(slices.Values(got.UTXOs))
			sameUTXOs := slices.Equal(wantSet, gotSet)
			if limit, _ := params["limit"].(int); limit > 0 && limit < len(full.UTXOs) {
				sameUTXOs = !slices.ContainsFunc(gotSet, func(u string) bool { return !slices.Contains(full.UTXOs, u) })
			}
			if want.NumFetched != got.NumFetched || want.EndIndex.Address != got.EndIndex.Address || want.Encoding != got.Encoding || !sameUTXOs {
				t.Errorf("getUTXOs %v:\n node:     %d utxos, %+v\n avaindex: %d utxos, %+v", params, len(want.UTXOs), want.EndIndex, len(got.UTXOs), got.EndIndex)
			}
			return want
		}

		// Exactly the node's answers where order cannot differ.
		for _, addrs := range [][]string{{recipient}, {nobody}, {recipient, nobody}, {strings.TrimPrefix(recipient, chain+"-")}} {
			for _, enc := range []any{nil, "hex", "hexnc", "json"} {
				params := map[string]any{"addresses": addrs}
				if enc != nil {
					params["encoding"] = enc
				}
				same(method, params)
			}
		}
		// The same sets for many UTXOs, one address or several, from
		// the P-chain by every name of it.
		full = sameSet(map[string]any{"addresses": owners})
		for _, src := range own {
			sameSet(map[string]any{"addresses": owners[:1], "sourceChain": src})
		}
		for _, limit := range []int{1, 2, 5, 1024, 1025} {
			sameSet(map[string]any{"addresses": owners, "limit": limit})
		}
		// Paging by 3 walks every UTXO once.
		var walked []string
		params := map[string]any{"addresses": owners, "limit": 3}
		for range 1000 {
			page := list(ourP, params)
			if len(page.UTXOs) == 0 {
				break
			}
			walked = append(walked, page.UTXOs...)
			params["startIndex"] = page.EndIndex
		}
		if slices.Sort(walked); !slices.Equal(walked, slices.Sorted(slices.Values(full.UTXOs))) {
			t.Errorf("pages of 3 walked %d UTXOs, the full list has %d", len(walked), len(full.UTXOs))
		}
		// The atomic UTXOs exported to the chain, by the node.
		for _, src := range atomic {
			same(method, map[string]any{"addresses": owners, "sourceChain": src})
		}
		// Bad inputs.
		many := make([]string, 1025)
		for i := range many {
			many[i] = recipient
		}
		for _, bad := range []map[string]any{
			{},
			{"addresses": []string{}},
			{"addresses": many},
			{"addresses": []string{"nope"}},
			{"addresses": []string{other + "-" + strings.TrimPrefix(recipient, chain+"-")}},
			{"addresses": owners, "sourceChain": "nope"},
			{"addresses": owners, "startIndex": map[string]any{"address": "nope", "utxo": ""}},
			{"addresses": owners, "startIndex": map[string]any{"address": recipient, "utxo": "nope"}},
			{"addresses": owners, "startIndex": map[string]any{"address": "", "utxo": ids.GenerateTestID().String()}},
			{"addresses": owners, "encoding": "nope"},
			{"addresses": owners, "limit": -1},
			{"addresses": "x"},
		} {
			same(method, bad)
		}
	}
}

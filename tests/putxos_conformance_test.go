package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
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

// TestPGetUTXOsMatchNode compares platform.getUTXOs on avaindex and on the
// node: the same UTXOs of one or several addresses, the same pages' sizes
// and end addresses, the atomic UTXOs of the X- and C-chain (asked of the
// node), and the same errors for bad inputs. The node lists the UTXOs one
// block added in the order of a Go map, so lists of several UTXOs are
// compared as sets, and paging is checked to walk each set once.
func TestPGetUTXOsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recipient := n.FormatAddress("P", issued.Recipient)
	nobody := n.FormatAddress("P", ids.GenerateTestShortID())
	owners := []string{n.PAddress(), recipient, nobody}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitIndexed(t, base, tip, time.Minute)
		nodeP, ourP := n.URL+"/ext/bc/P", base+"/ext/bc/P"
		same := sameAsNode(t, nodeP, ourP, t.Errorf)
		list := func(url string, params map[string]any) utxosReply {
			t.Helper()
			res, rpcErr := rpc(t, url, "platform.getUTXOs", params)
			var r utxosReply
			if len(rpcErr) > 0 || json.Unmarshal(res, &r) != nil {
				t.Fatalf("%s getUTXOs %v: %s %s", url, params, res, rpcErr)
			}
			return r
		}
		sameSet := func(params map[string]any) utxosReply {
			t.Helper()
			want, got := list(nodeP, params), list(ourP, params)
			if want.NumFetched != got.NumFetched || want.EndIndex.Address != got.EndIndex.Address || want.Encoding != got.Encoding ||
				!slices.Equal(slices.Sorted(slices.Values(want.UTXOs)), slices.Sorted(slices.Values(got.UTXOs))) {
				t.Errorf("getUTXOs %v:\n node:     %d utxos, %+v\n avaindex: %d utxos, %+v", params, len(want.UTXOs), want.EndIndex, len(got.UTXOs), got.EndIndex)
			}
			return want
		}

		// Exactly the node's answers where order cannot differ.
		for _, addrs := range [][]string{{recipient}, {nobody}, {recipient, nobody}, {strings.TrimPrefix(recipient, "P-")}} {
			for _, enc := range []any{nil, "hex", "hexnc", "json"} {
				params := map[string]any{"addresses": addrs}
				if enc != nil {
					params["encoding"] = enc
				}
				same("platform.getUTXOs", params)
			}
		}
		// The same sets for many UTXOs, one address or several, from
		// the P-chain by every name of it.
		full := sameSet(map[string]any{"addresses": owners})
		for _, src := range []string{"P", "platform", constants.PlatformChainID.String()} {
			sameSet(map[string]any{"addresses": []string{n.PAddress()}, "sourceChain": src})
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
		// The atomic UTXOs exported to the P-chain, by the node.
		for _, src := range []string{"X", "C", n.XChainID.String(), "avm", "evm"} {
			same("platform.getUTXOs", map[string]any{"addresses": owners, "sourceChain": src})
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
			{"addresses": []string{"X-" + strings.TrimPrefix(recipient, "P-")}},
			{"addresses": owners, "sourceChain": "nope"},
			{"addresses": owners, "startIndex": map[string]any{"address": "nope", "utxo": ""}},
			{"addresses": owners, "startIndex": map[string]any{"address": recipient, "utxo": "nope"}},
			{"addresses": owners, "startIndex": map[string]any{"address": "", "utxo": ids.GenerateTestID().String()}},
			{"addresses": owners, "encoding": "nope"},
			{"addresses": owners, "limit": -1},
			{"addresses": "x"},
		} {
			same("platform.getUTXOs", bad)
		}
	})
}

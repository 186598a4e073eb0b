package nodeapi

import (
	"fmt"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
)

// TestServiceAddresses: getBalance's addresses parse as the node parses
// them (avax.ParseServiceAddresses: the same set, the same error), and a
// chain-prefixed bech32 address costs a few allocations, not a failed
// cb58 decode and its error first.
func TestServiceAddresses(t *testing.T) {
	n := &internal.Network{ID: constants.LocalID, Name: constants.LocalName, HRP: constants.LocalHRP,
		PChainID: constants.PlatformChainID, XChainID: ids.ID{'x'}, CChainID: ids.ID{'c'}}
	am, err := addressManager(n)
	if err != nil {
		t.Fatal(err)
	}
	id := ids.ShortID{1, 2, 3}
	p, err := address.Format("P", constants.LocalHRP, id[:])
	if err != nil {
		t.Fatal(err)
	}
	x, err := address.Format("X", constants.LocalHRP, id[:])
	if err != nil {
		t.Fatal(err)
	}
	fuji, err := address.Format("P", constants.FujiHRP, id[:])
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]string{
		{p}, {id.String()}, {p, id.String(), p}, {"platform" + p[1:]}, {constants.PlatformChainID.String() + p[1:]},
		{x}, {fuji}, {p[2:]}, {"Q" + p[1:]}, {"P-nope"}, {"nope"}, {p, "nope"}, {""}, {}, {"P-"}, {"-"}, {p + "x"},
	} {
		want, wantErr := avax.ParseServiceAddresses(am, in)
		got, gotErr := serviceAddresses(am, in)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || !want.Equals(got) {
			t.Errorf("%q: %v, %v; the node's %v, %v", in, got, gotErr, want, wantErr)
		}
	}

	addrs := make([]string, 1000)
	for i := range addrs {
		a, err := address.Format("P", constants.LocalHRP, ids.ShortID{byte(i), byte(i >> 8)}.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		addrs[i] = a
	}
	perAddress := testing.AllocsPerRun(5, func() {
		if _, err := serviceAddresses(am, addrs); err != nil {
			t.Fatal(err)
		}
	}) / float64(len(addrs))
	// The node's parse: 12 (a failed base58 decode and its error
	// before the bech32 one).
	t.Logf("%.1f allocations per address", perAddress)
	if perAddress > 6 {
		t.Errorf("%.1f allocations per address, want at most 6", perAddress)
	}
}

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// getJSON GETs u, validates the body as the answer of the operation at
// path, and decodes it into v; it returns the status.
func getJSON(t *testing.T, doc *openapitest.Doc, path, u string, v any) int {
	t.Helper()
	status, body, _ := get(t, u)
	doc.ValidateResponse(t, "GET", path, status, body)
	if status == http.StatusOK {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v in %s", u, err, body)
		}
	}
	return status
}

// pageAll pages through the list at u (a query string included) with
// pageSize size, collecting each page's items of member field.
func pageAll[T any](t *testing.T, doc *openapitest.Doc, path, u, field string, size int) []T {
	t.Helper()
	var out []T
	first := fmt.Sprintf("%s&pageSize=%d", u, size)
	for next, pages := first, 0; next != ""; pages++ {
		if pages > 500 {
			t.Fatal("pagination does not end")
		}
		var page map[string]json.RawMessage
		if status := getJSON(t, doc, path, next, &page); status != 200 {
			t.Fatalf("GET %s: %d", next, status)
		}
		var items []T
		if err := json.Unmarshal(page[field], &items); err != nil {
			t.Fatal(err)
		}
		out = append(out, items...)
		next = ""
		if tok, ok := page["nextPageToken"]; ok {
			var s string
			_ = json.Unmarshal(tok, &s)
			if s != "" {
				next = first + "&pageToken=" + url.QueryEscape(s)
			}
		}
	}
	return out
}

// TestPrimaryNetworkMatchesNode compares, on both stores, the Primary
// Network tag's subnets, blockchains, assets, network details and chain
// ids of addresses with the node's platform.getSubnets/getSubnet,
// getBlockchains, avm.getAssetDescription, getCurrentValidators,
// getCurrentSupply and getUTXOs.
func TestPrimaryNetworkMatchesNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	doc := openapitest.Default(t)
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet") + "/v1/networks/testnet"
		waitAllIndexed(t, n, dsn)

		// Subnets: every one of platform.getSubnets, with its owner, in
		// creation order (the primary network first), pages of 1.
		nodeSubnets, err := pc.GetSubnets(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		subnets := pageAll[api.Subnet](t, doc, "/v1/networks/{network}/subnets", base+"/subnets?sortOrder=asc", "subnets", 1)
		if len(subnets) != len(nodeSubnets) || subnets[0].SubnetID != constants.PrimaryNetworkID.String() {
			t.Fatalf("listSubnets: %d subnets, node %d; first %+v", len(subnets), len(nodeSubnets), subnets[0])
		}
		desc := pageAll[api.Subnet](t, doc, "/v1/networks/{network}/subnets", base+"/subnets?sortOrder=desc", "subnets", 2)
		slices.Reverse(desc)
		if jsonOf(t, desc) != jsonOf(t, subnets) {
			t.Errorf("listSubnets desc is not asc reversed:\n%v\n%v", desc, subnets)
		}
		listed := map[string]api.Subnet{}
		for _, s := range subnets {
			listed[s.SubnetID] = s
		}
		var sawL1, sawTest bool
		for _, ns := range nodeSubnets {
			s, ok := listed[ns.ID.String()]
			if !ok {
				t.Errorf("subnet %s of the node not listed", ns.ID)
				continue
			}
			var one api.Subnet
			if st := getJSON(t, doc, "/v1/networks/{network}/subnets/{subnetId}", base+"/subnets/"+ns.ID.String(), &one); st != 200 ||
				jsonOf(t, one) != jsonOf(t, s) {
				t.Errorf("getSubnetById(%s) = %d %+v; listed %+v", ns.ID, st, one, s)
			}
			if ns.ID == constants.PrimaryNetworkID {
				continue
			}
			info, err := pc.GetSubnet(ctx, ns.ID)
			if err != nil {
				t.Fatal(err)
			}
			if s.Threshold != info.Threshold || s.Locktime != info.Locktime || !slices.Equal(s.OwnerAddresses, bech32Of(t, n, info.ControlKeys...)) ||
				fmt.Sprint(s.SubnetOwnershipInfo) != fmt.Sprint(api.SubnetOwnershipInfo{Locktime: info.Locktime, Threshold: info.Threshold, Addresses: s.OwnerAddresses}) {
				t.Errorf("subnet %s owner = %+v; node %+v", ns.ID, s, info)
			}
			isL1 := info.ConversionID != ids.Empty
			sawL1 = sawL1 || isL1
			if s.IsL1 != isL1 || (isL1 && (s.L1ValidatorManagerDetails == nil || s.L1ValidatorManagerDetails.BlockchainID != info.ManagerChainID.String() ||
				!strings.EqualFold(s.L1ValidatorManagerDetails.ContractAddress, fmt.Sprintf("0x%x", info.ManagerAddress)))) {
				t.Errorf("subnet %s L1 = %t %+v; node %+v", ns.ID, s.IsL1, s.L1ValidatorManagerDetails, info)
			}
			if ns.ID == issued.SubnetID {
				sawTest = true
				if s.L1ConversionTransactionHash != issued.ConvertSubnetToL1.TxID.String() {
					t.Errorf("subnet %s l1ConversionTransactionHash %s, issued %s", ns.ID, s.L1ConversionTransactionHash, issued.ConvertSubnetToL1.TxID)
				}
			}
		}
		if !sawL1 || !sawTest {
			t.Errorf("the scenario's L1 %s was not compared (L1 seen %t)", issued.SubnetID, sawL1)
		}

		// Blockchains: every one of platform.getBlockchains, each also
		// in its subnet's blockchains and by id.
		nodeChains, err := pc.GetBlockchains(ctx)
		if err != nil {
			t.Fatal(err)
		}
		chains := pageAll[api.Blockchain](t, doc, "/v1/networks/{network}/blockchains", base+"/blockchains?sortOrder=asc", "blockchains", 1)
		if len(chains) != len(nodeChains) {
			t.Errorf("listBlockchains: %d, node %d", len(chains), len(nodeChains))
		}
		byID := map[string]api.Blockchain{}
		for _, c := range chains {
			byID[c.BlockchainID] = c
		}
		for _, nc := range nodeChains {
			c, ok := byID[nc.ID.String()]
			if !ok || c.BlockchainName != nc.Name || c.SubnetID != nc.SubnetID.String() || c.VMID != nc.VMID.String() {
				t.Errorf("blockchain %s = %+v; node %+v", nc.ID, c, nc)
				continue
			}
			var one api.Blockchain
			if st := getJSON(t, doc, "/v1/networks/{network}/blockchains/{blockchainId}", base+"/blockchains/"+nc.ID.String(), &one); st != 200 ||
				jsonOf(t, one) != jsonOf(t, c) {
				t.Errorf("getBlockchainById(%s) = %d %+v; listed %+v", nc.ID, st, one, c)
			}
			if !slices.ContainsFunc(listed[nc.SubnetID.String()].Blockchains, func(b api.Blockchain) bool { return b.BlockchainID == c.BlockchainID }) {
				t.Errorf("blockchain %s not among its subnet's blockchains", nc.ID)
			}
		}
		if c := byID[n.CChainID.String()]; c.EVMChainID == nil || *c.EVMChainID != n.EVMChainID {
			t.Errorf("C-chain evmChainId = %v, want %d", c.EVMChainID, n.EVMChainID)
		}

		// Assets: AVAX and the scenario's, as avm.getAssetDescription.
		xc := avm.NewClient(n.URL, "X")
		for _, asset := range []ids.ID{n.AVAXAssetID, issued.AssetID} {
			d, err := xc.GetAssetDescription(ctx, asset.String())
			if err != nil {
				t.Fatal(err)
			}
			var got api.XChainAssetDetails
			u := base + "/blockchains/x-chain/assets/" + asset.String()
			if st := getJSON(t, doc, "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}", u, &got); st != 200 ||
				got.AssetID != asset.String() || got.Name != d.Name || got.Symbol != d.Symbol || got.Denomination != int(d.Denomination) ||
				got.Type != "secp256k1" || got.Cap != "fixed" || got.CreatedAtTimestamp <= 0 {
				t.Errorf("getAssetDetails(%s) = %d %+v; node %+v", asset, st, got, d)
			}
		}

		checkNetworkDetails(t, doc, n, pc, base, dsn)
		checkChainIDs(t, doc, n, base)

		for _, tc := range []struct{ u, param string }{
			{"/subnets/nope", "subnetId"},
			{"/subnets?pageSize=10001", "pageSize"},
			{"/subnets?sortOrder=up", "sortOrder"},
			{"/blockchains/nope", "blockchainId"},
			{"/blockchains/x-chain/assets/nope", "assetId"},
			{"/blockchains/p-chain/assets/" + n.AVAXAssetID.String(), "blockchainId"},
			{"/addresses:listChainIds", "addresses"},
			{"/addresses:listChainIds?addresses=nope", "addresses"},
		} {
			status, body, _ := get(t, base+tc.u)
			if status != 400 || !strings.Contains(string(body), tc.param) {
				t.Errorf("GET %s = %d %s; want 400 naming %s", tc.u, status, body, tc.param)
			}
		}
		for _, u := range []string{"/subnets/" + ids.GenerateTestID().String(), "/blockchains/" + ids.GenerateTestID().String(),
			"/blockchains/x-chain/assets/" + ids.GenerateTestID().String()} {
			if status, body, _ := get(t, base+u); status != 404 {
				t.Errorf("GET %s = %d %s; want 404", u, status, body)
			}
		}
	})
}

// fujiIDs writes the local network's X- and C-chain ids as Fuji's, for
// validating bodies against the schema's closed enums of chain ids.
func fujiIDs(n *testnet.Network) *strings.Replacer {
	return strings.NewReplacer(n.XChainID.String(), "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
		n.CChainID.String(), "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp")
}

// jsonOf is v in JSON, for comparing wire values.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkNetworkDetails compares getNetworkDetails with the node's current
// primary-network validators and supply, worked out here: counts and sums
// of weights and potential rewards, and the staking ratio as the quotient
// of all stake by the supply to six decimals. The chain may move between
// the two reads: it is tried again.
func checkNetworkDetails(t *testing.T, doc *openapitest.Doc, n *testnet.Network, pc *platformvm.Client, base, dsn string) {
	t.Helper()
	ctx := context.Background()
	var problem string
	for attempt := 0; attempt < 5; attempt++ {
		vs, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
		if err != nil {
			t.Fatal(err)
		}
		supply, _, err := pc.GetCurrentSupply(ctx, constants.PrimaryNetworkID)
		if err != nil {
			t.Fatal(err)
		}
		// The versions as the node knows them: its peers' and its own.
		versions, _ := nodePeerView(t, ctx, n.URL)
		byVersion := map[string]*api.StakingDistribution{}
		var vStake, dStake, reward uint64
		dCount := 0
		for _, v := range vs {
			vStake += v.Weight
			if ver := versions[v.NodeID]; ver != "" {
				d := byVersion[ver]
				if d == nil {
					d = &api.StakingDistribution{Version: ver, AmountStaked: "0"}
					byVersion[ver] = d
				}
				staked, _ := strconv.ParseUint(d.AmountStaked, 10, 64)
				d.AmountStaked = strconv.FormatUint(staked+v.Weight, 10)
				d.ValidatorCount++
			}
			if v.PotentialReward != nil {
				reward += *v.PotentialReward
			}
			one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range one[0].Delegators {
				dCount++
				dStake += d.Weight
				if d.PotentialReward != nil {
					reward += *d.PotentialReward
				}
			}
		}
		// The ratio by hand: (stake * 10^6 + supply/2) / supply, written
		// with six decimals.
		scaled := new(big.Int).Mul(new(big.Int).SetUint64(vStake+dStake), big.NewInt(1_000_000))
		scaled.Add(scaled, new(big.Int).SetUint64(supply/2))
		scaled.Div(scaled, new(big.Int).SetUint64(supply))
		ratio := fmt.Sprintf("%d.%06d", new(big.Int).Div(scaled, big.NewInt(1_000_000)), new(big.Int).Mod(scaled, big.NewInt(1_000_000)))
		dist := []api.StakingDistribution{}
		for _, d := range byVersion {
			dist = append(dist, *d)
		}
		slices.SortFunc(dist, func(x, y api.StakingDistribution) int { return strings.Compare(x.Version, y.Version) })
		want := api.GetNetworkDetailsResponse{
			ValidatorDetails: api.ValidatorsDetails{ValidatorCount: len(vs), TotalAmountStaked: fmt.Sprint(vStake),
				EstimatedAnnualStakingReward: fmt.Sprint(reward), StakingDistributionByVersion: dist, StakingRatio: ratio},
			DelegatorDetails: api.DelegatorsDetails{DelegatorCount: dCount, TotalAmountStaked: fmt.Sprint(dStake)},
		}
		var got api.GetNetworkDetailsResponse
		if st := getJSON(t, doc, "/v1/networks/{network}", base, &got); st != 200 {
			t.Fatalf("getNetworkDetails: %d", st)
		}
		if problem = ""; jsonOf(t, got) != jsonOf(t, want) {
			problem = fmt.Sprintf("getNetworkDetails = %+v; from the node %+v", got, want)
			waitAllIndexed(t, n, dsn)
			continue
		}
		if len(vs) == 0 || vStake == 0 {
			t.Error("no current validator to compare")
		}
		return
	}
	t.Error(problem)
}

// checkChainIDs compares getChainIdsForAddresses with the node: every
// chain on which getUTXOs (its own set, or the atomic UTXOs from either
// other chain) answers a UTXO of the address is listed, and a fresh
// address is on none. The body is validated with the local network's
// chain ids written as Fuji's, which the schema's closed enum names.
func checkChainIDs(t *testing.T, doc *openapitest.Doc, n *testnet.Network, base string) {
	t.Helper()
	fresh, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	freshAddr, err := address.FormatBech32(n.HRP, fresh.Address().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	u := base + "/addresses:listChainIds?addresses=" + n.Address + ",X-" + freshAddr
	status, body, _ := get(t, u)
	if err := doc.CheckResponse("GET", "/v1/networks/{network}/addresses:listChainIds", status, []byte(fujiIDs(n).Replace(string(body)))); err != nil {
		t.Errorf("GET %s: %v", u, err)
	}
	var got api.ChainAddressChainIdMapListResponse
	if status != 200 || json.Unmarshal(body, &got) != nil || len(got.Addresses) != 2 {
		t.Fatalf("GET %s = %d %s", u, status, body)
	}
	l := newNodeLists(t, n)
	var want []string
	for _, c := range []struct {
		id   ids.ID
		self internal.Chain
	}{{n.PChainID, internal.PChain}, {n.XChainID, internal.XChain}, {n.CChainID, internal.CChain}} {
		found := false
		for _, src := range []internal.Chain{"", internal.PChain, internal.XChain, internal.CChain} {
			if src == c.self || (c.self == internal.CChain && src == "") {
				continue
			}
			if len(l.utxos(c.self, src, []ids.ShortID{n.Addr})) > 0 {
				found = true
			}
		}
		if found {
			want = append(want, c.id.String())
		}
	}
	ewoq := got.Addresses[0]
	if ewoq.Address != n.Address || len(want) == 0 {
		t.Errorf("addresses[0] = %+v", ewoq)
	}
	for _, w := range want {
		if !slices.Contains(ewoq.BlockchainIDs, w) {
			t.Errorf("%s: blockchainIds %v lack %s, where the node has its UTXOs", n.Address, ewoq.BlockchainIDs, w)
		}
	}
	if got.Addresses[1].Address != freshAddr || len(got.Addresses[1].BlockchainIDs) != 0 {
		t.Errorf("a fresh address = %+v, want no chain", got.Addresses[1])
	}
}

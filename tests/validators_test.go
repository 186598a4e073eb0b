package tests

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	avaapi "github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

const (
	validatorsPath   = "/v1/networks/{network}/validators"
	validatorPath    = "/v1/networks/{network}/validators/{nodeId}"
	delegatorsPath   = "/v1/networks/{network}/delegators"
	l1ValidatorsPath = "/v1/networks/{network}/l1Validators"
)

// rewardUTXOSum is the sum of the reward UTXOs the node has for the staker
// txID (platform.getRewardUTXOs).
func rewardUTXOSum(t *testing.T, pc *platformvm.Client, txID ids.ID) uint64 {
	t.Helper()
	raws, err := pc.GetRewardUTXOs(context.Background(), &api.GetTxArgs{TxID: txID})
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, rb := range raws {
		var u avax.UTXO
		if _, err := ptxs.Codec.Unmarshal(rb, &u); err != nil {
			t.Fatal(err)
		}
		out, ok := u.Out.(*secp256k1fx.TransferOutput)
		if !ok {
			t.Fatalf("reward UTXO of %s: %T", txID, u.Out)
		}
		sum += out.Amount()
	}
	return sum
}

// checkValidatorsAgainstNode compares listValidators' active validations
// of every subnet with platform.getCurrentValidators, and
// listL1Validators with the L1s' validators and platform.getL1Validator.
// It returns how many primary-network validators the node knows the
// version of (itself or a peer): none on the single-node local network,
// whose node validates nothing.
func checkValidatorsAgainstNode(t *testing.T, doc *openapitest.Doc, n *testnet.Network, base string) (versioned int) {
	ctx := context.Background()
	pc := platformvm.NewClient(n.URL)
	subnets, err := pc.GetSubnets(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	maxStake := 3 * units.MegaAvax
	sawL1 := false
	versions, benched := nodePeerView(t, ctx, n.URL)

	for _, s := range subnets {
		nodeVdrs, err := pc.GetCurrentValidators(ctx, s.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath,
			base+"/validators?validationStatus=active&subnetId="+s.ID.String(), "validators", 2)
		byTx := map[string]avaapi.ValidatorDetails{}
		for _, v := range listed {
			byTx[v.TxHash] = v
		}
		var nodeL1 []platformvm.ClientPermissionlessValidator
		stakers := 0
		for _, nv := range nodeVdrs {
			if nv.ValidationID != nil {
				nodeL1 = append(nodeL1, nv)
				continue
			}
			stakers++
			v, ok := byTx[nv.TxID.String()]
			if !ok {
				t.Errorf("subnet %s: validator %s of the node not listed", s.ID, nv.TxID)
				continue
			}
			if v.NodeID != nv.NodeID.String() || v.AmountStaked != strconv.FormatUint(nv.Weight, 10) ||
				v.StartTimestamp != nv.StartTime || v.EndTimestamp != nv.EndTime || v.SubnetID != s.ID.String() {
				t.Errorf("subnet %s validator %s = %+v; node %+v", s.ID, nv.TxID, v, nv.ClientStaker)
			}
			if s.ID != constants.PrimaryNetworkID {
				continue
			}
			if v.DelegatorCount == nil || uint64(*v.DelegatorCount) != *nv.DelegatorCount || v.AmountDelegated != strconv.FormatUint(*nv.DelegatorWeight, 10) {
				t.Errorf("validator %s delegators %v/%s; node %d/%d", nv.TxID, v.DelegatorCount, v.AmountDelegated, *nv.DelegatorCount, *nv.DelegatorWeight)
			}
			if want := fmt.Sprintf("%.4f", nv.DelegationFee); v.DelegationFee != want {
				t.Errorf("validator %s delegationFee %s; node %s", nv.TxID, v.DelegationFee, want)
			}
			if v.PotentialRewards == nil || v.PotentialRewards.ValidationRewardAmount != strconv.FormatUint(*nv.PotentialReward, 10) {
				t.Errorf("validator %s potentialRewards %+v; node %d", nv.TxID, v.PotentialRewards, *nv.PotentialReward)
			}
			if v.UptimePerformance == nil || nv.Uptime == nil || math.Abs(*v.UptimePerformance-float64(*nv.Uptime)) > 1 {
				t.Errorf("validator %s uptime %v; node %v", nv.TxID, v.UptimePerformance, nv.Uptime)
			}
			if v.AvalancheGoVersion != versions[nv.NodeID] {
				t.Errorf("validator %s avalancheGoVersion %q; node %q", nv.TxID, v.AvalancheGoVersion, versions[nv.NodeID])
			}
			if versions[nv.NodeID] != "" {
				versioned++
			}
			pct := func(chain string) float64 {
				if slices.Contains(benched[nv.NodeID], chain) {
					return 100
				}
				return 0
			}
			if h := v.ValidatorHealth; h == nil || h.BenchedPChainRequestsPercent != pct("P") ||
				h.BenchedXChainRequestsPercent != pct("X") || h.BenchedCChainRequestsPercent != pct("C") {
				t.Errorf("validator %s validatorHealth %+v; node benches it on %v", nv.TxID, h, benched[nv.NodeID])
			}
			// The P-chain's bound on a validator's weight with delegations.
			bound := min(5*nv.Weight, maxStake)
			want := uint64(0)
			if used := nv.Weight + *nv.DelegatorWeight; used < bound {
				want = bound - used
			}
			if v.DelegationCapacity != strconv.FormatUint(want, 10) {
				t.Errorf("validator %s delegationCapacity %s, want %d", nv.TxID, v.DelegationCapacity, want)
			}
		}
		if len(listed) != stakers {
			t.Errorf("subnet %s: %d active validators listed, node %d", s.ID, len(listed), stakers)
		}
		// The node lists inactive (disabled) L1 validators too.
		l1s := pageAll[avaapi.L1ValidatorDetailsFull](t, doc, l1ValidatorsPath, base+"/l1Validators?includeInactiveL1Validators=true&subnetId="+s.ID.String(), "validators", 1)
		// A removed validator (weight set to 0, by another test on the
		// shared network) is no current validator of the node's, but an
		// inactive one of avaindex's: listed with weight 0, and the node
		// no longer knows it.
		l1s = slices.DeleteFunc(l1s, func(v avaapi.L1ValidatorDetailsFull) bool {
			if v.Weight != 0 || slices.ContainsFunc(nodeL1, func(nv platformvm.ClientPermissionlessValidator) bool {
				return nv.ValidationID.String() == v.ValidationID
			}) {
				return false
			}
			id, err := ids.FromString(v.ValidationID)
			if err != nil {
				t.Fatalf("listed L1 validator %q: %v", v.ValidationID, err)
			}
			if _, _, err := pc.GetL1Validator(ctx, id); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("L1 validator %s listed with weight 0, and the node knows it (%v)", v.ValidationID, err)
			}
			return true
		})
		if len(l1s) != len(nodeL1) {
			t.Errorf("subnet %s: %d L1 validators listed, node %d", s.ID, len(l1s), len(nodeL1))
		}
		for _, nv := range nodeL1 {
			sawL1 = true
			i := slices.IndexFunc(l1s, func(v avaapi.L1ValidatorDetailsFull) bool { return v.ValidationID == nv.ValidationID.String() })
			if i < 0 {
				t.Errorf("L1 validator %s not listed", nv.ValidationID)
				continue
			}
			v := l1s[i]
			one, height, err := pc.GetL1Validator(ctx, *nv.ValidationID)
			if err != nil {
				t.Fatal(err)
			}
			if v.NodeID != one.NodeID.String() || v.SubnetID != one.SubnetID.String() || v.Weight != one.Weight ||
				v.CreationTimestamp != one.StartTime || v.ValidationIDHex != fmt.Sprintf("0x%x", nv.ValidationID[:]) ||
				v.RemainingBalanceOwner.Threshold != one.RemainingBalanceOwner.Threshold ||
				!slices.Equal(v.RemainingBalanceOwner.Addresses, bech32Of(t, n, one.RemainingBalanceOwner.Addrs...)) ||
				!slices.Equal(v.DeactivationOwner.Addresses, bech32Of(t, n, one.DeactivationOwner.Addrs...)) {
				t.Errorf("L1 validator %s = %+v; node %+v", nv.ValidationID, v, one)
			}
			var listedAt avaapi.ListL1ValidatorsResponse
			getJSON(t, doc, l1ValidatorsPath, base+"/l1Validators?includeInactiveL1Validators=true&l1ValidationId="+nv.ValidationID.String(), &listedAt)
			if len(listedAt.Validators) != 1 || listedAt.Validators[0].ValidationID != nv.ValidationID.String() {
				t.Errorf("l1ValidationId=%s: %+v", nv.ValidationID, listedAt)
			} else if listedAt.BlockHeight == strconv.FormatUint(height, 10) && listedAt.Validators[0].RemainingBalance != one.Balance {
				t.Errorf("L1 validator %s remainingBalance %d at %s; node %d", nv.ValidationID, listedAt.Validators[0].RemainingBalance, listedAt.BlockHeight, one.Balance)
			}
			var byNode avaapi.ListL1ValidatorsResponse
			getJSON(t, doc, l1ValidatorsPath, base+"/l1Validators?includeInactiveL1Validators=true&nodeId="+one.NodeID.String(), &byNode)
			if !slices.ContainsFunc(byNode.Validators, func(x avaapi.L1ValidatorDetailsFull) bool { return x.ValidationID == v.ValidationID }) {
				t.Errorf("nodeId=%s does not list %s", one.NodeID, v.ValidationID)
			}
		}
	}
	if !sawL1 {
		t.Error("no L1 validator on the network")
	}
	return versioned
}

// TestValidatorsMatchNode compares, on both stores of the local network,
// the validator lists with platform.getCurrentValidators (each subnet),
// platform.getL1Validator and the completed staker's reward UTXOs.
func TestValidatorsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	doc := openapitest.Default(t)
	pc := platformvm.NewClient(n.URL)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet") + "/v1/networks/testnet"
		waitAllIndexed(t, n, dsn)
		checkValidatorsAgainstNode(t, doc, n, base)

		// The issued validator completed with its RewardValidatorTx; its
		// rewards are its reward UTXOs.
		node := issued.Validator.NodeID.String()
		done := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath,
			base+"/validators?validationStatus=completed&nodeIds="+url.QueryEscape(node[7:20]), "validators", 1)
		i := slices.IndexFunc(done, func(v avaapi.ValidatorDetails) bool { return v.TxHash == issued.AddValidatorTx.String() })
		if i < 0 {
			t.Fatalf("completed validator %s not listed: %+v", issued.AddValidatorTx, done)
		}
		v := done[i]
		if v.Rewards == nil || v.Rewards.RewardTxHash != issued.RewardValidatorTx.String() || v.DelegatorCount == nil || *v.DelegatorCount != 1 ||
			v.AmountDelegated != strconv.FormatUint(issued.Delegator.Weight, 10) || v.BlsCredentials == nil {
			t.Errorf("completed validator = %+v", v)
		} else {
			vr, _ := strconv.ParseUint(v.Rewards.ValidationRewardAmount, 10, 64)
			dr, _ := strconv.ParseUint(v.Rewards.DelegationRewardAmount, 10, 64)
			if sum := rewardUTXOSum(t, pc, issued.AddValidatorTx); vr+dr != sum || vr == 0 {
				t.Errorf("completed validator rewards %d + %d; reward UTXOs %d", vr, dr, sum)
			}
		}
		// The node's validations, and the completed one alone.
		all := pageAll[avaapi.ValidatorDetails](t, doc, validatorPath, base+"/validators/"+node+"?sortOrder=asc", "validators", 1)
		if len(all) == 0 || all[len(all)-1].TxHash != issued.AddValidatorTx.String() && all[0].TxHash != issued.AddValidatorTx.String() {
			t.Errorf("getSingleValidatorDetails(%s) = %+v", node, all)
		}
		// The delegator: its net reward is its reward UTXOs.
		dels := pageAll[avaapi.DelegatorDetails](t, doc, delegatorsPath, base+"/delegators?delegationStatus=completed&nodeIds="+node, "delegators", 1)
		if len(dels) != 1 || dels[0].TxHash != issued.AddDelegatorTx.String() {
			t.Fatalf("completed delegators of %s: %+v", node, dels)
		}
		d := dels[0]
		if net, _ := strconv.ParseUint(d.NetReward, 10, 64); net != rewardUTXOSum(t, pc, issued.AddDelegatorTx) || d.DelegationFee != v.DelegationFee {
			t.Errorf("delegator %+v; reward UTXOs %d", d, rewardUTXOSum(t, pc, issued.AddDelegatorTx))
		}
		byOwner := pageAll[avaapi.DelegatorDetails](t, doc, delegatorsPath, base+"/delegators?rewardAddresses="+d.RewardAddresses[0], "delegators", 5)
		if !slices.ContainsFunc(byOwner, func(x avaapi.DelegatorDetails) bool { return x.TxHash == d.TxHash }) {
			t.Errorf("rewardAddresses=%s does not list %s", d.RewardAddresses[0], d.TxHash)
		}

		// Sorts: each order's keys in order, asc the reverse of desc.
		for _, by := range []string{"blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance"} {
			asc := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath, base+"/validators?sortOrder=asc&sortBy="+by, "validators", 2)
			desc := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath, base+"/validators?sortOrder=desc&sortBy="+by, "validators", 3)
			slices.Reverse(desc)
			if jsonOf(t, asc) != jsonOf(t, desc) || len(asc) == 0 {
				t.Errorf("sortBy=%s: asc is not desc reversed (%d, %d items)", by, len(asc), len(desc))
			}
			if by == "timeRemaining" {
				for i := 1; i < len(asc); i++ {
					if asc[i].EndTimestamp < asc[i-1].EndTimestamp {
						t.Errorf("sortBy=timeRemaining: %d after %d", asc[i].EndTimestamp, asc[i-1].EndTimestamp)
					}
				}
			}
		}
		// Filters: a capacity window around the genesis validators', the
		// fee window, time remaining.
		act := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath, base+"/validators?validationStatus=active&subnetId="+constants.PrimaryNetworkID.String(), "validators", 10)
		if len(act) == 0 {
			t.Fatal("no active validator")
		}
		c := act[0].DelegationCapacity
		for _, f := range []struct {
			q          string
			onlyActive bool
		}{
			{"minDelegationCapacity=" + c + "&maxDelegationCapacity=" + c, true},
			{"minFeePercentage=2&maxFeePercentage=100", false},
			{"minTimeRemaining=1", false},
			{"minUptimePerformance=0&maxUptimePerformance=100", true},
		} {
			got := pageAll[avaapi.ValidatorDetails](t, doc, validatorsPath, base+"/validators?"+f.q, "validators", 10)
			if !slices.ContainsFunc(got, func(x avaapi.ValidatorDetails) bool { return x.TxHash == act[0].TxHash }) {
				t.Errorf("%s does not list %s", f.q, act[0].TxHash)
			}
			for _, x := range got {
				if f.onlyActive && x.ValidationStatus != "active" {
					t.Errorf("%s lists a %s validator", f.q, x.ValidationStatus)
				}
			}
		}
		for _, bad := range []string{"validationStatus=done", "sortBy=stake", "minFeePercentage=1", "minDelegationCapacity=-1",
			"maxUptimePerformance=101", "subnetId=nope", "minTimeRemaining=x"} {
			if st, body, _ := get(t, base+"/validators?"+bad); st != 400 {
				t.Errorf("?%s: %d %s", bad, st, body)
			}
		}
		if st, _, _ := get(t, base+"/validators/NodeID-nope"); st != 400 {
			t.Errorf("bad nodeId: %d", st)
		}
	})
}

// TestL1ValidatorsMatchNodeOnCustomNetwork runs on the custom network,
// whose genesis validator is the node itself and whose L1 has real
// validators, and compares the lists with the node there.
func TestL1ValidatorsMatchNodeOnCustomNetwork(t *testing.T) {
	n := testnet.GetCustom(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l1, err := n.CreateL1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A second L1 whose only validator is disabled: inactive.
	off, err := n.CreateL1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	offVdr := off.Validators()[0].ValidationID
	if _, err := n.DisableL1Validator(ctx, offVdr); err != nil {
		t.Fatal(err)
	}
	doc := openapitest.Default(t)
	tip, err := platformvm.NewClient(n.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, base, tip, time.Minute)
		// The custom network's genesis validator is the node: its version
		// is known.
		if checkValidatorsAgainstNode(t, doc, n, base+"/v1/networks/testnet") == 0 {
			t.Error("no primary-network validator whose version the node knows")
		}
		// Inactive validators on request only.
		q := base + "/v1/networks/testnet/l1Validators?subnetId="
		all := pageAll[avaapi.L1ValidatorDetailsFull](t, doc, l1ValidatorsPath, q+off.SubnetID.String()+"&includeInactiveL1Validators=true", "validators", 3)
		act := pageAll[avaapi.L1ValidatorDetailsFull](t, doc, l1ValidatorsPath, q+off.SubnetID.String(), "validators", 3)
		if len(all) != 1 || all[0].ValidationID != offVdr.String() || all[0].RemainingBalance != 0 || len(act) != 0 {
			t.Errorf("disabled L1 validator: with inactive %+v, without %+v", all, act)
		}
		on := pageAll[avaapi.L1ValidatorDetailsFull](t, doc, l1ValidatorsPath, q+l1.SubnetID.String(), "validators", 3)
		if len(on) != 1 || on[0].ValidationID != l1.Validators()[0].ValidationID.String() || on[0].RemainingBalance == 0 {
			t.Errorf("active L1 validator: %+v", on)
		}
	})
}

// TestEVML1Validators: the real subnet-evm L1's conversion, its validator
// (the node) and its subnet, in listL1Validators, listSubnets and
// getSubnetById, against the node (#23's primary-network side).
func TestEVML1Validators(t *testing.T) {
	l := testnet.GetL1(t)
	doc := openapitest.Default(t)
	ctx := context.Background()
	tip, err := platformvm.NewClient(l.URL).GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		root := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, root, tip, time.Minute)
		base := root + "/v1/networks/testnet"
		checkValidatorsAgainstNode(t, doc, l.Net, base)

		vdr := l.L1.Validators()[0]
		var got avaapi.ListL1ValidatorsResponse
		getJSON(t, doc, l1ValidatorsPath, base+"/l1Validators?subnetId="+l.SubnetID.String(), &got)
		if len(got.Validators) != 1 || got.Validators[0].ValidationID != vdr.ValidationID.String() ||
			got.Validators[0].NodeID != l.Node.String() || got.Validators[0].Weight != testnet.L1NodeWeight {
			t.Errorf("the L1's validators = %+v; want %s on %s, weight %d", got.Validators, vdr.ValidationID, l.Node, testnet.L1NodeWeight)
		}
		// The L1's subnet as platform.getSubnet has it: its owner, its
		// conversion and manager, and its chain as platform.getBlockchains
		// has it, with the genesis it was created with (the reference's
		// EvmGenesisDto: the precompile configs and the fee config).
		info, err := platformvm.NewClient(l.URL).GetSubnet(ctx, l.SubnetID)
		if err != nil {
			t.Fatal(err)
		}
		var sub avaapi.Subnet
		getJSON(t, doc, "/v1/networks/{network}/subnets/{subnetId}", base+"/subnets/"+l.SubnetID.String(), &sub)
		owners := bech32Of(t, l.Net, info.ControlKeys...)
		if !sub.IsL1 || info.ConversionID == ids.Empty || sub.L1ConversionTransactionHash != l.L1.ConvertSubnetToL1Tx.String() ||
			sub.L1ValidatorManagerDetails == nil || sub.L1ValidatorManagerDetails.BlockchainID != info.ManagerChainID.String() ||
			!strings.EqualFold(sub.L1ValidatorManagerDetails.ContractAddress, fmt.Sprintf("0x%x", info.ManagerAddress)) ||
			sub.Threshold != info.Threshold || sub.Locktime != info.Locktime || !slices.Equal(sub.OwnerAddresses, owners) {
			t.Errorf("getSubnetById(%s) = %+v; node %+v", l.SubnetID, sub, info)
		}
		nodeChains, err := platformvm.NewClient(l.URL).GetBlockchains(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var onL1 []string
		for _, c := range nodeChains {
			if c.SubnetID == l.SubnetID {
				onL1 = append(onL1, c.ID.String())
			}
		}
		slices.Sort(onL1)
		var subChains []string
		for _, b := range sub.Blockchains {
			subChains = append(subChains, b.BlockchainID)
		}
		slices.Sort(subChains)
		if !slices.Equal(subChains, onL1) {
			t.Errorf("getSubnetById(%s).blockchains = %v; the node's %v", l.SubnetID, subChains, onL1)
		}
		subnets := pageAll[avaapi.Subnet](t, doc, "/v1/networks/{network}/subnets", base+"/subnets?sortOrder=desc", "subnets", 5)
		if i := slices.IndexFunc(subnets, func(s avaapi.Subnet) bool { return s.SubnetID == l.SubnetID.String() }); i < 0 ||
			jsonOf(t, subnets[i]) != jsonOf(t, sub) {
			t.Errorf("listSubnets does not list the L1 %s as getSubnetById does", l.SubnetID)
		}
		chains := pageAll[avaapi.Blockchain](t, doc, "/v1/networks/{network}/blockchains", base+"/blockchains?sortOrder=desc", "blockchains", 5)
		var chain avaapi.Blockchain
		getJSON(t, doc, "/v1/networks/{network}/blockchains/{blockchainId}", base+"/blockchains/"+l.BlockchainID.String(), &chain)
		if i := slices.IndexFunc(chains, func(c avaapi.Blockchain) bool { return c.BlockchainID == l.BlockchainID.String() }); i < 0 ||
			jsonOf(t, chains[i]) != jsonOf(t, chain) {
			t.Errorf("listBlockchains does not list the L1's chain %s as getBlockchainById does", l.BlockchainID)
		}
		if chain.SubnetID != l.SubnetID.String() || chain.VMID != testnet.SubnetEVMID.String() || chain.EVMChainID == nil ||
			*chain.EVMChainID != l.EVMChainID || !sameJSONValue(t, chain.GenesisData, l.Genesis) {
			t.Errorf("getBlockchainById(%s) = %+v; want subnet %s, VM %s, EVM chain %d and genesis %s",
				l.BlockchainID, chain, l.SubnetID, testnet.SubnetEVMID, l.EVMChainID, l.Genesis)
		}
		doc.ValidateSchema(t, "EvmGenesisDto", chain.GenesisData)
	})
}

// nodePeerView is the node's view of each validator as a peer: its
// version (the node's own for itself) and the chains it benches it on.
func nodePeerView(t *testing.T, ctx context.Context, nodeURL string) (versions map[ids.NodeID]string, benched map[ids.NodeID][]string) {
	t.Helper()
	ic := info.NewClient(nodeURL)
	self, _, err := ic.GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own, err := ic.GetNodeVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	peers, err := ic.Peers(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	versions, benched = map[ids.NodeID]string{self: own.Version}, map[ids.NodeID][]string{}
	for _, p := range peers {
		versions[p.ID], benched[p.ID] = p.Version, p.Benched
	}
	return versions, benched
}

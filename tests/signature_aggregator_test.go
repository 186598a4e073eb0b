package tests

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"google.golang.org/protobuf/proto"

	pvmpb "github.com/ava-labs/avalanchego/proto/pb/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
	"github.com/avaindex/avaindex/internal/warpagg/warptest"
)

// The signature aggregator against the custom network, where the node is
// a validator with a BLS key and warp messages verify: the node's P-chain
// and C-chain sign over ACP-118 for real, and every aggregated signature is
// checked with avalanchego's warp verification against the validator set
// the node reports. Each test runs on both stores.

const (
	postAggregate = "/v1/signatureAggregator/{network}/aggregateSignatures"
	getAggregate  = "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}"
)

// aggregation is one answer of the signature aggregator.
type aggregation struct {
	status int
	body   []byte
	header http.Header
}

func (a aggregation) String() string { return fmt.Sprintf("%d %s", a.status, a.body) }

// message returns the error body's message.
func (a aggregation) message(t *testing.T) string {
	t.Helper()
	var body struct {
		Message    string `json:"message"`
		StatusCode int    `json:"statusCode"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil || body.StatusCode != a.status {
		t.Fatalf("error body %s (%v)", a.body, err)
	}
	return body.Message
}

func getAggregation(t *testing.T, base, txID, query string) aggregation {
	t.Helper()
	u := base + "/v1/signatureAggregator/testnet/aggregateSignatures/" + txID
	if query != "" {
		u += "?" + query
	}
	status, body, header := get(t, u)
	openapitest.ValidateResponse(t, "GET", getAggregate, status, body)
	return aggregation{status, body, header}
}

func postAggregation(t *testing.T, base string, req map[string]any) aggregation {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/v1/signatureAggregator/testnet/aggregateSignatures", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	openapitest.ValidateResponse(t, "POST", postAggregate, resp.StatusCode, body)
	return aggregation{resp.StatusCode, body, resp.Header}
}

// verified parses a 201's signed message and verifies it with avalanchego's
// warp verification at quorum q% against the validators of subnetID at the
// P-chain height the aggregator used, as the node reports them; it returns
// the message and its signers.
func verified(t *testing.T, n *testnet.Network, a aggregation, subnetID ids.ID, q uint64) (*warp.Message, set.Set[ids.NodeID]) {
	t.Helper()
	if a.status != http.StatusCreated {
		t.Fatalf("aggregation: %s, want 201", a)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var body struct {
		SignedMessage string `json:"signedMessage"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(body.SignedMessage)
	if err != nil {
		t.Fatalf("signedMessage is not hex: %v", err)
	}
	msg, err := warp.ParseMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	height, err := strconv.ParseUint(a.header.Get("X-Avaindex-P-Chain-Height"), 10, 64)
	if err != nil {
		t.Fatalf("P-chain height header: %v", err)
	}
	vdrs, err := n.PClient().GetValidatorsAt(context.Background(), subnetID, platformapi.Height(height))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := validators.FlattenValidatorSet(vdrs)
	if err != nil {
		t.Fatal(err)
	}
	if err := msg.Signature.Verify(&msg.UnsignedMessage, n.NetworkID, ws, q, 100); err != nil {
		t.Fatalf("the aggregated signature does not verify against subnet %s at P-chain height %d at %d%%: %v", subnetID, height, q, err)
	}
	bits := set.BitsFromBytes(msg.Signature.(*warp.BitSetSignature).Signers)
	signers, err := warp.FilterValidators(bits, ws.Validators)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Set[ids.NodeID]{}
	for _, v := range signers {
		out.Add(v.NodeIDs...)
	}
	return msg, out
}

// l1Payload returns the L1 message a P-chain warp message carries.
func l1Payload(t *testing.T, m *warp.UnsignedMessage) message.Payload {
	t.Helper()
	if m.SourceChainID != constants.PlatformChainID {
		t.Fatalf("message from %s, want the P-chain", m.SourceChainID)
	}
	call, err := payload.ParseAddressedCall(m.Payload)
	if err != nil {
		t.Fatal(err)
	}
	p, err := message.Parse(call.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// indexedNow waits until avaindex has indexed the node's P-chain tip.
func indexedNow(t *testing.T, n *testnet.Network, base string) {
	t.Helper()
	tip, err := n.PClient().GetHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, base, tip, time.Minute)
}

// conversionMessage builds, as the P-chain does, the SubnetToL1Conversion
// warp message of l1, converted with the validators specs.
func conversionMessage(t *testing.T, n *testnet.Network, l1 *testnet.L1, specs []testnet.L1ValidatorSpec) *warp.UnsignedMessage {
	t.Helper()
	// The P-chain lists a conversion's validators sorted by node id.
	specs = slices.Clone(specs)
	slices.SortFunc(specs, func(a, b testnet.L1ValidatorSpec) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	conversion := message.SubnetToL1ConversionData{SubnetID: l1.SubnetID, ManagerChainID: l1.ManagerChainID, ManagerAddress: l1.ManagerAddress}
	for _, s := range specs {
		conversion.Validators = append(conversion.Validators, message.SubnetToL1ConversionValidatorData{NodeID: s.NodeID.Bytes(), BLSPublicKey: s.PoP.PublicKey, Weight: s.Weight})
	}
	conversionID, err := message.SubnetToL1ConversionID(conversion)
	if err != nil {
		t.Fatal(err)
	}
	l1Msg, err := message.NewSubnetToL1Conversion(conversionID)
	if err != nil {
		t.Fatal(err)
	}
	call, err := payload.NewAddressedCall(nil, l1Msg.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := warp.NewUnsignedMessage(n.NetworkID, constants.PlatformChainID, call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSignatureAggregatorL1 converts a subnet to an L1 whose validator is
// the node itself (its NodeID and proof of possession from info.getNodeID),
// so that the node's P-chain signs the L1's messages over ACP-118, and gets
// the aggregated signature of each L1 transaction's message: the
// conversion, a registration, a weight change and a removal.
func TestSignatureAggregatorL1(t *testing.T) {
	n := testnet.GetCustom(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile, "--network-alias", "testnet")

		node, err := n.NodeAsL1Validator(ctx, 100, testnet.L1ValidatorBalance)
		if err != nil {
			t.Fatal(err)
		}
		l1, err := n.CreateL1With(ctx, []testnet.L1ValidatorSpec{node})
		if err != nil {
			t.Fatal(err)
		}
		indexedNow(t, n, base)

		// The conversion: SubnetToL1Conversion, signed by the L1's validator,
		// the node.
		a := getAggregation(t, base, l1.ConvertSubnetToL1Tx.String(), "")
		msg, signers := verified(t, n, a, l1.SubnetID, 67)
		if _, ok := l1Payload(t, &msg.UnsignedMessage).(*message.SubnetToL1Conversion); !ok || !signers.Contains(node.NodeID) {
			t.Errorf("conversion: payload %T, signers %v", l1Payload(t, &msg.UnsignedMessage), signers)
		}
		if a.header.Get("X-Avaindex-Signing-Subnet") != l1.SubnetID.String() {
			t.Errorf("signed by subnet %s, want the L1 %s", a.header.Get("X-Avaindex-Signing-Subnet"), l1.SubnetID)
		}

		// The justification alone: the registration message (registered=false)
		// of the node's validation, which the node refuses to sign while the
		// validation exists: the caller's mistake, a 400 with the node's reason.
		j, err := proto.Marshal(&pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
			ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: l1.SubnetID[:], Index: 0}}})
		if err != nil {
			t.Fatal(err)
		}
		a = postAggregation(t, base, map[string]any{"justification": hex.EncodeToString(j), "signingSubnetId": l1.SubnetID.String()})
		if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "refused to sign") || !strings.Contains(a.message(t), "exists") {
			t.Errorf("registration of a current validation: %s, want a 400 saying the node refused", a)
		}

		// A registration, whose warp message the node's key signs as the L1's
		// validator; then its message: L1ValidatorRegistration, registered.
		if _, err := n.AdvanceEpoch(ctx, l1.ConvertedHeight); err != nil {
			t.Fatal(err)
		}
		reg, err := n.RegisterL1Validator(ctx, l1, testnet.L1RegisteredWeight, testnet.L1RegisteredBalance)
		if err != nil {
			t.Fatal(err)
		}
		indexedNow(t, n, base)
		a = getAggregation(t, base, reg.TxID.String(), "")
		msg, _ = verified(t, n, a, l1.SubnetID, 67)
		if p, ok := l1Payload(t, &msg.UnsignedMessage).(*message.L1ValidatorRegistration); !ok || p.ValidationID != reg.ValidationID || !p.Registered {
			t.Errorf("registration: %+v", l1Payload(t, &msg.UnsignedMessage))
		}

		// A weight change: L1ValidatorWeight with the tx's nonce and weight.
		setID, err := n.SetL1ValidatorWeight(ctx, l1, reg.ValidationID, 0, testnet.L1UpdatedWeight)
		if err != nil {
			t.Fatal(err)
		}
		indexedNow(t, n, base)
		a = getAggregation(t, base, setID.String(), "")
		msg, _ = verified(t, n, a, l1.SubnetID, 67)
		if p, ok := l1Payload(t, &msg.UnsignedMessage).(*message.L1ValidatorWeight); !ok || p.ValidationID != reg.ValidationID || p.Weight != testnet.L1UpdatedWeight || p.Nonce != 0 {
			t.Errorf("weight: %+v", l1Payload(t, &msg.UnsignedMessage))
		}

		// Weight 0 removes it: the registration message with registered=false,
		// justified by the RegisterL1Validator message.
		removeID, err := n.SetL1ValidatorWeight(ctx, l1, reg.ValidationID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		indexedNow(t, n, base)
		a = getAggregation(t, base, removeID.String(), "")
		msg, _ = verified(t, n, a, l1.SubnetID, 67)
		if p, ok := l1Payload(t, &msg.UnsignedMessage).(*message.L1ValidatorRegistration); !ok || p.ValidationID != reg.ValidationID || p.Registered {
			t.Errorf("removal: %+v", l1Payload(t, &msg.UnsignedMessage))
		}

		// An unknown tx is a 404; a P-chain tx without L1 message a 400.
		if a := getAggregation(t, base, ids.GenerateTestID().String(), ""); a.status != http.StatusNotFound || !strings.Contains(a.message(t), "not found") {
			t.Errorf("unknown tx: %s", a)
		}
		if a := getAggregation(t, base, l1.CreateSubnetTx.String(), ""); a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "carries no L1 message") {
			t.Errorf("CreateSubnetTx: %s", a)
		}
	})
}

// TestSignatureAggregatorFailures runs an L1 of three validators: the node
// (weight 50), an in-process peer that answers a wrong signature (25) and
// one that never answers (25), both real peers of the network with
// registered BLS keys, connected to the node so that the aggregator finds
// them through the node's info.peers.
func TestSignatureAggregatorFailures(t *testing.T) {
	n := testnet.GetCustom(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()

		nodeID, _, err := n.InfoClient().GetNodeID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		nodeIP, err := n.InfoClient().GetNodeIP(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var specs []testnet.L1ValidatorSpec
		node, err := n.NodeAsL1Validator(ctx, 50, testnet.L1ValidatorBalance)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, node)
		peers := map[warptest.Behavior]*warptest.Validator{}
		for _, b := range []warptest.Behavior{warptest.WrongSignature, warptest.Silent} {
			v, err := warptest.NewValidator(n.NetworkID, 25, b, nil, constants.PlatformChainID)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(v.Close)
			peers[b] = v
			v.Connect(nodeID, nodeIP)
			if err := v.WaitConnected(ctx, nodeID); err != nil {
				t.Fatal(err)
			}
			pop, err := v.ProofOfPossession()
			if err != nil {
				t.Fatal(err)
			}
			specs = append(specs, testnet.L1ValidatorSpec{NodeID: v.NodeID(), PoP: pop, Weight: 25, Balance: testnet.L1ValidatorBalance})
		}
		wrong, silent := peers[warptest.WrongSignature].NodeID(), peers[warptest.Silent].NodeID()
		l1, err := n.CreateL1With(ctx, specs)
		if err != nil {
			t.Fatal(err)
		}
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile, "--network-alias", "testnet")
		indexedNow(t, n, base)

		want := conversionMessage(t, n, l1, specs)
		unsigned := hex.EncodeToString(want.Bytes())

		// A bad justification: malformed, refused up front; well-formed but
		// for a subnet that was not converted, refused by the node (its
		// refusal makes the quorum unreachable: the caller's fault, a 400).
		a := postAggregation(t, base, map[string]any{"message": unsigned, "justification": "0x0102", "signingSubnetId": l1.SubnetID.String()})
		if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "32-byte id of the converted subnet") {
			t.Errorf("malformed justification: %s", a)
		}
		other := make([]byte, 32)
		if _, err := rand.Read(other); err != nil {
			t.Fatal(err)
		}
		a = postAggregation(t, base, map[string]any{"message": "0x" + unsigned, "justification": hex.EncodeToString(other), "signingSubnetId": l1.SubnetID.String()})
		if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "has not been converted") || !strings.Contains(a.message(t), nodeID.String()) {
			t.Errorf("justification of another subnet: %s, want a 400 with the node's refusal", a)
		}

		// Quorum 50: the node alone suffices; the wrong signature is excluded
		// and its weight is not counted.
		a = getAggregation(t, base, l1.ConvertSubnetToL1Tx.String(), "quorumPercentage=50")
		msg, signers := verified(t, n, a, l1.SubnetID, 50)
		if msg.UnsignedMessage.ID() != want.ID() {
			t.Errorf("the GET signed another message than the conversion's")
		}
		if signers.Len() != 1 || !signers.Contains(nodeID) {
			t.Errorf("signers %v, want only the node", signers)
		}
		if a.header.Get("X-Avaindex-Signed-Weight") != "50" || a.header.Get("X-Avaindex-Total-Weight") != "100" {
			t.Errorf("weights signed %s of %s, want 50 of 100", a.header.Get("X-Avaindex-Signed-Weight"), a.header.Get("X-Avaindex-Total-Weight"))
		}

		// Quorum 67 cannot be reached: 503, saying how much signed, how much
		// was needed, and who did not sign and why.
		start := time.Now()
		a = getAggregation(t, base, l1.ConvertSubnetToL1Tx.String(), "")
		if a.status != http.StatusServiceUnavailable {
			t.Fatalf("quorum 67: %s, want 503", a)
		}
		m := a.message(t)
		for _, want := range []string{"50 of the 100", "67 (67%)", "did not answer", silent.String(), "answered an invalid signature", wrong.String()} {
			if !strings.Contains(m, want) {
				t.Errorf("message %q lacks %q", m, want)
			}
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the failing aggregation took %s", d)
		}
	})
}

// The warp precompile of the C-chain and its SendWarpMessage event.
var (
	warpPrecompile = common.HexToAddress("0x0200000000000000000000000000000000000005")
	warpABI        = func() abi.ABI {
		a, err := abi.JSON(strings.NewReader(`[
			{"type":"function","name":"sendWarpMessage","stateMutability":"nonpayable",
			 "inputs":[{"name":"payload","type":"bytes"}],"outputs":[{"name":"messageID","type":"bytes32"}]},
			{"type":"event","name":"SendWarpMessage","anonymous":false,
			 "inputs":[{"name":"sender","type":"address","indexed":true},{"name":"messageID","type":"bytes32","indexed":true},{"name":"message","type":"bytes","indexed":false}]}]`))
		if err != nil {
			panic(err)
		}
		return a
	}()
)

// evmSender sends an EVM tx from the local key on one chain
// (Network.SendEVMTx on the C-chain, EVML1.SendEVMTx on an L1).
type evmSender func(ctx context.Context, to *common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error)

// sendWarp sends payload through the warp precompile of send's chain and
// returns the data of the SendWarpMessage log.
func sendWarp(t *testing.T, ctx context.Context, send evmSender, payload []byte) []byte {
	t.Helper()
	data, err := warpABI.Pack("sendWarpMessage", payload)
	if err != nil {
		t.Fatal(err)
	}
	r, err := send(ctx, &warpPrecompile, nil, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	event := warpABI.Events["SendWarpMessage"].ID
	for _, l := range r.Logs {
		if l.Address == warpPrecompile && len(l.Topics) == 3 && l.Topics[0] == event {
			return l.Data
		}
	}
	t.Fatalf("no SendWarpMessage log in %+v", r.Logs)
	return nil
}

// unsignedOfLog is the unsigned warp message of a SendWarpMessage log's
// data.
func unsignedOfLog(t *testing.T, logData []byte) *warp.UnsignedMessage {
	t.Helper()
	values, err := warpABI.Events["SendWarpMessage"].Inputs.NonIndexed().Unpack(logData)
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := warp.ParseUnsignedMessage(values[0].([]byte))
	if err != nil {
		t.Fatal(err)
	}
	return unsigned
}

// TestSignatureAggregatorCChainWarp sends warp messages from the C-chain
// through the warp precompile and aggregates them with POST, given as the
// log's data and as the raw unsigned message: the node's C-chain signs
// them for the primary network.
func TestSignatureAggregatorCChainWarp(t *testing.T) {
	n := testnet.GetCustom(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile, "--network-alias", "testnet")
		// Until the service has asked the node its network, the surfaces
		// answer 503; the aggregator also needs the P-chain's validators.
		indexedNow(t, n, base)
		nodeID, _, err := n.InfoClient().GetNodeID(ctx)
		if err != nil {
			t.Fatal(err)
		}

		for i, form := range []string{"log data", "raw"} {
			logData := sendWarp(t, ctx, n.SendEVMTx, fmt.Appendf(nil, "avaindex warp test %d %d", i, time.Now().UnixNano()))
			unsigned := unsignedOfLog(t, logData)
			if unsigned.SourceChainID != n.CChainID {
				t.Fatalf("the message is from %s, not the C-chain %s", unsigned.SourceChainID, n.CChainID)
			}
			var in string
			if form == "log data" {
				in = hex.EncodeToString(logData)
			} else {
				in = "0x" + hex.EncodeToString(unsigned.Bytes())
			}
			a := postAggregation(t, base, map[string]any{"message": in})
			msg, signers := verified(t, n, a, constants.PrimaryNetworkID, 67)
			if msg.UnsignedMessage.ID() != unsigned.ID() {
				t.Errorf("%s: signed another message", form)
			}
			if !signers.Contains(nodeID) {
				t.Errorf("%s: signers %v lack the node", form, signers)
			}
		}
	})
}

// TestSignatureAggregatorL1Warp sends a warp message from a real subnet-evm
// L1's chain through its warp precompile and aggregates it given as the
// log's data: the L1's validator set (the node, through its subnet-evm
// plugin) signs it, and it verifies with avalanchego's warp verification
// against the L1's validators.
func TestSignatureAggregatorL1Warp(t *testing.T) {
	l := testnet.GetL1(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Warp follows the validator set of the P-chain's epoch: one that
	// began after the conversion.
	if _, err := l.Net.AdvanceEpoch(ctx, l.L1.ConvertedHeight); err != nil {
		t.Fatal(err)
	}
	tip, err := l.Net.PClient().GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, base, tip, time.Minute)
		logData := sendWarp(t, ctx, l.SendEVMTx, fmt.Appendf(nil, "avaindex L1 warp test %d", time.Now().UnixNano()))
		unsigned := unsignedOfLog(t, logData)
		if unsigned.SourceChainID != l.BlockchainID || unsigned.NetworkID != l.Net.NetworkID {
			t.Fatalf("the message is from %s on network %d, not the L1's chain %s", unsigned.SourceChainID, unsigned.NetworkID, l.BlockchainID)
		}
		a := postAggregation(t, base, map[string]any{"message": hex.EncodeToString(logData)})
		msg, signers := verified(t, l.Net, a, l.SubnetID, 67)
		if msg.UnsignedMessage.ID() != unsigned.ID() {
			t.Error("signed another message")
		}
		if !signers.Contains(l.Node) {
			t.Errorf("signers %v lack the L1's validator %s", signers, l.Node)
		}
	})
}

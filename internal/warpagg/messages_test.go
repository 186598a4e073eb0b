package warpagg_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/libevm/accounts/abi"

	pvmpb "github.com/ava-labs/avalanchego/proto/pb/platformvm"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/warpagg"
)

func readHex(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	out, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func abiEncodeBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	bytesType, err := abi.NewType("bytes", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := abi.Arguments{{Type: bytesType}}.Pack(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseMessage(t *testing.T) {
	// The schema's example request is the ABI-encoded data of a
	// SendWarpMessage log; its example response is that message signed.
	logData := readHex(t, "schema-example-message.hex")
	signed, err := warp.ParseMessage(readHex(t, "schema-example-signed.hex"))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := warpagg.ParseMessage(logData)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(msg.Bytes(), signed.UnsignedMessage.Bytes()) {
		t.Error("the example log data does not decode to the example's signed message")
	}
	if msg.NetworkID != constants.FujiID {
		t.Errorf("network %d, want fuji", msg.NetworkID)
	}

	// The raw form, and libevm's own ABI encoding of it.
	raw := msg.Bytes()
	for name, in := range map[string][]byte{"raw": raw, "abi": abiEncodeBytes(t, raw)} {
		got, err := warpagg.ParseMessage(in)
		if err != nil || !bytes.Equal(got.Bytes(), raw) {
			t.Errorf("%s: %v", name, err)
		}
	}

	for name, in := range map[string][]byte{
		"empty":        nil,
		"garbage":      []byte("not a message"),
		"abi garbage":  abiEncodeBytes(t, []byte("not a message")),
		"truncated":    raw[:len(raw)-1],
		"abi trailing": append(abiEncodeBytes(t, raw), 1),
	} {
		_, err := warpagg.ParseMessage(in)
		if derrors.ToStatus(err) != http.StatusBadRequest {
			t.Errorf("%s: %v, want a 400", name, err)
		}
	}
}

func pMessage(t *testing.T, l1 []byte) *warp.UnsignedMessage {
	t.Helper()
	call, err := payload.NewAddressedCall(nil, l1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := warp.NewUnsignedMessage(networkID, constants.PlatformChainID, call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func justification(t *testing.T, j *pvmpb.L1ValidatorRegistrationJustification) []byte {
	t.Helper()
	b, err := proto.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckPChainMessage(t *testing.T) {
	l1 := ids.GenerateTestID()
	conv, _ := message.NewSubnetToL1Conversion(ids.GenerateTestID())
	removed, _ := message.NewL1ValidatorRegistration(l1.Append(3), false)
	registered, _ := message.NewL1ValidatorRegistration(ids.GenerateTestID(), true)
	weight, _ := message.NewL1ValidatorWeight(ids.GenerateTestID(), 1, 5)
	byIndex := justification(t, &pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
		ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: l1[:], Index: 3}}})
	otherIndex := justification(t, &pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
		ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: l1[:], Index: 4}}})
	withSource, _ := payload.NewAddressedCall([]byte{1}, weight.Bytes())
	withSourceMsg, _ := warp.NewUnsignedMessage(networkID, constants.PlatformChainID, withSource.Bytes())
	hash, _ := payload.NewHash(ids.GenerateTestID())
	hashMsg, _ := warp.NewUnsignedMessage(networkID, constants.PlatformChainID, hash.Bytes())

	for _, tc := range []struct {
		name          string
		msg           *warp.UnsignedMessage
		justification []byte
		want          string // "" for no error
	}{
		{"conversion", pMessage(t, conv.Bytes()), l1[:], ""},
		{"conversion without justification", pMessage(t, conv.Bytes()), nil, "32-byte id of the converted subnet"},
		{"registered", pMessage(t, registered.Bytes()), nil, ""},
		{"removed", pMessage(t, removed.Bytes()), byIndex, ""},
		{"removed without justification", pMessage(t, removed.Bytes()), nil, "must be an L1ValidatorRegistrationJustification"},
		{"removed with garbage", pMessage(t, removed.Bytes()), []byte{0xff, 0xff}, "must be an L1ValidatorRegistrationJustification"},
		{"removed with another validation", pMessage(t, removed.Bytes()), otherIndex, "the justification is for validation"},
		{"weight", pMessage(t, weight.Bytes()), nil, ""},
		{"source address", withSourceMsg, nil, "without a source address"},
		{"hash payload", hashMsg, nil, "only AddressedCall payloads"},
		{"other payload", pMessage(t, []byte("hello")), nil, "only SubnetToL1Conversion"},
	} {
		err := warpagg.CheckPChainMessage(tc.msg, tc.justification)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (derrors.ToStatus(err) != http.StatusBadRequest || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a 400 with %q", tc.name, err, tc.want)
		}
	}
}

func TestMessageOfJustification(t *testing.T) {
	l1 := ids.GenerateTestID()
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := message.NewRegisterL1Validator(l1, ids.GenerateTestNodeID(), [bls.PublicKeyLen]byte(bls.PublicKeyToCompressedBytes(sk.PublicKey())),
		1<<40, message.PChainOwner{}, message.PChainOwner{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		j    *pvmpb.L1ValidatorRegistrationJustification
		want ids.ID
	}{
		"conversion": {&pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
			ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: l1[:], Index: 2}}}, l1.Append(2)},
		"registration": {&pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_RegisterL1ValidatorMessage{
			RegisterL1ValidatorMessage: reg.Bytes()}}, reg.ValidationID()},
	} {
		j := justification(t, tc.j)
		msg, err := warpagg.MessageOfJustification(networkID, j)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg.SourceChainID != constants.PlatformChainID || msg.NetworkID != networkID {
			t.Errorf("%s: from %s on %d", name, msg.SourceChainID, msg.NetworkID)
		}
		call, err := payload.ParseAddressedCall(msg.Payload)
		if err != nil {
			t.Fatal(err)
		}
		got, err := message.ParseL1ValidatorRegistration(call.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if got.ValidationID != tc.want || got.Registered {
			t.Errorf("%s: %+v, want %s not registered", name, got, tc.want)
		}
		if err := warpagg.CheckPChainMessage(msg, j); err != nil {
			t.Errorf("%s: the rebuilt message does not pass its own check: %v", name, err)
		}
	}
}

// txSource is a fixed TxSource.
type txSource struct {
	txs  map[ids.ID]*txs.Tx
	vals map[ids.ID][2]ids.ID
}

func (s *txSource) PTx(_ context.Context, id ids.ID) (*txs.Tx, error) {
	if tx, ok := s.txs[id]; ok {
		return tx, nil
	}
	return nil, fmt.Errorf("tx %s: %w", id, derrors.NotFound)
}

func (s *txSource) L1ValidatorOrigin(_ context.Context, id ids.ID) (ids.ID, ids.ID, error) {
	if v, ok := s.vals[id]; ok {
		return v[0], v[1], nil
	}
	return ids.Empty, ids.Empty, fmt.Errorf("validation %s: %w", id, derrors.NotFound)
}

// signedL1Message wraps an L1 message as a manager chain's signed warp
// message (the signature is irrelevant to MessageOfTx).
func signedL1Message(t *testing.T, l1Message []byte) []byte {
	t.Helper()
	call, err := payload.NewAddressedCall([]byte{1, 2, 3}, l1Message)
	if err != nil {
		t.Fatal(err)
	}
	u, err := warp.NewUnsignedMessage(networkID, ids.GenerateTestID(), call.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := warp.NewMessage(u, &warp.BitSetSignature{})
	if err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

func l1Payload(t *testing.T, tm *warpagg.TxMessage) message.Payload {
	t.Helper()
	if tm.Message.SourceChainID != constants.PlatformChainID {
		t.Fatalf("message from %s, want the P-chain", tm.Message.SourceChainID)
	}
	call, err := payload.ParseAddressedCall(tm.Message.Payload)
	if err != nil {
		t.Fatal(err)
	}
	p, err := message.Parse(call.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := warpagg.CheckPChainMessage(tm.Message, tm.Justification); err != nil {
		t.Errorf("the message does not pass its own check: %v", err)
	}
	return p
}

func TestMessageOfTx(t *testing.T) {
	ctx := context.Background()
	l1 := ids.GenerateTestID()
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}
	nodeID := ids.GenerateTestNodeID()
	convert := &txs.ConvertSubnetToL1Tx{
		Subnet: l1, ChainID: ids.GenerateTestID(), Address: []byte{9, 9},
		Validators: []*txs.ConvertSubnetToL1Validator{{NodeID: nodeID.Bytes(), Weight: 100, Signer: *pop}},
	}
	reg, err := message.NewRegisterL1Validator(l1, ids.GenerateTestNodeID(), pop.PublicKey, 1<<40, message.PChainOwner{}, message.PChainOwner{}, 20)
	if err != nil {
		t.Fatal(err)
	}
	weight, _ := message.NewL1ValidatorWeight(reg.ValidationID(), 0, 40)
	zero, _ := message.NewL1ValidatorWeight(reg.ValidationID(), 1, 0)
	zeroFirst, _ := message.NewL1ValidatorWeight(l1.Append(0), 0, 0)

	txIDs := []ids.ID{ids.GenerateTestID(), ids.GenerateTestID(), ids.GenerateTestID(), ids.GenerateTestID(), ids.GenerateTestID(), ids.GenerateTestID()}
	convID, regID, weightID, zeroID, zeroFirstID, baseID := txIDs[0], txIDs[1], txIDs[2], txIDs[3], txIDs[4], txIDs[5]
	src := &txSource{
		txs: map[ids.ID]*txs.Tx{
			convID:      {Unsigned: convert},
			regID:       {Unsigned: &txs.RegisterL1ValidatorTx{Message: signedL1Message(t, reg.Bytes())}},
			weightID:    {Unsigned: &txs.SetL1ValidatorWeightTx{Message: signedL1Message(t, weight.Bytes())}},
			zeroID:      {Unsigned: &txs.SetL1ValidatorWeightTx{Message: signedL1Message(t, zero.Bytes())}},
			zeroFirstID: {Unsigned: &txs.SetL1ValidatorWeightTx{Message: signedL1Message(t, zeroFirst.Bytes())}},
			baseID:      {Unsigned: &txs.BaseTx{}},
		},
		vals: map[ids.ID][2]ids.ID{
			reg.ValidationID(): {l1, regID},
			l1.Append(0):       {l1, convID},
		},
	}

	tm, err := warpagg.MessageOfTx(ctx, networkID, src, convID)
	if err != nil {
		t.Fatal(err)
	}
	wantConv, err := message.SubnetToL1ConversionID(message.SubnetToL1ConversionData{
		SubnetID: l1, ManagerChainID: convert.ChainID, ManagerAddress: convert.Address,
		Validators: []message.SubnetToL1ConversionValidatorData{{NodeID: nodeID.Bytes(), BLSPublicKey: pop.PublicKey, Weight: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := l1Payload(t, tm).(*message.SubnetToL1Conversion); !ok || p.ID != wantConv || tm.SubnetID != l1 || !bytes.Equal(tm.Justification, l1[:]) {
		t.Errorf("conversion: %+v %+v", p, tm)
	}

	tm, err = warpagg.MessageOfTx(ctx, networkID, src, regID)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := l1Payload(t, tm).(*message.L1ValidatorRegistration); !ok || p.ValidationID != reg.ValidationID() || !p.Registered || tm.SubnetID != l1 {
		t.Errorf("registration: %+v %+v", p, tm)
	}

	tm, err = warpagg.MessageOfTx(ctx, networkID, src, weightID)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := l1Payload(t, tm).(*message.L1ValidatorWeight); !ok || p.ValidationID != reg.ValidationID() || p.Weight != 40 || p.Nonce != 0 || tm.SubnetID != l1 {
		t.Errorf("weight: %+v %+v", p, tm)
	}

	for _, id := range []ids.ID{zeroID, zeroFirstID} {
		tm, err = warpagg.MessageOfTx(ctx, networkID, src, id)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := l1Payload(t, tm).(*message.L1ValidatorRegistration); !ok || p.Registered || tm.SubnetID != l1 || len(tm.Justification) == 0 {
			t.Errorf("removal: %+v %+v", p, tm)
		}
	}

	if _, err := warpagg.MessageOfTx(ctx, networkID, src, ids.GenerateTestID()); derrors.ToStatus(err) != http.StatusNotFound {
		t.Errorf("unknown tx: %v, want a 404", err)
	}
	if _, err := warpagg.MessageOfTx(ctx, networkID, src, baseID); derrors.ToStatus(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "carries no L1 message") {
		t.Errorf("BaseTx: %v, want a 400", err)
	}
}

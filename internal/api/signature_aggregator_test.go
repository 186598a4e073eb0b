package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"google.golang.org/protobuf/proto"

	pvmpb "github.com/ava-labs/avalanchego/proto/pb/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/warpagg"
)

const (
	aggNetworkID = 88888
	postPath     = "/v1/signatureAggregator/{network}/aggregateSignatures"
	getPath      = "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}"
)

// fakeAggregator records requests and answers err, or the message signed
// with an empty signature.
type fakeAggregator struct {
	reqs []warpagg.Request
	err  error
}

func (*fakeAggregator) NetworkID() uint32 { return aggNetworkID }

func (f *fakeAggregator) Aggregate(_ context.Context, req warpagg.Request) (*warpagg.Result, error) {
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return nil, f.err
	}
	m, err := warp.NewMessage(req.Message, &warp.BitSetSignature{Signers: []byte{1}})
	if err != nil {
		return nil, err
	}
	return &warpagg.Result{Message: m, SignedWeight: 7, TotalWeight: 10, SigningSubnetID: ids.ID{1}, PChainHeight: 5}, nil
}

// fakeTxStore serves P-chain txs and L1 validators.
type fakeTxStore struct {
	DataSource
	txs  map[ids.ID]*txs.Tx
	vals map[ids.ID]*pchain.L1Validator
}

func (s *fakeTxStore) PTx(_ context.Context, id ids.ID) (*store.TxRecord, error) {
	tx, ok := s.txs[id]
	if !ok {
		return nil, fmt.Errorf("tx %s: %w", id, derrors.NotFound)
	}
	b, err := txs.Codec.Marshal(txs.CodecVersion, tx)
	if err != nil {
		return nil, err
	}
	return &store.TxRecord{ID: id, Type: fmt.Sprintf("%T", tx.Unsigned), Bytes: b}, nil
}

func (s *fakeTxStore) L1Validator(_ context.Context, id ids.ID) (*pchain.L1Validator, error) {
	v, ok := s.vals[id]
	if !ok {
		return nil, fmt.Errorf("validation %s: %w", id, derrors.NotFound)
	}
	return v, nil
}

func newAggAPI(t testing.TB, agg SignatureAggregator, st DataSource) http.Handler {
	t.Helper()
	a, err := New(Deps{
		Store:      st,
		Network:    &internal.Network{ID: aggNetworkID, Name: "network-88888"},
		Aliases:    []string{"testnet"},
		TokenKey:   make([]byte, param.MinTokenKeyLen),
		Aggregator: agg,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	return mux
}

func testUnsigned(t testing.TB) *warp.UnsignedMessage {
	t.Helper()
	m, err := warp.NewUnsignedMessage(aggNetworkID, ids.ID{'c'}, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func do(t *testing.T, h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func signedOf(t *testing.T, rec *httptest.ResponseRecorder) *warp.Message {
	t.Helper()
	var body SignatureAggregationResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(body.SignedMessage)
	if err != nil {
		t.Fatalf("signedMessage %q is not hex: %v", body.SignedMessage, err)
	}
	m, err := warp.ParseMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAggregateSignaturesPost(t *testing.T) {
	doc := openapitest.Default(t)
	agg := &fakeAggregator{}
	h := newAggAPI(t, agg, nil)
	unsigned := testUnsigned(t)
	raw := hex.EncodeToString(unsigned.Bytes())
	subnet := ids.GenerateTestID()

	for name, body := range map[string]string{
		"raw":        fmt.Sprintf(`{"message":%q}`, raw),
		"0x":         fmt.Sprintf(`{"message":"0x%s","quorumPercentage":50,"quorumPercentageBuffer":50,"pChainHeight":12,"signingSubnetId":%q}`, raw, subnet),
		"hex subnet": fmt.Sprintf(`{"message":%q,"signingSubnetId":"0x%s"}`, raw, hex.EncodeToString(subnet[:])),
	} {
		agg.reqs = nil
		rec := do(t, h, "POST", "/v1/signatureAggregator/testnet/aggregateSignatures", body)
		if rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		doc.ValidateRecorder(t, "POST", postPath, rec)
		if got := signedOf(t, rec); got.UnsignedMessage.ID() != unsigned.ID() {
			t.Errorf("%s: signed another message", name)
		}
		if rec.Header().Get(HeaderSignedWeight) != "7" || rec.Header().Get(HeaderTotalWeight) != "10" {
			t.Errorf("%s: weight headers %v", name, rec.Header())
		}
		if len(agg.reqs) != 1 {
			t.Fatalf("%s: %d requests", name, len(agg.reqs))
		}
		req := agg.reqs[0]
		switch name {
		case "raw":
			if req.SigningSubnetID != nil || req.QuorumPercentage != 0 || req.PChainHeight != 0 {
				t.Errorf("%s: %+v", name, req)
			}
		case "0x":
			if *req.SigningSubnetID != subnet || req.QuorumPercentage != 50 || req.QuorumPercentageBuffer != 50 || req.PChainHeight != 12 {
				t.Errorf("%s: %+v", name, req)
			}
		case "hex subnet":
			if *req.SigningSubnetID != subnet {
				t.Errorf("%s: subnet %s", name, req.SigningSubnetID)
			}
		}
	}

	// The justification alone is enough for a registration message.
	l1 := ids.GenerateTestID()
	j, err := proto.Marshal(&pvmpb.L1ValidatorRegistrationJustification{Preimage: &pvmpb.L1ValidatorRegistrationJustification_ConvertSubnetToL1TxData{
		ConvertSubnetToL1TxData: &pvmpb.SubnetIDIndex{SubnetId: l1[:], Index: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	agg.reqs = nil
	rec := do(t, h, "POST", "/v1/signatureAggregator/testnet/aggregateSignatures", fmt.Sprintf(`{"justification":"0x%x"}`, j))
	if rec.Code != http.StatusCreated {
		t.Fatalf("justification only: %d %s", rec.Code, rec.Body)
	}
	call, err := payload.ParseAddressedCall(agg.reqs[0].Message.Payload)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := message.ParseL1ValidatorRegistration(call.Payload)
	if err != nil || reg.ValidationID != l1.Append(1) || reg.Registered || agg.reqs[0].Message.SourceChainID != constants.PlatformChainID {
		t.Errorf("rebuilt %+v (%v)", reg, err)
	}
}

func TestAggregateSignaturesBadRequests(t *testing.T) {
	doc := openapitest.Default(t)
	agg := &fakeAggregator{}
	h := newAggAPI(t, agg, nil)
	raw := hex.EncodeToString(testUnsigned(t).Bytes())
	for _, tc := range []struct{ body, want string }{
		{`{}`, "one of message or justification is required"},
		{`{"message":""}`, "one of message or justification is required"},
		{`{"message":"zz"}`, "message must be hex"},
		{`{"justification":"0xz"}`, "justification must be hex"},
		{`{"message":"0011"}`, "message is neither an unsigned warp message"},
		{`{"justification":"0011"}`, "must be an L1ValidatorRegistrationJustification"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentage":101}`, raw), "quorumPercentage must be an integer between 0 and 100, got 101"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentage":-1}`, raw), "quorumPercentage must be an integer between 0 and 100"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentage":50.5}`, raw), "quorumPercentage must be an integer between 0 and 100, got 50.5"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentage":"67"}`, raw), "quorumPercentage must be a JSON number"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentageBuffer":101}`, raw), "quorumPercentageBuffer must be an integer between 0 and 100"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentage":60,"quorumPercentageBuffer":41}`, raw), "quorumPercentage + quorumPercentageBuffer must be at most 100, got 60 + 41"},
		{fmt.Sprintf(`{"message":%q,"quorumPercentageBuffer":34}`, raw), "at most 100, got 67 + 34"},
		{fmt.Sprintf(`{"message":%q,"pChainHeight":-3}`, raw), "pChainHeight must be a non-negative integer"},
		{fmt.Sprintf(`{"message":%q,"pChainHeight":1.5}`, raw), "pChainHeight must be a non-negative integer"},
		{fmt.Sprintf(`{"message":%q,"signingSubnetId":"nope"}`, raw), "signingSubnetId must be a subnet id"},
		{fmt.Sprintf(`{"message":%q,"signingSubnetId":"0x0102"}`, raw), "signingSubnetId must be a subnet id"},
		{`{"message":`, "request body is not valid JSON"},
		{``, "request body must be a JSON object"},
	} {
		rec := do(t, h, "POST", "/v1/signatureAggregator/testnet/aggregateSignatures", tc.body)
		var body ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if rec.Code != http.StatusBadRequest || body.StatusCode != 400 || body.Error != "Bad Request" || !strings.Contains(body.Message, tc.want) {
			t.Errorf("%s: %d %+v, want 400 with %q", tc.body, rec.Code, body, tc.want)
		}
		doc.ValidateRecorder(t, "POST", postPath, rec)
	}
	if len(agg.reqs) != 0 {
		t.Errorf("%d bad requests reached the aggregator", len(agg.reqs))
	}
	rec := do(t, h, "POST", "/v1/signatureAggregator/mainnet/aggregateSignatures", fmt.Sprintf(`{"message":%q}`, raw))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "network must be one of") {
		t.Errorf("unknown network: %d %s", rec.Code, rec.Body)
	}
}

func TestAggregateSignaturesErrors(t *testing.T) {
	doc := openapitest.Default(t)
	captureLog(t)
	raw := hex.EncodeToString(testUnsigned(t).Bytes())
	body := fmt.Sprintf(`{"message":%q}`, raw)
	for _, tc := range []struct {
		agg    SignatureAggregator
		status int
		want   string
	}{
		{nil, http.StatusServiceUnavailable, "signature aggregation is not available"},
		{&fakeAggregator{err: derrors.Client(derrors.Unavailable, "signatures of 5 of the 10 weight")}, http.StatusServiceUnavailable, "signatures of 5 of the 10 weight"},
		{&fakeAggregator{err: derrors.Invalid("validators refused")}, http.StatusBadRequest, "validators refused"},
		{&fakeAggregator{err: fmt.Errorf("node: %w", derrors.Unavailable)}, http.StatusServiceUnavailable, "temporarily unavailable"},
	} {
		rec := do(t, newAggAPI(t, tc.agg, nil), "POST", "/v1/signatureAggregator/testnet/aggregateSignatures", body)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%d %s, want %d with %q", rec.Code, rec.Body, tc.status, tc.want)
		}
		doc.ValidateRecorder(t, "POST", postPath, rec)
	}
}

func TestGetAggregatedSignatures(t *testing.T) {
	doc := openapitest.Default(t)
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}
	l1 := ids.GenerateTestID()
	convID, baseID := ids.GenerateTestID(), ids.GenerateTestID()
	st := &fakeTxStore{txs: map[ids.ID]*txs.Tx{
		convID: {Unsigned: &txs.ConvertSubnetToL1Tx{
			BaseTx: txs.BaseTx{}, Subnet: l1, ChainID: ids.GenerateTestID(), Address: []byte{1},
			Validators: []*txs.ConvertSubnetToL1Validator{{NodeID: ids.GenerateTestNodeID().Bytes(), Weight: 1, Signer: *pop}},
			SubnetAuth: &secp256k1fx.Input{},
		}},
		baseID: {Unsigned: &txs.BaseTx{}},
	}}
	agg := &fakeAggregator{}
	h := newAggAPI(t, agg, st)

	rec := do(t, h, "GET", "/v1/signatureAggregator/testnet/aggregateSignatures/"+convID.String(), "")
	if rec.Code != http.StatusCreated {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	doc.ValidateRecorder(t, "GET", getPath, rec)
	req := agg.reqs[0]
	if req.SigningSubnetID == nil || *req.SigningSubnetID != l1 || string(req.Justification) != string(l1[:]) || req.Message.SourceChainID != constants.PlatformChainID {
		t.Errorf("request %+v", req)
	}

	other := ids.GenerateTestID()
	rec = do(t, h, "GET", fmt.Sprintf("/v1/signatureAggregator/testnet/aggregateSignatures/%s?signingSubnetId=%s&quorumPercentage=80", convID, other), "")
	if rec.Code != http.StatusCreated || *agg.reqs[1].SigningSubnetID != other || agg.reqs[1].QuorumPercentage != 80 {
		t.Errorf("override: %d %s %+v", rec.Code, rec.Body, agg.reqs[1])
	}

	for _, tc := range []struct {
		target string
		status int
		want   string
	}{
		{ids.GenerateTestID().String(), http.StatusNotFound, "not found"},
		{baseID.String(), http.StatusBadRequest, "carries no L1 message"},
		{"nope", http.StatusBadRequest, "txHash must be a cb58 transaction id"},
		{convID.String() + "?quorumPercentage=x", http.StatusBadRequest, "quorumPercentage must be a number"},
		{convID.String() + "?signingSubnetId=x", http.StatusBadRequest, "signingSubnetId must be a subnet id"},
	} {
		rec := do(t, h, "GET", "/v1/signatureAggregator/testnet/aggregateSignatures/"+tc.target, "")
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.target, rec.Code, rec.Body, tc.status, tc.want)
		}
		doc.ValidateRecorder(t, "GET", getPath, rec)
	}
}

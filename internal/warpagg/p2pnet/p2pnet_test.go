package p2pnet

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p/acp118"
	"github.com/ava-labs/avalanchego/proto/pb/sdk"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
)

const testNetworkID = 88888

var testChain = ids.ID{'c', 'h', 'a', 'i', 'n'}

// verifier accepts every message, or refuses each with refuse.
type verifier struct{ refuse *common.AppError }

func (v verifier) Verify(context.Context, *warp.UnsignedMessage, []byte) *common.AppError {
	return v.refuse
}

func newPeer(t *testing.T, cfg Config) *Peer {
	t.Helper()
	cfg.NetworkID = testNetworkID
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// answer is one callback of a p2p request.
type answer struct {
	nodeID ids.NodeID
	bytes  []byte
	err    error
}

func request(t *testing.T, from *Peer, to ids.NodeID, msg *warp.UnsignedMessage) answer {
	t.Helper()
	client, err := from.Client(testChain, acp118.HandlerID)
	if err != nil {
		t.Fatal(err)
	}
	req, err := proto.Marshal(&sdk.SignatureRequest{Message: msg.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	answers := make(chan answer, 1)
	err = client.AppRequest(context.Background(), set.Of(to), req, func(_ context.Context, nodeID ids.NodeID, b []byte, err error) {
		answers <- answer{nodeID, b, err}
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answers:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("no answer, not even a failure, within 30s")
	}
	return answer{}
}

func connect(t *testing.T, from, to *Peer) {
	t.Helper()
	from.Connect(to.NodeID(), to.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := from.WaitConnected(ctx, to.NodeID()); err != nil {
		t.Fatal(err)
	}
}

func testMessage(t *testing.T, payload string) *warp.UnsignedMessage {
	t.Helper()
	m, err := warp.NewUnsignedMessage(testNetworkID, testChain, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func appErrorCode(t *testing.T, err error) int32 {
	t.Helper()
	appErr, ok := err.(*common.AppError)
	if !ok {
		t.Fatalf("error %v (%T) is not an *common.AppError", err, err)
	}
	return appErr.Code
}

func TestSignatureRequestRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("opens loopback connections")
	}
	v := newPeer(t, Config{Listen: "127.0.0.1:0"})
	if err := v.AddHandler(testChain, acp118.HandlerID, acp118.NewHandler(verifier{}, warp.NewSigner(v.Signer(), testNetworkID, testChain))); err != nil {
		t.Fatal(err)
	}
	agg := newPeer(t, Config{})
	if agg.Addr().IsValid() {
		t.Errorf("an outbound-only peer has the address %s", agg.Addr())
	}
	connect(t, agg, v)

	msg := testMessage(t, "hello")
	a := request(t, agg, v.NodeID(), msg)
	if a.err != nil {
		t.Fatalf("request failed: %v", a.err)
	}
	if a.nodeID != v.NodeID() {
		t.Errorf("answer from %s, want %s", a.nodeID, v.NodeID())
	}
	var resp sdk.SignatureResponse
	if err := proto.Unmarshal(a.bytes, &resp); err != nil {
		t.Fatal(err)
	}
	sig, err := bls.SignatureFromBytes(resp.Signature)
	if err != nil {
		t.Fatal(err)
	}
	if !bls.Verify(v.Signer().PublicKey(), sig, msg.Bytes()) {
		t.Error("the validator's signature does not verify against its key")
	}
}

func TestRequestFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("opens loopback connections")
	}
	refusing := newPeer(t, Config{Listen: "127.0.0.1:0"})
	refusal := &common.AppError{Code: 7, Message: "no such conversion"}
	if err := refusing.AddHandler(testChain, acp118.HandlerID, acp118.NewHandler(verifier{refuse: refusal}, warp.NewSigner(refusing.Signer(), testNetworkID, testChain))); err != nil {
		t.Fatal(err)
	}
	silent := newPeer(t, Config{Listen: "127.0.0.1:0"})
	if err := silent.AddHandler(testChain, acp118.HandlerID, silentHandler{}); err != nil {
		t.Fatal(err)
	}
	agg := newPeer(t, Config{RequestTimeout: 300 * time.Millisecond})
	connect(t, agg, refusing)
	connect(t, agg, silent)
	msg := testMessage(t, "refuse me")

	t.Run("refused", func(t *testing.T) {
		a := request(t, agg, refusing.NodeID(), msg)
		if code := appErrorCode(t, a.err); code != refusal.Code {
			t.Errorf("code %d, want the handler's %d (%v)", code, refusal.Code, a.err)
		}
		if a.err.(*common.AppError).Message != refusal.Message {
			t.Errorf("message %q, want %q", a.err.(*common.AppError).Message, refusal.Message)
		}
	})
	t.Run("silent", func(t *testing.T) {
		start := time.Now()
		a := request(t, agg, silent.NodeID(), msg)
		if code := appErrorCode(t, a.err); code != CodeTimeout {
			t.Errorf("code %d, want CodeTimeout (%v)", code, a.err)
		}
		if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
			t.Errorf("timed out after %s, want about 300ms", d)
		}
	})
	t.Run("not connected", func(t *testing.T) {
		a := request(t, agg, ids.GenerateTestNodeID(), msg)
		if code := appErrorCode(t, a.err); code != CodeNotConnected {
			t.Errorf("code %d, want CodeNotConnected (%v)", code, a.err)
		}
	})
	t.Run("disconnected", func(t *testing.T) {
		// A request in flight fails as soon as its peer goes away.
		done := make(chan answer, 1)
		go func() { done <- request(t, agg, silent.NodeID(), msg) }()
		time.Sleep(50 * time.Millisecond)
		silent.Close()
		a := <-done
		if code := appErrorCode(t, a.err); code != CodeDisconnected && code != CodeTimeout {
			t.Errorf("code %d, want CodeDisconnected (%v)", code, a.err)
		}
		if !IsTransportFailure(appErrorCode(t, a.err)) {
			t.Errorf("%v is not a transport failure", a.err)
		}
	})
}

// silentHandler never answers before the request's deadline.
type silentHandler struct{}

func (silentHandler) AppGossip(context.Context, ids.NodeID, []byte) {}

func (silentHandler) AppRequest(ctx context.Context, _ ids.NodeID, deadline time.Time, _ []byte) ([]byte, *common.AppError) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(deadline) + time.Second):
	}
	return nil, common.ErrTimeout
}

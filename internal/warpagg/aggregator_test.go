package warpagg_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/warpagg"
	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
	"github.com/avaindex/avaindex/internal/warpagg/warptest"
)

const networkID = 88888

var (
	sourceChain = ids.ID{'s', 'o', 'u', 'r', 'c', 'e'}
	subnetID    = ids.ID{'s', 'u', 'b', 'n', 'e', 't'}
)

// spec describes one in-process validator of a test.
type spec struct {
	weight   uint64
	behavior warptest.Behavior
}

type env struct {
	set  warptest.Set
	src  *warptest.Source
	agg  *warpagg.Aggregator
	net  *p2pnet.Peer
	seen *atomic.Int64 // messages the honest validators' verifier saw
}

// counting is an acp118 verifier that accepts everything and counts.
type counting struct{ n *atomic.Int64 }

func (c counting) Verify(context.Context, *warp.UnsignedMessage, []byte) *common.AppError {
	c.n.Add(1)
	return nil
}

func newEnv(t testing.TB, specs []spec, cfg warpagg.Config) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("runs validators on loopback")
	}
	e := &env{seen: new(atomic.Int64)}
	for _, s := range specs {
		v, err := warptest.NewValidator(networkID, s.weight, s.behavior, counting{e.seen}, sourceChain)
		if err != nil {
			t.Fatal(err)
		}
		e.set = append(e.set, v)
	}
	t.Cleanup(e.set.Close)
	e.src = &warptest.Source{SubnetID: subnetID, Chains: []ids.ID{sourceChain}, AtHeight: 10, Set: e.set.Output(), ErrUnknownChain: warpagg.ErrUnknownChain}
	net, err := p2pnet.New(p2pnet.Config{NetworkID: networkID, RequestTimeout: 700 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(net.Close)
	e.net = net
	cfg.NetworkID = networkID
	cfg.Validators = e.src
	if cfg.Peers == nil {
		cfg.Peers = warpagg.StaticPeers(e.set.Addrs())
	}
	cfg.Net = net
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	e.agg, err = warpagg.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newMessage(t testing.TB, payload string) *warp.UnsignedMessage {
	t.Helper()
	m, err := warp.NewUnsignedMessage(networkID, sourceChain, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// verify checks res's message with avalanchego's warp verification
// against the validators at quorum q%, and returns its signers.
func (e *env) verify(t testing.TB, res *warpagg.Result, q uint64) set.Set[ids.NodeID] {
	t.Helper()
	ws, err := e.set.WarpSet()
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Message.Signature.Verify(&res.Message.UnsignedMessage, networkID, ws, q, 100); err != nil {
		t.Fatalf("the aggregated signature does not verify at %d%%: %v", q, err)
	}
	bits := set.BitsFromBytes(res.Message.Signature.(*warp.BitSetSignature).Signers)
	signers, err := warp.FilterValidators(bits, ws.Validators)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Set[ids.NodeID]{}
	for _, v := range signers {
		out.Add(v.NodeIDs...)
	}
	return out
}

func equal(n int, w uint64) []spec {
	s := make([]spec, n)
	for i := range s {
		s[i] = spec{weight: w}
	}
	return s
}

func TestAggregate(t *testing.T) {
	e := newEnv(t, equal(10, 5), warpagg.Config{})
	res, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "one")})
	if err != nil {
		t.Fatal(err)
	}
	e.verify(t, res, 67)
	if res.SigningSubnetID != subnetID || res.PChainHeight != 10 || res.TotalWeight != 50 || res.NeededWeight != 34 || res.SignedWeight < 34 {
		t.Errorf("result %+v", res)
	}
}

func TestQuorumRounding(t *testing.T) {
	// Three validators of weight 1: 67% of 3 is 2.01, so warp verification
	// wants all three; 66% wants two.
	e := newEnv(t, equal(3, 1), warpagg.Config{})
	for _, tc := range []struct {
		q, needed uint64
	}{{67, 3}, {66, 2}, {34, 2}, {33, 1}, {100, 3}} {
		res, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, fmt.Sprint("rounding ", tc.q)), QuorumPercentage: tc.q})
		if err != nil {
			t.Fatalf("quorum %d: %v", tc.q, err)
		}
		if res.NeededWeight != tc.needed {
			t.Errorf("quorum %d: needed %d, want %d", tc.q, res.NeededWeight, tc.needed)
		}
		e.verify(t, res, tc.q)
		if err := warp.VerifyWeight(res.NeededWeight-1, 3, tc.q, 100); err == nil {
			t.Errorf("quorum %d: %d would verify too; needed is not the least", tc.q, res.NeededWeight-1)
		}
	}
}

func TestBuffer(t *testing.T) {
	// With a buffer, the collection goes on past the quorum for more.
	e := newEnv(t, equal(10, 1), warpagg.Config{})
	res, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "buffer"), QuorumPercentage: 50, QuorumPercentageBuffer: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.SignedWeight != 10 {
		t.Errorf("signed %d with quorum 50 and buffer 50, want all 10", res.SignedWeight)
	}
	if signers := e.verify(t, res, 100); signers.Len() != 10 {
		t.Errorf("%d signers, want 10", signers.Len())
	}
}

func TestSilentValidator(t *testing.T) {
	e := newEnv(t, []spec{{50, warptest.Honest}, {50, warptest.Silent}}, warpagg.Config{})
	silent := e.set[1].NodeID()
	start := time.Now()
	_, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "silence")})
	qe, ok := asQuorumError(err)
	if !ok {
		t.Fatalf("error %v, want a QuorumError", err)
	}
	if got := derrors.ToStatus(err); got != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", got)
	}
	if qe.Signed != 50 || qe.Needed != 67 || qe.Total != 100 {
		t.Errorf("signed %d needed %d total %d", qe.Signed, qe.Needed, qe.Total)
	}
	if len(qe.Failures) != 1 || qe.Failures[0].NodeID != silent || qe.Failures[0].Reason != warpagg.NoAnswer {
		t.Errorf("failures %+v, want the silent validator's no answer", qe.Failures)
	}
	msg, _ := derrors.ClientMessage(err)
	for _, want := range []string{"50 of the 100", "67 (67%)", silent.String(), "did not answer"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s; the request timeout is 700ms", d)
	}
}

func TestWrongSignature(t *testing.T) {
	e := newEnv(t, []spec{{70, warptest.Honest}, {30, warptest.WrongSignature}}, warpagg.Config{})
	wrong := e.set[1].NodeID()

	// Quorum 67 holds without it: it is excluded and reported.
	res, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "wrong"), QuorumPercentageBuffer: 33})
	if err != nil {
		t.Fatal(err)
	}
	signers := e.verify(t, res, 67)
	if signers.Contains(wrong) || res.SignedWeight != 70 {
		t.Errorf("signers %v, signed %d: the wrong signature is in", signers, res.SignedWeight)
	}
	if len(res.Failures) != 1 || res.Failures[0].NodeID != wrong || res.Failures[0].Reason != warpagg.BadSignature || res.Failures[0].Weight != 30 {
		t.Errorf("failures %+v, want the bad signature of weight 30", res.Failures)
	}

	// Quorum 100 needs it: 503 naming it.
	_, err = e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "wrong"), QuorumPercentage: 100})
	qe, ok := asQuorumError(err)
	if !ok || derrors.ToStatus(err) != http.StatusServiceUnavailable {
		t.Fatalf("error %v, want a 503 QuorumError", err)
	}
	if qe.Signed != 70 || qe.Needed != 100 || !strings.Contains(qe.Error(), wrong.String()) || !strings.Contains(qe.Error(), "invalid signature") {
		t.Errorf("error %v", qe)
	}
}

func TestRefusalIsTheCallersFault(t *testing.T) {
	e := newEnv(t, []spec{{60, warptest.Refuse}, {40, warptest.Honest}}, warpagg.Config{})
	_, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "refused")})
	if got := derrors.ToStatus(err); got != http.StatusBadRequest {
		t.Fatalf("status %d (%v), want 400", got, err)
	}
	msg, _ := derrors.ClientMessage(err)
	if !strings.Contains(msg, "refused to sign") || !strings.Contains(msg, "this validator refuses to sign") {
		t.Errorf("message %q does not give the refusal", msg)
	}
}

func TestNoAddress(t *testing.T) {
	e := newEnv(t, equal(4, 20), warpagg.Config{})
	// A validator nobody can reach holds a fifth of the weight.
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	ghost := ids.GenerateTestNodeID()
	e.src.Set[ghost] = &validators.GetValidatorOutput{NodeID: ghost, PublicKey: sk.PublicKey(), Weight: 20}
	res, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "ghost")})
	if err != nil {
		t.Fatal(err)
	}
	if res.SignedWeight != 80 {
		t.Errorf("signed %d, want 80", res.SignedWeight)
	}
	_, err = e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "ghost"), QuorumPercentage: 100})
	if qe, ok := asQuorumError(err); !ok || len(qe.Failures) != 1 || qe.Failures[0].NodeID != ghost || qe.Failures[0].Reason != warpagg.NoAddress {
		t.Errorf("error %v, want the ghost without address", err)
	}
}

func TestCallerErrors(t *testing.T) {
	e := newEnv(t, equal(1, 1), warpagg.Config{})
	other, err := warp.NewUnsignedMessage(networkID+1, sourceChain, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := warp.NewUnsignedMessage(networkID, ids.ID{9}, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	empty := ids.ID{'e', 'm', 'p', 't', 'y'}
	for _, tc := range []struct {
		name string
		req  warpagg.Request
		want string
	}{
		{"no message", warpagg.Request{}, "a message is required"},
		{"other network", warpagg.Request{Message: other}, "for network 88889"},
		{"unknown chain", warpagg.Request{Message: unknown}, "give signingSubnetId"},
		{"quorum", warpagg.Request{Message: newMessage(t, "q"), QuorumPercentage: 101}, "quorumPercentage"},
		{"sum", warpagg.Request{Message: newMessage(t, "q"), QuorumPercentage: 80, QuorumPercentageBuffer: 21}, "at most 100"},
		{"height", warpagg.Request{Message: newMessage(t, "q"), PChainHeight: 11}, "above the P-chain's last accepted height 10"},
		{"no validators", warpagg.Request{Message: newMessage(t, "q"), SigningSubnetID: &empty}, "has no validators"},
	} {
		_, err := e.agg.Aggregate(context.Background(), tc.req)
		msg, _ := derrors.ClientMessage(err)
		if derrors.ToStatus(err) != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %v (%d), want 400 with %q", tc.name, err, derrors.ToStatus(err), tc.want)
		}
	}
}

func TestCachesAndSharedCollections(t *testing.T) {
	e := newEnv(t, equal(20, 1), warpagg.Config{})
	ctx := context.Background()
	msg := newMessage(t, "cached")
	res, err := e.agg.Aggregate(ctx, warpagg.Request{Message: msg, QuorumPercentage: 100})
	if err != nil {
		t.Fatal(err)
	}
	e.verify(t, res, 100)
	if n := e.seen.Load(); n != 20 {
		t.Fatalf("validators were asked %d times, want 20", n)
	}
	// The same request again: the result cache.
	again, err := e.agg.Aggregate(ctx, warpagg.Request{Message: msg, QuorumPercentage: 100})
	if err != nil || !again.Cached {
		t.Fatalf("again: %v, cached %v", err, again != nil && again.Cached)
	}
	// Another quorum: the signature cache, no request.
	lower, err := e.agg.Aggregate(ctx, warpagg.Request{Message: msg, QuorumPercentage: 50})
	if err != nil {
		t.Fatal(err)
	}
	e.verify(t, lower, 50)
	if n := e.seen.Load(); n != 20 {
		t.Errorf("validators were asked %d times, want still 20", n)
	}

	// Concurrent requests for one new message share one collection.
	fresh := newMessage(t, "shared")
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.agg.Aggregate(ctx, warpagg.Request{Message: fresh, QuorumPercentage: 100})
			if err == nil && res.SignedWeight != 20 {
				err = fmt.Errorf("signed %d", res.SignedWeight)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := e.seen.Load(); n != 40 {
		t.Errorf("validators were asked %d times in all, want 40: the concurrent requests did not share", n)
	}
}

func TestCallerCancellation(t *testing.T) {
	e := newEnv(t, []spec{{100, warptest.Silent}}, warpagg.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := e.agg.Aggregate(ctx, warpagg.Request{Message: newMessage(t, "cancel")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the caller's deadline", err)
	}
}

func TestAggregatorsShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		net, err := p2pnet.New(p2pnet.Config{NetworkID: networkID})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(net.Close)
		if _, err := warpagg.New(warpagg.Config{NetworkID: networkID, Validators: &warptest.Source{}, Net: net, Registerer: reg}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGarbageAndUnreachable(t *testing.T) {
	e := newEnv(t, []spec{{60, warptest.Honest}, {20, warptest.Garbage}, {20, warptest.Honest}}, warpagg.Config{ConnectTimeout: 300 * time.Millisecond})
	garbage, gone := e.set[1].NodeID(), e.set[2].NodeID()
	// The third validator's address is known, but nothing listens there.
	e.set[2].Close()
	// 80% needs all but the garbage: the unreachable one is waited for.
	_, err := e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "garbage"), QuorumPercentage: 80})
	qe, ok := asQuorumError(err)
	if !ok {
		t.Fatalf("error %v, want a QuorumError", err)
	}
	reasons := map[ids.NodeID]warpagg.Reason{}
	for _, f := range qe.Failures {
		reasons[f.NodeID] = f.Reason
	}
	if reasons[garbage] != warpagg.BadSignature || reasons[gone] != warpagg.NotConnected || len(reasons) != 2 || qe.Signed != 60 {
		t.Errorf("signed %d, failures %+v", qe.Signed, qe.Failures)
	}

	// 100% is out of reach once the garbage is in: the collection ends at
	// once, not after the unreachable one's connection timeout.
	start := time.Now()
	_, err = e.agg.Aggregate(context.Background(), warpagg.Request{Message: newMessage(t, "garbage 2"), QuorumPercentage: 100})
	if _, ok := asQuorumError(err); !ok || time.Since(start) > 250*time.Millisecond {
		t.Errorf("error %v after %s, want a QuorumError before the connection timeout", err, time.Since(start))
	}
}

// asQuorumError returns the QuorumError in err's chain.
func asQuorumError(err error) (*warpagg.QuorumError, bool) {
	var qe *warpagg.QuorumError
	ok := errors.As(err, &qe)
	return qe, ok
}

package warpagg_test

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p/acp118"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaindex/avaindex/internal/warpagg"
	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
	"github.com/avaindex/avaindex/internal/warpagg/warptest"
)

// The benchmarks run 100 in-process validators (real avalanchego network
// peers on loopback, each with its own TLS and BLS keys, answering through
// avalanchego's acp118 handler) and compare avaindex's aggregator with
// avalanchego's own acp118.SignatureAggregator on the same validators and
// the same messages, each through its own outbound peer.
//
//	go test -run '^$' -bench . -benchtime 200x -count 5 ./internal/warpagg/
const benchValidators = 100

type bench struct {
	set      warptest.Set
	warpSet  validators.WarpSet
	ours     *warpagg.Aggregator
	theirs   *acp118.SignatureAggregator
	src      *warptest.Source
	next     atomic.Uint64
	nets     []*p2pnet.Peer
	closeAll func()
}

var (
	benchOnce sync.Once
	benchEnv  *bench
	benchErr  error
)

// getBench starts the validators and both aggregators once per process
// (they are stopped when the process exits).
func getBench(b *testing.B) *bench {
	b.Helper()
	benchOnce.Do(func() { benchEnv, benchErr = newBench() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchEnv
}

func newBench() (*bench, error) {
	set, err := warptest.NewSet(networkID, benchValidators, sourceChain)
	if err != nil {
		return nil, err
	}
	ws, err := set.WarpSet()
	if err != nil {
		return nil, err
	}
	e := &bench{set: set, warpSet: ws}
	e.src = &warptest.Source{SubnetID: subnetID, Chains: []ids.ID{sourceChain}, AtHeight: 1 << 40, Set: set.Output(), ErrUnknownChain: warpagg.ErrUnknownChain}

	// Under the throughput benchmark's load (100 concurrent aggregations
	// on one machine that also runs the 100 validators) answers take
	// longer than the default timeouts; both get the same generous ones,
	// so that throughput is measured, not timeouts.
	const timeout = 2 * time.Minute
	oursNet, err := p2pnet.New(p2pnet.Config{NetworkID: networkID, RequestTimeout: timeout})
	if err != nil {
		return nil, err
	}
	theirsNet, err := p2pnet.New(p2pnet.Config{NetworkID: networkID, RequestTimeout: timeout})
	if err != nil {
		return nil, err
	}
	e.nets = []*p2pnet.Peer{oursNet, theirsNet}
	e.ours, err = warpagg.New(warpagg.Config{
		NetworkID:  networkID,
		Validators: e.src,
		Peers:      warpagg.StaticPeers(set.Addrs()),
		Net:        oursNet,
		Timeout:    timeout,
	})
	if err != nil {
		return nil, err
	}
	client, err := theirsNet.Client(sourceChain, acp118.HandlerID)
	if err != nil {
		return nil, err
	}
	e.theirs = acp118.NewSignatureAggregator(logging.NoLog{}, client)

	// Both peers connect to every validator before measuring.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, n := range e.nets {
		for id, addr := range set.Addrs() {
			n.Connect(id, addr)
		}
	}
	for _, n := range e.nets {
		for id := range set.Addrs() {
			if err := n.WaitConnected(ctx, id); err != nil {
				return nil, err
			}
		}
	}
	// Warm up both paths.
	for i := 0; i < 3; i++ {
		m := e.message()
		if _, err := e.aggregateOurs(ctx, m); err != nil {
			return nil, err
		}
		if _, err := e.aggregateTheirs(ctx, m); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// message returns a new message the validators have not signed.
func (e *bench) message() *warp.UnsignedMessage {
	m, err := warp.NewUnsignedMessage(networkID, sourceChain, fmt.Appendf(nil, "benchmark message %d", e.next.Add(1)))
	if err != nil {
		panic(err)
	}
	return m
}

func (e *bench) aggregateOurs(ctx context.Context, m *warp.UnsignedMessage) (*warp.Message, error) {
	res, err := e.ours.Aggregate(ctx, warpagg.Request{Message: m})
	if err != nil {
		return nil, err
	}
	return res.Message, nil
}

func (e *bench) aggregateTheirs(ctx context.Context, m *warp.UnsignedMessage) (*warp.Message, error) {
	empty, err := warp.NewMessage(m, &warp.BitSetSignature{})
	if err != nil {
		return nil, err
	}
	signed, got, total, err := e.theirs.AggregateSignatures(ctx, empty, nil, e.warpSet.Validators, 67, 100)
	if err != nil {
		return nil, err
	}
	// acp118 returns what it has when ctx ends; that is a failure here.
	if new(big.Int).Mul(got, big.NewInt(100)).Cmp(new(big.Int).Mul(total, big.NewInt(67))) < 0 {
		return nil, fmt.Errorf("acp118 collected %s of %s", got, total)
	}
	return signed, nil
}

// check verifies a signed message with avalanchego's warp verification.
func (e *bench) check(b *testing.B, m *warp.Message) {
	if err := m.Signature.Verify(&m.UnsignedMessage, networkID, e.warpSet, 67, 100); err != nil {
		b.Fatalf("aggregated signature does not verify: %v", err)
	}
}

func reportLatency(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	pct := func(p float64) float64 {
		i := int(p*float64(len(ds))+0.5) - 1
		i = max(0, min(i, len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), name+"-p50-ms")
	b.ReportMetric(pct(0.99), name+"-p99-ms")
}

// BenchmarkLatency aggregates one new message at a time with each
// aggregator in turn (alternating which goes first), 67% quorum.
func BenchmarkLatency(b *testing.B) {
	e := getBench(b)
	ctx := context.Background()
	var ours, theirs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := e.message()
		runOurs := func() {
			start := time.Now()
			signed, err := e.aggregateOurs(ctx, m)
			ours = append(ours, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			e.check(b, signed)
		}
		runTheirs := func() {
			start := time.Now()
			signed, err := e.aggregateTheirs(ctx, m)
			theirs = append(theirs, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			e.check(b, signed)
		}
		if i%2 == 0 {
			runOurs()
			runTheirs()
		} else {
			runTheirs()
			runOurs()
		}
	}
	b.StopTimer()
	reportLatency(b, "avaindex", ours)
	reportLatency(b, "acp118", theirs)
}

// BenchmarkCached asks avaindex's aggregator again for a message it has
// aggregated: "result" is the same request (the result cache); "signatures"
// is the same message at another P-chain height each time (the signature
// cache: no request, one aggregate verification).
func BenchmarkCached(b *testing.B) {
	e := getBench(b)
	ctx := context.Background()
	m := e.message()
	if _, err := e.aggregateOurs(ctx, m); err != nil {
		b.Fatal(err)
	}
	b.Run("result", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			res, err := e.ours.Aggregate(ctx, warpagg.Request{Message: m})
			ds = append(ds, time.Since(start))
			if err != nil || !res.Cached {
				b.Fatalf("%v (cached %v)", err, res != nil && res.Cached)
			}
		}
		reportLatency(b, "avaindex", ds)
	})
	b.Run("signatures", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			res, err := e.ours.Aggregate(ctx, warpagg.Request{Message: m, PChainHeight: e.next.Add(1)})
			ds = append(ds, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			e.check(b, res.Message)
		}
		reportLatency(b, "avaindex", ds)
	})
}

var throughputOps atomic.Int64

// BenchmarkThroughput aggregates, per op, 1,000 new messages with 100
// concurrent requests with each aggregator in turn (alternating which goes
// first, so that both see the same machine), and reports each one's
// messages per second. "goroutines" counts the process's goroutines at the
// end: acp118's aggregator leaves one blocked per answer that arrives after
// its quorum.
func BenchmarkThroughput(b *testing.B) {
	e := getBench(b)
	const messages, workers = 1000, 100
	run := func(agg func(context.Context, *warp.UnsignedMessage) (*warp.Message, error)) time.Duration {
		msgs := make([]*warp.UnsignedMessage, messages)
		for j := range msgs {
			msgs[j] = e.message()
		}
		var (
			next   atomic.Int64
			failed atomic.Value
			wg     sync.WaitGroup
		)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j := next.Add(1) - 1
					if j >= messages {
						return
					}
					signed, err := agg(ctx, msgs[j])
					if err == nil {
						err = signed.Signature.Verify(&signed.UnsignedMessage, networkID, e.warpSet, 67, 100)
					}
					if err != nil {
						failed.Store(err)
					}
				}
			}()
		}
		wg.Wait()
		d := time.Since(start)
		if err, ok := failed.Load().(error); ok {
			b.Fatal(err)
		}
		return d
	}
	var ours, theirs time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Counted across runs too: with -benchtime 1x -count 5 the order
		// alternates from run to run.
		if throughputOps.Add(1)%2 == 1 {
			ours += run(e.aggregateOurs)
			theirs += run(e.aggregateTheirs)
		} else {
			theirs += run(e.aggregateTheirs)
			ours += run(e.aggregateOurs)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(messages*b.N)/ours.Seconds(), "avaindex-msgs/s")
	b.ReportMetric(float64(messages*b.N)/theirs.Seconds(), "acp118-msgs/s")
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
}

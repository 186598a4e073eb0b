// Package warpagg aggregates BLS signatures of Avalanche warp messages, as
// a library: it asks the validators of the signing subnet for their
// signatures with ACP-118 app requests over avalanchego's peer-to-peer
// network (through an outbound-only p2pnet.Peer with its own TLS identity),
// verifies them against the validators' BLS keys from the P-chain validator
// set at the requested height, and aggregates them until the requested
// share of the subnet's weight has signed, with warp verification's
// rounding.
//
// Every aggregation is bounded in time. Signatures are cached per message
// and validator, recent results per message, validator set and quorum, and
// concurrent requests for the same message share one collection. Errors
// carry derrors kinds and say how much weight signed, how much was needed,
// and which validators did not sign and why (QuorumError).
//
// It also builds the L1 message of a P-chain tx (the GET form of the
// aggregator). p2pnet runs avalanchego's network as an outbound-only peer,
// or a listening one for warptest's in-process validators.
//
// The package has no HTTP in it; internal/api serves it.
package warpagg

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p/acp118"
	"github.com/ava-labs/avalanchego/proto/pb/sdk"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
)

// Defaults of Config and Request.
const (
	DefaultQuorum         = 67
	DefaultTimeout        = 10 * time.Second
	DefaultConnectTimeout = 3 * time.Second
	DefaultHedgeDelay     = 150 * time.Millisecond
	DefaultBufferWindow   = 250 * time.Millisecond
	DefaultCacheSize      = 2048
)

// Config configures an Aggregator. NetworkID, Validators and Net are
// required.
type Config struct {
	// NetworkID is the network whose messages are aggregated.
	NetworkID uint32
	// Validators answers the P-chain questions: which subnet validates a
	// chain, the proposed height, validator sets.
	Validators ValidatorSource
	// Peers tells where validators can be reached (e.g. the node's
	// info.peers); nil when Net is connected by other means.
	Peers PeerSource
	// Net is the peer that sends the requests; the caller owns it.
	Net *p2pnet.Peer
	// Timeout bounds the collection of one message's signatures
	// (DefaultTimeout); resolving the validator set is bounded by it too.
	Timeout time.Duration
	// ConnectTimeout bounds waiting for a validator's connection
	// (DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// HedgeDelay is how long the answers to the first wave of requests
	// (the heaviest validators covering the target weight with a margin)
	// may stall before every other validator is asked too
	// (DefaultHedgeDelay).
	HedgeDelay time.Duration
	// BufferWindow is how long, once the quorum is reached, the collection
	// keeps going for quorumPercentageBuffer (DefaultBufferWindow).
	BufferWindow time.Duration
	// CacheSize is how many messages' signatures (and as many results)
	// are cached (DefaultCacheSize).
	CacheSize int
	// Registerer receives the aggregator's metrics; none when nil.
	Registerer prometheus.Registerer
	// Log receives debug logs; none when nil.
	Log *slog.Logger
}

// Request asks for the aggregated signature of one message.
type Request struct {
	// Message is the unsigned warp message.
	Message *warp.UnsignedMessage
	// Justification is sent to validators with the message (ACP-118).
	Justification []byte
	// SigningSubnetID is the subnet whose validators sign; nil for the
	// subnet that validates the message's source chain (the primary
	// network for the P-chain).
	SigningSubnetID *ids.ID
	// QuorumPercentage is the share of the subnet's weight that must sign,
	// 1..100; 0 means DefaultQuorum.
	QuorumPercentage uint64
	// QuorumPercentageBuffer is extra weight, in percent, to try for
	// within the buffer window; QuorumPercentage plus it is at most 100.
	QuorumPercentageBuffer uint64
	// PChainHeight selects the validator set; 0 means the proposed height.
	PChainHeight uint64
}

// Result is an aggregated message. Results are shared between callers and
// must not be modified.
type Result struct {
	// Message is the signed warp message.
	Message         *warp.Message
	SigningSubnetID ids.ID
	PChainHeight    uint64
	SignedWeight    uint64
	NeededWeight    uint64
	TotalWeight     uint64
	// Failures are the validators whose signatures are not in Message,
	// and why (those never asked because the quorum was reached are not
	// listed).
	Failures []Failure
	// Cached reports that the result was served from the result cache.
	Cached bool
}

// Aggregator aggregates warp signatures. It is safe for concurrent use.
type Aggregator struct {
	cfg     Config
	src     *sources
	sigs    *sigCache
	results *resultCache
	metrics *metrics
	log     *slog.Logger

	mu      sync.Mutex
	flights map[flightKey]*flight
}

type flightKey struct {
	resultKey
	justification [sha256.Size]byte
}

// flight is one collection, shared by the concurrent requests for it.
type flight struct {
	done chan struct{}
	res  *Result
	err  error
}

// New returns an aggregator.
func New(cfg Config) (*Aggregator, error) {
	if cfg.Validators == nil || cfg.Net == nil {
		return nil, errors.New("warpagg: Config.Validators and Config.Net are required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.HedgeDelay <= 0 {
		cfg.HedgeDelay = DefaultHedgeDelay
	}
	if cfg.BufferWindow <= 0 {
		cfg.BufferWindow = DefaultBufferWindow
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, fmt.Errorf("warpagg: metrics: %w", err)
	}
	return &Aggregator{
		cfg:     cfg,
		src:     newSources(cfg.Validators, cfg.Peers),
		sigs:    newSigCache(cfg.CacheSize),
		results: newResultCache(cfg.CacheSize),
		metrics: m,
		log:     cfg.Log,
		flights: map[flightKey]*flight{},
	}, nil
}

// NetworkID returns the id of the network whose messages it aggregates.
func (a *Aggregator) NetworkID() uint32 { return a.cfg.NetworkID }

// Aggregate returns req.Message signed by at least req.QuorumPercentage of
// the signing subnet's weight. Errors wrap derrors kinds: InvalidArgument
// for what the caller can fix (a message of another network, an unknown
// source chain, a height above the P-chain's, a subnet without validators,
// a message or justification that validators refuse), Unavailable when
// validators cannot be reached or do not answer in time (a *QuorumError
// says who), and the ValidatorSource's own errors.
func (a *Aggregator) Aggregate(ctx context.Context, req Request) (res *Result, err error) {
	start := time.Now()
	cached := false
	defer func() {
		a.metrics.aggregates.WithLabelValues(outcome(err, cached)).Inc()
		a.metrics.observe(stageTotal, time.Since(start))
	}()

	msg := req.Message
	if msg == nil {
		return nil, invalid("a message is required")
	}
	if msg.NetworkID != a.cfg.NetworkID {
		return nil, invalid("the message is for network %d, not this network (%d)", msg.NetworkID, a.cfg.NetworkID)
	}
	if msg.SourceChainID == constants.PlatformChainID {
		if err := CheckPChainMessage(msg, req.Justification); err != nil {
			return nil, err
		}
	}
	q := req.QuorumPercentage
	if q == 0 {
		q = DefaultQuorum
	}
	switch {
	case q > 100:
		return nil, invalid("quorumPercentage must be between 0 and 100, got %d", req.QuorumPercentage)
	case req.QuorumPercentageBuffer > 100:
		return nil, invalid("quorumPercentageBuffer must be between 0 and 100, got %d", req.QuorumPercentageBuffer)
	case q+req.QuorumPercentageBuffer > 100:
		return nil, invalid("quorumPercentage + quorumPercentageBuffer must be at most 100, got %d", q+req.QuorumPercentageBuffer)
	}

	resolveCtx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	vstart := time.Now()
	c, err := a.resolve(resolveCtx, req, q)
	a.metrics.observe(stageValidators, time.Since(vstart))
	if err != nil {
		return nil, err
	}

	if r, ok := a.results.get(c.key); ok {
		cached = true
		out := *r
		out.Cached = true
		return &out, nil
	}

	fk := flightKey{resultKey: c.key, justification: sha256.Sum256(req.Justification)}
	a.mu.Lock()
	f, shared := a.flights[fk]
	if !shared {
		f = &flight{done: make(chan struct{})}
		a.flights[fk] = f
		go a.fly(fk, f, c)
	}
	a.mu.Unlock()
	if shared {
		a.metrics.shared.Inc()
	}
	select {
	case <-f.done:
		if f.err != nil {
			return nil, f.err
		}
		return f.res, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("warpagg: waiting for the signatures of message %s: %w", msg.ID(), ctx.Err())
	}
}

// fly runs a collection to its end, bounded by the aggregator's timeout
// whoever waits for it, and publishes its outcome.
func (a *Aggregator) fly(fk flightKey, f *flight, c *collection) {
	a.metrics.inFlight.Inc()
	defer a.metrics.inFlight.Dec()
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.Timeout)
	defer cancel()
	f.res, f.err = a.collect(ctx, c)
	if f.err == nil {
		a.results.put(c.key, f.res)
		a.metrics.signedRatio.Observe(float64(f.res.SignedWeight) / float64(f.res.TotalWeight))
	}
	a.mu.Lock()
	delete(a.flights, fk)
	a.mu.Unlock()
	close(f.done)
}

// collection is everything one collection needs, resolved from a Request.
type collection struct {
	key     resultKey
	msg     *warp.UnsignedMessage
	request []byte // the ACP-118 SignatureRequest
	set     *vset
	quorum  uint64
}

// resolve finds the signing subnet, the height and its validator set, and
// the weights to reach.
func (a *Aggregator) resolve(ctx context.Context, req Request, q uint64) (*collection, error) {
	msg := req.Message
	var subnetID ids.ID
	if req.SigningSubnetID != nil {
		subnetID = *req.SigningSubnetID
	} else {
		id, err := a.src.subnetOf(ctx, msg.SourceChainID)
		if errors.Is(err, ErrUnknownChain) {
			return nil, invalid("the message's source chain %s is not a blockchain of this network; give signingSubnetId", msg.SourceChainID)
		}
		if err != nil {
			return nil, fmt.Errorf("warpagg: subnet of chain %s: %w", msg.SourceChainID, err)
		}
		subnetID = id
	}

	height := req.PChainHeight
	if height == 0 {
		h, err := a.src.proposedHeight(ctx)
		if err != nil {
			return nil, fmt.Errorf("warpagg: proposed P-chain height: %w", err)
		}
		height = h
	} else {
		last, err := a.src.lastHeight(ctx)
		if err != nil {
			return nil, fmt.Errorf("warpagg: P-chain height: %w", err)
		}
		if height > last {
			return nil, invalid("pChainHeight %d is above the P-chain's last accepted height %d", height, last)
		}
	}

	set, err := a.src.validatorSet(ctx, subnetID, height)
	if err != nil {
		return nil, fmt.Errorf("warpagg: %w", err)
	}
	if len(set.Validators) == 0 || set.TotalWeight == 0 {
		return nil, invalid("subnet %s has no validators with a BLS key at P-chain height %d", subnetID, height)
	}
	needed := ceilPercent(set.TotalWeight, q)
	target := ceilPercent(set.TotalWeight, q+req.QuorumPercentageBuffer)
	if needed > set.Keyed {
		return nil, invalid("validators with a BLS key hold %d of the %d weight of subnet %s at P-chain height %d, less than the %d (%d%%) needed",
			set.Keyed, set.TotalWeight, subnetID, height, needed, q)
	}
	target = min(target, set.Keyed)

	request, err := proto.Marshal(&sdk.SignatureRequest{Message: msg.Bytes(), Justification: req.Justification})
	if err != nil {
		return nil, fmt.Errorf("warpagg: signature request: %w", err)
	}
	return &collection{
		key:     resultKey{msgID: msg.ID(), subnetID: subnetID, height: height, needed: needed, target: target},
		msg:     msg,
		request: request,
		set:     set,
		quorum:  q,
	}, nil
}

// ceilPercent returns the least weight w with w*100 >= total*pct: what warp
// verification (warp.VerifyWeight) accepts for a quorum of pct/100.
func ceilPercent(total, pct uint64) uint64 {
	n := new(big.Int).Mul(new(big.Int).SetUint64(total), new(big.Int).SetUint64(pct))
	n.Add(n, big.NewInt(99))
	n.Div(n, big.NewInt(100))
	return n.Uint64()
}

// client returns the ACP-118 client of chainID.
func (a *Aggregator) client(chainID ids.ID) (signatureClient, error) {
	c, err := a.cfg.Net.Client(chainID, acp118.HandlerID)
	if err != nil {
		return nil, fmt.Errorf("warpagg: %w", err)
	}
	return c, nil
}

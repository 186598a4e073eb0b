// Package p2pnet runs an avalanchego network peer as a library: a real
// participant of avalanchego's peer-to-peer network (TLS identity, signed
// IP, handshake, pings) that exchanges application messages
// (AppRequest/AppResponse/AppError) with other peers through
// avalanchego's network/p2p.
//
// A Peer is outbound-only by default: it dials the peers it is told about
// and accepts no connections, which is what a signature aggregator needs.
// With Config.Listen it also accepts connections and advertises its address,
// which is what an in-process validator in tests needs.
//
// Requests are made with the *p2p.Client that Client returns (one p2p
// network per chain, as in a VM); handlers answer through AddHandler. The
// peer enforces a deadline on every request it sends: when no answer comes
// in time, or the peer is not connected, the request fails with an
// *common.AppError whose code is one of this package's codes.
package p2pnet

import (
	"context"
	"crypto"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/message"
	"github.com/ava-labs/avalanchego/network"
	"github.com/ava-labs/avalanchego/network/dialer"
	"github.com/ava-labs/avalanchego/network/p2p"
	"github.com/ava-labs/avalanchego/network/peer"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/staking"
	"github.com/ava-labs/avalanchego/subnets"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/compression"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/version"

	p2ppb "github.com/ava-labs/avalanchego/proto/pb/p2p"
)

// Codes of the *common.AppError a request fails with when the peer, not
// the remote handler, ends it. Remote handlers' own codes are positive
// (application errors) or avalanchego's generic non-positive codes.
const (
	// CodeTimeout: no answer before the request's deadline.
	CodeTimeout int32 = -1001
	// CodeNotConnected: the remote peer was not connected when the request
	// was sent.
	CodeNotConnected int32 = -1002
	// CodeDisconnected: the remote peer disconnected before answering.
	CodeDisconnected int32 = -1003
	// CodeClosed: this peer was closed before the answer came.
	CodeClosed int32 = -1004
)

// IsTransportFailure reports whether code is one of this package's codes:
// the request failed on the way, not in the remote handler.
func IsTransportFailure(code int32) bool { return code <= CodeTimeout && code >= CodeClosed }

// Defaults of Config.
const (
	DefaultRequestTimeout = 5 * time.Second
	DefaultDialRate       = 200
)

// Config configures a Peer. Only NetworkID is required.
type Config struct {
	// NetworkID is the id of the network to join (the handshake carries it).
	NetworkID uint32
	// Listen, when set (e.g. "127.0.0.1:0"), makes the peer accept inbound
	// connections on that address and advertise it; when empty the peer is
	// outbound-only.
	Listen string
	// TLSCert is the staking certificate that gives the peer its NodeID;
	// a fresh one is made when nil.
	TLSCert *tls.Certificate
	// Signer is the peer's BLS key (it signs its IP in the handshake);
	// a fresh one is made when nil.
	Signer *localsigner.LocalSigner
	// RequestTimeout bounds each AppRequest sent through Client
	// (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// DialRate bounds outbound connection attempts per second
	// (DefaultDialRate when 0).
	DialRate int
	// Compression compresses the messages the peer sends (none by
	// default: requests and answers of a few hundred bytes gain little,
	// and every receiver pays for decompression). Peers accept either.
	Compression compression.Type
	// Log receives avalanchego's network logs (none when nil).
	Log logging.Logger
	// Registerer receives avalanchego's network metrics; a private
	// registry is used when nil.
	Registerer prometheus.Registerer
}

// Peer is a running network peer. Close it when done.
type Peer struct {
	cfg     Config
	nodeID  ids.NodeID
	signer  *localsigner.LocalSigner
	addr    netip.AddrPort
	net     network.Network
	creator message.Creator
	log     logging.Logger
	reg     prometheus.Registerer

	closeOnce  sync.Once
	dispatched chan struct{}

	mu        sync.Mutex
	closed    bool
	chains    map[ids.ID]*chain
	connected set.Set[ids.NodeID]
	changed   chan struct{} // closed and replaced when connected changes
	pending   map[pendingKey]*pendingRequest
}

// chain is the p2p network of one chain.
type chain struct {
	id  ids.ID
	net *p2p.Network
}

type pendingKey struct {
	chainID   ids.ID
	requestID uint32
	nodeID    ids.NodeID
}

type pendingRequest struct {
	chain *chain
	timer *time.Timer
}

// New starts a peer.
func New(cfg Config) (*Peer, error) {
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.DialRate <= 0 {
		cfg.DialRate = DefaultDialRate
	}
	if cfg.Compression == 0 {
		cfg.Compression = compression.TypeNone
	}
	if cfg.Log == nil {
		cfg.Log = logging.NoLog{}
	}
	if cfg.Registerer == nil {
		cfg.Registerer = prometheus.NewRegistry()
	}
	if cfg.TLSCert == nil {
		cert, err := staking.NewTLSCert()
		if err != nil {
			return nil, fmt.Errorf("p2pnet: staking certificate: %w", err)
		}
		cfg.TLSCert = cert
	}
	if cfg.Signer == nil {
		sk, err := localsigner.New()
		if err != nil {
			return nil, fmt.Errorf("p2pnet: BLS key: %w", err)
		}
		cfg.Signer = sk
	}
	leaf := cfg.TLSCert.Leaf
	if leaf == nil {
		return nil, errors.New("p2pnet: the TLS certificate has no parsed leaf")
	}
	stakingCert, err := staking.ParseCertificate(leaf.Raw)
	if err != nil {
		return nil, fmt.Errorf("p2pnet: staking certificate: %w", err)
	}
	tlsKey, ok := cfg.TLSCert.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("p2pnet: the TLS key cannot sign")
	}

	p := &Peer{
		cfg:        cfg,
		nodeID:     ids.NodeIDFromCert(stakingCert),
		signer:     cfg.Signer,
		log:        cfg.Log,
		reg:        cfg.Registerer,
		dispatched: make(chan struct{}),
		chains:     make(map[ids.ID]*chain),
		changed:    make(chan struct{}),
		pending:    make(map[pendingKey]*pendingRequest),
	}

	netCfg, err := network.NewTestNetworkConfig(prometheus.WrapRegistererWithPrefix("resources_", cfg.Registerer),
		cfg.NetworkID, validators.NewManager(), set.Set[ids.ID]{})
	if err != nil {
		return nil, fmt.Errorf("p2pnet: network config: %w", err)
	}
	netCfg.TLSConfig = peer.TLSConfig(*cfg.TLSCert, nil)
	netCfg.TLSKey = tlsKey
	netCfg.BLSKey = cfg.Signer
	netCfg.MyNodeID = p.nodeID
	netCfg.DialerConfig.ThrottleRps = uint32(cfg.DialRate)

	var listener net.Listener
	if cfg.Listen != "" {
		l, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("p2pnet: listening on %s: %w", cfg.Listen, err)
		}
		addr, err := netip.ParseAddrPort(l.Addr().String())
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("p2pnet: listener address %s: %w", l.Addr(), err)
		}
		p.addr = addr
		netCfg.MyIPPort.Set(addr)
		listener = l
	} else {
		listener = newNoListener()
	}

	p.creator, err = message.NewCreator(prometheus.WrapRegistererWithPrefix("messages_", cfg.Registerer),
		cfg.Compression, constants.DefaultNetworkMaximumInboundTimeout)
	if err != nil {
		listener.Close()
		return nil, fmt.Errorf("p2pnet: message creator: %w", err)
	}
	p.net, err = network.NewNetwork(
		netCfg,
		upgrade.GetConfig(cfg.NetworkID).GraniteTime,
		p.creator,
		prometheus.WrapRegistererWithPrefix("network_", cfg.Registerer),
		cfg.Log,
		listener,
		dialer.NewDialer(constants.NetworkType, netCfg.DialerConfig, cfg.Log),
		(*router)(p),
	)
	if err != nil {
		listener.Close()
		return nil, fmt.Errorf("p2pnet: network: %w", err)
	}
	go func() {
		defer close(p.dispatched)
		_ = p.net.Dispatch()
	}()
	return p, nil
}

// NodeID returns the peer's node id (from its TLS certificate).
func (p *Peer) NodeID() ids.NodeID { return p.nodeID }

// Signer returns the peer's BLS key.
func (p *Peer) Signer() *localsigner.LocalSigner { return p.signer }

// Addr returns the address the peer listens on; invalid for an
// outbound-only peer.
func (p *Peer) Addr() netip.AddrPort { return p.addr }

// Connect makes the peer connect to nodeID at addr, and reconnect whenever
// the connection drops, until Close.
func (p *Peer) Connect(nodeID ids.NodeID, addr netip.AddrPort) {
	if nodeID == p.nodeID {
		return
	}
	p.net.ManuallyTrack(nodeID, addr)
}

// IsConnected reports whether the handshake with nodeID is complete.
func (p *Peer) IsConnected(nodeID ids.NodeID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connected.Contains(nodeID)
}

// ConnectedChanged returns a channel that is closed at the next change of
// the set of connected peers.
func (p *Peer) ConnectedChanged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// WaitConnected returns once nodeID is connected, or with ctx's error.
func (p *Peer) WaitConnected(ctx context.Context, nodeID ids.NodeID) error {
	for {
		changed := p.ConnectedChanged()
		if p.IsConnected(nodeID) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("p2pnet: connecting to %s: %w", nodeID, ctx.Err())
		case <-changed:
		}
	}
}

// NumConnected returns how many peers are connected.
func (p *Peer) NumConnected() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connected.Len()
}

// Client returns a client of the protocol handlerID on chainID, whose
// requests this peer sends and times out.
func (p *Peer) Client(chainID ids.ID, handlerID uint64) (*p2p.Client, error) {
	c, err := p.chain(chainID)
	if err != nil {
		return nil, err
	}
	return c.net.NewClient(handlerID, noSampler{}), nil
}

// AddHandler makes the peer answer requests of the protocol handlerID on
// chainID with h.
func (p *Peer) AddHandler(chainID ids.ID, handlerID uint64, h p2p.Handler) error {
	c, err := p.chain(chainID)
	if err != nil {
		return err
	}
	return c.net.AddHandler(handlerID, h)
}

func (p *Peer) chain(chainID ids.ID) (*chain, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("p2pnet: the peer is closed")
	}
	if c, ok := p.chains[chainID]; ok {
		return c, nil
	}
	c := &chain{id: chainID}
	// Each chain's p2p network registers its metrics under its own label.
	reg := prometheus.WrapRegistererWith(prometheus.Labels{"chain": chainID.String()}, p.reg)
	n, err := p2p.NewNetwork(p.log, &sender{peer: p, chain: c}, reg, "p2p")
	if err != nil {
		return nil, fmt.Errorf("p2pnet: p2p network of chain %s: %w", chainID, err)
	}
	c.net = n
	p.chains[chainID] = c
	return c, nil
}

// Close disconnects from every peer, fails the requests still waiting and
// stops the peer.
func (p *Peer) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		pending := p.pending
		p.pending = make(map[pendingKey]*pendingRequest)
		p.mu.Unlock()
		for k, r := range pending {
			r.timer.Stop()
			p.fail(r.chain, k, CodeClosed, "the aggregating peer was closed")
		}
		p.net.StartClose()
		<-p.dispatched
	})
}

// register records a request sent to nodeID and arms its deadline.
func (p *Peer) register(c *chain, k pendingKey, timeout time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := &pendingRequest{chain: c}
	r.timer = time.AfterFunc(timeout, func() {
		if p.take(k) != nil {
			p.fail(c, k, CodeTimeout, fmt.Sprintf("no answer within %s", timeout))
		}
	})
	p.pending[k] = r
}

// take removes and returns the pending request k, or nil when it already
// ended.
func (p *Peer) take(k pendingKey) *pendingRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.pending[k]
	if !ok {
		return nil
	}
	delete(p.pending, k)
	r.timer.Stop()
	return r
}

// fail ends request k with an error. The p2p client may still hold its
// router's lock while sending, so the failure is delivered from a goroutine
// of its own.
func (p *Peer) fail(c *chain, k pendingKey, code int32, msg string) {
	go func() {
		_ = c.net.AppRequestFailed(context.Background(), k.nodeID, k.requestID, &common.AppError{Code: code, Message: msg})
	}()
}

// sender sends one chain's application messages over the network.
type sender struct {
	peer  *Peer
	chain *chain
}

var _ common.AppSender = (*sender)(nil)

func (s *sender) SendAppRequest(_ context.Context, nodeIDs set.Set[ids.NodeID], requestID uint32, request []byte) error {
	p := s.peer
	timeout := p.cfg.RequestTimeout
	msg, err := p.creator.AppRequest(s.chain.id, requestID, timeout, request)
	if err != nil {
		return fmt.Errorf("p2pnet: building AppRequest: %w", err)
	}
	// Register first, so that an answer racing the send finds its request.
	for nodeID := range nodeIDs {
		p.register(s.chain, pendingKey{s.chain.id, requestID, nodeID}, timeout)
	}
	sent := p.net.Send(msg, common.SendConfig{NodeIDs: nodeIDs}, constants.PrimaryNetworkID, subnets.NoOpAllower)
	for nodeID := range nodeIDs {
		if sent.Contains(nodeID) {
			continue
		}
		k := pendingKey{s.chain.id, requestID, nodeID}
		if p.take(k) != nil {
			p.fail(s.chain, k, CodeNotConnected, "not connected")
		}
	}
	return nil
}

func (s *sender) SendAppResponse(_ context.Context, nodeID ids.NodeID, requestID uint32, response []byte) error {
	msg, err := s.peer.creator.AppResponse(s.chain.id, requestID, response)
	if err != nil {
		return fmt.Errorf("p2pnet: building AppResponse: %w", err)
	}
	s.peer.net.Send(msg, common.SendConfig{NodeIDs: set.Of(nodeID)}, constants.PrimaryNetworkID, subnets.NoOpAllower)
	return nil
}

func (s *sender) SendAppError(_ context.Context, nodeID ids.NodeID, requestID uint32, code int32, message string) error {
	msg, err := s.peer.creator.AppError(s.chain.id, requestID, code, message)
	if err != nil {
		return fmt.Errorf("p2pnet: building AppError: %w", err)
	}
	s.peer.net.Send(msg, common.SendConfig{NodeIDs: set.Of(nodeID)}, constants.PrimaryNetworkID, subnets.NoOpAllower)
	return nil
}

// SendAppGossip drops gossip: the peer takes part in no gossip protocol.
func (*sender) SendAppGossip(context.Context, common.SendConfig, []byte) error { return nil }

// router receives the network's messages and connection events.
type router Peer

func (r *router) HandleInbound(_ context.Context, msg *message.InboundMessage) {
	p := (*Peer)(r)
	switch m := msg.Message.(type) {
	case *p2ppb.AppRequest:
		c, ok := p.existingChain(m.ChainId)
		if !ok {
			msg.OnFinishedHandling()
			return
		}
		// A handler may take time (signing); the network's reading goroutine
		// must not wait for it.
		go func() {
			defer msg.OnFinishedHandling()
			_ = c.net.AppRequest(context.Background(), msg.NodeID, m.RequestId, msg.Expiration, m.AppBytes)
		}()
		return
	case *p2ppb.AppResponse:
		if c, k, ok := p.answered(msg.NodeID, m.ChainId, m.RequestId); ok {
			go func() { _ = c.net.AppResponse(context.Background(), k.nodeID, k.requestID, m.AppBytes) }()
		}
	case *p2ppb.AppError:
		if c, k, ok := p.answered(msg.NodeID, m.ChainId, m.RequestId); ok {
			appErr := &common.AppError{Code: m.ErrorCode, Message: m.ErrorMessage}
			go func() { _ = c.net.AppRequestFailed(context.Background(), k.nodeID, k.requestID, appErr) }()
		}
	}
	msg.OnFinishedHandling()
}

// answered ends the pending request an answer is for; ok is false for an
// answer nobody waits for (late, duplicate or unrequested).
func (p *Peer) answered(nodeID ids.NodeID, chainIDBytes []byte, requestID uint32) (*chain, pendingKey, bool) {
	chainID, err := ids.ToID(chainIDBytes)
	if err != nil {
		return nil, pendingKey{}, false
	}
	k := pendingKey{chainID, requestID, nodeID}
	r := p.take(k)
	if r == nil {
		return nil, k, false
	}
	return r.chain, k, true
}

func (p *Peer) existingChain(chainIDBytes []byte) (*chain, bool) {
	chainID, err := ids.ToID(chainIDBytes)
	if err != nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.chains[chainID]
	return c, ok
}

func (r *router) Connected(nodeID ids.NodeID, _ *version.Application, subnetID ids.ID) {
	if subnetID != constants.PrimaryNetworkID {
		return
	}
	p := (*Peer)(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.connected.Add(nodeID)
	close(p.changed)
	p.changed = make(chan struct{})
}

func (r *router) Disconnected(nodeID ids.NodeID) {
	p := (*Peer)(r)
	p.mu.Lock()
	p.connected.Remove(nodeID)
	close(p.changed)
	p.changed = make(chan struct{})
	for k, req := range p.pending {
		if k.nodeID == nodeID {
			req.timer.Stop()
			delete(p.pending, k)
			p.fail(req.chain, k, CodeDisconnected, "disconnected before answering")
		}
	}
	p.mu.Unlock()
}

// noSampler samples no node: every request names its nodes.
type noSampler struct{}

func (noSampler) Sample(context.Context, int) []ids.NodeID { return nil }

// noListener accepts nothing until closed: an outbound-only peer.
type noListener struct {
	once   sync.Once
	closed chan struct{}
}

func newNoListener() *noListener { return &noListener{closed: make(chan struct{})} }

func (l *noListener) Accept() (net.Conn, error) {
	<-l.closed
	return nil, net.ErrClosed
}

func (l *noListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (*noListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero, Port: 1} }

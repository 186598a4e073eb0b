package warpagg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p"
	"github.com/ava-labs/avalanchego/proto/pb/sdk"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
)

// signatureClient sends ACP-118 requests; *p2p.Client is one.
type signatureClient interface {
	AppRequest(ctx context.Context, nodeIDs set.Set[ids.NodeID], request []byte, onResponse p2p.AppResponseCallback) error
}

// NotAsked: the validator was not asked because the quorum was out of
// reach without it.
const NotAsked Reason = "not asked (the quorum was out of reach)"

// States of a validator in a collection.
type vstate uint8

const (
	queued  vstate = iota // not asked yet
	asked                 // asked (or waiting for a connection to be asked)
	pending               // answered a signature not verified yet
	signed                // its verified signature counts
	failed                // no signature from it
)

type validator struct {
	idx    int
	weight uint64
	nodes  []ids.NodeID
	state  vstate
	// open is how many of its nodes were asked and have not answered.
	open   int
	sig    *bls.Signature
	cached bool
	// failure is why it did not sign, once failed (or the last error of
	// one of its nodes while others may still answer).
	failure *Failure
}

// answer is one node's answer, parsed by the network goroutine that
// delivered it.
type answer struct {
	nodeID ids.NodeID
	sig    *bls.Signature
	err    error
}

// collector runs one collection: its state lives in its loop goroutine.
type collector struct {
	a      *Aggregator
	c      *collection
	client signatureClient
	start  time.Time

	vdrs    []*validator
	queue   []*validator // heaviest first
	answers chan answer

	// waiting are nodes to ask once connected, with the time they began
	// to wait.
	waiting map[ids.NodeID]time.Time
	// reachable are the nodes connected when the collection began or
	// whose address is known (the network dials them).
	reachable set.Set[ids.NodeID]

	signedW, pendingW, askedW, queuedW uint64
	pendingList                        []*validator

	// outOfReach is set when the collection ended early because the
	// quorum could no longer be reached.
	outOfReach bool
	quorumAt   time.Time
	firstAsked time.Time
	verifyTime time.Duration
}

// collect gathers signatures for c until its target weight, the end of the
// buffer window after its quorum, the end of ctx, or until the quorum is
// out of reach.
func (a *Aggregator) collect(ctx context.Context, c *collection) (*Result, error) {
	res, err := a.collectOnce(ctx, c, true)
	if errors.Is(err, errCachedSignatureInvalid) {
		// Cached signatures verified in batches can in principle cancel
		// each other out; start over without them.
		a.sigs.drop(c.key.msgID)
		res, err = a.collectOnce(ctx, c, false)
	}
	return res, err
}

var errCachedSignatureInvalid = errors.New("the cached signatures do not verify together")

func (a *Aggregator) collectOnce(ctx context.Context, c *collection, useCache bool) (*Result, error) {
	client, err := a.client(c.msg.SourceChainID)
	if err != nil {
		return nil, err
	}
	col := &collector{
		a:       a,
		c:       c,
		client:  client,
		start:   time.Now(),
		answers: make(chan answer, c.set.NumNodes),
		waiting: map[ids.NodeID]time.Time{},
	}
	col.vdrs = make([]*validator, len(c.set.Validators))
	var cached map[string]*bls.Signature
	if useCache {
		cached = a.sigs.get(c.key.msgID)
	}
	hits := 0
	for i, v := range c.set.Validators {
		vd := &validator{idx: i, weight: v.Weight, nodes: v.NodeIDs}
		col.vdrs[i] = vd
		if sig, ok := cached[string(v.PublicKeyBytes)]; ok {
			vd.state, vd.sig, vd.cached = signed, sig, true
			col.signedW += v.Weight
			hits++
			continue
		}
		col.queue = append(col.queue, vd)
		col.queuedW += v.Weight
	}
	a.metrics.cache.WithLabelValues("hit").Add(float64(hits))
	a.metrics.cache.WithLabelValues("miss").Add(float64(len(col.queue)))
	// Heaviest first; equal weights in random order, to spread the load.
	rand.Shuffle(len(col.queue), func(i, j int) { col.queue[i], col.queue[j] = col.queue[j], col.queue[i] })
	sort.SliceStable(col.queue, func(i, j int) bool { return col.queue[i].weight > col.queue[j].weight })
	return col.run(ctx)
}

// goal is the weight being collected for: the quorum, then the target.
func (col *collector) goal() uint64 {
	if col.signedW < col.c.key.needed {
		return col.c.key.needed
	}
	return col.c.key.target
}

// margin is how much weight beyond the goal is asked for at once, so that
// a few slow validators do not hold the quorum back: 5% of the weight.
func (col *collector) margin() uint64 {
	return col.c.set.TotalWeight / 20
}

func (col *collector) run(ctx context.Context) (*Result, error) {
	a := col.a
	if col.signedW >= col.c.key.target {
		return col.finish(nil)
	}
	// Connect to every validator with a known address not connected yet:
	// later requests find them ready.
	col.connectAll(ctx)

	var (
		hedge    = time.NewTimer(a.cfg.HedgeDelay)
		buffer   *time.Timer
		bufferC  <-chan time.Time
		connTick = time.NewTicker(50 * time.Millisecond)
	)
	defer hedge.Stop()
	defer connTick.Stop()
	defer func() {
		if buffer != nil {
			buffer.Stop()
		}
	}()

	col.refill(false)
	for {
		if done, err := col.progress(); done {
			return col.finish(err)
		}
		if !col.quorumAt.IsZero() && buffer == nil {
			if col.c.key.target <= col.c.key.needed {
				return col.finish(nil)
			}
			buffer = time.NewTimer(a.cfg.BufferWindow)
			bufferC = buffer.C
		}
		var connChanged <-chan struct{}
		if len(col.waiting) > 0 {
			connChanged = a.cfg.Net.ConnectedChanged()
			col.sendConnected()
		}
		select {
		case ans := <-col.answers:
			// The hedge waits for the answers to stall, not for a fixed
			// time: under load answers are slow but keep coming.
			if !hedge.Stop() {
				select {
				case <-hedge.C:
				default:
				}
			}
			hedge.Reset(a.cfg.HedgeDelay)
			col.receive(ans)
			// Take every answer already there before verifying.
			for more := true; more; {
				select {
				case ans := <-col.answers:
					col.receive(ans)
				default:
					more = false
				}
			}
		case <-connChanged:
		case <-connTick.C:
			col.expireWaiting()
		case <-hedge.C:
			// No answer for a while: ask everyone left.
			col.refill(true)
		case <-bufferC:
			return col.finish(nil)
		case <-ctx.Done():
			return col.finish(ctx.Err())
		}
	}
}

// connectAll asks the network to connect to the set's validators that are
// not connected and whose address is known.
func (col *collector) connectAll(ctx context.Context) {
	net := col.a.cfg.Net
	col.reachable = set.NewSet[ids.NodeID](col.c.set.NumNodes)
	var missing []ids.NodeID
	for _, v := range col.vdrs {
		if v.state == signed {
			continue
		}
		for _, id := range v.nodes {
			if net.IsConnected(id) {
				col.reachable.Add(id)
			} else {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	cstart := time.Now()
	addrs := col.a.src.addrs(ctx, missing)
	col.a.metrics.observe(stageConnect, time.Since(cstart))
	for id, addr := range addrs {
		net.Connect(id, addr)
		col.reachable.Add(id)
	}
}

// refill asks more validators, heaviest first, until what is signed,
// pending and asked covers the goal plus the margin; with all, it asks
// every validator left.
func (col *collector) refill(all bool) {
	want := col.goal() + col.margin()
	var batch []ids.NodeID
	for len(col.queue) > 0 && (all || col.signedW+col.pendingW+col.askedW < want) {
		v := col.queue[0]
		col.queue = col.queue[1:]
		col.queuedW -= v.weight
		batch = col.ask(v, batch)
	}
	col.send(batch)
}

// ask marks v asked and adds its connected nodes to batch; nodes not
// connected wait for their connection, nodes without an address fail.
func (col *collector) ask(v *validator, batch []ids.NodeID) []ids.NodeID {
	net := col.a.cfg.Net
	now := time.Now()
	if col.firstAsked.IsZero() {
		col.firstAsked = now
	}
	v.state = asked
	col.askedW += v.weight
	for _, id := range v.nodes {
		switch {
		case net.IsConnected(id):
			batch = append(batch, id)
			v.open++
		case col.reachable.Contains(id):
			col.waiting[id] = now
			v.open++
		default:
			v.failure = &Failure{NodeID: id, Weight: v.weight, Reason: NoAddress}
		}
	}
	if v.open == 0 {
		col.fail(v)
	}
	return batch
}

// sendConnected asks the waiting nodes that are now connected.
func (col *collector) sendConnected() {
	net := col.a.cfg.Net
	var batch []ids.NodeID
	for id := range col.waiting {
		if net.IsConnected(id) {
			delete(col.waiting, id)
			batch = append(batch, id)
		}
	}
	col.send(batch)
}

// expireWaiting fails the nodes that waited too long for a connection.
func (col *collector) expireWaiting() {
	limit := col.a.cfg.ConnectTimeout
	for id, since := range col.waiting {
		if time.Since(since) < limit {
			continue
		}
		delete(col.waiting, id)
		v := col.vdrs[col.c.set.Index[id]]
		col.nodeFailed(v, &Failure{NodeID: id, Weight: v.weight, Reason: NotConnected,
			Detail: fmt.Sprintf("no connection within %s", limit)})
	}
}

// send sends the signature request to nodeIDs; the answers come back on
// col.answers, parsed.
func (col *collector) send(nodeIDs []ids.NodeID) {
	if len(nodeIDs) == 0 {
		return
	}
	answers := col.answers
	onResponse := func(_ context.Context, nodeID ids.NodeID, b []byte, err error) {
		ans := answer{nodeID: nodeID, err: err}
		if err == nil {
			ans.sig, ans.err = parseSignature(b)
		}
		answers <- ans // never blocks: one slot per node
	}
	err := col.client.AppRequest(context.Background(), set.Of(nodeIDs...), col.c.request, onResponse)
	if err != nil {
		for _, id := range nodeIDs {
			answers <- answer{nodeID: id, err: fmt.Errorf("sending the request: %w", err)}
		}
	}
}

// errNotASignature marks an answer that is not a BLS signature.
var errNotASignature = errors.New("not a BLS signature")

func parseSignature(b []byte) (*bls.Signature, error) {
	var resp sdk.SignatureResponse
	if err := proto.Unmarshal(b, &resp); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotASignature, err)
	}
	// The point is decompressed here; its subgroup check is left to the
	// aggregate of the batch it is verified in (see verifies), which is
	// checked once instead of once per signature.
	sig := new(bls.Signature).Uncompress(resp.Signature)
	if sig == nil {
		return nil, fmt.Errorf("%w: %w", errNotASignature, bls.ErrFailedSignatureDecompress)
	}
	return sig, nil
}

// receive applies one answer.
func (col *collector) receive(ans answer) {
	i, ok := col.c.set.Index[ans.nodeID]
	if !ok {
		return
	}
	v := col.vdrs[i]
	if v.state != asked {
		return // another node of the same validator answered first
	}
	v.open--
	metrics := col.a.metrics.requests
	switch {
	case ans.err == nil:
		v.state, v.sig = pending, ans.sig
		col.askedW -= v.weight
		col.pendingW += v.weight
		col.pendingList = append(col.pendingList, v)
		return
	case errors.Is(ans.err, errNotASignature):
		metrics.WithLabelValues("bad_signature").Inc()
		v.failure = &Failure{NodeID: ans.nodeID, Weight: v.weight, Reason: BadSignature, Detail: ans.err.Error()}
	default:
		f := classify(ans.nodeID, v.weight, ans.err)
		metrics.WithLabelValues(outcomeLabel(f.Reason)).Inc()
		v.failure = f
	}
	if v.open == 0 {
		col.fail(v)
	}
}

// nodeFailed records that one node of v will not answer.
func (col *collector) nodeFailed(v *validator, f *Failure) {
	if v.state != asked {
		return
	}
	v.open--
	v.failure = f
	col.a.metrics.requests.WithLabelValues(outcomeLabel(f.Reason)).Inc()
	if v.open == 0 {
		col.fail(v)
	}
}

// fail marks v as not signing, for v.failure.
func (col *collector) fail(v *validator) {
	if v.state == asked {
		col.askedW -= v.weight
	}
	v.state = failed
	if v.failure == nil {
		v.failure = &Failure{NodeID: v.nodes[0], Weight: v.weight, Reason: Failed}
	}
}

// classify turns a request's error into a Failure.
func classify(nodeID ids.NodeID, weight uint64, err error) *Failure {
	f := &Failure{NodeID: nodeID, Weight: weight, Reason: Failed, Detail: err.Error()}
	var appErr *common.AppError
	if !errors.As(err, &appErr) {
		return f
	}
	f.Detail = appErr.Message
	switch {
	case appErr.Code == p2pnet.CodeNotConnected:
		f.Reason = NotConnected
	case p2pnet.IsTransportFailure(appErr.Code):
		f.Reason = NoAnswer
	case appErr.Code > 0:
		// A handler's application error: its verifier does not accept the
		// message with this justification.
		f.Reason = Refused
	}
	return f
}

func outcomeLabel(r Reason) string {
	switch r {
	case NoAddress:
		return "no_address"
	case NotConnected:
		return "not_connected"
	case NoAnswer:
		return "no_answer"
	case Refused:
		return "refused"
	case BadSignature:
		return "bad_signature"
	}
	return "error"
}

// progress verifies what it must and reports whether the collection is
// over: done with a nil error when the quorum holds and nothing more is to
// be had, done with an error (nil here; finish decides) when the quorum is
// out of reach.
func (col *collector) progress() (done bool, err error) {
	for {
		outstanding := col.askedW > 0 || len(col.queue) > 0
		goal := col.goal()
		if col.pendingW > 0 && (col.signedW+col.pendingW >= goal || !outstanding) {
			col.verifyPending()
			continue
		}
		if col.signedW >= col.c.key.needed && col.quorumAt.IsZero() {
			col.quorumAt = time.Now()
			col.a.metrics.observe(stageQuorum, col.quorumAt.Sub(col.firstAskedOrStart()))
		}
		if col.signedW >= col.c.key.target {
			return true, nil
		}
		if col.signedW+col.pendingW+col.askedW+col.queuedW < goal {
			// Nothing left can reach the goal: the quorum is out of reach,
			// or the target is and the quorum holds.
			col.outOfReach = col.signedW < col.c.key.needed
			return true, nil
		}
		if !outstanding && col.pendingW == 0 {
			return true, nil
		}
		col.refill(false)
		return false, nil
	}
}

func (col *collector) firstAskedOrStart() time.Time {
	if col.firstAsked.IsZero() {
		return col.start
	}
	return col.firstAsked
}

// verifyPending verifies the pending signatures as one aggregate and, if
// that fails, halves the batch until each bad signature is found.
func (col *collector) verifyPending() {
	start := time.Now()
	batch := col.pendingList
	col.pendingList = nil
	col.pendingW = 0
	good := make(map[string]*bls.Signature, len(batch))
	col.verify(batch, good)
	col.a.sigs.put(col.c.key.msgID, good)
	d := time.Since(start)
	col.verifyTime += d
	col.a.metrics.observe(stageVerify, d)
}

func (col *collector) verify(batch []*validator, good map[string]*bls.Signature) {
	if len(batch) == 0 {
		return
	}
	if col.verifies(batch) {
		col.a.metrics.requests.WithLabelValues("signed").Add(float64(len(batch)))
		for _, v := range batch {
			v.state = signed
			col.signedW += v.weight
			good[string(col.c.set.Validators[v.idx].PublicKeyBytes)] = v.sig
		}
		return
	}
	if len(batch) == 1 {
		v := batch[0]
		v.state = failed
		v.failure = &Failure{NodeID: v.nodes[0], Weight: v.weight, Reason: BadSignature,
			Detail: "the signature does not verify against the validator's BLS key"}
		col.a.metrics.requests.WithLabelValues("bad_signature").Inc()
		return
	}
	mid := len(batch) / 2
	col.verify(batch[:mid], good)
	col.verify(batch[mid:], good)
}

// verifies reports whether the aggregate of batch's signatures is a valid
// signature (in the prime-order subgroup, as bls.SignatureFromBytes
// requires of each signature) that verifies against the aggregate of their
// public keys. A signature outside the subgroup spoils its batch's
// aggregate, so bisection finds it like any other bad signature.
func (col *collector) verifies(batch []*validator) bool {
	msg := col.c.msg.Bytes()
	vdrs := col.c.set.Validators
	if len(batch) == 1 {
		sig := batch[0].sig
		return sig.SigValidate(false) && bls.Verify(vdrs[batch[0].idx].PublicKey, sig, msg)
	}
	sigs := make([]*bls.Signature, len(batch))
	pks := make([]*bls.PublicKey, len(batch))
	for i, v := range batch {
		sigs[i] = v.sig
		pks[i] = vdrs[v.idx].PublicKey
	}
	aggSig, err := bls.AggregateSignatures(sigs)
	if err != nil || !aggSig.SigValidate(false) {
		return false
	}
	aggPK, err := bls.AggregatePublicKeys(pks)
	if err != nil {
		return false
	}
	return bls.Verify(aggPK, aggSig, msg)
}

// finish builds the result from the verified signatures, or the
// QuorumError when they fall short.
func (col *collector) finish(cause error) (*Result, error) {
	if col.pendingW > 0 {
		col.verifyPending()
	}
	c := col.c
	var failures []Failure
	for _, v := range col.vdrs {
		switch v.state {
		case failed:
			failures = append(failures, *v.failure)
		case asked:
			detail := "no answer before the aggregation ended"
			if col.outOfReach {
				detail = "not awaited: the quorum was already out of reach"
			}
			f := Failure{NodeID: v.nodes[0], Weight: v.weight, Reason: NoAnswer, Detail: detail}
			if v.failure != nil && v.failure.Reason != NoAnswer {
				f = *v.failure
			}
			for id := range col.waiting {
				if c.set.Index[id] == v.idx {
					f = Failure{NodeID: id, Weight: v.weight, Reason: NotConnected, Detail: "no connection before the aggregation ended"}
					break
				}
			}
			failures = append(failures, f)
		case queued:
			if col.signedW < c.key.needed {
				failures = append(failures, Failure{NodeID: v.nodes[0], Weight: v.weight, Reason: NotAsked})
			}
		}
	}
	if col.signedW < c.key.needed {
		qe := newQuorumError(&QuorumError{
			SubnetID:     c.key.subnetID,
			PChainHeight: c.key.height,
			Signed:       col.signedW,
			Needed:       c.key.needed,
			Total:        c.set.TotalWeight,
			Quorum:       c.quorum,
			Failures:     failures,
			Elapsed:      time.Since(col.start),
		})
		col.a.log.Debug("warp aggregation short of its quorum", "msg", c.key.msgID, "err", qe, "cause", cause)
		return nil, qe
	}
	if !col.quorumAt.IsZero() && c.key.target > c.key.needed {
		col.a.metrics.observe(stageBuffer, time.Since(col.quorumAt))
	}

	astart := time.Now()
	var (
		indices   []int
		sigs      []*bls.Signature
		pks       []*bls.PublicKey
		anyCached bool
	)
	for _, v := range col.vdrs {
		if v.state != signed {
			continue
		}
		indices = append(indices, v.idx)
		sigs = append(sigs, v.sig)
		pks = append(pks, c.set.Validators[v.idx].PublicKey)
		anyCached = anyCached || v.cached
	}
	agg, err := bls.AggregateSignatures(sigs)
	if err != nil {
		return nil, fmt.Errorf("warpagg: aggregating %d signatures: %w", len(sigs), err)
	}
	if anyCached {
		// Signatures verified in different batches are checked together
		// once: the message must verify.
		aggPK, err := bls.AggregatePublicKeys(pks)
		if err != nil {
			return nil, fmt.Errorf("warpagg: aggregating %d public keys: %w", len(pks), err)
		}
		if !agg.SigValidate(false) || !bls.Verify(aggPK, agg, c.msg.Bytes()) {
			return nil, errCachedSignatureInvalid
		}
	}
	bitSet := &warp.BitSetSignature{Signers: set.NewBits(indices...).Bytes()}
	copy(bitSet.Signature[:], bls.SignatureToBytes(agg))
	signedMsg, err := warp.NewMessage(c.msg, bitSet)
	if err != nil {
		return nil, fmt.Errorf("warpagg: building the signed message: %w", err)
	}
	col.a.metrics.observe(stageAggregate, time.Since(astart))
	return &Result{
		Message:         signedMsg,
		SigningSubnetID: c.key.subnetID,
		PChainHeight:    c.key.height,
		SignedWeight:    col.signedW,
		NeededWeight:    c.key.needed,
		TotalWeight:     c.set.TotalWeight,
		Failures:        failures,
	}, nil
}

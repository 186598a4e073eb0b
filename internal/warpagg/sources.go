package warpagg

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/cache/lru"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
)

// ValidatorSource is the P-chain's view the aggregator needs. Its errors
// are server-side unless they wrap ErrUnknownChain.
type ValidatorSource interface {
	// SubnetOf returns the subnet that validates the blockchain chainID; an
	// error wrapping ErrUnknownChain when the P-chain has no such chain.
	SubnetOf(ctx context.Context, chainID ids.ID) (ids.ID, error)
	// Height returns the P-chain's last accepted height.
	Height(ctx context.Context) (uint64, error)
	// ProposedHeight returns the P-chain height a block proposed now would
	// reference: where validator sets are read by default.
	ProposedHeight(ctx context.Context) (uint64, error)
	// ValidatorsAt returns the validators of subnetID at P-chain height
	// (at most Height).
	ValidatorsAt(ctx context.Context, subnetID ids.ID, height uint64) (map[ids.NodeID]*validators.GetValidatorOutput, error)
}

// ErrUnknownChain is wrapped by ValidatorSource.SubnetOf for a chain the
// P-chain does not know.
var ErrUnknownChain = errors.New("unknown blockchain")

// PeerSource tells where nodes can be reached.
type PeerSource interface {
	// PeerAddrs returns the staking (peer-to-peer) address of the nodes it
	// knows.
	PeerAddrs(ctx context.Context) (map[ids.NodeID]netip.AddrPort, error)
}

// StaticPeers is a PeerSource of fixed addresses.
type StaticPeers map[ids.NodeID]netip.AddrPort

// PeerAddrs returns the addresses.
func (s StaticPeers) PeerAddrs(context.Context) (map[ids.NodeID]netip.AddrPort, error) { return s, nil }

// Cache lifetimes of what the sources answer. Validator sets at a height
// never change and are kept in an LRU; chains' subnets never change.
const (
	heightTTL    = 500 * time.Millisecond
	peerTTL      = 10 * time.Second
	peerMissWait = time.Second // at most one refresh per this for unknown nodes
	setCacheSize = 64
)

// sources caches a ValidatorSource and a PeerSource.
type sources struct {
	vs ValidatorSource
	ps PeerSource

	sets *lru.Cache[setKey, *vset]

	mu        sync.Mutex
	subnets   map[ids.ID]ids.ID
	height    uint64
	heightAt  time.Time
	proposed  uint64
	propAt    time.Time
	peers     map[ids.NodeID]netip.AddrPort
	peersAt   time.Time
	peersFlag chan struct{} // non-nil while a refresh runs
}

type setKey struct {
	subnetID ids.ID
	height   uint64
}

func newSources(vs ValidatorSource, ps PeerSource) *sources {
	return &sources{
		vs:      vs,
		ps:      ps,
		sets:    lru.NewCache[setKey, *vset](setCacheSize),
		subnets: map[ids.ID]ids.ID{},
	}
}

// subnetOf returns the subnet validating chainID: the primary network for
// the P-chain (and, through the source, for X and C).
func (s *sources) subnetOf(ctx context.Context, chainID ids.ID) (ids.ID, error) {
	if chainID == constants.PlatformChainID {
		return constants.PrimaryNetworkID, nil
	}
	s.mu.Lock()
	id, ok := s.subnets[chainID]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	id, err := s.vs.SubnetOf(ctx, chainID)
	if err != nil {
		return ids.Empty, err
	}
	s.mu.Lock()
	s.subnets[chainID] = id
	s.mu.Unlock()
	return id, nil
}

func (s *sources) lastHeight(ctx context.Context) (uint64, error) {
	return s.cachedHeight(ctx, &s.height, &s.heightAt, s.vs.Height)
}

func (s *sources) proposedHeight(ctx context.Context) (uint64, error) {
	return s.cachedHeight(ctx, &s.proposed, &s.propAt, s.vs.ProposedHeight)
}

func (s *sources) cachedHeight(ctx context.Context, v *uint64, at *time.Time, get func(context.Context) (uint64, error)) (uint64, error) {
	s.mu.Lock()
	if time.Since(*at) < heightTTL {
		h := *v
		s.mu.Unlock()
		return h, nil
	}
	s.mu.Unlock()
	h, err := get(ctx)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	*v, *at = h, time.Now()
	s.mu.Unlock()
	return h, nil
}

// vset is a canonical (warp) validator set with what a collection needs
// to look up in it.
type vset struct {
	validators.WarpSet
	// Keyed is the weight of the validators with a BLS key (those in
	// Validators); TotalWeight also counts those without one.
	Keyed uint64
	// Index maps each node id to its validator's position in Validators.
	Index map[ids.NodeID]int
	// NumNodes is the number of node ids of the validators.
	NumNodes int
}

// validatorSet returns the canonical (warp) validator set of subnetID at
// height: validators with a BLS key, sorted by key, duplicates merged, and
// the total weight of all validators.
func (s *sources) validatorSet(ctx context.Context, subnetID ids.ID, height uint64) (*vset, error) {
	k := setKey{subnetID, height}
	if set, ok := s.sets.Get(k); ok {
		return set, nil
	}
	vdrs, err := s.vs.ValidatorsAt(ctx, subnetID, height)
	if err != nil {
		return nil, fmt.Errorf("validators of subnet %s at P-chain height %d: %w", subnetID, height, err)
	}
	ws, err := validators.FlattenValidatorSet(vdrs)
	if err != nil {
		return nil, fmt.Errorf("validators of subnet %s at P-chain height %d: %w", subnetID, height, err)
	}
	set := &vset{WarpSet: ws, Index: map[ids.NodeID]int{}}
	for i, v := range ws.Validators {
		set.Keyed += v.Weight
		for _, id := range v.NodeIDs {
			set.Index[id] = i
			set.NumNodes++
		}
	}
	s.sets.Put(k, set)
	return set, nil
}

// addrs returns the known address of each of nodeIDs it can find. The
// source is asked again when its answer is old, or when a node is unknown
// and it was not asked in the last peerMissWait.
func (s *sources) addrs(ctx context.Context, nodeIDs []ids.NodeID) map[ids.NodeID]netip.AddrPort {
	out := make(map[ids.NodeID]netip.AddrPort, len(nodeIDs))
	s.mu.Lock()
	missing := false
	for _, id := range nodeIDs {
		if a, ok := s.peers[id]; ok {
			out[id] = a
		} else {
			missing = true
		}
	}
	age := time.Since(s.peersAt)
	stale := age > peerTTL || (missing && age > peerMissWait)
	s.mu.Unlock()
	if !stale || s.ps == nil {
		return out
	}
	if err := s.refreshPeers(ctx); err != nil {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range nodeIDs {
		if a, ok := s.peers[id]; ok {
			out[id] = a
		}
	}
	return out
}

// refreshPeers asks the peer source once for all concurrent callers.
func (s *sources) refreshPeers(ctx context.Context) error {
	s.mu.Lock()
	if s.peersFlag != nil {
		wait := s.peersFlag
		s.mu.Unlock()
		select {
		case <-wait:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	done := make(chan struct{})
	s.peersFlag = done
	s.mu.Unlock()

	m, err := s.ps.PeerAddrs(ctx)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.peersFlag = nil
	close(done)
	s.peersAt = time.Now()
	if err != nil {
		return err
	}
	s.peers = m
	return nil
}

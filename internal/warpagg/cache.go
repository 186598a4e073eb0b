package warpagg

import (
	"sync"

	"github.com/ava-labs/avalanchego/cache/lru"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
)

// sigCache keeps validators' verified signatures per message: message id →
// validator BLS public key (uncompressed bytes) → signature. A signature
// stays valid whatever the P-chain height, as long as its validator keeps
// the key, so one entry serves every later request for the message.
type sigCache struct {
	msgs *lru.Cache[ids.ID, *msgSigs]
}

type msgSigs struct {
	mu   sync.Mutex
	sigs map[string]*bls.Signature
}

func newSigCache(size int) *sigCache {
	return &sigCache{msgs: lru.NewCache[ids.ID, *msgSigs](size)}
}

// get returns the cached signatures of msgID by public key; the map is a
// copy.
func (c *sigCache) get(msgID ids.ID) map[string]*bls.Signature {
	m, ok := c.msgs.Get(msgID)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*bls.Signature, len(m.sigs))
	for k, v := range m.sigs {
		out[k] = v
	}
	return out
}

// put adds verified signatures of msgID, keyed by public key bytes.
func (c *sigCache) put(msgID ids.ID, sigs map[string]*bls.Signature) {
	if len(sigs) == 0 {
		return
	}
	m, ok := c.msgs.Get(msgID)
	if !ok {
		m = &msgSigs{sigs: make(map[string]*bls.Signature, len(sigs))}
		c.msgs.Put(msgID, m)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range sigs {
		m.sigs[k] = v
	}
}

// drop forgets every signature of msgID.
func (c *sigCache) drop(msgID ids.ID) { c.msgs.Evict(msgID) }

// resultKey names one aggregation's outcome: the message, the validator
// set it was signed for, and the weights it had to reach.
type resultKey struct {
	msgID    ids.ID
	subnetID ids.ID
	height   uint64
	needed   uint64
	target   uint64
}

// resultCache keeps recent aggregated messages, so that the same request
// asked again is answered without any work.
type resultCache struct {
	msgs *lru.Cache[resultKey, *Result]
}

func newResultCache(size int) *resultCache {
	return &resultCache{msgs: lru.NewCache[resultKey, *Result](size)}
}

func (c *resultCache) get(k resultKey) (*Result, bool) { return c.msgs.Get(k) }
func (c *resultCache) put(k resultKey, r *Result)      { c.msgs.Put(k, r) }

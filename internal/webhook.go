package internal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// Event types of the webhooks: EVM address activity, P- and X-chain
// address activity, and validator activity.
const (
	EventAddressActivity         = "address_activity"
	EventPlatformAddressActivity = "primary_network_address_activity"
	EventValidatorActivity       = "validator_activity"
)

// The primary-network webhooks' sub-events: of
// EventPlatformAddressActivity (balance change, balance threshold,
// reward distribution) and of EventValidatorActivity (the rest, and
// reward distribution).
const (
	SubBalanceChange      = "balance_change"
	SubBalanceThreshold   = "balance_threshold"
	SubRewardDistribution = "reward_distribution"
	SubValidatorStake     = "validator_stake"
	SubDelegatorStake     = "delegator_stake"
	SubL1BalanceIncreased = "l1_validator_balance_increased"
	SubL1Disabled         = "l1_validator_disabled"
	SubL1Removed          = "l1_validator_removed"
	SubL1BalanceThreshold = "l1_validator_balance_threshold"
)

// WebhookEvent is one event the derivation raised for a webhook: a row of
// the outbox, which the delivery worker sends in (block, position)
// order.
type WebhookEvent struct {
	WebhookID string
	// Block is the block's number (height on the P- and X-chains);
	// Position orders the events of one block.
	Block    uint64
	Position int64
	// MessageID is the event's id, the same when a block is applied
	// again, so that the outbox keeps it once.
	MessageID string
	// Payload is the event as delivered, in canonical JSON
	// (EncodeCanonical).
	Payload []byte
}

// MessageID is the id of the event name names: a UUID (version 5,
// name-based, with SHA-256), so that an event derived again gets the same
// one.
func MessageID(name []byte) string {
	sum := sha256.Sum256(name)
	var u [16]byte
	copy(u[:], sum[:])
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	x := hex.EncodeToString(u[:])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// EncodeCanonical encodes v, whose struct fields are in the byte order of
// their JSON names, without HTML escapes and without a trailing newline:
// its canonical form (RFC 8785), which the hosted service signs.
func EncodeCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AddressWatch is an active address_activity webhook as an EVM chain's
// blocks are matched against it.
type AddressWatch struct {
	ID string
	// Created is when it was created, unix seconds: blocks older than it
	// raise no event.
	Created int64
	// Logs and InternalTxs tell whether its events carry the tx's logs and
	// internal txs; an internal tx alone matches only when InternalTxs.
	Logs, InternalTxs bool
	// Signatures are the event signatures (topic 0) a tx must have
	// emitted to match; nil matches every tx.
	Signatures map[common.Hash]bool
}

// WatchedAddress is an address of an EVM chain.
type WatchedAddress struct {
	ChainID uint64
	Address common.Address
}

// AddressWatches are the active address_activity webhooks with the
// addresses each watches, indexed for matching. It is not changed once
// built: a change to the webhooks builds a new one.
type AddressWatches struct {
	Hooks  []AddressWatch
	byAddr map[WatchedAddress][]int32
	// filter is a Bloom filter of the watched addresses: most of a
	// block's parties are watched by none, and a miss here costs no map
	// lookup.
	filter []uint64
}

// watchFilterBits is the Bloom filter's size: 2^20 bits (128 KiB), about
// 3% false positives at 100,000 addresses.
const watchFilterBits = 1 << 20

// watchFilterBitsOf are an address's two bits. Addresses are hashes (or
// chosen by their owner: a collision costs only a map lookup).
func watchFilterBitsOf(a *common.Address) (uint64, uint64) {
	return binary.LittleEndian.Uint64(a[0:8]) % watchFilterBits, binary.LittleEndian.Uint64(a[12:20]) % watchFilterBits
}

// NewAddressWatches indexes hooks and the addresses they watch, each
// with the indices in hooks of its watchers.
func NewAddressWatches(hooks []AddressWatch, byAddr map[WatchedAddress][]int32) *AddressWatches {
	w := &AddressWatches{Hooks: hooks, byAddr: byAddr, filter: make([]uint64, watchFilterBits/64)}
	for k := range byAddr {
		h1, h2 := watchFilterBitsOf(&k.Address)
		w.filter[h1/64] |= 1 << (h1 % 64)
		w.filter[h2/64] |= 1 << (h2 % 64)
	}
	return w
}

// Empty reports whether no address is watched.
func (w *AddressWatches) Empty() bool { return w == nil || len(w.byAddr) == 0 }

// Watchers returns the indices in Hooks of the webhooks that watch a on
// the chain chainID.
func (w *AddressWatches) Watchers(chainID uint64, a *common.Address) []int32 {
	if w.Empty() {
		return nil
	}
	h1, h2 := watchFilterBitsOf(a)
	if w.filter[h1/64]&(1<<(h1%64)) == 0 || w.filter[h2/64]&(1<<(h2%64)) == 0 {
		return nil
	}
	return w.byAddr[WatchedAddress{chainID, *a}]
}

// PlatformWatch is an active primary-network webhook
// (EventPlatformAddressActivity or EventValidatorActivity) as the P- and
// X-chain's batches are matched against it.
type PlatformWatch struct {
	ID, EventType string
	// Created is when it was created, unix seconds: blocks older than it
	// raise no event.
	Created int64
	// Chain is the chain whose addresses an address webhook watches.
	Chain     Chain
	SubEvents map[string]bool
	// BalanceType and Threshold are SubBalanceThreshold's filter (nAVAX);
	// Threshold is nil without one.
	BalanceType string
	Threshold   *big.Int
	// Keys are the addresses an address webhook watches, as it spelled
	// them.
	Keys map[ids.ShortID]string
	// Nodes and Subnets narrow a validator webhook's events; nil keeps
	// any.
	Nodes   map[ids.NodeID]bool
	Subnets map[ids.ID]bool
	// L1Threshold is SubL1BalanceThreshold's (nAVAX); without
	// HasL1Threshold that sub-event matches nothing.
	L1Threshold    uint64
	HasL1Threshold bool
}

// L1Fee tells whether h wants events of the L1 validators' continuous
// fee, which no tx carries.
func (h *PlatformWatch) L1Fee() bool {
	return h.SubEvents[SubL1Disabled] || (h.SubEvents[SubL1BalanceThreshold] && h.HasL1Threshold)
}

// PlatformWatches are the active primary-network webhooks, by what they
// key on (indices in Hooks). Not changed once built.
type PlatformWatches struct {
	Hooks    []PlatformWatch
	ByAddr   map[Chain]map[ids.ShortID][]int32
	ByNode   map[ids.NodeID][]int32
	BySubnet map[ids.ID][]int32
	// L1Fee is set when a validator webhook wants the L1 fee's events.
	L1Fee bool
}

// EndedStaker is a staker a RewardValidatorTx removed, as its
// reward_distribution events tell it.
type EndedStaker struct {
	Kind       StakerKind
	SubnetID   ids.ID
	NodeID     ids.NodeID
	Weight     uint64
	Start, End int64 // unix seconds
	// RewardTypes are the types of its reward UTXOs, by UTXO id.
	RewardTypes map[ids.ID]string
}

// StakerOutput is an owner of a stake or reward UTXO of a staker's tx.
type StakerOutput struct {
	UTXOID  ids.ID
	Kind    string // PKindStake or PKindReward
	Amount  uint64
	AssetID ids.ID
	Owner   ids.ShortID
}

// L1ValidatorKey is what a validator webhook keys an L1 validator by.
type L1ValidatorKey struct {
	NodeID   ids.NodeID
	SubnetID ids.ID
}

package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The primary-network webhooks' appliers: primary_network_address_activity
// (P- and X-chain addresses: balance_change, balance_threshold,
// reward_distribution) and validator_activity (node or subnet ids: staker
// txs, staker ends, L1 validator txs). They run after the UTXOs, stakers
// and rewards in the P- and X-chains' lists (derive/pstate, xstate), so
// that the batch's are stored, and write their events to the outbox in
// the batch's transaction.

// Sub-event types.
const (
	SubBalanceChange        = "balance_change"
	SubBalanceThreshold     = "balance_threshold"
	SubRewardDistribution   = "reward_distribution"
	SubValidatorStake       = "validator_stake"
	SubDelegatorStake       = "delegator_stake"
	SubL1BalanceIncreased   = "l1_validator_balance_increased"
	SubL1Disabled           = "l1_validator_disabled"
	SubL1Removed            = "l1_validator_removed"
	SubL1BalanceThreshold   = "l1_validator_balance_threshold"
	platformSubEventsPerTx  = 16 // positions per tx in the outbox
	platformSubBalance      = 0
	platformSubThreshold    = 1
	platformSubReward       = 2
	platformSubStake        = 3
	platformSubL1           = 4
	platformSubValidatorRwd = 5
	// platformAdvanceBase is the first position of the events of a
	// block's time advance (the L1 fee's), before its txs' (from 0 on).
	platformAdvanceBase = -1 << 31
)

// platformHook is an active primary-network webhook, as matched.
type platformHook struct {
	id        string
	eventType string
	created   int64 // unix seconds
	chain     internal.Chain
	subs      map[string]bool
	filter    WebhookFilter
	threshold *big.Int // balance_threshold's, nil without one
	keys      map[ids.ShortID]string
	nodes     map[ids.NodeID]bool // nodeIds filter; nil: any
	subnets   map[ids.ID]bool     // subnetIds filter; nil: any
	// l1Threshold is l1_validator_balance_threshold's (nAVAX); without
	// hasL1Threshold the sub-event matches nothing.
	l1Threshold    uint64
	hasL1Threshold bool
}

// l1Fee tells whether h wants an event of the L1 fee (l1FeeEvents).
func (h *platformHook) l1Fee() bool {
	return h.subs[SubL1Disabled] || (h.subs[SubL1BalanceThreshold] && h.hasL1Threshold)
}

// platformIndex is the in-memory copy of the primary-network webhooks,
// reloaded when webhook_state's version moves.
type platformIndex struct {
	mu       sync.Mutex
	version  int64
	loaded   bool
	hooks    []platformHook
	byAddr   map[internal.Chain]map[ids.ShortID][]int32
	byNode   map[ids.NodeID][]int32
	bySubnet map[ids.ID][]int32
	// l1Fee: some hook wants an event of the L1 fee.
	l1Fee bool
}

type platformIndexKey struct{}

func platformHooks(ctx context.Context, tx *database.DB) (*platformIndex, error) {
	ix := tx.Value(platformIndexKey{}, func() any { return new(platformIndex) }).(*platformIndex)
	var version int64
	if err := tx.QueryRow(ctx, "SELECT version FROM webhook_state WHERE id = 1").Scan(&version); err != nil {
		return nil, fmt.Errorf("the webhooks' version: %w", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded && ix.version == version {
		return ix, nil
	}
	if err := ix.load(ctx, tx); err != nil {
		return nil, err
	}
	ix.version, ix.loaded = version, true
	return ix, nil
}

func (ix *platformIndex) load(ctx context.Context, tx *database.DB) error {
	ix.hooks = nil
	ix.byAddr = map[internal.Chain]map[ids.ShortID][]int32{internal.PChain: {}, internal.XChain: {}}
	ix.byNode, ix.bySubnet = map[ids.NodeID][]int32{}, map[ids.ID][]int32{}
	ix.l1Fee = false
	pos := map[string]int32{}
	err := tx.RunQuery(ctx, `SELECT id, event_type, created_at, filter FROM webhooks WHERE status = 'active' AND event_type IN (?, ?)`,
		func(rows *sql.Rows) error {
			var (
				h       platformHook
				created int64
				filter  string
			)
			if err := rows.Scan(&h.id, &h.eventType, &created, &filter); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(filter), &h.filter); err != nil {
				return fmt.Errorf("webhook %s's filter: %w", h.id, err)
			}
			h.created, h.chain = created/1000, internal.Chain(h.filter.Chain)
			h.subs = map[string]bool{}
			for _, s := range h.filter.SubEvents {
				h.subs[s] = true
			}
			if h.filter.BalanceThreshold != "" {
				if t, ok := new(big.Int).SetString(h.filter.BalanceThreshold, 10); ok {
					h.threshold = t
				}
			}
			if t, err := strconv.ParseUint(h.filter.L1FeeBalanceThreshold, 10, 64); err == nil {
				h.l1Threshold, h.hasL1Threshold = t, true
			}
			ix.l1Fee = ix.l1Fee || (h.eventType == EventValidatorActivity && h.l1Fee())
			for _, s := range h.filter.NodeIDs {
				if n, err := ids.NodeIDFromString(s); err == nil {
					if h.nodes == nil {
						h.nodes = map[ids.NodeID]bool{}
					}
					h.nodes[n] = true
				}
			}
			for _, s := range h.filter.SubnetIDs {
				if n, err := ids.FromString(s); err == nil {
					if h.subnets == nil {
						h.subnets = map[ids.ID]bool{}
					}
					h.subnets[n] = true
				}
			}
			h.keys = map[ids.ShortID]string{}
			pos[h.id] = int32(len(ix.hooks))
			ix.hooks = append(ix.hooks, h)
			return nil
		}, EventPlatformAddressActivity, EventValidatorActivity)
	if err != nil {
		return err
	}
	return tx.RunQuery(ctx, `SELECT a.webhook_id, a.address FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.status = 'active' AND w.event_type IN (?, ?)`, func(rows *sql.Rows) error {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			return err
		}
		i, ok := pos[id]
		if !ok {
			return nil // activated meanwhile: matches nothing until reloaded
		}
		h := &ix.hooks[i]
		switch {
		case h.eventType == EventPlatformAddressActivity:
			_, b, err := address.ParseBech32(key)
			if err != nil {
				return nil
			}
			a, err := ids.ToShortID(b)
			if err != nil || ix.byAddr[h.chain] == nil {
				return nil
			}
			h.keys[a] = key
			ix.byAddr[h.chain][a] = append(ix.byAddr[h.chain][a], i)
		case h.filter.KeyType == "nodeId":
			if n, err := ids.NodeIDFromString(key); err == nil {
				ix.byNode[n] = append(ix.byNode[n], i)
			}
		case h.filter.KeyType == "subnetId":
			if s, err := ids.FromString(key); err == nil {
				ix.bySubnet[s] = append(ix.bySubnet[s], i)
			}
		}
		return nil
	}, EventPlatformAddressActivity, EventValidatorActivity)
}

// platformMessageID is an event's id, a UUID made of what the event is.
func platformMessageID(webhook string, chain internal.Chain, height uint64, position int64, txID ids.ID) string {
	name := fmt.Appendf(nil, "%s/%s/%d/%d/", webhook, chain, height, position)
	return internal.MessageID(append(name, txID[:]...))
}

// The payloads. Fields are in the byte order of their JSON names, so that
// encoding/json writes the canonical form.

type wirePlatformEvent struct {
	Event     any    `json:"event"`
	EventType string `json:"eventType"`
	MessageID string `json:"messageId"`
	WebhookID string `json:"webhookId"`
}

// wireTxRef is where an event happened.
type wireTxRef struct {
	BlockHash      string `json:"blockHash"`
	BlockHeight    uint64 `json:"blockHeight"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	ChainID        string `json:"chainId"`
	Network        string `json:"network"`
	TxHash         string `json:"txHash"`
	TxType         string `json:"txType"`
}

type wireBalanceChange struct {
	Address  string `json:"address"`
	AssetID  string `json:"assetId"`
	Change   string `json:"change"` // received - sent, signed
	Received string `json:"received"`
	Sent     string `json:"sent"`
	Staked   string `json:"staked"`
}

type wireBalanceChangeEvent struct {
	Addresses      []string            `json:"addresses"`
	BalanceChanges []wireBalanceChange `json:"balanceChanges"`
	BlockHash      string              `json:"blockHash"`
	BlockHeight    uint64              `json:"blockHeight"`
	BlockTimestamp int64               `json:"blockTimestamp"`
	ChainID        string              `json:"chainId"`
	EventType      string              `json:"eventType"`
	Network        string              `json:"network"`
	TxHash         string              `json:"txHash"`
	TxType         string              `json:"txType"`
}

type wireThresholdCrossing struct {
	Address       string `json:"address"`
	BalanceAfter  string `json:"balanceAfter"`
	BalanceBefore string `json:"balanceBefore"`
}

type wireThresholdEvent struct {
	Addresses        []wireThresholdCrossing `json:"addresses"`
	BalanceThreshold string                  `json:"balanceThreshold"`
	BalanceType      string                  `json:"balanceType"`
	BlockHash        string                  `json:"blockHash"`
	BlockHeight      uint64                  `json:"blockHeight"`
	BlockTimestamp   int64                   `json:"blockTimestamp"`
	ChainID          string                  `json:"chainId"`
	EventType        string                  `json:"eventType"`
	Network          string                  `json:"network"`
	TxHash           string                  `json:"txHash"`
	TxType           string                  `json:"txType"`
}

type wireReward struct {
	Addresses  []string `json:"addresses"`
	Amount     string   `json:"amount"`
	AssetID    string   `json:"assetId"`
	RewardType string   `json:"rewardType"`
	UTXOID     string   `json:"utxoId"`
}

type wireRewardEvent struct {
	Addresses      []string     `json:"addresses"`
	BlockHash      string       `json:"blockHash"`
	BlockHeight    uint64       `json:"blockHeight"`
	BlockTimestamp int64        `json:"blockTimestamp"`
	ChainID        string       `json:"chainId"`
	Committed      bool         `json:"committed"`
	EndTimestamp   int64        `json:"endTimestamp"`
	EventType      string       `json:"eventType"`
	Network        string       `json:"network"`
	NodeID         string       `json:"nodeId"`
	Rewards        []wireReward `json:"rewards"`
	StakeAmount    string       `json:"stakeAmount"`
	StakerType     string       `json:"stakerType"`
	StakingTxHash  string       `json:"stakingTxHash"`
	StartTimestamp int64        `json:"startTimestamp"`
	SubnetID       string       `json:"subnetId"`
	TxHash         string       `json:"txHash"`
	TxType         string       `json:"txType"`
}

type wireStakeEvent struct {
	BlockHash      string `json:"blockHash"`
	BlockHeight    uint64 `json:"blockHeight"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	ChainID        string `json:"chainId"`
	DelegationFee  string `json:"delegationFee,omitempty"` // percent
	EndTimestamp   int64  `json:"endTimestamp"`
	EventType      string `json:"eventType"`
	Network        string `json:"network"`
	NodeID         string `json:"nodeId"`
	StakeAmount    string `json:"stakeAmount"`
	StartTimestamp int64  `json:"startTimestamp"`
	SubnetID       string `json:"subnetId"`
	TxHash         string `json:"txHash"`
	TxType         string `json:"txType"`
}

type wireL1Event struct {
	Amount string `json:"amount,omitempty"`
	// The fee's events (no tx): the balance after the block before and
	// after the block's time advance, and the webhook's threshold.
	BalanceAfter     string `json:"balanceAfter,omitempty"`
	BalanceBefore    string `json:"balanceBefore,omitempty"`
	BalanceThreshold string `json:"balanceThreshold,omitempty"`
	BlockHash        string `json:"blockHash"`
	BlockHeight      uint64 `json:"blockHeight"`
	BlockTimestamp   int64  `json:"blockTimestamp"`
	ChainID          string `json:"chainId"`
	EventType        string `json:"eventType"`
	Network          string `json:"network"`
	NodeID           string `json:"nodeId"`
	SubnetID         string `json:"subnetId"`
	TxHash           string `json:"txHash,omitempty"` // none for the fee's events
	TxType           string `json:"txType,omitempty"`
	ValidationID     string `json:"validationId"`
}

// platformBatch is what the appliers share while rendering one batch.
type platformBatch struct {
	ix      *platformIndex
	chain   internal.Chain
	chainID string
	network string
	hrp     string
	avax    ids.ID
	hasAVAX bool
	events  []internal.WebhookEvent
}

func newPlatformBatch(ctx context.Context, tx *database.DB, ix *platformIndex, chain internal.Chain) (*platformBatch, error) {
	pb := &platformBatch{ix: ix, chain: chain, chainID: constants.PlatformChainID.String(), hrp: constants.FallbackHRP,
		network: ""}
	n, ok, err := storedNetwork(ctx, tx)
	if err != nil {
		return nil, err
	}
	if ok {
		pb.hrp, pb.network, pb.avax, pb.hasAVAX = n.HRP, n.Name, n.AVAXAssetID, true
		if chain == internal.XChain {
			pb.chainID = n.XChainID.String()
		}
	} else if chain == internal.XChain {
		pb.chainID = ""
	}
	return pb, nil
}

func (pb *platformBatch) add(h *platformHook, height uint64, position int64, txID ids.ID, event any) error {
	msgID := platformMessageID(h.id, pb.chain, height, position, txID)
	payload, err := internal.EncodeCanonical(wirePlatformEvent{Event: event, EventType: h.eventType, MessageID: msgID, WebhookID: h.id})
	if err != nil {
		return fmt.Errorf("webhook %s, tx %s: %w", h.id, txID, err)
	}
	pb.events = append(pb.events, internal.WebhookEvent{WebhookID: h.id, Block: height, Position: position,
		MessageID: msgID, Payload: payload})
	return nil
}

func (pb *platformBatch) write(ctx context.Context, tx *database.DB) error {
	if len(pb.events) == 0 {
		return nil
	}
	return writeOutbox(ctx, tx, pb.events)
}

func (pb *platformBatch) bech32(a []byte) string {
	s, err := address.FormatBech32(pb.hrp, a)
	if err != nil {
		return hex.EncodeToString(a)
	}
	return s
}

// flow is what one tx did to one watched address's balance of one asset.
type flow struct {
	sent, received, staked uint64
}

// txFlows is what one tx did to the watched addresses.
type txFlows struct {
	height uint64
	index  int
	txID   ids.ID
	txType string
	block  ids.ID
	time   time.Time
	flows  map[ids.ShortID]map[ids.ID]*flow
}

func (f *txFlows) at(a ids.ShortID, asset ids.ID) *flow {
	if f.flows == nil {
		f.flows = map[ids.ShortID]map[ids.ID]*flow{}
	}
	m := f.flows[a]
	if m == nil {
		m = map[ids.ID]*flow{}
		f.flows[a] = m
	}
	fl := m[asset]
	if fl == nil {
		fl = &flow{}
		m[asset] = fl
	}
	return fl
}

// addEffects counts the tx's consumed and produced UTXOs of the watched
// addresses: imports are not the chain's balance, exports leave it.
func (pb *platformBatch) addEffects(f *txFlows, spent map[ids.ID][][]byte, consumed []internal.UTXOInput, produced []*internal.UTXOOutput) {
	watched := pb.ix.byAddr[pb.chain]
	for _, in := range consumed {
		for _, a := range spent[in.ID] {
			id, err := ids.ToShortID(a)
			if err != nil || watched[id] == nil {
				continue
			}
			f.at(id, in.AssetID).sent += in.Amount
		}
	}
	for _, o := range produced {
		if o.Kind == internal.PKindExported {
			continue
		}
		for _, id := range o.Owners.Addrs {
			if watched[id] == nil {
				continue
			}
			fl := f.at(id, o.AssetID)
			if o.Kind == internal.PKindStake {
				fl.staked += o.Amount
			} else {
				fl.received += o.Amount
			}
		}
	}
}

// addressEvents writes the balance_change and balance_threshold events of
// the batch's flows, in chain order.
func (pb *platformBatch) addressEvents(ctx context.Context, tx *database.DB, all []*txFlows) error {
	watched := pb.ix.byAddr[pb.chain]
	// The balance_threshold's balances: after the batch, then walked back.
	var thresholdAddrs []ids.ShortID
	seen := map[ids.ShortID]bool{}
	for _, f := range all {
		for a := range f.flows {
			for _, h := range watched[a] {
				if hk := &pb.ix.hooks[h]; hk.subs[SubBalanceThreshold] && hk.threshold != nil && !seen[a] {
					seen[a] = true
					thresholdAddrs = append(thresholdAddrs, a)
				}
			}
		}
	}
	balance := map[ids.ShortID]*big.Int{}
	if len(thresholdAddrs) > 0 && (pb.hasAVAX || pb.chain == internal.PChain) {
		for _, a := range thresholdAddrs {
			b, err := unspentAVAX(ctx, tx, pb.chain, a, pb.avax)
			if err != nil {
				return err
			}
			balance[a] = b
		}
	}
	// after[i][a] is a's balance after tx i.
	after := make([]map[ids.ShortID]*big.Int, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		after[i] = map[ids.ShortID]*big.Int{}
		for a, cur := range balance {
			after[i][a] = new(big.Int).Set(cur)
			if fl := pb.avaxFlow(all[i], a); fl != nil {
				cur.Sub(cur, new(big.Int).SetUint64(fl.received))
				cur.Add(cur, new(big.Int).SetUint64(fl.sent))
			}
		}
	}
	for i, f := range all {
		if len(f.flows) == 0 {
			continue
		}
		addrs := make([]ids.ShortID, 0, len(f.flows))
		for a := range f.flows {
			addrs = append(addrs, a)
		}
		slices.SortFunc(addrs, ids.ShortID.Compare)
		var hooks []int32
		for _, a := range addrs {
			for _, h := range watched[a] {
				if !slices.Contains(hooks, h) {
					hooks = append(hooks, h)
				}
			}
		}
		slices.Sort(hooks)
		for _, hi := range hooks {
			h := &pb.ix.hooks[hi]
			if f.time.Unix() < h.created {
				continue
			}
			base := int64(f.index) * platformSubEventsPerTx
			if h.subs[SubBalanceChange] {
				ev := wireBalanceChangeEvent{EventType: SubBalanceChange, Addresses: []string{}, BalanceChanges: []wireBalanceChange{},
					BlockHash: f.block.String(), BlockHeight: f.height, BlockTimestamp: f.time.Unix(), ChainID: pb.chainID,
					Network: pb.network, TxHash: f.txID.String(), TxType: f.txType}
				for _, a := range addrs {
					key, ok := h.keys[a]
					if !ok {
						continue
					}
					ev.Addresses = append(ev.Addresses, key)
					assets := make([]ids.ID, 0, len(f.flows[a]))
					for as := range f.flows[a] {
						assets = append(assets, as)
					}
					slices.SortFunc(assets, ids.ID.Compare)
					for _, as := range assets {
						fl := f.flows[a][as]
						change := new(big.Int).SetUint64(fl.received)
						change.Sub(change, new(big.Int).SetUint64(fl.sent))
						ev.BalanceChanges = append(ev.BalanceChanges, wireBalanceChange{Address: key, AssetID: as.String(),
							Sent: strconv.FormatUint(fl.sent, 10), Received: strconv.FormatUint(fl.received, 10),
							Staked: strconv.FormatUint(fl.staked, 10), Change: change.String()})
					}
				}
				if err := pb.add(h, f.height, base+platformSubBalance, f.txID, ev); err != nil {
					return err
				}
			}
			if h.subs[SubBalanceThreshold] && h.threshold != nil {
				ev := wireThresholdEvent{EventType: SubBalanceThreshold, BalanceType: h.filter.BalanceType,
					BalanceThreshold: h.threshold.String(), BlockHash: f.block.String(), BlockHeight: f.height,
					BlockTimestamp: f.time.Unix(), ChainID: pb.chainID, Network: pb.network, TxHash: f.txID.String(), TxType: f.txType}
				for _, a := range addrs {
					key, ok := h.keys[a]
					aft := after[i][a]
					fl := pb.avaxFlow(f, a)
					if !ok || aft == nil || fl == nil {
						continue
					}
					before := new(big.Int).Set(aft)
					before.Sub(before, new(big.Int).SetUint64(fl.received))
					before.Add(before, new(big.Int).SetUint64(fl.sent))
					// From at or above the threshold to below it.
					if before.Cmp(h.threshold) >= 0 && aft.Cmp(h.threshold) < 0 {
						ev.Addresses = append(ev.Addresses, wireThresholdCrossing{Address: key, BalanceBefore: before.String(), BalanceAfter: aft.String()})
					}
				}
				if len(ev.Addresses) > 0 {
					if err := pb.add(h, f.height, base+platformSubThreshold, f.txID, ev); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// avaxFlow is what f did to a's AVAX: on the P-chain, which holds AVAX
// alone, whatever its asset id.
func (pb *platformBatch) avaxFlow(f *txFlows, a ids.ShortID) *flow {
	if pb.chain != internal.PChain {
		return f.flows[a][pb.avax]
	}
	var sum *flow
	for _, fl := range f.flows[a] {
		if sum == nil {
			sum = &flow{}
		}
		sum.sent, sum.received, sum.staked = sum.sent+fl.sent, sum.received+fl.received, sum.staked+fl.staked
	}
	return sum
}

// unspentAVAX is a's balance on chain as balance_threshold measures it:
// its unspent, unstaked AVAX UTXOs (its locked ones included). The
// P-chain holds AVAX alone.
func unspentAVAX(ctx context.Context, tx *database.DB, chain internal.Chain, a ids.ShortID, avax ids.ID) (*big.Int, error) {
	t := utxoTables[chain]
	addrTable := "p_utxo_addresses"
	if chain == internal.XChain {
		addrTable = "x_utxo_addresses"
	}
	asset, args := " AND u.asset_id = ?", []any{a[:], avax[:]}
	if chain == internal.PChain {
		asset, args = "", args[:1]
	}
	sum := new(big.Int)
	err := tx.RunQuery(ctx, `SELECT u.amount FROM `+t.table+` u JOIN `+addrTable+` a ON a.utxo_id = u.id
		WHERE a.address = ?`+asset+` AND u.consumed_tx_id IS NULL AND u.kind <> 'exported' AND NOT `+t.staked,
		func(rows *sql.Rows) error {
			var v int64
			if err := rows.Scan(&v); err != nil {
				return err
			}
			sum.Add(sum, new(big.Int).SetUint64(uint64(v)))
			return nil
		}, args...)
	return sum, err
}

// applyXWebhookEvents writes the batch's X-chain address events.
func applyXWebhookEvents(ctx context.Context, bt *batchTx, blocks []*internal.XBlockData) error {
	tx := bt.db
	ix, err := platformHooks(ctx, tx)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.byAddr[internal.XChain]) == 0 {
		return nil
	}
	pb, err := newPlatformBatch(ctx, tx, ix, internal.XChain)
	if err != nil {
		return err
	}
	spent := bt.spent[internal.XChain]
	var all []*txFlows
	for _, b := range blocks {
		for i := range b.Txs {
			t := &b.Txs[i]
			if t.UTXOs == nil {
				continue
			}
			f := &txFlows{height: b.Height, index: i, txID: t.ID, txType: t.Type, block: b.ID, time: b.Timestamp}
			pb.addEffects(f, spent, t.UTXOs.Consumed, t.UTXOs.Produced)
			if len(f.flows) > 0 {
				all = append(all, f)
			}
		}
	}
	if err := pb.addressEvents(ctx, tx, all); err != nil {
		return err
	}
	return pb.write(ctx, tx)
}

// applyPWebhookEvents writes the batch's P-chain address and validator
// events.
func applyPWebhookEvents(ctx context.Context, bt *batchTx, batch *internal.PBatch) error {
	tx := bt.db
	ix, err := platformHooks(ctx, tx)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if len(ix.byAddr[internal.PChain]) == 0 && len(ix.byNode) == 0 && len(ix.bySubnet) == 0 {
		return nil
	}
	pb, err := newPlatformBatch(ctx, tx, ix, internal.PChain)
	if err != nil {
		return err
	}
	byHeight := map[uint64]*internal.PBlockData{}
	for _, b := range batch.Blocks {
		byHeight[b.Height] = b
	}
	ends, err := pb.stakerEnds(ctx, tx, batch, byHeight)
	if err != nil {
		return err
	}
	spent := bt.spent[internal.PChain]
	var all []*txFlows
	for _, b := range batch.Blocks {
		for i := range b.Txs {
			t := &b.Txs[i]
			if t.UTXOs == nil || t.UTXOs.RewardedStaker != ids.Empty {
				continue // a RewardValidatorTx counts with its decision (ends)
			}
			f := &txFlows{height: b.Height, index: i, txID: t.ID, txType: t.Type, block: b.ID, time: b.Timestamp}
			pb.addEffects(f, spent, t.UTXOs.Consumed, t.UTXOs.Produced)
			if len(f.flows) > 0 {
				all = append(all, f)
			}
		}
		for _, e := range ends {
			if e.flows.height == b.Height && len(e.flows.flows) > 0 {
				all = append(all, e.flows)
			}
		}
	}
	if err := pb.addressEvents(ctx, tx, all); err != nil {
		return err
	}
	for _, e := range ends {
		if err := pb.rewardEvents(e); err != nil {
			return err
		}
	}
	if batch.Staking != nil {
		if err := pb.stakeEvents(batch.Staking.Stakers, byHeight); err != nil {
			return err
		}
		if err := pb.l1Events(ctx, tx, batch.Staking.L1Events, byHeight); err != nil {
			return err
		}
	}
	if err := pb.l1FeeEvents(ctx, tx, &bt.fees, byHeight); err != nil {
		return err
	}
	return pb.write(ctx, tx)
}

// stakerEnd is a RewardValidatorTx decided in the batch, with what it paid.
type stakerEnd struct {
	end     internal.StakerEnd
	staker  *rewardStaker
	rewards []rewardUTXO
	flows   *txFlows
}

type rewardUTXO struct {
	id     ids.ID
	amount uint64
	asset  ids.ID
	owners []ids.ShortID
}

// stakerEnds reads the batch's decided stakers: their stake returns and
// reward UTXOs (stored by the appliers before this one) and their
// details. Its flows count as a tx at the deciding block, index 0 (an
// option block holds no tx).
func (pb *platformBatch) stakerEnds(ctx context.Context, tx *database.DB, batch *internal.PBatch, byHeight map[uint64]*internal.PBlockData) ([]*stakerEnd, error) {
	if batch.Staking == nil || len(batch.Staking.Ends) == 0 {
		return nil, nil
	}
	var txIDs []ids.ID
	for _, e := range batch.Staking.Ends {
		txIDs = append(txIDs, e.StakerTxID)
	}
	stakers, err := rewardStakers(ctx, tx, txIDs)
	if err != nil {
		return nil, err
	}
	var out []*stakerEnd
	for _, e := range batch.Staking.Ends {
		b := byHeight[e.Height]
		if b == nil {
			continue
		}
		se := &stakerEnd{end: e, staker: stakers[e.StakerTxID],
			flows: &txFlows{height: e.Height, txID: e.TxID, txType: "RewardValidatorTx", block: b.ID, time: b.Timestamp}}
		stake := map[ids.ID]*rewardUTXO{}
		var order []ids.ID
		err := tx.RunQuery(ctx, `SELECT u.id, u.kind, u.amount, u.asset_id, a.address FROM p_utxos u JOIN p_utxo_addresses a ON a.utxo_id = u.id
			WHERE u.tx_id = ? AND u.kind IN ('stake', 'reward') ORDER BY u.output_index, a.address`, func(rows *sql.Rows) error {
			var (
				id, asset, addr []byte
				kind            string
				amount          int64
			)
			if err := rows.Scan(&id, &kind, &amount, &asset, &addr); err != nil {
				return err
			}
			uid, err := ids.ToID(id)
			if err != nil {
				return err
			}
			as, err := ids.ToID(asset)
			if err != nil {
				return err
			}
			a, err := ids.ToShortID(addr)
			if err != nil {
				return err
			}
			if pb.ix.byAddr[internal.PChain][a] != nil {
				se.flows.at(a, as).received += uint64(amount)
			}
			if kind == internal.PKindReward {
				r := stake[uid]
				if r == nil {
					r = &rewardUTXO{id: uid, amount: uint64(amount), asset: as}
					stake[uid] = r
					order = append(order, uid)
				}
				r.owners = append(r.owners, a)
			}
			return nil
		}, e.StakerTxID[:])
		if err != nil {
			return nil, err
		}
		for _, id := range order {
			se.rewards = append(se.rewards, *stake[id])
		}
		out = append(out, se)
	}
	return out, nil
}

// rewardEvents writes an end's reward_distribution events: to the
// address webhooks watching a reward's owner, and to the validator
// webhooks watching its node or subnet.
func (pb *platformBatch) rewardEvents(e *stakerEnd) error {
	st := e.staker
	if st == nil {
		return nil
	}
	node, err := ids.ToNodeID(st.node)
	if err != nil {
		return nil
	}
	subnet, err := ids.ToID(st.subnet)
	if err != nil {
		return nil
	}
	f := e.flows
	mk := func(keep func(a ids.ShortID) (string, bool)) wireRewardEvent {
		ev := wireRewardEvent{EventType: SubRewardDistribution, Addresses: []string{}, Rewards: []wireReward{},
			BlockHash: f.block.String(), BlockHeight: f.height, BlockTimestamp: f.time.Unix(), ChainID: pb.chainID,
			Network: pb.network, TxHash: f.txID.String(), TxType: f.txType, Committed: e.end.Committed,
			NodeID: node.String(), SubnetID: subnet.String(), StakingTxHash: e.end.StakerTxID.String(),
			StakerType: string(st.kind), StakeAmount: strconv.FormatInt(st.weight, 10),
			StartTimestamp: st.start, EndTimestamp: st.end}
		for _, r := range e.rewards {
			wr := wireReward{UTXOID: r.id.String(), Amount: strconv.FormatUint(r.amount, 10), AssetID: r.asset.String(),
				RewardType: st.rewardType(r.id), Addresses: []string{}}
			matched := false
			for _, a := range r.owners {
				if key, ok := keep(a); ok {
					matched = true
					if !slices.Contains(ev.Addresses, key) {
						ev.Addresses = append(ev.Addresses, key)
					}
				}
				wr.Addresses = append(wr.Addresses, pb.bech32(a[:]))
			}
			if matched {
				ev.Rewards = append(ev.Rewards, wr)
			}
		}
		return ev
	}
	pos := int64(platformSubReward)
	// Address webhooks: the rewards paid to their addresses.
	var hooks []int32
	for _, r := range e.rewards {
		for _, a := range r.owners {
			for _, h := range pb.ix.byAddr[internal.PChain][a] {
				if !slices.Contains(hooks, h) {
					hooks = append(hooks, h)
				}
			}
		}
	}
	slices.Sort(hooks)
	for _, hi := range hooks {
		h := &pb.ix.hooks[hi]
		if !h.subs[SubRewardDistribution] || f.time.Unix() < h.created {
			continue
		}
		ev := mk(func(a ids.ShortID) (string, bool) { k, ok := h.keys[a]; return k, ok })
		if len(ev.Rewards) == 0 {
			continue
		}
		if err := pb.add(h, f.height, pos, f.txID, ev); err != nil {
			return err
		}
	}
	// Validator webhooks: every reward of the staker.
	for _, hi := range pb.validatorHooks(node, subnet) {
		h := &pb.ix.hooks[hi]
		if !h.subs[SubRewardDistribution] || f.time.Unix() < h.created {
			continue
		}
		ev := mk(func(a ids.ShortID) (string, bool) { return pb.bech32(a[:]), true })
		if err := pb.add(h, f.height, int64(platformSubValidatorRwd), f.txID, ev); err != nil {
			return err
		}
	}
	return nil
}

// validatorHooks are the validator_activity webhooks whose key is node or
// subnet and whose filters keep them, in order.
func (pb *platformBatch) validatorHooks(node ids.NodeID, subnet ids.ID) []int32 {
	var out []int32
	for _, list := range [][]int32{pb.ix.byNode[node], pb.ix.bySubnet[subnet]} {
		for _, hi := range list {
			h := &pb.ix.hooks[hi]
			if (h.nodes != nil && !h.nodes[node]) || (h.subnets != nil && !h.subnets[subnet]) || slices.Contains(out, hi) {
				continue
			}
			out = append(out, hi)
		}
	}
	slices.Sort(out)
	return out
}

// stakeEvents writes validator_stake and delegator_stake.
func (pb *platformBatch) stakeEvents(stakers []internal.Staker, byHeight map[uint64]*internal.PBlockData) error {
	for i := range stakers {
		s := &stakers[i]
		b := byHeight[s.Height]
		if b == nil {
			continue
		}
		sub := SubValidatorStake
		if s.Kind == internal.StakerDelegator {
			sub = SubDelegatorStake
		}
		for _, hi := range pb.validatorHooks(s.NodeID, s.SubnetID) {
			h := &pb.ix.hooks[hi]
			if !h.subs[sub] || b.Timestamp.Unix() < h.created {
				continue
			}
			ev := wireStakeEvent{EventType: sub, BlockHash: b.ID.String(), BlockHeight: b.Height, BlockTimestamp: b.Timestamp.Unix(),
				ChainID: pb.chainID, Network: pb.network, NodeID: s.NodeID.String(), SubnetID: s.SubnetID.String(),
				TxHash: s.TxID.String(), TxType: s.TxType, StakeAmount: strconv.FormatUint(s.Weight, 10),
				StartTimestamp: int64(s.StartTime), EndTimestamp: int64(s.EndTime)}
			if s.Kind != internal.StakerDelegator && s.DelegationShares > 0 {
				ev.DelegationFee = strconv.FormatFloat(float64(s.DelegationShares)/10_000, 'f', -1, 64)
			}
			if err := pb.add(h, b.Height, int64(s.Index)*platformSubEventsPerTx+platformSubStake, s.TxID, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// l1Events writes l1_validator_balance_increased, l1_validator_disabled
// (by a DisableL1ValidatorTx) and l1_validator_removed (a weight set to 0).
func (pb *platformBatch) l1Events(ctx context.Context, tx *database.DB, events []internal.L1Event, byHeight map[uint64]*internal.PBlockData) error {
	for i := range events {
		e := &events[i]
		sub := ""
		switch {
		case e.Kind == internal.L1IncreaseBalance:
			sub = SubL1BalanceIncreased
		case e.Kind == internal.L1Disable:
			sub = SubL1Disabled
		case e.Kind == internal.L1SetWeight && e.Weight == 0:
			sub = SubL1Removed
		default:
			continue
		}
		b := byHeight[e.Height]
		if b == nil {
			continue
		}
		var subnetB, nodeB []byte
		err := tx.QueryRow(ctx, "SELECT subnet_id, node_id FROM p_l1_validators WHERE validation_id = ?", e.ValidationID[:]).Scan(&subnetB, &nodeB)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return err
		}
		subnet, err := ids.ToID(subnetB)
		if err != nil {
			continue
		}
		node, err := ids.ToNodeID(nodeB)
		if err != nil {
			continue
		}
		for _, hi := range pb.validatorHooks(node, subnet) {
			h := &pb.ix.hooks[hi]
			if !h.subs[sub] || b.Timestamp.Unix() < h.created {
				continue
			}
			ev := wireL1Event{EventType: sub, BlockHash: b.ID.String(), BlockHeight: b.Height, BlockTimestamp: b.Timestamp.Unix(),
				ChainID: pb.chainID, Network: pb.network, NodeID: node.String(), SubnetID: subnet.String(),
				TxHash: e.TxID.String(), TxType: l1TxType(e.Kind), ValidationID: e.ValidationID.String()}
			if sub == SubL1BalanceIncreased {
				ev.Amount = strconv.FormatUint(e.Balance, 10)
			}
			if err := pb.add(h, b.Height, int64(e.Index)*platformSubEventsPerTx+platformSubL1, e.TxID, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

func l1TxType(k internal.L1EventKind) string {
	switch k {
	case internal.L1IncreaseBalance:
		return "IncreaseL1ValidatorBalanceTx"
	case internal.L1Disable:
		return "DisableL1ValidatorTx"
	default:
		return "SetL1ValidatorWeightTx"
	}
}

// l1Watch is an L1 validator that validator webhooks of the L1 fee watch.
type l1Watch struct {
	id     ids.ID
	node   ids.NodeID
	subnet ids.ID
	hooks  []int32
}

// l1FeeEvents writes the events of the L1 validators' continuous fee,
// which no tx carries, from the batch's fee replay r:
// l1_validator_disabled when a block's time advance runs a validator's
// balance out (the replay's deactivations), and
// l1_validator_balance_threshold at the first block whose time puts the
// balance below the webhook's threshold, having been at or above it after
// the block before. The balance after a block is the validator's end
// point less the accrued fee total (which only a block's time advance,
// before its txs, moves), as the node's getL1Validator computes it; a
// tx's refund (disable, remove) is no crossing. A block's advance events
// come before its txs', by validation id.
func (pb *platformBatch) l1FeeEvents(ctx context.Context, tx *database.DB, r *l1FeeReplay, byHeight map[uint64]*internal.PBlockData) error {
	if r == nil || r.history == nil || len(r.history.Blocks) == 0 || !pb.ix.l1Fee {
		return nil
	}
	hist := r.history
	ends := make(map[ids.ID]uint64, len(r.before))
	var vids []ids.ID
	for id, v := range r.before {
		ends[id] = v.End
		vids = append(vids, id)
	}
	changes := map[uint64][]internal.L1BalanceChange{}
	for _, c := range hist.Changes {
		changes[c.Height] = append(changes[c.Height], c)
		if _, ok := ends[c.ValidationID]; !ok {
			ends[c.ValidationID] = 0
			vids = append(vids, c.ValidationID)
		}
	}
	watched, err := pb.l1FeeWatched(ctx, tx, vids)
	if err != nil || len(watched) == 0 {
		return err
	}
	for _, fb := range hist.Blocks {
		b := byHeight[fb.Height]
		deactivated := map[ids.ID]bool{}
		for _, c := range changes[fb.Height] {
			if c.Kind == internal.L1BalanceDeactivate {
				deactivated[c.ValidationID] = true
			}
		}
		k := map[int32]int64{} // each hook's advance events at the block
		for _, w := range watched {
			end := ends[w.id]
			if end == 0 || b == nil {
				continue
			}
			var before, after uint64
			if end > fb.Before {
				before = end - fb.Before
			}
			if end > fb.After {
				after = end - fb.After
			}
			for _, hi := range w.hooks {
				h := &pb.ix.hooks[hi]
				if b.Timestamp.Unix() < h.created {
					continue
				}
				ev := wireL1Event{BlockHash: b.ID.String(), BlockHeight: b.Height, BlockTimestamp: b.Timestamp.Unix(),
					ChainID: pb.chainID, Network: pb.network, NodeID: w.node.String(), SubnetID: w.subnet.String(),
					ValidationID: w.id.String(), BalanceBefore: strconv.FormatUint(before, 10), BalanceAfter: strconv.FormatUint(after, 10)}
				emitted := false
				if h.subs[SubL1BalanceThreshold] && h.hasL1Threshold && before >= h.l1Threshold && after < h.l1Threshold {
					te := ev
					te.EventType, te.BalanceThreshold = SubL1BalanceThreshold, strconv.FormatUint(h.l1Threshold, 10)
					if err := pb.add(h, b.Height, platformAdvanceBase+k[hi]*platformSubEventsPerTx+platformSubThreshold, w.id, te); err != nil {
						return err
					}
					emitted = true
				}
				if h.subs[SubL1Disabled] && deactivated[w.id] {
					ev.EventType = SubL1Disabled
					if err := pb.add(h, b.Height, platformAdvanceBase+k[hi]*platformSubEventsPerTx+platformSubL1, w.id, ev); err != nil {
						return err
					}
					emitted = true
				}
				if emitted {
					k[hi]++
				}
			}
		}
		// The block's deactivations and txs set the end points the next
		// block starts from.
		for _, c := range changes[fb.Height] {
			ends[c.ValidationID] = c.End
		}
	}
	return nil
}

// l1FeeWatched returns those of the L1 validators vids that validator
// webhooks of the L1 fee watch, by validation id.
func (pb *platformBatch) l1FeeWatched(ctx context.Context, tx *database.DB, vids []ids.ID) ([]l1Watch, error) {
	var out []l1Watch
	err := idChunks(vids, func(args []any, in string) error {
		return tx.RunQuery(ctx, "SELECT validation_id, node_id, subnet_id FROM p_l1_validators WHERE validation_id IN "+in,
			func(rows *sql.Rows) error {
				var id, node, subnet []byte
				if err := rows.Scan(&id, &node, &subnet); err != nil {
					return err
				}
				w := l1Watch{}
				var err error
				if w.id, err = ids.ToID(id); err != nil {
					return err
				}
				if w.node, err = ids.ToNodeID(node); err != nil {
					return nil // not a 20-byte node id: no webhook keys it
				}
				if w.subnet, err = ids.ToID(subnet); err != nil {
					return err
				}
				for _, hi := range pb.validatorHooks(w.node, w.subnet) {
					if pb.ix.hooks[hi].l1Fee() {
						w.hooks = append(w.hooks, hi)
					}
				}
				if len(w.hooks) > 0 {
					out = append(out, w)
				}
				return nil
			}, args...)
	})
	slices.SortFunc(out, func(a, b l1Watch) int { return a.id.Compare(b.id) })
	return out, err
}

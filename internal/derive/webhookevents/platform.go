package webhookevents

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
)

// The primary network's events: primary_network_address_activity (P- and
// X-chain addresses: balance_change, balance_threshold,
// reward_distribution) and validator_activity (node or subnet ids: staker
// txs, staker ends, L1 validator txs and the L1 fee). They run after the
// UTXOs, stakers and rewards in the P- and X-chains' lists (pstate,
// xstate), so that the batch's are stored.

// Positions in the outbox: each tx has platformSubEventsPerTx of them, one
// per kind of event, so that a block's events keep their order.
const (
	platformSubEventsPerTx  = 16
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

// PlatformWriter is what the X-chain's events (and the P-chain's
// address events) read and write in the batch's transaction (store.XTx,
// store.PTx).
type PlatformWriter interface {
	// Network returns the stored network; ok is false in a store that
	// holds none.
	Network(ctx context.Context) (n *internal.Network, ok bool, err error)
	// PlatformWatches returns the active primary-network webhooks as of
	// the batch's transaction.
	PlatformWatches(ctx context.Context) (*internal.PlatformWatches, error)
	// SpentOwners returns the owners of the chain's UTXOs the batch
	// marked spent, by UTXO (the UTXO step's): a tx's sent amounts.
	SpentOwners() map[ids.ID][][]byte
	// UnspentAVAX returns a's balance on the chain as balance_threshold
	// measures it: its unspent, unstaked AVAX UTXOs (locked ones
	// included), after the batch.
	UnspentAVAX(ctx context.Context, a ids.ShortID, avax ids.ID) (*big.Int, error)
	// WriteWebhookEvents adds events to the outbox, keeping those whose
	// message id it holds already.
	WriteWebhookEvents(ctx context.Context, events []internal.WebhookEvent) error
}

// PWriter is what the P-chain's events read and write (store.PTx).
type PWriter interface {
	PlatformWriter
	// EndedStakers returns those of the stakers txIDs that are stored.
	EndedStakers(ctx context.Context, txIDs []ids.ID) (map[ids.ID]*internal.EndedStaker, error)
	// StakerOutputs returns the owners of the stake and reward UTXOs of
	// the staker tx txID, by output index, then address.
	StakerOutputs(ctx context.Context, txID ids.ID) ([]internal.StakerOutput, error)
	// L1ValidatorKeys returns the node and subnet of those of the L1
	// validators vids that are stored with a 20-byte node id.
	L1ValidatorKeys(ctx context.Context, vids []ids.ID) (map[ids.ID]internal.L1ValidatorKey, error)
	// L1FeeReplay returns what the batch's L1 fee replay changed: the
	// validators' state before it and its history; nil when it ran on no
	// block.
	L1FeeReplay() (before map[ids.ID]internal.L1FeeValidator, history *internal.L1FeeHistory)
}

// X raises the address events of an X-chain batch.
func X(ctx context.Context, w PlatformWriter, blocks []*internal.XBlockData) error {
	ws, err := w.PlatformWatches(ctx)
	if err != nil || len(ws.ByAddr[internal.XChain]) == 0 {
		return err
	}
	pb, err := newPlatformBatch(ctx, w, ws, internal.XChain)
	if err != nil {
		return err
	}
	spent := w.SpentOwners()
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
	if err := pb.addressEvents(ctx, w, all); err != nil {
		return err
	}
	return pb.write(ctx, w)
}

// P raises the address and validator events of a P-chain batch.
func P(ctx context.Context, w PWriter, batch *internal.PBatch) error {
	ws, err := w.PlatformWatches(ctx)
	if err != nil || (len(ws.ByAddr[internal.PChain]) == 0 && len(ws.ByNode) == 0 && len(ws.BySubnet) == 0) {
		return err
	}
	pb, err := newPlatformBatch(ctx, w, ws, internal.PChain)
	if err != nil {
		return err
	}
	byHeight := map[uint64]*internal.PBlockData{}
	for _, b := range batch.Blocks {
		byHeight[b.Height] = b
	}
	ends, err := pb.stakerEnds(ctx, w, batch, byHeight)
	if err != nil {
		return err
	}
	spent := w.SpentOwners()
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
	if err := pb.addressEvents(ctx, w, all); err != nil {
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
		if err := pb.l1Events(ctx, w, batch.Staking.L1Events, byHeight); err != nil {
			return err
		}
	}
	if err := pb.l1FeeEvents(ctx, w, byHeight); err != nil {
		return err
	}
	return pb.write(ctx, w)
}

// platformBatch is what the steps share while rendering one batch.
type platformBatch struct {
	ws      *internal.PlatformWatches
	chain   internal.Chain
	chainID string
	network string
	hrp     string
	avax    ids.ID
	hasAVAX bool
	events  []internal.WebhookEvent
}

func newPlatformBatch(ctx context.Context, w PlatformWriter, ws *internal.PlatformWatches, chain internal.Chain) (*platformBatch, error) {
	pb := &platformBatch{ws: ws, chain: chain, chainID: constants.PlatformChainID.String(), hrp: constants.FallbackHRP}
	n, ok, err := w.Network(ctx)
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

// platformMessageID is an event's id, a UUID made of what the event is.
func platformMessageID(webhook string, chain internal.Chain, height uint64, position int64, txID ids.ID) string {
	name := fmt.Appendf(nil, "%s/%s/%d/%d/", webhook, chain, height, position)
	return internal.MessageID(append(name, txID[:]...))
}

func (pb *platformBatch) add(h *internal.PlatformWatch, height uint64, position int64, txID ids.ID, event any) error {
	msgID := platformMessageID(h.ID, pb.chain, height, position, txID)
	payload, err := internal.EncodeCanonical(wirePlatformEvent{Event: event, EventType: h.EventType, MessageID: msgID, WebhookID: h.ID})
	if err != nil {
		return fmt.Errorf("webhook %s, tx %s: %w", h.ID, txID, err)
	}
	pb.events = append(pb.events, internal.WebhookEvent{WebhookID: h.ID, Block: height, Position: position,
		MessageID: msgID, Payload: payload})
	return nil
}

func (pb *platformBatch) write(ctx context.Context, w PlatformWriter) error {
	if len(pb.events) == 0 {
		return nil
	}
	return w.WriteWebhookEvents(ctx, pb.events)
}

func (pb *platformBatch) bech32(a []byte) string {
	s, err := address.FormatBech32(pb.hrp, a)
	if err != nil {
		return hex.EncodeToString(a)
	}
	return s
}

// The payloads. Fields are in the byte order of their JSON names, so that
// encoding/json writes the canonical form.

type wirePlatformEvent struct {
	Event     any    `json:"event"`
	EventType string `json:"eventType"`
	MessageID string `json:"messageId"`
	WebhookID string `json:"webhookId"`
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
	watched := pb.ws.ByAddr[pb.chain]
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
func (pb *platformBatch) addressEvents(ctx context.Context, w PlatformWriter, all []*txFlows) error {
	watched := pb.ws.ByAddr[pb.chain]
	// The balance_threshold's balances: after the batch, then walked back.
	var thresholdAddrs []ids.ShortID
	seen := map[ids.ShortID]bool{}
	for _, f := range all {
		for a := range f.flows {
			for _, h := range watched[a] {
				if hk := &pb.ws.Hooks[h]; hk.SubEvents[internal.SubBalanceThreshold] && hk.Threshold != nil && !seen[a] {
					seen[a] = true
					thresholdAddrs = append(thresholdAddrs, a)
				}
			}
		}
	}
	balance := map[ids.ShortID]*big.Int{}
	if len(thresholdAddrs) > 0 && (pb.hasAVAX || pb.chain == internal.PChain) {
		for _, a := range thresholdAddrs {
			b, err := w.UnspentAVAX(ctx, a, pb.avax)
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
			h := &pb.ws.Hooks[hi]
			if f.time.Unix() < h.Created {
				continue
			}
			base := int64(f.index) * platformSubEventsPerTx
			if h.SubEvents[internal.SubBalanceChange] {
				ev := wireBalanceChangeEvent{EventType: internal.SubBalanceChange, Addresses: []string{}, BalanceChanges: []wireBalanceChange{},
					BlockHash: f.block.String(), BlockHeight: f.height, BlockTimestamp: f.time.Unix(), ChainID: pb.chainID,
					Network: pb.network, TxHash: f.txID.String(), TxType: f.txType}
				for _, a := range addrs {
					key, ok := h.Keys[a]
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
			if h.SubEvents[internal.SubBalanceThreshold] && h.Threshold != nil {
				ev := wireThresholdEvent{EventType: internal.SubBalanceThreshold, BalanceType: h.BalanceType,
					BalanceThreshold: h.Threshold.String(), BlockHash: f.block.String(), BlockHeight: f.height,
					BlockTimestamp: f.time.Unix(), ChainID: pb.chainID, Network: pb.network, TxHash: f.txID.String(), TxType: f.txType}
				for _, a := range addrs {
					key, ok := h.Keys[a]
					aft := after[i][a]
					fl := pb.avaxFlow(f, a)
					if !ok || aft == nil || fl == nil {
						continue
					}
					before := new(big.Int).Set(aft)
					before.Sub(before, new(big.Int).SetUint64(fl.received))
					before.Add(before, new(big.Int).SetUint64(fl.sent))
					// From at or above the threshold to below it.
					if before.Cmp(h.Threshold) >= 0 && aft.Cmp(h.Threshold) < 0 {
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

// stakerEnd is a RewardValidatorTx decided in the batch, with what it paid.
type stakerEnd struct {
	end     internal.StakerEnd
	staker  *internal.EndedStaker // nil when not stored
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
// reward UTXOs (stored by the steps before this one) and their details.
// Its flows count as a tx at the deciding block, index 0 (an option
// block holds no tx).
func (pb *platformBatch) stakerEnds(ctx context.Context, w PWriter, batch *internal.PBatch, byHeight map[uint64]*internal.PBlockData) ([]*stakerEnd, error) {
	if batch.Staking == nil || len(batch.Staking.Ends) == 0 {
		return nil, nil
	}
	var txIDs []ids.ID
	for _, e := range batch.Staking.Ends {
		txIDs = append(txIDs, e.StakerTxID)
	}
	stakers, err := w.EndedStakers(ctx, txIDs)
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
		outs, err := w.StakerOutputs(ctx, e.StakerTxID)
		if err != nil {
			return nil, err
		}
		paid := map[ids.ID]*rewardUTXO{}
		var order []ids.ID
		for _, o := range outs {
			if pb.ws.ByAddr[internal.PChain][o.Owner] != nil {
				se.flows.at(o.Owner, o.AssetID).received += o.Amount
			}
			if o.Kind != internal.PKindReward {
				continue
			}
			r := paid[o.UTXOID]
			if r == nil {
				r = &rewardUTXO{id: o.UTXOID, amount: o.Amount, asset: o.AssetID}
				paid[o.UTXOID] = r
				order = append(order, o.UTXOID)
			}
			r.owners = append(r.owners, o.Owner)
		}
		for _, id := range order {
			se.rewards = append(se.rewards, *paid[id])
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
	node, subnet := st.NodeID, st.SubnetID
	f := e.flows
	mk := func(keep func(a ids.ShortID) (string, bool)) wireRewardEvent {
		ev := wireRewardEvent{EventType: internal.SubRewardDistribution, Addresses: []string{}, Rewards: []wireReward{},
			BlockHash: f.block.String(), BlockHeight: f.height, BlockTimestamp: f.time.Unix(), ChainID: pb.chainID,
			Network: pb.network, TxHash: f.txID.String(), TxType: f.txType, Committed: e.end.Committed,
			NodeID: node.String(), SubnetID: subnet.String(), StakingTxHash: e.end.StakerTxID.String(),
			StakerType: string(st.Kind), StakeAmount: strconv.FormatUint(st.Weight, 10),
			StartTimestamp: st.Start, EndTimestamp: st.End}
		for _, r := range e.rewards {
			wr := wireReward{UTXOID: r.id.String(), Amount: strconv.FormatUint(r.amount, 10), AssetID: r.asset.String(),
				RewardType: st.RewardTypes[r.id], Addresses: []string{}}
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
			for _, h := range pb.ws.ByAddr[internal.PChain][a] {
				if !slices.Contains(hooks, h) {
					hooks = append(hooks, h)
				}
			}
		}
	}
	slices.Sort(hooks)
	for _, hi := range hooks {
		h := &pb.ws.Hooks[hi]
		if !h.SubEvents[internal.SubRewardDistribution] || f.time.Unix() < h.Created {
			continue
		}
		ev := mk(func(a ids.ShortID) (string, bool) { k, ok := h.Keys[a]; return k, ok })
		if len(ev.Rewards) == 0 {
			continue
		}
		if err := pb.add(h, f.height, pos, f.txID, ev); err != nil {
			return err
		}
	}
	// Validator webhooks: every reward of the staker.
	for _, hi := range pb.validatorHooks(node, subnet) {
		h := &pb.ws.Hooks[hi]
		if !h.SubEvents[internal.SubRewardDistribution] || f.time.Unix() < h.Created {
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
	for _, list := range [][]int32{pb.ws.ByNode[node], pb.ws.BySubnet[subnet]} {
		for _, hi := range list {
			h := &pb.ws.Hooks[hi]
			if (h.Nodes != nil && !h.Nodes[node]) || (h.Subnets != nil && !h.Subnets[subnet]) || slices.Contains(out, hi) {
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
		sub := internal.SubValidatorStake
		if s.Kind == internal.StakerDelegator {
			sub = internal.SubDelegatorStake
		}
		for _, hi := range pb.validatorHooks(s.NodeID, s.SubnetID) {
			h := &pb.ws.Hooks[hi]
			if !h.SubEvents[sub] || b.Timestamp.Unix() < h.Created {
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
func (pb *platformBatch) l1Events(ctx context.Context, w PWriter, events []internal.L1Event, byHeight map[uint64]*internal.PBlockData) error {
	var vids []ids.ID
	for i := range events {
		if l1Sub(&events[i]) != "" {
			vids = append(vids, events[i].ValidationID)
		}
	}
	if len(vids) == 0 {
		return nil
	}
	keys, err := w.L1ValidatorKeys(ctx, vids)
	if err != nil {
		return err
	}
	for i := range events {
		e := &events[i]
		sub := l1Sub(e)
		if sub == "" {
			continue
		}
		b := byHeight[e.Height]
		if b == nil {
			continue
		}
		k, ok := keys[e.ValidationID]
		if !ok {
			continue // not stored, or no node id a webhook keys
		}
		node, subnet := k.NodeID, k.SubnetID
		for _, hi := range pb.validatorHooks(node, subnet) {
			h := &pb.ws.Hooks[hi]
			if !h.SubEvents[sub] || b.Timestamp.Unix() < h.Created {
				continue
			}
			ev := wireL1Event{EventType: sub, BlockHash: b.ID.String(), BlockHeight: b.Height, BlockTimestamp: b.Timestamp.Unix(),
				ChainID: pb.chainID, Network: pb.network, NodeID: node.String(), SubnetID: subnet.String(),
				TxHash: e.TxID.String(), TxType: l1TxType(e.Kind), ValidationID: e.ValidationID.String()}
			if sub == internal.SubL1BalanceIncreased {
				ev.Amount = strconv.FormatUint(e.Balance, 10)
			}
			if err := pb.add(h, b.Height, int64(e.Index)*platformSubEventsPerTx+platformSubL1, e.TxID, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// l1Sub is the sub-event of an L1 validator's tx, "" for none.
func l1Sub(e *internal.L1Event) string {
	switch {
	case e.Kind == internal.L1IncreaseBalance:
		return internal.SubL1BalanceIncreased
	case e.Kind == internal.L1Disable:
		return internal.SubL1Disabled
	case e.Kind == internal.L1SetWeight && e.Weight == 0:
		return internal.SubL1Removed
	}
	return ""
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
// which no tx carries, from the batch's fee replay (w.L1FeeReplay):
// l1_validator_disabled when a block's time advance runs a validator's
// balance out (the replay's deactivations), and
// l1_validator_balance_threshold at the first block whose time puts the
// balance below the webhook's threshold, having been at or above it after
// the block before. The balance after a block is the validator's end
// point less the accrued fee total (which only a block's time advance,
// before its txs, moves), as the node's getL1Validator computes it; a
// tx's refund (disable, remove) is no crossing. A block's advance events
// come before its txs', by validation id.
func (pb *platformBatch) l1FeeEvents(ctx context.Context, w PWriter, byHeight map[uint64]*internal.PBlockData) error {
	before, hist := w.L1FeeReplay()
	if hist == nil || len(hist.Blocks) == 0 || !pb.ws.L1Fee {
		return nil
	}
	ends := make(map[ids.ID]uint64, len(before))
	var vids []ids.ID
	for id, v := range before {
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
	watched, err := pb.l1FeeWatched(ctx, w, vids)
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
				h := &pb.ws.Hooks[hi]
				if b.Timestamp.Unix() < h.Created {
					continue
				}
				ev := wireL1Event{BlockHash: b.ID.String(), BlockHeight: b.Height, BlockTimestamp: b.Timestamp.Unix(),
					ChainID: pb.chainID, Network: pb.network, NodeID: w.node.String(), SubnetID: w.subnet.String(),
					ValidationID: w.id.String(), BalanceBefore: strconv.FormatUint(before, 10), BalanceAfter: strconv.FormatUint(after, 10)}
				emitted := false
				if h.SubEvents[internal.SubL1BalanceThreshold] && h.HasL1Threshold && before >= h.L1Threshold && after < h.L1Threshold {
					te := ev
					te.EventType, te.BalanceThreshold = internal.SubL1BalanceThreshold, strconv.FormatUint(h.L1Threshold, 10)
					if err := pb.add(h, b.Height, platformAdvanceBase+k[hi]*platformSubEventsPerTx+platformSubThreshold, w.id, te); err != nil {
						return err
					}
					emitted = true
				}
				if h.SubEvents[internal.SubL1Disabled] && deactivated[w.id] {
					ev.EventType = internal.SubL1Disabled
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
func (pb *platformBatch) l1FeeWatched(ctx context.Context, w PWriter, vids []ids.ID) ([]l1Watch, error) {
	keys, err := w.L1ValidatorKeys(ctx, vids)
	if err != nil {
		return nil, err
	}
	var out []l1Watch
	for id, k := range keys {
		lw := l1Watch{id: id, node: k.NodeID, subnet: k.SubnetID}
		for _, hi := range pb.validatorHooks(k.NodeID, k.SubnetID) {
			if pb.ws.Hooks[hi].L1Fee() {
				lw.hooks = append(lw.hooks, hi)
			}
		}
		if len(lw.hooks) > 0 {
			out = append(out, lw)
		}
	}
	slices.SortFunc(out, func(a, b l1Watch) int { return a.id.Compare(b.id) })
	return out, nil
}

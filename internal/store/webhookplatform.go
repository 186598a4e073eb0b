package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The primary-network webhooks' side of the P- and X-chain's batches:
// the index of what the active webhooks watch (internal.PlatformWatches),
// held in memory, and the reads their events need; the derivation
// (derive/webhookevents) matches and renders them, and the outbox takes
// them (writeOutbox).

type platformWatchesKey struct{}

// platformWatches returns the database's index, current as of tx.
func platformWatches(ctx context.Context, tx *database.DB) (*internal.PlatformWatches, error) {
	return cachedWebhookIndex(ctx, tx, platformWatchesKey{}, loadPlatformWatches)
}

func loadPlatformWatches(ctx context.Context, tx *database.DB) (*internal.PlatformWatches, error) {
	ix := &internal.PlatformWatches{
		ByAddr: map[internal.Chain]map[ids.ShortID][]int32{internal.PChain: {}, internal.XChain: {}},
		ByNode: map[ids.NodeID][]int32{}, BySubnet: map[ids.ID][]int32{},
	}
	keyTypes := map[int32]string{}
	pos := map[string]int32{}
	err := tx.RunQuery(ctx, `SELECT id, event_type, created_at, filter FROM webhooks WHERE status = 'active' AND event_type IN (?, ?)`,
		func(rows *sql.Rows) error {
			var (
				h       internal.PlatformWatch
				f       WebhookFilter
				created int64
				filter  string
			)
			if err := rows.Scan(&h.ID, &h.EventType, &created, &filter); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(filter), &f); err != nil {
				return fmt.Errorf("webhook %s's filter: %w", h.ID, err)
			}
			h.Created, h.Chain, h.BalanceType = created/1000, internal.Chain(f.Chain), f.BalanceType
			h.SubEvents = map[string]bool{}
			for _, s := range f.SubEvents {
				h.SubEvents[s] = true
			}
			if f.BalanceThreshold != "" {
				if t, ok := new(big.Int).SetString(f.BalanceThreshold, 10); ok {
					h.Threshold = t
				}
			}
			if t, err := strconv.ParseUint(f.L1FeeBalanceThreshold, 10, 64); err == nil {
				h.L1Threshold, h.HasL1Threshold = t, true
			}
			ix.L1Fee = ix.L1Fee || (h.EventType == internal.EventValidatorActivity && h.L1Fee())
			for _, s := range f.NodeIDs {
				if n, err := ids.NodeIDFromString(s); err == nil {
					if h.Nodes == nil {
						h.Nodes = map[ids.NodeID]bool{}
					}
					h.Nodes[n] = true
				}
			}
			for _, s := range f.SubnetIDs {
				if n, err := ids.FromString(s); err == nil {
					if h.Subnets == nil {
						h.Subnets = map[ids.ID]bool{}
					}
					h.Subnets[n] = true
				}
			}
			h.Keys = map[ids.ShortID]string{}
			i := int32(len(ix.Hooks))
			pos[h.ID], keyTypes[i] = i, f.KeyType
			ix.Hooks = append(ix.Hooks, h)
			return nil
		}, internal.EventPlatformAddressActivity, internal.EventValidatorActivity)
	if err != nil {
		return nil, err
	}
	err = tx.RunQuery(ctx, `SELECT a.webhook_id, a.address FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.status = 'active' AND w.event_type IN (?, ?)`, func(rows *sql.Rows) error {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			return err
		}
		i, ok := pos[id]
		if !ok {
			return nil // activated meanwhile: matches nothing until reloaded
		}
		h := &ix.Hooks[i]
		switch {
		case h.EventType == internal.EventPlatformAddressActivity:
			_, b, err := address.ParseBech32(key)
			if err != nil {
				return nil
			}
			a, err := ids.ToShortID(b)
			if err != nil || ix.ByAddr[h.Chain] == nil {
				return nil
			}
			h.Keys[a] = key
			ix.ByAddr[h.Chain][a] = append(ix.ByAddr[h.Chain][a], i)
		case keyTypes[i] == "nodeId":
			if n, err := ids.NodeIDFromString(key); err == nil {
				ix.ByNode[n] = append(ix.ByNode[n], i)
			}
		case keyTypes[i] == "subnetId":
			if s, err := ids.FromString(key); err == nil {
				ix.BySubnet[s] = append(ix.BySubnet[s], i)
			}
		}
		return nil
	}, internal.EventPlatformAddressActivity, internal.EventValidatorActivity)
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// PlatformWatches returns the active primary-network webhooks
// (webhookevents.PlatformWriter).
func (t *XTx) PlatformWatches(ctx context.Context) (*internal.PlatformWatches, error) {
	return platformWatches(ctx, t.db)
}

// PlatformWatches is XTx.PlatformWatches.
func (t *PTx) PlatformWatches(ctx context.Context) (*internal.PlatformWatches, error) {
	return platformWatches(ctx, t.db)
}

// Network returns the stored network; ok is false in a store that holds
// none.
func (t *XTx) Network(ctx context.Context) (*internal.Network, bool, error) { return t.network(ctx) }

// SpentOwners returns the owners of the X-chain's UTXOs the batch marked
// spent, by UTXO.
func (t *XTx) SpentOwners() map[ids.ID][][]byte { return t.spent[internal.XChain] }

// SpentOwners is XTx.SpentOwners on the P-chain's list.
func (t *PTx) SpentOwners() map[ids.ID][][]byte { return t.spent[internal.PChain] }

// UnspentAVAX returns a's balance on the X-chain as balance_threshold
// measures it (unspentAVAX).
func (t *XTx) UnspentAVAX(ctx context.Context, a ids.ShortID, avax ids.ID) (*big.Int, error) {
	return unspentAVAX(ctx, t.db, internal.XChain, a, avax)
}

// UnspentAVAX is XTx.UnspentAVAX on the P-chain, which holds AVAX alone.
func (t *PTx) UnspentAVAX(ctx context.Context, a ids.ShortID, avax ids.ID) (*big.Int, error) {
	return unspentAVAX(ctx, t.db, internal.PChain, a, avax)
}

// WriteWebhookEvents adds events to the outbox (writeOutbox).
func (t *XTx) WriteWebhookEvents(ctx context.Context, events []internal.WebhookEvent) error {
	return writeOutbox(ctx, t.db, events)
}

// WriteWebhookEvents adds events to the outbox (writeOutbox).
func (t *PTx) WriteWebhookEvents(ctx context.Context, events []internal.WebhookEvent) error {
	return writeOutbox(ctx, t.db, events)
}

// EndedStakers returns those of the stakers txIDs that are stored with
// node and subnet ids, with their reward UTXOs' types.
func (t *PTx) EndedStakers(ctx context.Context, txIDs []ids.ID) (map[ids.ID]*internal.EndedStaker, error) {
	stakers, err := rewardStakers(ctx, t.db, txIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[ids.ID]*internal.EndedStaker, len(stakers))
	for id, st := range stakers {
		node, err := ids.ToNodeID(st.node)
		if err != nil {
			continue
		}
		subnet, err := ids.ToID(st.subnet)
		if err != nil {
			continue
		}
		e := &internal.EndedStaker{Kind: st.kind, SubnetID: subnet, NodeID: node, Weight: uint64(st.weight),
			Start: st.start, End: st.end, RewardTypes: make(map[ids.ID]string, len(st.siblings))}
		for _, u := range st.siblings {
			e.RewardTypes[u] = st.rewardType(u)
		}
		out[id] = e
	}
	return out, nil
}

// StakerOutputs returns the owners of the stake and reward UTXOs of the
// staker tx txID, by output index, then address.
func (t *PTx) StakerOutputs(ctx context.Context, txID ids.ID) ([]internal.StakerOutput, error) {
	var out []internal.StakerOutput
	err := t.db.RunQuery(ctx, `SELECT u.id, u.kind, u.amount, u.asset_id, a.address FROM p_utxos u JOIN p_utxo_addresses a ON a.utxo_id = u.id
		WHERE u.tx_id = ? AND u.kind IN ('stake', 'reward') ORDER BY u.output_index, a.address`, func(rows *sql.Rows) error {
		var (
			id, asset, addr []byte
			o               internal.StakerOutput
			amount          int64
		)
		if err := rows.Scan(&id, &o.Kind, &amount, &asset, &addr); err != nil {
			return err
		}
		var err error
		if o.UTXOID, err = ids.ToID(id); err != nil {
			return err
		}
		if o.AssetID, err = ids.ToID(asset); err != nil {
			return err
		}
		if o.Owner, err = ids.ToShortID(addr); err != nil {
			return err
		}
		o.Amount = uint64(amount)
		out = append(out, o)
		return nil
	}, txID[:])
	return out, err
}

// L1ValidatorKeys returns the node and subnet of those of the L1
// validators vids that are stored with a 20-byte node id (no webhook keys
// another).
func (t *PTx) L1ValidatorKeys(ctx context.Context, vids []ids.ID) (map[ids.ID]internal.L1ValidatorKey, error) {
	out := map[ids.ID]internal.L1ValidatorKey{}
	err := idChunks(vids, func(args []any, in string) error {
		return t.db.RunQuery(ctx, "SELECT validation_id, node_id, subnet_id FROM p_l1_validators WHERE validation_id IN "+in,
			func(rows *sql.Rows) error {
				var id, node, subnet []byte
				if err := rows.Scan(&id, &node, &subnet); err != nil {
					return err
				}
				vid, err := ids.ToID(id)
				if err != nil {
					return err
				}
				var k internal.L1ValidatorKey
				if k.NodeID, err = ids.ToNodeID(node); err != nil {
					return nil
				}
				if k.SubnetID, err = ids.ToID(subnet); err != nil {
					return err
				}
				out[vid] = k
				return nil
			}, args...)
	})
	return out, err
}

// L1FeeReplay returns what the batch's L1 fee replay changed
// (WriteL1Fees): the validators' state before it and its history; nil
// when it ran on no block.
func (t *PTx) L1FeeReplay() (map[ids.ID]internal.L1FeeValidator, *internal.L1FeeHistory) {
	return t.fees.before, t.fees.history
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

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// The address_activity webhooks' index: the active webhooks and the EVM
// addresses they watch, held in memory (internal.AddressWatches) for the
// derivation (derive/webhookevents) to match each batch against, and the
// outbox its events go to, in the batch's transaction.

// webhookIndex is a database's copy of an index of the active webhooks
// (tx.Value keeps one per key), rebuilt when webhook_state's version
// moves (any change, on any instance). A rebuilt index replaces the old
// one, which the batches matching against it may keep using.
type webhookIndex[T any] struct {
	mu      sync.Mutex
	version int64
	loaded  bool
	index   T
}

// cachedWebhookIndex returns the index key names, current as of tx, loaded
// again by load when the webhooks changed.
func cachedWebhookIndex[T any](ctx context.Context, tx *database.DB, key any, load func(context.Context, *database.DB) (T, error)) (T, error) {
	c := tx.Value(key, func() any { return new(webhookIndex[T]) }).(*webhookIndex[T])
	var version int64
	if err := tx.QueryRow(ctx, "SELECT version FROM webhook_state WHERE id = 1").Scan(&version); err != nil {
		var zero T
		return zero, fmt.Errorf("the webhooks' version: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && c.version == version {
		return c.index, nil
	}
	ix, err := load(ctx, tx)
	if err != nil {
		return ix, err
	}
	c.index, c.version, c.loaded = ix, version, true
	return ix, nil
}

type addressWatchesKey struct{}

// AddressWatches returns the active address_activity webhooks, current as
// of the batch's transaction (webhookevents.EVMWriter).
func (t *EVMTx) AddressWatches(ctx context.Context) (*internal.AddressWatches, error) {
	return cachedWebhookIndex(ctx, t.reads(), addressWatchesKey{}, loadWatches)
}

// ChainID is the batch's EVM chain id.
func (t *EVMTx) ChainID() uint64 { return uint64(t.cid) }

// WriteWebhookEvents adds events to the outbox, created now; an event
// whose message id the outbox holds is kept as it is.
func (t *EVMTx) WriteWebhookEvents(ctx context.Context, events []internal.WebhookEvent) error {
	return writeOutbox(ctx, t.db, events)
}

// writeOutbox adds events to webhook_outbox, created now.
func writeOutbox(ctx context.Context, tx *database.DB, events []internal.WebhookEvent) error {
	now := time.Now().UnixMilli()
	rows := make([][]any, len(events))
	for i, e := range events {
		rows[i] = []any{e.WebhookID, int64(e.Block), e.Position, e.MessageID, string(e.Payload), now}
	}
	return tx.Append(ctx, "webhook_outbox", []string{"webhook_id", "block_number", "position", "message_id", "payload", "created_at"},
		rows, onConflictDoNothing)
}

func loadWatches(ctx context.Context, tx *database.DB) (*internal.AddressWatches, error) {
	var hooks []internal.AddressWatch
	chains := map[string]uint64{}
	pos := map[string]int32{}
	err := tx.RunQuery(ctx, `SELECT id, chain_id, created_at, include_logs, include_internal_txs, event_signatures
		FROM webhooks WHERE status = 'active' AND event_type = ?`, func(rows *sql.Rows) error {
		var (
			h            internal.AddressWatch
			cid, created int64
			logs, itxs   int
			sigs         string
		)
		if err := rows.Scan(&h.ID, &cid, &created, &logs, &itxs, &sigs); err != nil {
			return err
		}
		var list []common.Hash
		if err := json.Unmarshal([]byte(sigs), &list); err != nil {
			return fmt.Errorf("webhook %s's event signatures: %w", h.ID, err)
		}
		if len(list) > 0 {
			h.Signatures = make(map[common.Hash]bool, len(list))
			for _, s := range list {
				h.Signatures[s] = true
			}
		}
		h.Created, h.Logs, h.InternalTxs = created/1000, logs == 1, itxs == 1
		chains[h.ID], pos[h.ID] = uint64(cid), int32(len(hooks))
		hooks = append(hooks, h)
		return nil
	}, internal.EventAddressActivity)
	if err != nil {
		return nil, err
	}
	byAddr := map[internal.WatchedAddress][]int32{}
	err = tx.RunQuery(ctx, `SELECT a.webhook_id, a.address FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
		WHERE w.status = 'active' AND w.event_type = ?`, func(rows *sql.Rows) error {
		var id, addr string
		if err := rows.Scan(&id, &addr); err != nil {
			return err
		}
		i, ok := pos[id]
		if !ok || !common.IsHexAddress(addr) {
			return nil // activated meanwhile, or not an address: matches nothing
		}
		k := internal.WatchedAddress{ChainID: chains[id], Address: common.HexToAddress(addr)}
		byAddr[k] = append(byAddr[k], i)
		return nil
	}, internal.EventAddressActivity)
	if err != nil {
		return nil, err
	}
	return internal.NewAddressWatches(hooks, byAddr), nil
}

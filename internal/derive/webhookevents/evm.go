// Package webhookevents derives the webhooks' events from a batch: each
// block matched against the active webhooks, and an event rendered, in
// the hosted service's payload shape, for each matched tx (or staker end,
// or L1 fee change) and webhook: EVM for the EVM chains' address
// activity, P and X for the primary network's address and validator
// activity (platform.go). The store keeps the webhooks (and the index of
// what they watch) and the outbox the events go to; the delivery worker
// (package webhooks) sends them. A batch applied again raises the same
// events, with the same ids.
package webhookevents

import (
	"context"
	"fmt"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// EVMWriter is what the EVM chains' events read and write in the batch's
// transaction (store.EVMTx).
type EVMWriter interface {
	// ChainID is the batch's EVM chain id.
	ChainID() uint64
	// AddressWatches returns the active address_activity webhooks as of
	// the batch's transaction.
	AddressWatches(ctx context.Context) (*internal.AddressWatches, error)
	// WriteWebhookEvents adds events to the outbox, keeping those whose
	// message id it holds already. Idempotent.
	WriteWebhookEvents(ctx context.Context, events []internal.WebhookEvent) error
}

// EVM raises the address_activity events of an EVM chain's batch: for
// each tx, once per webhook that watches its sender or recipient, or a
// party of one of its token transfers or (for a webhook that asks for
// them) internal txs, unless the webhook is newer than the block or asks
// for event signatures the tx did not emit.
func EVM(ctx context.Context, w EVMWriter, blocks []*internal.EVMBlockData) error {
	ws, err := w.AddressWatches(ctx)
	if err != nil || ws.Empty() {
		return err
	}
	cid := w.ChainID()
	var events []internal.WebhookEvent
	for _, b := range blocks {
		ms := match(ws, cid, b)
		if len(ms) == 0 {
			continue
		}
		r := newRenderer(b, cid)
		for _, m := range ms {
			h := &ws.Hooks[m.hook]
			t := &b.Txs[m.tx]
			msgID := messageID(h.ID, cid, b.Hash, t.Hash)
			payload, err := r.payload(h, msgID, m.tx)
			if err != nil {
				return fmt.Errorf("webhook %s, tx %s: %w", h.ID, t.Hash, err)
			}
			events = append(events, internal.WebhookEvent{WebhookID: h.ID, Block: b.Number, Position: int64(t.Index),
				MessageID: msgID, Payload: payload})
		}
	}
	if len(events) == 0 {
		return nil
	}
	return w.WriteWebhookEvents(ctx, events)
}

// webhookMatch is one event: a tx of a block for a webhook.
type webhookMatch struct {
	hook int32
	tx   int // index in the block's Txs
}

// match returns the block's events, each once: those of the txs'
// senders and recipients, then of the token transfers' parties, then of
// the internal txs'. (The outbox delivers by block and tx.)
func match(ws *internal.AddressWatches, cid uint64, b *internal.EVMBlockData) []webhookMatch {
	var out []webhookMatch
	var seen map[webhookMatch]bool
	sec := b.Timestamp.Unix()
	add := func(addr common.Address, tx int, internalOnly bool) {
		for _, h := range ws.Watchers(cid, &addr) {
			hk := &ws.Hooks[h]
			if sec < hk.Created || (internalOnly && !hk.InternalTxs) {
				continue
			}
			m := webhookMatch{h, tx}
			if seen == nil {
				seen = map[webhookMatch]bool{}
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	watches := func(a *common.Address) bool { return len(ws.Watchers(cid, a)) > 0 }
	var byHash map[common.Hash]int
	lookups := 0
	txOf := func(h common.Hash) (int, bool) {
		// Matches are rare: a few scans cost less than the map.
		if lookups++; lookups <= 8 {
			for i := range b.Txs {
				if b.Txs[i].Hash == h {
					return i, true
				}
			}
			return 0, false
		}
		if byHash == nil {
			byHash = make(map[common.Hash]int, len(b.Txs))
			for i := range b.Txs {
				byHash[b.Txs[i].Hash] = i
			}
		}
		i, ok := byHash[h]
		return i, ok
	}
	for i := range b.Txs {
		t := &b.Txs[i]
		add(t.From, i, false)
		if t.To != nil {
			add(*t.To, i, false)
		}
	}
	for j := range b.Transfers {
		tr := &b.Transfers[j]
		if !watches(&tr.From) && !watches(&tr.To) {
			continue
		}
		if i, ok := txOf(tr.TxHash); ok {
			add(tr.From, i, false)
			add(tr.To, i, false)
		}
	}
	for j := range b.InternalTxs {
		it := &b.InternalTxs[j]
		if !watches(&it.From) && !watches(&it.To) {
			continue
		}
		if i, ok := txOf(it.TxHash); ok {
			add(it.From, i, true)
			add(it.To, i, true)
		}
	}
	// eventSignatures: only the txs that emitted one of them.
	kept := out[:0]
	for _, m := range out {
		if sigs := ws.Hooks[m.hook].Signatures; sigs != nil && !emitted(b, uint32(b.Txs[m.tx].Index), sigs) {
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

func emitted(b *internal.EVMBlockData, txIndex uint32, sigs map[common.Hash]bool) bool {
	for i := range b.Logs {
		l := &b.Logs[i]
		if l.TxIndex == txIndex && len(l.Topics) > 0 && sigs[l.Topics[0]] {
			return true
		}
	}
	return false
}

// messageID is the event's id, a UUID made of what the event is, so that
// a re-applied block makes the same one.
func messageID(webhook string, cid uint64, block, tx common.Hash) string {
	name := fmt.Appendf(nil, "%s/%d/", webhook, cid)
	return internal.MessageID(append(append(name, block[:]...), tx[:]...))
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// Webhook statuses.
const (
	WebhookActive   = "active"
	WebhookInactive = "inactive"
)

// WebhookFilter is what a primary_network_address_activity or
// validator_activity webhook watches beyond its keys (its addresses:
// bech32 addresses without a chain prefix, node ids or subnet ids).
type WebhookFilter struct {
	// Chain is "P" or "X" (primary_network_address_activity); ChainName is
	// the request's chainId, echoed.
	Chain     string `json:"chain,omitempty"`
	ChainName string `json:"chainName,omitempty"`
	Network   string `json:"network,omitempty"`
	// KeyType is addresses, nodeId or subnetId.
	KeyType   string   `json:"keyType,omitempty"`
	SubEvents []string `json:"subEvents,omitempty"`
	// BalanceType and BalanceThreshold (nAVAX, decimal) are the
	// balance_threshold sub-event's filter.
	BalanceType      string `json:"balanceType,omitempty"`
	BalanceThreshold string `json:"balanceThreshold,omitempty"`
	// NodeIDs and SubnetIDs narrow validator_activity events further.
	NodeIDs   []string `json:"nodeIds,omitempty"`
	SubnetIDs []string `json:"subnetIds,omitempty"`
	// L1FeeBalanceThreshold is kept and echoed (nAVAX): the
	// l1_validator_balance_threshold sub-event is not derived.
	L1FeeBalanceThreshold string `json:"l1ValidatorFeeBalanceThreshold,omitempty"`
}

// Webhook is a webhook as the store keeps it.
type Webhook struct {
	ID, Owner, EventType string
	ChainID              uint64
	URL, Name            string
	Description          string
	Status               string
	// StatusReason says why an inactive webhook is: deactivated by its
	// owner, or delivery gave up (internal/webhooks).
	StatusReason       string
	IncludeLogs        bool
	IncludeInternalTxs bool
	// EventSignatures, when not empty, restrict the events to txs that
	// emitted a log with one of these topic0s.
	EventSignatures []common.Hash
	Created         time.Time
	// Attempts is how many times the oldest undelivered event failed.
	Attempts int
	// Filter is set on the primary-network event types.
	Filter WebhookFilter
}

// WebhookKey is a webhook's place in its owner's list.
type WebhookKey struct {
	Created int64  `json:"c"`
	ID      string `json:"i"`
}

// WebhookUpdate is what updateWebhook changes: the set fields.
type WebhookUpdate struct {
	Name, Description, URL, Status  *string
	IncludeLogs, IncludeInternalTxs *bool
}

// WebhookLimits bound an owner's webhooks.
type WebhookLimits struct {
	Webhooks, Addresses int
}

// WebhookEvent is an outbox event.
type WebhookEvent struct {
	WebhookID   string
	BlockNumber uint64
	Position    uint64
	MessageID   string
	Payload     []byte
	Created     time.Time
}

// WebhookClaim is a webhook leased for delivery.
type WebhookClaim struct {
	Webhook
	Secret string
	// Claim is the lease's token; every write of the delivery names it.
	Claim string
}

// ErrWebhookClaimLost is returned by the delivery writes when the claim
// lapsed and another holder may have the webhook.
var ErrWebhookClaimLost = errors.New("the webhook's delivery claim lapsed")

// WebhookStore keeps webhooks, their addresses, the owners' shared
// secrets and the outbox.
type WebhookStore interface {
	// CreateWebhook adds w with addrs (lowercase 0x hex), within limits.
	CreateWebhook(ctx context.Context, w Webhook, addrs []string, limits WebhookLimits) error
	// Webhook returns owner's webhook id; NotFound for another owner's.
	Webhook(ctx context.Context, owner, id string) (*Webhook, error)
	// Webhooks lists owner's webhooks by creation, of status when set.
	Webhooks(ctx context.Context, owner, status string, after *WebhookKey, limit int) ([]*Webhook, error)
	UpdateWebhook(ctx context.Context, owner, id string, u WebhookUpdate) (*Webhook, error)
	AddWebhookAddresses(ctx context.Context, owner, id string, addrs []string, limits WebhookLimits) error
	RemoveWebhookAddresses(ctx context.Context, owner, id string, addrs []string) error
	// WebhookAddresses lists the webhook's addresses in order, after
	// after (""), and their total.
	WebhookAddresses(ctx context.Context, owner, id, after string, limit int) ([]string, int64, error)
	// WebhookSecret is owner's shared secret; "" when it has none yet.
	WebhookSecret(ctx context.Context, owner string) (string, error)
	SetWebhookSecret(ctx context.Context, owner, secret string) error

	// ClaimWebhook leases for lease one active webhook with events due at
	// now, not leased by another; ok false when none is.
	ClaimWebhook(ctx context.Context, now time.Time, lease time.Duration, claim string) (_ *WebhookClaim, ok bool, err error)
	// WebhookDue reports whether ClaimWebhook at now would find a webhook
	// to lease, by a read: an idle deliverer asks it instead of running
	// the claim's write every poll. The answer may be stale by the time
	// it is acted on; ClaimWebhook decides.
	WebhookDue(ctx context.Context, now time.Time) (bool, error)
	// RenewWebhookClaim extends the lease; ErrWebhookClaimLost when lapsed.
	RenewWebhookClaim(ctx context.Context, id, claim string, until time.Time) error
	// WebhookEvents returns the webhook's oldest events, in order.
	WebhookEvents(ctx context.Context, id string, limit int) ([]WebhookEvent, error)
	// AckWebhookEvents marks delivered events (kept for the stream until
	// pruned) and resets the backoff.
	AckWebhookEvents(ctx context.Context, id, claim string, delivered []WebhookEvent) error
	// FailWebhook records a failed attempt: the next at next, or, with a
	// reason, the webhook inactive. It releases the claim.
	FailWebhook(ctx context.Context, id, claim string, attempts int, next time.Time, inactiveReason string) error
	// ReleaseWebhookClaim ends the lease.
	ReleaseWebhookClaim(ctx context.Context, id, claim string) error
	// WebhookBacklog is how many events wait in the outbox for active
	// webhooks.
	WebhookBacklog(ctx context.Context) (int64, error)

	// WebhookStream returns the webhook's retained events, delivered or
	// not, after after (nil: from the oldest), in order.
	WebhookStream(ctx context.Context, id string, after *WebhookEventPos, limit int) ([]WebhookEvent, error)
	// WebhookEventPosition is where the webhook's event messageID is in
	// its order; nil when it is not retained.
	WebhookEventPosition(ctx context.Context, id, messageID string) (*WebhookEventPos, error)
	// PruneWebhookEvents deletes the events delivered before before.
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}

// WebhookEventPos is an event's place in its webhook's order.
type WebhookEventPos struct {
	BlockNumber, Position uint64
}

const webhookColumns = `id, owner, event_type, chain_id, url, name, description, status, status_reason,
	include_logs, include_internal_txs, event_signatures, created_at, attempts, filter`

func scanWebhook(sc scanner) (*Webhook, error) {
	var (
		w            Webhook
		cid, created int64
		logs, itxs   int
		sigs         string
		attempts     int
		filter       string
	)
	if err := sc.Scan(&w.ID, &w.Owner, &w.EventType, &cid, &w.URL, &w.Name, &w.Description, &w.Status, &w.StatusReason,
		&logs, &itxs, &sigs, &created, &attempts, &filter); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(filter), &w.Filter); err != nil {
		return nil, fmt.Errorf("webhook %s's filter: %w", w.ID, err)
	}
	w.ChainID, w.IncludeLogs, w.IncludeInternalTxs, w.Created, w.Attempts = uint64(cid), logs == 1, itxs == 1, time.UnixMilli(created), attempts
	if err := json.Unmarshal([]byte(sigs), &w.EventSignatures); err != nil {
		return nil, fmt.Errorf("webhook %s's event signatures: %w", w.ID, err)
	}
	return &w, nil
}

func bumpWebhookVersion(ctx context.Context, tx *database.DB) error {
	_, err := tx.Exec(ctx, "UPDATE webhook_state SET version = version + 1 WHERE id = 1")
	return err
}

func (s *sqlStore) CreateWebhook(ctx context.Context, w Webhook, addrs []string, limits WebhookLimits) (err error) {
	defer derrors.Wrap(&err, "store.CreateWebhook")
	if len(addrs) > limits.Addresses {
		return derrors.Client(derrors.PermissionDenied, "a webhook may watch %d addresses at most on this key's tier; %d given", limits.Addresses, len(addrs))
	}
	sigs, err := json.Marshal(nonNilHashes(w.EventSignatures))
	if err != nil {
		return err
	}
	filter, err := json.Marshal(w.Filter)
	if err != nil {
		return err
	}
	return s.db.Transact(ctx, func(tx *database.DB) error {
		var n int64
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM webhooks WHERE owner = ?", w.Owner).Scan(&n); err != nil {
			return err
		}
		if n >= int64(limits.Webhooks) {
			return derrors.Client(derrors.PermissionDenied, "this key's tier allows %d webhooks, which it has", limits.Webhooks)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO webhooks (`+webhookColumns+`, next_attempt, claim, claimed_until)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, '', 0)`,
			w.ID, w.Owner, w.EventType, int64(w.ChainID), w.URL, w.Name, w.Description, w.Status, w.StatusReason,
			boolInt(w.IncludeLogs), boolInt(w.IncludeInternalTxs), string(sigs), w.Created.UnixMilli(), string(filter)); err != nil {
			return err
		}
		if err := insertWebhookAddresses(ctx, tx, w.ID, addrs); err != nil {
			return err
		}
		return bumpWebhookVersion(ctx, tx)
	})
}

func nonNilHashes(h []common.Hash) []common.Hash {
	if h == nil {
		return []common.Hash{}
	}
	return h
}

// insertWebhookAddresses adds the webhook's keys, in the normal form the
// API gave them (EVM addresses lowercase; node ids and cb58 are case-
// sensitive).
func insertWebhookAddresses(ctx context.Context, tx *database.DB, id string, addrs []string) error {
	if len(addrs) == 0 {
		return nil
	}
	rows := make([][]any, len(addrs))
	for i, a := range addrs {
		rows[i] = []any{id, a}
	}
	return tx.Append(ctx, "webhook_addresses", []string{"webhook_id", "address"}, rows, onConflictDoNothing)
}

func (s *sqlStore) Webhook(ctx context.Context, owner, id string) (_ *Webhook, err error) {
	defer derrors.Wrap(&err, "store.Webhook(%q)", id)
	return webhookOf(ctx, s.db, owner, id)
}

func webhookOf(ctx context.Context, db *database.DB, owner, id string) (*Webhook, error) {
	w, err := scanWebhook(db.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ? AND owner = ?", id, owner))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.Missing("no webhook %s", derrors.Echo(id))
	}
	return w, err
}

func (s *sqlStore) Webhooks(ctx context.Context, owner, status string, after *WebhookKey, limit int) (_ []*Webhook, err error) {
	defer derrors.Wrap(&err, "store.Webhooks")
	q := "SELECT " + webhookColumns + " FROM webhooks WHERE owner = ?"
	args := []any{owner}
	if status != "" {
		q += " AND status = ?"
		args = append(args, status)
	}
	if after != nil {
		q += " AND (created_at > ? OR (created_at = ? AND id > ?))"
		args = append(args, after.Created, after.Created, after.ID)
	}
	q += " ORDER BY created_at, id LIMIT ?"
	args = append(args, limit)
	var out []*Webhook
	err = s.db.RunQuery(ctx, q, func(rows *sql.Rows) error {
		w, err := scanWebhook(rows)
		if err != nil {
			return err
		}
		out = append(out, w)
		return nil
	}, args...)
	return out, err
}

func (s *sqlStore) UpdateWebhook(ctx context.Context, owner, id string, u WebhookUpdate) (out *Webhook, err error) {
	defer derrors.Wrap(&err, "store.UpdateWebhook(%q)", id)
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		w, err := webhookOf(ctx, tx, owner, id)
		if err != nil {
			return err
		}
		set := func(dst *string, v *string) {
			if v != nil {
				*dst = *v
			}
		}
		set(&w.Name, u.Name)
		set(&w.Description, u.Description)
		set(&w.URL, u.URL)
		if u.IncludeLogs != nil {
			w.IncludeLogs = *u.IncludeLogs
		}
		if u.IncludeInternalTxs != nil {
			w.IncludeInternalTxs = *u.IncludeInternalTxs
		}
		reset := ""
		if u.Status != nil && *u.Status != w.Status {
			w.Status = *u.Status
			w.StatusReason, w.Attempts = "", 0
			if w.Status == WebhookInactive {
				w.StatusReason = "deactivated by its owner"
			}
			// Reactivated: the backoff starts again.
			reset = ", attempts = 0, next_attempt = 0"
		}
		if _, err := tx.Exec(ctx, `UPDATE webhooks SET name = ?, description = ?, url = ?, status = ?, status_reason = ?,
			include_logs = ?, include_internal_txs = ?`+reset+` WHERE id = ?`,
			w.Name, w.Description, w.URL, w.Status, w.StatusReason, boolInt(w.IncludeLogs), boolInt(w.IncludeInternalTxs), id); err != nil {
			return err
		}
		out = w
		return bumpWebhookVersion(ctx, tx)
	})
	return out, err
}

func (s *sqlStore) AddWebhookAddresses(ctx context.Context, owner, id string, addrs []string, limits WebhookLimits) (err error) {
	defer derrors.Wrap(&err, "store.AddWebhookAddresses(%q)", id)
	return s.db.Transact(ctx, func(tx *database.DB) error {
		if _, err := webhookOf(ctx, tx, owner, id); err != nil {
			return err
		}
		if err := insertWebhookAddresses(ctx, tx, id, addrs); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM webhook_addresses WHERE webhook_id = ?", id).Scan(&n); err != nil {
			return err
		}
		if n > int64(limits.Addresses) {
			return derrors.Client(derrors.PermissionDenied, "a webhook may watch %d addresses at most on this key's tier; this change makes %d", limits.Addresses, n)
		}
		return bumpWebhookVersion(ctx, tx)
	})
}

func (s *sqlStore) RemoveWebhookAddresses(ctx context.Context, owner, id string, addrs []string) (err error) {
	defer derrors.Wrap(&err, "store.RemoveWebhookAddresses(%q)", id)
	return s.db.Transact(ctx, func(tx *database.DB) error {
		if _, err := webhookOf(ctx, tx, owner, id); err != nil {
			return err
		}
		for _, a := range addrs {
			if _, err := tx.Exec(ctx, "DELETE FROM webhook_addresses WHERE webhook_id = ? AND address = ?", id, a); err != nil {
				return err
			}
		}
		return bumpWebhookVersion(ctx, tx)
	})
}

func (s *sqlStore) WebhookAddresses(ctx context.Context, owner, id, after string, limit int) (_ []string, total int64, err error) {
	defer derrors.Wrap(&err, "store.WebhookAddresses(%q)", id)
	if _, err := webhookOf(ctx, s.db, owner, id); err != nil {
		return nil, 0, err
	}
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM webhook_addresses WHERE webhook_id = ?", id).Scan(&total); err != nil {
		return nil, 0, err
	}
	var out []string
	err = s.db.RunQuery(ctx, "SELECT address FROM webhook_addresses WHERE webhook_id = ? AND address > ? ORDER BY address LIMIT ?",
		func(rows *sql.Rows) error {
			var a string
			if err := rows.Scan(&a); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		}, id, after, limit)
	return out, total, err
}

func (s *sqlStore) WebhookSecret(ctx context.Context, owner string) (_ string, err error) {
	defer derrors.Wrap(&err, "store.WebhookSecret")
	return webhookSecret(ctx, s.db, owner)
}

func webhookSecret(ctx context.Context, db *database.DB, owner string) (string, error) {
	var secret string
	err := db.QueryRow(ctx, "SELECT secret FROM webhook_secrets WHERE owner = ?", owner).Scan(&secret)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return secret, err
}

func (s *sqlStore) SetWebhookSecret(ctx context.Context, owner, secret string) (err error) {
	defer derrors.Wrap(&err, "store.SetWebhookSecret")
	_, err = s.db.Exec(ctx, `INSERT INTO webhook_secrets (owner, secret) VALUES (?, ?)
		ON CONFLICT (owner) DO UPDATE SET secret = excluded.secret`, owner, secret)
	return err
}

func (s *sqlStore) ClaimWebhook(ctx context.Context, now time.Time, lease time.Duration, claim string) (_ *WebhookClaim, ok bool, err error) {
	defer derrors.Wrap(&err, "store.ClaimWebhook")
	ms := now.UnixMilli()
	// The WHERE is checked again on the row an UPDATE locks (PostgreSQL's
	// READ COMMITTED), so two instances never both claim one webhook.
	var id string
	err = s.db.QueryRow(ctx, `UPDATE webhooks SET claim = ?, claimed_until = ?
		WHERE status = 'active' AND claimed_until <= ? AND next_attempt <= ? AND id = (
			SELECT w.id FROM webhooks w WHERE w.status = 'active' AND w.claimed_until <= ? AND w.next_attempt <= ?
				AND EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.webhook_id = w.id AND o.delivered_at IS NULL)
			ORDER BY w.next_attempt, w.id LIMIT 1)
		RETURNING id`, claim, ms+lease.Milliseconds(), ms, ms, ms, ms).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	w, err := scanWebhook(s.db.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", id))
	if err != nil {
		return nil, false, err
	}
	secret, err := webhookSecret(ctx, s.db, w.Owner)
	if err != nil {
		return nil, false, err
	}
	return &WebhookClaim{Webhook: *w, Secret: secret, Claim: claim}, true, nil
}

func (s *sqlStore) WebhookDue(ctx context.Context, now time.Time) (_ bool, err error) {
	defer derrors.Wrap(&err, "store.WebhookDue")
	ms := now.UnixMilli()
	// ClaimWebhook's inner SELECT, without its ORDER BY: any webhook due
	// will do, and the outbox's partial index of pending events answers
	// the EXISTS without a scan.
	var due int
	err = s.db.QueryRow(ctx, `SELECT CASE WHEN EXISTS (
		SELECT 1 FROM webhooks w WHERE w.status = 'active' AND w.claimed_until <= ? AND w.next_attempt <= ?
			AND EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.webhook_id = w.id AND o.delivered_at IS NULL)
		) THEN 1 ELSE 0 END`, ms, ms).Scan(&due)
	return due == 1, err
}

func (s *sqlStore) RenewWebhookClaim(ctx context.Context, id, claim string, until time.Time) (err error) {
	defer derrors.Wrap(&err, "store.RenewWebhookClaim(%q)", id)
	n, err := s.db.Exec(ctx, "UPDATE webhooks SET claimed_until = ? WHERE id = ? AND claim = ? AND claimed_until > ?",
		until.UnixMilli(), id, claim, time.Now().UnixMilli())
	if err == nil && n == 0 {
		err = ErrWebhookClaimLost
	}
	return err
}

func (s *sqlStore) WebhookEvents(ctx context.Context, id string, limit int) (_ []WebhookEvent, err error) {
	defer derrors.Wrap(&err, "store.WebhookEvents(%q)", id)
	var out []WebhookEvent
	err = s.db.RunQuery(ctx, `SELECT block_number, position, message_id, payload, created_at FROM webhook_outbox
		WHERE webhook_id = ? AND delivered_at IS NULL ORDER BY block_number, position LIMIT ?`, scanWebhookEvents(id, &out), id, limit)
	return out, err
}

func scanWebhookEvents(id string, out *[]WebhookEvent) func(rows *sql.Rows) error {
	return func(rows *sql.Rows) error {
		e := WebhookEvent{WebhookID: id}
		var bn, pos, created int64
		var payload string
		if err := rows.Scan(&bn, &pos, &e.MessageID, &payload, &created); err != nil {
			return err
		}
		e.BlockNumber, e.Position, e.Payload, e.Created = uint64(bn), uint64(pos), []byte(payload), time.UnixMilli(created)
		*out = append(*out, e)
		return nil
	}
}

func (s *sqlStore) WebhookStream(ctx context.Context, id string, after *WebhookEventPos, limit int) (_ []WebhookEvent, err error) {
	defer derrors.Wrap(&err, "store.WebhookStream(%q)", id)
	q := "SELECT block_number, position, message_id, payload, created_at FROM webhook_outbox WHERE webhook_id = ?"
	args := []any{id}
	if after != nil {
		q += " AND (block_number > ? OR (block_number = ? AND position > ?))"
		args = append(args, int64(after.BlockNumber), int64(after.BlockNumber), int64(after.Position))
	}
	var out []WebhookEvent
	err = s.db.RunQuery(ctx, q+" ORDER BY block_number, position LIMIT ?", scanWebhookEvents(id, &out), append(args, limit)...)
	return out, err
}

func (s *sqlStore) WebhookEventPosition(ctx context.Context, id, messageID string) (_ *WebhookEventPos, err error) {
	defer derrors.Wrap(&err, "store.WebhookEventPosition(%q)", id)
	var bn, pos int64
	err = s.db.QueryRow(ctx, "SELECT block_number, position FROM webhook_outbox WHERE webhook_id = ? AND message_id = ?", id, messageID).Scan(&bn, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &WebhookEventPos{BlockNumber: uint64(bn), Position: uint64(pos)}, nil
}

func (s *sqlStore) PruneWebhookEvents(ctx context.Context, before time.Time) (n int64, err error) {
	defer derrors.Wrap(&err, "store.PruneWebhookEvents")
	return s.db.Exec(ctx, "DELETE FROM webhook_outbox WHERE delivered_at IS NOT NULL AND delivered_at < ?", before.UnixMilli())
}

func (s *sqlStore) AckWebhookEvents(ctx context.Context, id, claim string, delivered []WebhookEvent) (err error) {
	defer derrors.Wrap(&err, "store.AckWebhookEvents(%q, %d)", id, len(delivered))
	if len(delivered) == 0 {
		return nil
	}
	last := delivered[len(delivered)-1]
	now := time.Now().UnixMilli()
	return s.db.Transact(ctx, func(tx *database.DB) error {
		n, err := tx.Exec(ctx, "UPDATE webhooks SET attempts = 0, next_attempt = 0 WHERE id = ? AND claim = ?", id, claim)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrWebhookClaimLost
		}
		// The events are delivered in order: every one up to the last. They
		// stay for the stream until PruneWebhookEvents.
		_, err = tx.Exec(ctx, `UPDATE webhook_outbox SET delivered_at = ? WHERE webhook_id = ? AND delivered_at IS NULL
			AND (block_number < ? OR (block_number = ? AND position <= ?))`,
			now, id, int64(last.BlockNumber), int64(last.BlockNumber), int64(last.Position))
		return err
	})
}

func (s *sqlStore) FailWebhook(ctx context.Context, id, claim string, attempts int, next time.Time, inactiveReason string) (err error) {
	defer derrors.Wrap(&err, "store.FailWebhook(%q)", id)
	return s.db.Transact(ctx, func(tx *database.DB) error {
		q := "UPDATE webhooks SET attempts = ?, next_attempt = ?, claim = '', claimed_until = 0"
		args := []any{attempts, next.UnixMilli()}
		if inactiveReason != "" {
			q += ", status = 'inactive', status_reason = ?"
			args = append(args, inactiveReason)
		}
		n, err := tx.Exec(ctx, q+" WHERE id = ? AND claim = ?", append(args, id, claim)...)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrWebhookClaimLost
		}
		if inactiveReason != "" {
			return bumpWebhookVersion(ctx, tx)
		}
		return nil
	})
}

func (s *sqlStore) ReleaseWebhookClaim(ctx context.Context, id, claim string) (err error) {
	defer derrors.Wrap(&err, "store.ReleaseWebhookClaim(%q)", id)
	_, err = s.db.Exec(ctx, "UPDATE webhooks SET claim = '', claimed_until = 0 WHERE id = ? AND claim = ?", id, claim)
	return err
}

func (s *sqlStore) WebhookBacklog(ctx context.Context) (n int64, err error) {
	defer derrors.Wrap(&err, "store.WebhookBacklog")
	err = s.db.QueryRow(ctx, `SELECT COUNT(*) FROM webhook_outbox o JOIN webhooks w ON w.id = o.webhook_id
		WHERE w.status = 'active' AND o.delivered_at IS NULL`).Scan(&n)
	return n, err
}

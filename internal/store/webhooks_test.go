package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

var testLimits = WebhookLimits{Webhooks: 20, Addresses: 5}

func testWebhook(id, owner string, chain uint64, created time.Time) Webhook {
	return Webhook{ID: id, Owner: owner, EventType: internal.EventAddressActivity, ChainID: chain, URL: "http://127.0.0.1:1/" + id,
		Name: id, Status: WebhookActive, Created: created}
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// outbox returns the outbox's events of webhook id, in delivery order.
func outbox(t *testing.T, s *sqlStore, id string) []WebhookEvent {
	t.Helper()
	es, err := s.WebhookEvents(context.Background(), id, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestWebhookCRUD(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		t0 := time.UnixMilli(1_700_000_000_123)
		a := testWebhook("a", "k1", testEVMChain, t0)
		a.EventSignatures = []common.Hash{evmHash("Transfer")}
		if err := s.CreateWebhook(ctx, a, []string{lower(alice), lower(bob)}, testLimits); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateWebhook(ctx, testWebhook("b", "k1", testEVMChain, t0.Add(time.Second)), nil, testLimits); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateWebhook(ctx, testWebhook("c", "k2", testEVMChain, t0), nil, testLimits); err != nil {
			t.Fatal(err)
		}
		// Limits: webhooks per owner, addresses per webhook.
		if err := s.CreateWebhook(ctx, testWebhook("d", "k1", testEVMChain, t0), nil, WebhookLimits{Webhooks: 2, Addresses: 5}); !errors.Is(err, derrors.PermissionDenied) {
			t.Errorf("a third webhook with a limit of 2: %v, want PermissionDenied", err)
		}
		six := []string{"0x01", "0x02", "0x03", "0x04", "0x05", "0x06"}
		if err := s.CreateWebhook(ctx, testWebhook("e", "k1", testEVMChain, t0), six, testLimits); !errors.Is(err, derrors.PermissionDenied) {
			t.Errorf("six addresses with a limit of 5: %v, want PermissionDenied", err)
		}
		if err := s.AddWebhookAddresses(ctx, "k1", "a", []string{"0x01", "0x02", "0x03", "0x04"}, testLimits); !errors.Is(err, derrors.PermissionDenied) {
			t.Errorf("adding to 6 addresses with a limit of 5: %v, want PermissionDenied", err)
		}
		// A key sees only its own.
		if _, err := s.Webhook(ctx, "k2", "a"); !errors.Is(err, derrors.NotFound) {
			t.Errorf("k2 reading k1's webhook: %v, want NotFound", err)
		}
		if err := s.AddWebhookAddresses(ctx, "k2", "a", []string{"0x01"}, testLimits); !errors.Is(err, derrors.NotFound) {
			t.Errorf("k2 changing k1's webhook: %v, want NotFound", err)
		}
		got, err := s.Webhook(ctx, "k1", "a")
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "a" || !got.Created.Equal(t0) || len(got.EventSignatures) != 1 || got.EventSignatures[0] != evmHash("Transfer") {
			t.Errorf("Webhook(a) = %+v", got)
		}
		// The list, by creation, filtered by status, paged.
		list, err := s.Webhooks(ctx, "k1", "", nil, 10)
		if err != nil || len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" {
			t.Fatalf("Webhooks(k1) = %v, %v", list, err)
		}
		next, err := s.Webhooks(ctx, "k1", "", &WebhookKey{Created: list[0].Created.UnixMilli(), ID: "a"}, 10)
		if err != nil || len(next) != 1 || next[0].ID != "b" {
			t.Fatalf("Webhooks(k1) after a = %v, %v", next, err)
		}
		off := WebhookInactive
		name := "renamed"
		u, err := s.UpdateWebhook(ctx, "k1", "b", WebhookUpdate{Status: &off, Name: &name})
		if err != nil || u.Status != WebhookInactive || u.Name != "renamed" || u.StatusReason == "" {
			t.Fatalf("UpdateWebhook = %+v, %v", u, err)
		}
		active, err := s.Webhooks(ctx, "k1", WebhookActive, nil, 10)
		if err != nil || len(active) != 1 || active[0].ID != "a" {
			t.Errorf("active webhooks = %v, %v", active, err)
		}
		// Addresses: paged, counted, removed.
		if err := s.AddWebhookAddresses(ctx, "k1", "a", []string{lower(carol), lower(bob)}, testLimits); err != nil {
			t.Fatal(err)
		}
		want := []string{lower(alice), lower(bob), lower(carol)}
		slices.Sort(want)
		page, total, err := s.WebhookAddresses(ctx, "k1", "a", "", 2)
		if err != nil || total != 3 || !slices.Equal(page, want[:2]) {
			t.Errorf("WebhookAddresses = %v %d %v, want %v 3", page, total, err, want[:2])
		}
		page, _, err = s.WebhookAddresses(ctx, "k1", "a", want[1], 2)
		if err != nil || !slices.Equal(page, want[2:]) {
			t.Errorf("WebhookAddresses after %s = %v %v", want[1], page, err)
		}
		if err := s.RemoveWebhookAddresses(ctx, "k1", "a", []string{lower(bob)}); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := s.WebhookAddresses(ctx, "k1", "a", "", 10); total != 2 {
			t.Errorf("after removing bob: %d addresses, want 2", total)
		}
		// Secrets, per owner.
		if sec, err := s.WebhookSecret(ctx, "k1"); err != nil || sec != "" {
			t.Errorf("no secret yet: %q %v", sec, err)
		}
		for _, v := range []string{"s1", "s2"} {
			if err := s.SetWebhookSecret(ctx, "k1", v); err != nil {
				t.Fatal(err)
			}
		}
		if sec, err := s.WebhookSecret(ctx, "k1"); err != nil || sec != "s2" {
			t.Errorf("rotated secret: %q %v, want s2", sec, err)
		}
	})
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestWebhookOutbox(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		before := time.Unix(1_600_000_000, 0)
		blocks := makeEVMBlocks("hooks", 8)
		// The first two blocks are applied before any webhook: they
		// match nothing, and the index is loaded empty first.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks[:2], deriveEVM); err != nil {
			t.Fatal(err)
		}
		create := func(w Webhook, addrs ...common.Address) {
			t.Helper()
			var list []string
			for _, a := range addrs {
				list = append(list, lower(a))
			}
			if err := s.CreateWebhook(ctx, w, list, testLimits); err != nil {
				t.Fatal(err)
			}
		}
		carolHook := testWebhook("carol", "k", testEVMChain, before)
		carolHook.IncludeLogs = true
		create(carolHook, carol)
		create(testWebhook("bob", "k", testEVMChain, before), bob)
		sig := testWebhook("bob-transfer", "k", testEVMChain, before)
		sig.EventSignatures = []common.Hash{evmHash("Transfer")}
		create(sig, bob)
		nope := testWebhook("bob-nope", "k", testEVMChain, before)
		nope.EventSignatures = []common.Hash{evmHash("Nope")}
		create(nope, bob)
		create(testWebhook("late", "k", testEVMChain, time.Unix(1_800_000_000, 0)), bob)
		create(testWebhook("other-chain", "k", testEVMChain+1, before), alice)
		create(testWebhook("nobody", "k", testEVMChain, before), evmAddr("dave"))
		off := testWebhook("off", "k", testEVMChain, before)
		off.Status = WebhookInactive
		create(off, alice)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks[2:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		// Re-applying writes no event twice.
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, blocks[2:], deriveEVM); err != nil {
			t.Fatal(err)
		}
		// carol receives an ERC-721 in odd blocks, ERC-1155s in blocks
		// h%4 == 2, both in the block's first tx; bob an ERC-20 in every
		// tx of blocks 1.. (h%3+1 of them).
		var wantCarol, wantBob []string
		for h := uint64(2); h < 8; h++ {
			if h%2 == 1 || h%4 == 2 {
				wantCarol = append(wantCarol, evmHash("hooks", "tx", h, 0).Hex())
			}
			for i := range h%3 + 1 {
				wantBob = append(wantBob, evmHash("hooks", "tx", h, i).Hex())
			}
		}
		txs := func(id string) []string {
			var out []string
			for _, e := range outbox(t, s, id) {
				var p struct {
					WebhookID, EventType, MessageID string
					Event                           struct {
						Transaction struct{ TxHash string }
					}
				}
				if err := json.Unmarshal(e.Payload, &p); err != nil {
					t.Fatal(err)
				}
				if p.WebhookID != id || p.EventType != "address_activity" || p.MessageID != e.MessageID || !uuidRE.MatchString(p.MessageID) {
					t.Errorf("event %s of %s: %s", e.MessageID, id, e.Payload)
				}
				out = append(out, p.Event.Transaction.TxHash)
			}
			return out
		}
		for id, want := range map[string][]string{"carol": wantCarol, "bob": wantBob, "bob-transfer": wantBob,
			"bob-nope": nil, "late": nil, "other-chain": nil, "nobody": nil, "off": nil} {
			if got := txs(id); !slices.Equal(got, want) {
				t.Errorf("webhook %s's events: %d %v\nwant %d %v", id, len(got), got, len(want), want)
			}
		}
		// The payload of carol's event of block 3: the ERC-721 to carol,
		// the tx's logs (includeLogs), no internal txs.
		var p struct {
			Event struct {
				Transaction map[string]any
				Logs        []map[string]any
			}
		}
		events := outbox(t, s, "carol")
		if err := json.Unmarshal(events[1].Payload, &p); err != nil {
			t.Fatal(err)
		}
		tx := p.Event.Transaction
		nfts, _ := tx["erc721Transfers"].([]any)
		if tx["blockNumber"] != "3" || tx["from"] != alice.Hex() || tx["to"] != token20.Hex() || tx["chainId"] != fmt.Sprint(testEVMChain) ||
			len(nfts) != 1 || nfts[0].(map[string]any)["to"] != carol.Hex() || nfts[0].(map[string]any)["tokenId"] != "3" {
			t.Errorf("carol's event of block 3: %s", events[1].Payload)
		}
		if _, ok := tx["internalTransactions"]; ok {
			t.Errorf("internal txs without includeInternalTxs: %s", events[1].Payload)
		}
		if len(p.Event.Logs) != 1 || p.Event.Logs[0]["topic0"] != evmHash("Transfer").Hex() {
			t.Errorf("carol's event's logs: %v", p.Event.Logs)
		}
		// Canonical: keys sorted, which re-encoding a map gives.
		var generic map[string]any
		_ = json.Unmarshal(events[1].Payload, &generic)
		if again, _ := canonicalJSON(generic); string(again) != string(events[1].Payload) {
			t.Errorf("payload not canonical:\n%s\n%s", events[1].Payload, again)
		}
		if n, err := s.WebhookBacklog(ctx); err != nil || n != int64(len(wantCarol)+2*len(wantBob)) {
			t.Errorf("backlog %d %v, want %d", n, err, len(wantCarol)+2*len(wantBob))
		}
	})
}

func TestWebhookClaims(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		if err := s.CreateWebhook(ctx, testWebhook("w", "k", testEVMChain, time.Unix(1_600_000_000, 0)), []string{lower(bob)}, testLimits); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		// WebhookDue, a read, says whether the claim after it succeeds.
		due := func(at time.Time, want bool) {
			t.Helper()
			if got, err := s.WebhookDue(ctx, at); err != nil || got != want {
				t.Errorf("due at %v: %v %v, want %v", at.Sub(now), got, err, want)
			}
		}
		due(now, false)
		if _, ok, err := s.ClaimWebhook(ctx, now, time.Minute, "c0"); err != nil || ok {
			t.Fatalf("claim without events: %v %v", ok, err)
		}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, makeEVMBlocks("claims", 4), deriveEVM); err != nil {
			t.Fatal(err)
		}
		due(now, true)
		c, ok, err := s.ClaimWebhook(ctx, now, time.Minute, "c1")
		if err != nil || !ok || c.ID != "w" {
			t.Fatalf("claim: %v %v %v", c, ok, err)
		}
		due(now, false)
		if _, ok, err := s.ClaimWebhook(ctx, now, time.Minute, "c2"); err != nil || ok {
			t.Fatalf("a second claim while leased: %v %v", ok, err)
		}
		// The lease lapsed: another holder claims it, the first's writes
		// fail.
		due(now.Add(2*time.Minute), true)
		c3, ok, err := s.ClaimWebhook(ctx, now.Add(2*time.Minute), time.Minute, "c3")
		if err != nil || !ok || c3.Claim != "c3" {
			t.Fatalf("claim after the lease: %v %v", ok, err)
		}
		events := outbox(t, s, "w")
		if err := s.AckWebhookEvents(ctx, "w", "c1", events[:1]); !errors.Is(err, ErrWebhookClaimLost) {
			t.Errorf("ack by a lapsed claim: %v", err)
		}
		if err := s.AckWebhookEvents(ctx, "w", "c3", events[:2]); err != nil {
			t.Fatal(err)
		}
		if left := outbox(t, s, "w"); len(left) != len(events)-2 || left[0].MessageID != events[2].MessageID {
			t.Errorf("after acking 2 of %d: %d left", len(events), len(left))
		}
		// A failure: backoff, then inactive with the reason.
		if err := s.FailWebhook(ctx, "w", "c3", 1, now.Add(time.Hour), ""); err != nil {
			t.Fatal(err)
		}
		due(now.Add(time.Minute), false)
		if _, ok, _ := s.ClaimWebhook(ctx, now.Add(time.Minute), time.Minute, "c4"); ok {
			t.Error("claimed during its backoff")
		}
		due(now.Add(2*time.Hour), true)
		c5, ok, err := s.ClaimWebhook(ctx, now.Add(2*time.Hour), time.Minute, "c5")
		if err != nil || !ok || c5.Attempts != 1 {
			t.Fatalf("claim after the backoff: %+v %v %v", c5, ok, err)
		}
		if err := s.FailWebhook(ctx, "w", "c5", 2, now, "gave up"); err != nil {
			t.Fatal(err)
		}
		w, err := s.Webhook(ctx, "k", "w")
		if err != nil || w.Status != WebhookInactive || w.StatusReason != "gave up" {
			t.Errorf("after giving up: %+v %v", w, err)
		}
		due(now.Add(3*time.Hour), false)
		if _, ok, _ := s.ClaimWebhook(ctx, now.Add(3*time.Hour), time.Minute, "c6"); ok {
			t.Error("an inactive webhook was claimed")
		}
	})
}

// canonicalJSON encodes v as RFC 8785 (JCS) would for avaindex's
// payloads (object keys sorted, no insignificant space, no HTML escapes):
// a receiver that re-canonicalizes a parsed payload must get its bytes.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return internal.EncodeCanonical(generic)
}

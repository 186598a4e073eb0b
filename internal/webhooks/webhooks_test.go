package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/webhooks"
)

const chainID = 43112

func addr(name string) common.Address { return common.BytesToAddress(crypto.Keccak256([]byte(name))) }

func hash(parts ...any) common.Hash { return crypto.Keccak256Hash(fmt.Append(nil, parts...)) }

// chainBlocks returns blocks from..to-1: block h has a tx from sender(h,
// i) to recipient(h, i) for i < txs, and its tx 0 an ERC-20 transfer
// from the tx's sender to "token-holder".
func chainBlocks(from, to uint64, txs int, sender, recipient func(h uint64, i int) common.Address) []*internal.EVMBlockData {
	var out []*internal.EVMBlockData
	for h := from; h < to; h++ {
		ts := time.Now().Add(time.Minute) // after every webhook's creation
		b := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: h, Hash: hash("block", h), ParentHash: hash("block", h-1),
			Timestamp: ts, GasLimit: 8_000_000, BaseFee: big.NewInt(25e9), TxCount: txs}, Traced: true}
		if h == 0 {
			b.ParentHash = common.Hash{}
		}
		for i := range txs {
			r := recipient(h, i)
			b.Txs = append(b.Txs, internal.EVMTx{Hash: hash("tx", h, i), BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
				Index: uint32(i), From: sender(h, i), To: &r, Value: big.NewInt(int64(i + 1)), Nonce: h, Type: 2, GasLimit: 21_000,
				GasPrice: big.NewInt(26e9), MaxFeePerGas: big.NewInt(50e9), MaxPriorityFeePerGas: big.NewInt(1e9),
				GasUsed: 21_000, Status: 1})
		}
		if txs > 0 {
			b.Transfers = append(b.Transfers, internal.EVMTransfer{BlockNumber: h, BlockHash: b.Hash, Timestamp: ts,
				TxHash: b.Txs[0].Hash, Token: addr("token"), Type: internal.ERC20, From: sender(h, 0), To: addr("token-holder"),
				Value: big.NewInt(5)})
		}
		out = append(out, b)
	}
	return out
}

// receiver is a webhook receiver on loopback that checks what it gets.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	secret func() string
	// watched are each webhook's addresses: an event must name one.
	watched map[string][]common.Address

	mu sync.Mutex
	// got are the txs delivered per webhook, in arrival order, repeats
	// included.
	got      map[string][]string
	inFlight map[string]int
	// failing answers 503 while set; hang blocks the answer until closed.
	failing atomic.Bool
	hang    chan struct{}
	posts   atomic.Int64
}

func newReceiver(t *testing.T, secret func() string, watched map[string][]common.Address) *receiver {
	r := &receiver{t: t, secret: secret, watched: watched, got: map[string][]string{}, inFlight: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url(id string) string { return r.srv.URL + "/hook/" + id }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.posts.Add(1)
	id := strings.TrimPrefix(req.URL.Path, "/hook/")
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.inFlight[id]++
	if r.inFlight[id] > 1 {
		r.t.Errorf("webhook %s: two deliveries at once", id)
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight[id]--
		r.mu.Unlock()
	}()
	if h := r.hang; h != nil {
		<-h
	}
	if r.failing.Load() {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if !webhooks.Verify(r.secret(), body, req.Header.Get("x-signature")) {
		r.t.Errorf("webhook %s: the signature %q does not verify", id, req.Header.Get("x-signature"))
	}
	var ev struct {
		WebhookID string `json:"webhookId"`
		Event     struct {
			Transaction struct {
				TxHash, From, To string
				ERC20Transfers   []struct{ From, To string } `json:"erc20Transfers"`
			}
		}
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.WebhookID != id {
		r.t.Errorf("webhook %s: body %s: %v", id, body, err)
	}
	tx := ev.Event.Transaction
	parties := []string{tx.From, tx.To}
	for _, tr := range tx.ERC20Transfers {
		parties = append(parties, tr.From, tr.To)
	}
	if !slices.ContainsFunc(r.watched[id], func(a common.Address) bool { return slices.Contains(parties, a.Hex()) }) {
		r.t.Errorf("webhook %s got tx %s, whose parties %v it does not watch", id, tx.TxHash, parties)
	}
	r.mu.Lock()
	first := len(r.got[id]) == 0
	r.got[id] = append(r.got[id], tx.TxHash)
	r.mu.Unlock()
	if first {
		openapitest.ValidateSchema(r.t, "WebhookAddressActivityResponse", body)
	}
	w.WriteHeader(http.StatusOK)
}

// delivered returns webhook id's distinct txs in order of first arrival,
// and whether every repeat re-sends from an earlier point in order.
func (r *receiver) delivered(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, tx := range r.got[id] {
		if !slices.Contains(out, tx) {
			out = append(out, tx)
		}
	}
	return out
}

type env struct {
	st     store.Store
	dsn    string
	secret string
}

// setup opens a store at dsn with n webhooks of owner "k", webhook i
// watching addr("watched", i), and a receiver for them.
func setup(t *testing.T, dsn string, n int) (*env, *receiver, []string) {
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{st: st, dsn: dsn, secret: "5ec4e7test"}
	if err := st.SetWebhookSecret(ctx, "k", e.secret); err != nil {
		t.Fatal(err)
	}
	watched := map[string][]common.Address{}
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("hook-%d", i))
		watched[ids[i]] = []common.Address{addr(fmt.Sprint("watched", i))}
	}
	rcv := newReceiver(t, func() string { return e.secret }, watched)
	for i, id := range ids {
		w := store.Webhook{ID: id, Owner: "k", EventType: internal.EventAddressActivity, ChainID: chainID, URL: rcv.url(id),
			Name: id, Status: store.WebhookActive, Created: time.Now()}
		if err := st.CreateWebhook(ctx, w, []string{strings.ToLower(watched[id][0].Hex())}, store.WebhookLimits{Webhooks: 100, Addresses: 10}); err != nil {
			t.Fatal(err)
		}
		_ = i
	}
	return e, rcv, ids
}

// traffic applies blocks from..to-1 whose txs alternate between the
// watched addresses of n webhooks (as sender, as recipient) and
// addresses no webhook watches, and returns each webhook's expected txs.
func traffic(t *testing.T, st store.Store, from, to uint64, n int, want map[string][]string) {
	t.Helper()
	const txs = 6
	sender := func(h uint64, i int) common.Address {
		if i%3 == 0 {
			return addr(fmt.Sprint("watched", (int(h)+i)%n))
		}
		return addr(fmt.Sprint("stranger", h, i))
	}
	recipient := func(h uint64, i int) common.Address {
		if i%3 == 1 {
			return addr(fmt.Sprint("watched", (int(h)+i)%n))
		}
		return addr(fmt.Sprint("other", h, i))
	}
	for h := from; h < to; h++ {
		for i := range txs {
			switch i % 3 {
			case 0, 1:
				id := fmt.Sprintf("hook-%d", (int(h)+i)%n)
				want[id] = append(want[id], hash("tx", h, i).Hex())
			}
		}
	}
	if err := st.ApplyEVMBlocks(context.Background(), chainID, chainBlocks(from, to, txs, sender, recipient), evmstate.Apply[*store.EVMTx]); err != nil {
		t.Fatal(err)
	}
}

func loopback() []netip.Prefix { return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} }

func fastConfig() webhooks.Config {
	return webhooks.Config{AllowNetworks: loopback(), Timeout: 2 * time.Second, BaseBackoff: 5 * time.Millisecond,
		MaxBackoff: 40 * time.Millisecond, MaxAttempts: 1000, Concurrency: 4, PollInterval: 5 * time.Millisecond, Lease: 5 * time.Second}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// start runs a worker until the test ends or stop is called.
func start(t *testing.T, st webhooks.Store, cfg webhooks.Config) (w *webhooks.Worker, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	w = webhooks.NewWorker(st, cfg, quiet())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = w.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return w, stop
}

// waitDelivered waits until every webhook got its expected txs, then
// checks order and the outbox's emptiness.
func waitDelivered(t *testing.T, st store.Store, rcv *receiver, want map[string][]string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done := true
		for id, txs := range want {
			if len(rcv.delivered(id)) < len(txs) {
				done = false
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			for id, txs := range want {
				t.Errorf("webhook %s: %d of %d events delivered", id, len(rcv.delivered(id)), len(txs))
			}
			t.FailNow()
		}
		time.Sleep(10 * time.Millisecond)
	}
	for id, txs := range want {
		if got := rcv.delivered(id); !slices.Equal(got, txs) {
			t.Errorf("webhook %s: delivered %v\nwant (in order) %v", id, got, txs)
		}
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		n, err := st.WebhookBacklog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox keeps %d events after their delivery", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDeliveryReceiverDownThenBack(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		e, rcv, _ := setup(t, dsn, 3)
		want := map[string][]string{}
		rcv.failing.Store(true)
		traffic(t, e.st, 0, 5, 3, want)
		_, _ = start(t, e.st, fastConfig())
		// Down: attempts are made and fail, and nothing is lost.
		deadline := time.Now().Add(10 * time.Second)
		for rcv.posts.Load() < 10 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if rcv.posts.Load() < 10 {
			t.Fatalf("%d attempts while the receiver was down", rcv.posts.Load())
		}
		rcv.failing.Store(false)
		traffic(t, e.st, 5, 8, 3, want)
		waitDelivered(t, e.st, rcv, want)
	})
}

func TestDeliveryGivesUp(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e, rcv, ids := setup(t, dsn, 1)
		rcv.failing.Store(true)
		want := map[string][]string{}
		traffic(t, e.st, 0, 2, 1, want)
		cfg := fastConfig()
		cfg.MaxAttempts = 3
		_, _ = start(t, e.st, cfg)
		deadline := time.Now().Add(10 * time.Second)
		for {
			w, err := e.st.Webhook(ctx, "k", ids[0])
			if err != nil {
				t.Fatal(err)
			}
			if w.Status == store.WebhookInactive {
				if !strings.Contains(w.StatusReason, "3 times") || !strings.Contains(w.StatusReason, "503") {
					t.Errorf("inactive for %q", w.StatusReason)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s after %d attempts", w.Status, rcv.posts.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if n := rcv.posts.Load(); n != 3 {
			t.Errorf("%d attempts, want 3", n)
		}
		// Reactivated by its owner: delivered.
		rcv.failing.Store(false)
		on := store.WebhookActive
		if _, err := e.st.UpdateWebhook(ctx, "k", ids[0], store.WebhookUpdate{Status: &on}); err != nil {
			t.Fatal(err)
		}
		traffic(t, e.st, 2, 3, 1, want)
		waitDelivered(t, e.st, rcv, want)
	})
}

// An instance that dies holding a webhook's claim (as if SIGKILLed mid-
// delivery) delays its events by the lease; another instance then
// delivers them all.
func TestDeliveryTakeover(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e, rcv, ids := setup(t, dsn, 2)
		want := map[string][]string{}
		traffic(t, e.st, 0, 4, 2, want)
		// The dead instance's claim: never renewed nor released.
		second, err := store.Open(ctx, e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		const lease = 2 * time.Second
		claimed := time.Now()
		c, ok, err := e.st.ClaimWebhook(ctx, claimed, lease, "dead")
		if err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		_, _ = start(t, second, fastConfig())
		// The other webhook is delivered meanwhile; the dead one's not
		// before its lease ends.
		other := ids[0]
		if other == c.ID {
			other = ids[1]
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(rcv.delivered(other)) < len(want[other]) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := rcv.delivered(c.ID); len(got) != 0 && time.Since(claimed) < lease-100*time.Millisecond {
			t.Errorf("webhook %s delivered during the dead instance's lease: %v", c.ID, got)
		}
		waitDelivered(t, e.st, rcv, want)
	})
}

// Two instances on one store share the webhooks: every event delivered,
// in order, never two requests of one webhook at once (the receiver
// checks), and a worker stopped mid-delivery loses nothing.
func TestDeliveryTwoInstances(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e, rcv, _ := setup(t, dsn, 6)
		want := map[string][]string{}
		traffic(t, e.st, 0, 20, 6, want)
		second, err := store.Open(ctx, e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		w1, stop1 := start(t, e.st, fastConfig())
		w2, _ := start(t, second, fastConfig())
		deadline := time.Now().Add(10 * time.Second)
		for w1.Delivered() < 5 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		stop1()
		traffic(t, e.st, 20, 25, 6, want)
		waitDelivered(t, e.st, rcv, want)
		if w2.Delivered() == 0 {
			t.Error("the second instance delivered nothing")
		}
	})
}

func TestSignature(t *testing.T) {
	// A value computed independently (openssl dgst -sha256 -hmac secret
	// -binary | base64) for the payload {"a":1}.
	const want = "qp4uNXX11wmLbKzNeQiIw21f22M0KnO62i1qUXR6hJQ="
	if got := webhooks.Sign("secret", []byte(`{"a":1}`)); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if !webhooks.Verify("secret", []byte(`{"a":1}`), want) || webhooks.Verify("other", []byte(`{"a":1}`), want) {
		t.Error("Verify disagrees with Sign")
	}
}

func TestPrivateURLRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e, rcv, ids := setup(t, dsn, 1)
		traffic(t, e.st, 0, 1, 1, map[string][]string{})
		cfg := fastConfig()
		cfg.AllowNetworks, cfg.MaxAttempts = nil, 2
		_, _ = start(t, e.st, cfg)
		deadline := time.Now().Add(10 * time.Second)
		for {
			w, err := e.st.Webhook(ctx, "k", ids[0])
			if err != nil {
				t.Fatal(err)
			}
			if w.Status == store.WebhookInactive {
				if !strings.Contains(w.StatusReason, "not public") {
					t.Errorf("inactive for %q, want the refusal of a loopback address", w.StatusReason)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a loopback URL was not refused")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if n := rcv.posts.Load(); n != 0 {
			t.Errorf("the loopback receiver got %d requests", n)
		}
	})
}

// claimCounter counts the claims, the store's writes of an idle worker.
type claimCounter struct {
	webhooks.Store
	claims atomic.Int64
}

func (c *claimCounter) ClaimWebhook(ctx context.Context, now time.Time, lease time.Duration, claim string) (*store.WebhookClaim, bool, error) {
	c.claims.Add(1)
	return c.Store.ClaimWebhook(ctx, now, lease, claim)
}

// TestIdleWorkerDoesNotWrite: with nothing to deliver, a worker runs no
// claim (an UPDATE) past its loops' first, however often it polls; once
// events arrive, it delivers them within a few polls.
func TestIdleWorkerDoesNotWrite(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		e, rcv, _ := setup(t, dsn, 3)
		st := &claimCounter{Store: e.st}
		cfg := fastConfig()
		_, _ = start(t, st, cfg)
		time.Sleep(60 * cfg.PollInterval)
		if n := st.claims.Load(); n > int64(cfg.Concurrency) {
			t.Errorf("%d claims in %d idle polls of %d loops", n, 60, cfg.Concurrency)
		}
		want := map[string][]string{}
		traffic(t, e.st, 0, 5, 3, want)
		waitDelivered(t, e.st, rcv, want)
	})
}

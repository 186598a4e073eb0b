// Package webhooks delivers the webhooks' events: the store's outbox,
// which the appliers fill in the transaction of the block that caused
// each event, is sent to each webhook's URL, signed, at least once and in
// block order per webhook.
//
// A worker leases one webhook at a time in the store (several instances
// on one PostgreSQL store share the webhooks, never sending one's events
// from two at once), posts its events in order, and deletes them once the
// receiver answered 2xx. A failure leaves the event first in line, to be
// tried again after an exponential backoff with jitter; after
// Config.MaxAttempts failures in a row the webhook turns inactive, with
// the reason getWebhook shows. There is no HTTP server here.
package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/nftmeta"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// Store is what the worker needs of the store: the outbox and the
// webhooks' delivery state.
type Store interface {
	ClaimWebhook(ctx context.Context, now time.Time, lease time.Duration, claim string) (*store.WebhookClaim, bool, error)
	WebhookDue(ctx context.Context, now time.Time) (bool, error)
	RenewWebhookClaim(ctx context.Context, id, claim string, until time.Time) error
	WebhookEvents(ctx context.Context, id string, limit int) ([]store.WebhookEvent, error)
	AckWebhookEvents(ctx context.Context, id, claim string, delivered []store.WebhookEvent) error
	FailWebhook(ctx context.Context, id, claim string, attempts int, next time.Time, inactiveReason string) error
	ReleaseWebhookClaim(ctx context.Context, id, claim string) error
	WebhookBacklog(ctx context.Context) (int64, error)
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}

// QueueName is the outbox in the progress status (/readyz).
const QueueName = "webhooks"

// SignatureHeader carries the payload's signature.
const SignatureHeader = "x-signature"

// Config is how events are delivered; zero fields take the defaults.
type Config struct {
	// AllowNetworks are the non-public networks webhook URLs may reach
	// (nftmeta.GuardedDialer).
	AllowNetworks []netip.Prefix
	// Timeout bounds one delivery request, connection included.
	Timeout time.Duration
	// MaxAttempts is how many failures in a row turn a webhook inactive.
	MaxAttempts int
	// BaseBackoff is the wait after a first failure, doubled after each
	// next one up to MaxBackoff; a random part of up to half of it is
	// added (jitter).
	BaseBackoff, MaxBackoff time.Duration
	// Concurrency is how many webhooks are delivered to at once.
	Concurrency int
	// PollInterval is how often an idle worker looks for events (by a
	// read; the claim's write runs only when one is due).
	PollInterval time.Duration
	// Lease is how long a claimed webhook is the worker's without a
	// renewal: an instance that dies holding one delays its events by
	// at most this long. Default 3×Timeout + 10s.
	Lease time.Duration
	// Retention is how long delivered events stay for the event stream
	// (GET /v1/webhooks/{id}/events); pruned about once a minute. Zero
	// keeps them until the next pruning.
	Retention time.Duration
}

// Defaults fills the zero fields.
func (c *Config) Defaults() {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 12
	}
	if c.BaseBackoff <= 0 {
		c.BaseBackoff = time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 10 * time.Minute
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if c.Lease <= 0 {
		c.Lease = 3*c.Timeout + 10*time.Second
	}
}

// pruneEvery is how many backlog ticks (2 s) pass between two prunings of
// the delivered events.
const pruneEvery = 30

// batch is how many events a worker reads at once.
const batch = 256

// Worker delivers the outbox.
type Worker struct {
	st     Store
	cfg    Config
	log    *slog.Logger
	client *http.Client
	queue  progress.Queues

	delivered atomic.Int64
	// idle counts the delivery loops waiting on wake, which the scout
	// (Run) fills when the store has a webhook due.
	idle atomic.Int32
	wake chan struct{}
}

var (
	deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_webhook_deliveries_total",
		Help: "Webhook event deliveries, by outcome (delivered or failed).",
	}, []string{"outcome"})
	backlog = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "avaindex_webhook_backlog",
		Help: "Webhook events waiting in the outbox for active webhooks.",
	})
)

func init() {
	instrument.Registerer().MustRegister(deliveries, backlog)
}

// NewWorker returns a worker over st.
func NewWorker(st Store, cfg Config, log *slog.Logger) *Worker {
	cfg.Defaults()
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, unchecked
		DialContext:           nftmeta.GuardedDialer(cfg.Timeout, cfg.AllowNetworks).DialContext,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          cfg.Concurrency * 2,
		MaxIdleConnsPerHost:   cfg.Concurrency,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		// A webhook answers; it does not send the event elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Worker{st: st, cfg: cfg, log: log, client: client, wake: make(chan struct{}, cfg.Concurrency)}
}

// Report adds the outbox's length, as last read (progress.Reporter).
func (w *Worker) Report(s *progress.Status) { w.queue.Report(s) }

// Delivered is how many events the worker delivered.
func (w *Worker) Delivered() int64 { return w.delivered.Load() }

// lease is how long a claimed webhook is the worker's: past it, another
// may take it. It is renewed before each request that might outlast it.
func (w *Worker) lease() time.Duration { return w.cfg.Lease }

// Run delivers until ctx ends.
//
// Idle delivery loops do not poll the store themselves: each would run
// the claim, a write, every PollInterval (eight loops, 32 writes a
// second with nothing to send). One scout asks the store, by a read,
// whether a webhook is due, and wakes one idle loop when it is; a loop
// that claims one wakes the next, so that a backlog over many webhooks
// still fans out to every loop. The outbox stays the only record of
// what is to be sent: a crash loses nothing.
func (w *Worker) Run(ctx context.Context) error {
	done := make(chan struct{})
	for range w.cfg.Concurrency {
		go func() {
			defer func() { done <- struct{}{} }()
			w.loop(ctx)
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		w.scout(ctx)
	}()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	var ticks int
	for running := w.cfg.Concurrency + 1; running > 0; {
		select {
		case <-done:
			running--
		case <-tick.C:
			if n, err := w.st.WebhookBacklog(ctx); err == nil {
				w.queue.Set(QueueName, n)
				backlog.Set(float64(n))
			}
			if ticks++; ticks%pruneEvery == 0 {
				if _, err := w.st.PruneWebhookEvents(ctx, time.Now().Add(-w.cfg.Retention)); err != nil && ctx.Err() == nil {
					w.log.Warn("webhooks: pruning delivered events failed", "err", err)
				}
			}
		}
	}
	return ctx.Err()
}

// loop claims and delivers until a claim finds nothing, then waits for
// the scout (or a loop that claimed) to wake it.
func (w *Worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		claimed, err := w.Once(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.Warn("webhooks: delivering failed", "err", err)
		}
		if claimed && err == nil {
			continue
		}
		w.idle.Add(1)
		select {
		case <-ctx.Done():
		case <-w.wake:
		}
		w.idle.Add(-1)
	}
}

// scout wakes an idle loop every PollInterval while a webhook is due. It
// reads nothing while every loop is busy: they claim again on their own.
func (w *Worker) scout(ctx context.Context) {
	tick := time.NewTicker(w.cfg.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if w.idle.Load() == 0 {
			continue
		}
		due, err := w.st.WebhookDue(ctx, time.Now())
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("webhooks: looking for due events failed", "err", err)
			}
			continue
		}
		if due {
			w.wakeOne()
		}
	}
}

// wakeOne wakes an idle loop, if any waits and none is being woken.
func (w *Worker) wakeOne() {
	if w.idle.Load() == 0 {
		return
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Once claims one webhook with events due and delivers them; claimed
// tells whether there was one.
func (w *Worker) Once(ctx context.Context) (claimed bool, err error) {
	c, ok, err := w.st.ClaimWebhook(ctx, time.Now(), w.lease(), newClaim())
	if err != nil || !ok {
		return false, err
	}
	// Another webhook may be due too: an idle loop looks while this one
	// delivers.
	w.wakeOne()
	// The claim's writes outlive a stop: what was delivered is recorded.
	wctx := context.WithoutCancel(ctx)
	released := false
	defer func() {
		if !released {
			if rerr := w.st.ReleaseWebhookClaim(wctx, c.ID, c.Claim); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	until := time.Now().Add(w.lease())
	for ctx.Err() == nil {
		events, err := w.st.WebhookEvents(ctx, c.ID, batch)
		if err != nil || len(events) == 0 {
			return true, err
		}
		var sent []store.WebhookEvent
		for _, e := range events {
			if time.Until(until) < w.cfg.Lease/2+w.cfg.Timeout {
				until = time.Now().Add(w.lease())
				if err := w.st.RenewWebhookClaim(wctx, c.ID, c.Claim, until); err != nil {
					return true, errors.Join(err, w.st.AckWebhookEvents(wctx, c.ID, c.Claim, sent))
				}
			}
			if ctx.Err() != nil {
				break
			}
			if ferr := w.send(ctx, c, e); ferr != nil {
				deliveries.WithLabelValues("failed").Inc()
				if ctx.Err() != nil {
					break // cut short by the stop: no attempt spent
				}
				if err := w.st.AckWebhookEvents(wctx, c.ID, c.Claim, sent); err != nil {
					return true, err
				}
				released = true
				return true, w.fail(wctx, c, ferr)
			}
			deliveries.WithLabelValues("delivered").Inc()
			w.delivered.Add(1)
			sent = append(sent, e)
		}
		if err := w.st.AckWebhookEvents(wctx, c.ID, c.Claim, sent); err != nil {
			return true, err
		}
		c.Attempts = 0
	}
	return true, nil
}

// fail records a failed attempt, and turns the webhook inactive after
// MaxAttempts of them.
func (w *Worker) fail(ctx context.Context, c *store.WebhookClaim, ferr error) error {
	attempts := c.Attempts + 1
	reason := ""
	if attempts >= w.cfg.MaxAttempts {
		reason = fmt.Sprintf("delivery failed %d times in a row, the last: %v", attempts, ferr)
		w.log.Warn("webhooks: a webhook turned inactive", "webhook", c.ID, "reason", reason)
	}
	return w.st.FailWebhook(ctx, c.ID, c.Claim, attempts, time.Now().Add(w.Backoff(attempts)), reason)
}

// Backoff is the wait after the attempts-th failure in a row:
// BaseBackoff doubled per earlier failure, at most MaxBackoff, plus up to
// half of it at random.
func (w *Worker) Backoff(attempts int) time.Duration {
	d := float64(w.cfg.BaseBackoff) * math.Pow(2, float64(max(0, attempts-1)))
	d = min(d, float64(w.cfg.MaxBackoff))
	return time.Duration(d + mrand.Float64()*d/2)
}

// maxAnswer is how much of a receiver's answer is read (and dropped), so
// that the connection can be reused.
const maxAnswer = 64 << 10

// send posts one event.
func (w *Worker) send(ctx context.Context, c *store.WebhookClaim, e store.WebhookEvent) error {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(e.Payload))
	if err != nil {
		return fmt.Errorf("the webhook's URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(c.Secret, e.Payload))
	req.Header.Set("User-Agent", "avaindex-webhooks")
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return nil
}

// Sign is the x-signature of payload: the base64 of its HMAC-SHA256 with
// the shared secret, as the hosted service signs (the reference's
// x-speakeasy-webhooks security: hmac-sha256, base64).
func Sign(secret string, payload []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(payload)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Verify tells whether signature is payload's with secret.
func Verify(secret string, payload []byte, signature string) bool {
	got, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(payload)
	return hmac.Equal(got, m.Sum(nil))
}

func newClaim() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

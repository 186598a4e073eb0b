package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/store"
)

// The webhook event stream, an avaindex extension (the reference has no
// such operation): GET /v1/webhooks/{id}/events serves a webhook's events
// as server-sent events, for consumers that cannot receive HTTP. Each
// event's SSE id is its messageId; a client resumes after one with the
// Last-Event-ID header (EventSource sends it when it reconnects) or
// ?after=. The stream reads the outbox, which keeps delivered events for
// --webhook-retention; it does not wait for, nor change, the delivery.

// WebhookStreamSource is what the stream reads; store.Store satisfies it.
type WebhookStreamSource interface {
	WebhookStream(ctx context.Context, id string, after *store.WebhookEventPos, limit int) ([]store.WebhookEvent, error)
	WebhookEventPosition(ctx context.Context, id, messageID string) (*store.WebhookEventPos, error)
}

// Bounds of the streams.
const (
	// maxStreamsPerKey bounds an API key's open streams on an instance.
	maxStreamsPerKey = 4
	// streamPoll is how often an idle stream looks for new events.
	streamPoll = 500 * time.Millisecond
	// streamHeartbeat is the longest silence: a comment line then keeps
	// proxies and clients from closing an idle stream.
	streamHeartbeat = 15 * time.Second
	// streamWriteTimeout bounds each write: a client that stops reading
	// loses its stream (and resumes from its last id).
	streamWriteTimeout = 10 * time.Second
	streamBatch        = 100
)

// streamCounts counts the open streams by key.
type streamCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *streamCounts) acquire(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	if s.n[key] >= maxStreamsPerKey {
		return false
	}
	s.n[key]++
	return true
}

func (s *streamCounts) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key]--; s.n[key] <= 0 {
		delete(s.n, key)
	}
}

func (a *API) webhookEvents(w http.ResponseWriter, r *http.Request) error {
	c, src, id, err := a.webhookCall(r)
	if err != nil {
		return err
	}
	stream, ok := src.(WebhookStreamSource)
	if !ok {
		return derrors.Client(derrors.Unavailable, "webhook event streams are not served by this instance")
	}
	hook, err := src.Webhook(r.Context(), c.KeyID, id)
	if err != nil {
		return err
	}
	after, name := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if after == "" {
		after, name = r.URL.Query().Get("after"), "after"
	}
	var pos *store.WebhookEventPos
	if after != "" {
		if len(after) > 64 {
			return derrors.Invalid("%s: not a messageId of this webhook", name)
		}
		if pos, err = stream.WebhookEventPosition(r.Context(), hook.ID, after); err != nil {
			return err
		}
		if pos == nil {
			return derrors.Invalid("%s: %s is no retained event of this webhook (delivered events are kept for --webhook-retention)",
				name, derrors.Echo(after))
		}
	}
	if !a.streams.acquire(c.KeyID) {
		return derrors.Client(derrors.ResourceExhausted, "this key has %d webhook event streams open on this instance, the most it may", maxStreamsPerKey)
	}
	defer a.streams.release(c.KeyID)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	last := time.Now()
	write := func(s string) error {
		// Past the server's write timeout, each write has its own.
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
		last = time.Now()
		return rc.Flush()
	}
	if write(": avaindex webhook events of "+hook.ID+"\n\n") != nil {
		return nil
	}
	ctx := r.Context()
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wait.C:
		}
		events, err := stream.WebhookStream(ctx, hook.ID, pos, streamBatch)
		if err != nil {
			// The status is sent: the client reconnects with its last id.
			return nil
		}
		for _, e := range events {
			if write(fmt.Sprintf("id: %s\nevent: %s\ndata: %s\n\n", e.MessageID, hook.EventType, e.Payload)) != nil {
				return nil
			}
			pos = &store.WebhookEventPos{BlockNumber: e.BlockNumber, Position: e.Position}
		}
		if len(events) == streamBatch {
			wait.Reset(0)
			continue
		}
		if time.Since(last) >= streamHeartbeat && write(": keepalive\n\n") != nil {
			return nil
		}
		wait.Reset(streamPoll)
	}
}

package node

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/instrument"
)

// Bounds of a forwarded call. A forwarded request is a client's JSON-RPC
// body (a signed tx at most a few MiB); a reply past maxForwardReply (an
// EVM block with its txs, a page of UTXOs) is an upstream fault.
const (
	MaxForwardRequest = 16 << 20
	maxForwardReply   = 64 << 20
	forwardTimeout    = 30 * time.Second
)

// Forwarded is the node's answer to a forwarded request, as it sent it.
type Forwarded struct {
	StatusCode  int
	ContentType string
	Body        []byte
}

// Forwarder passes clients' JSON-RPC requests through to a node, as sent,
// for what avaindex does not answer itself (issueTx, /ext/info, the EVM
// chains' RPC). Only the body goes through: no header of the client's
// request (its API key, cookies, forwarded-for) reaches the node.
type Forwarder struct {
	base string
	http *http.Client
}

// NewForwarder returns a forwarder to the node at base (e.g.
// http://127.0.0.1:9650).
func NewForwarder(base string) *Forwarder {
	return &Forwarder{
		base: strings.TrimRight(base, "/"),
		// No redirect is followed: a node answers its API directly.
		http: &http.Client{
			Timeout:       forwardTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Forward posts body to the node's path (e.g. "/ext/bc/P") and returns its
// answer. label names the call in the upstream metrics (a JSON-RPC method,
// or "batch"). Transport failures wrap derrors.Unavailable, a reply over
// the bound derrors.BadGateway.
func (f *Forwarder) Forward(ctx context.Context, path, label string, body []byte) (_ *Forwarded, err error) {
	return forward(ctx, f.http, f.base+path, label, body)
}

// ForwardURL is Forward to a full URL: an EVM chain's RPC that another
// node serves.
func (f *Forwarder) ForwardURL(ctx context.Context, url, label string, body []byte) (*Forwarded, error) {
	return forward(ctx, f.http, url, label, body)
}

func forward(ctx context.Context, client *http.Client, url, label string, body []byte) (_ *Forwarded, err error) {
	start := time.Now()
	defer func() { instrument.ObserveUpstream("forward "+label, start, err) }()
	if len(body) > MaxForwardRequest {
		return nil, derrors.Client(derrors.InvalidArgument, "request body larger than %d bytes", MaxForwardRequest)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("forwarding %s: %w", label, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("forwarding %s: %w: %w", label, derrors.Unavailable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxForwardReply+1))
	if err != nil {
		return nil, fmt.Errorf("forwarding %s: reading reply: %w: %w", label, derrors.Unavailable, err)
	}
	if len(raw) > maxForwardReply {
		return nil, fmt.Errorf("forwarding %s: reply larger than %d bytes: %w", label, maxForwardReply, derrors.BadGateway)
	}
	return &Forwarded{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: raw}, nil
}

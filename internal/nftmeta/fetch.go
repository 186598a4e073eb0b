// Package nftmeta fetches and parses NFT metadata: the documents token
// URIs point at (data:, ipfs:// through a gateway, http(s)://), through a
// fetcher that treats every URI as hostile (no private addresses, checked
// on the address actually dialed; bounded size, redirects and time), and
// the worker that drains the store's queue of tokens to fetch. It has no
// HTTP handlers; internal/service runs the worker.
//
// The Worker claims tokens from the store's queue (store.NFTStore), fetches
// them concurrently with a bound per host, records every outcome as the
// token's indexStatus, and retries the failures that may pass with
// backoff; it reports its queue's length (Worker.Report, a
// progress.Reporter) to /readyz and the status page.
package nftmeta

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/avaindex/avaindex/internal"
)

// Config is how the fetcher and the worker behave.
type Config struct {
	// IPFSGateway serves ipfs:// URIs: ipfs://CID/path is fetched from
	// IPFSGateway/ipfs/CID/path.
	IPFSGateway string
	// AllowNetworks are networks the fetcher may reach although they are
	// loopback, private, link-local or otherwise not public (e.g. a
	// gateway on the LAN, or 127.0.0.1/32 for tests).
	AllowNetworks []netip.Prefix
	// Concurrency bounds the fetches in flight; PerHost those to one
	// host.
	Concurrency int
	PerHost     int
	// MaxBytes caps a document; Timeout a fetch, redirects included;
	// MaxRedirects the redirects followed.
	MaxBytes     int64
	Timeout      time.Duration
	MaxRedirects int
	// MaxAttempts bounds the fetches of a token whose failures may pass
	// (unreachable, throttled); RetryBase is the first wait, doubled at
	// each attempt.
	MaxAttempts int
	RetryBase   time.Duration
	// PollInterval is how often an empty queue is looked at again.
	PollInterval time.Duration
}

// Defaults fills the zero fields.
func (c *Config) Defaults() {
	if c.IPFSGateway == "" {
		c.IPFSGateway = "https://ipfs.io"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.PerHost <= 0 {
		c.PerHost = 8
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 1 << 20
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxRedirects <= 0 {
		c.MaxRedirects = 5
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 4
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 30 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
}

// Fetcher fetches metadata documents.
type Fetcher struct {
	cfg    Config
	client *http.Client

	mu    sync.Mutex
	hosts map[string]chan struct{}
}

// BlockedError is the refusal to dial an address that is not public.
type BlockedError struct{ Addr netip.Addr }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("address %s is not public: refused (allow its network in the configuration to reach it)", e.Addr)
}

// notPublic are the networks refused besides what netip classifies:
// shared address space, benchmarking, reserved, IETF protocol
// assignments, documentation, the 6to4 relay anycast, NAT64, the cloud
// metadata services' IPv6 address, and the IPv6 prefixes that embed an
// IPv4 address a host may route to (IPv4-compatible ::/96, IPv4-
// translated ::ffff:0:0:0/96, Teredo 2001::/32) or that are private by
// another name (site-local fec0::/10). IPv4-mapped addresses are judged
// by the address they map (Unmap), 6to4 ones by the one they embed.
var notPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2001:db8::/32",
		"fd00:ec2::254/128", "100::/64", "fec0::/10"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// sixToFour is 6to4's prefix, 2002:V4ADDR::/48.
var sixToFour = netip.MustParsePrefix("2002::/16")

// Public reports whether a is a public unicast address: not loopback,
// private, link-local (169.254.169.254, the cloud metadata service,
// included), multicast, unspecified or otherwise reserved.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if sixToFour.Contains(a) {
		b := a.As16()
		return Public(netip.AddrFrom4([4]byte(b[2:6])))
	}
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// Allowed reports whether a may be dialed: a public address, or one in
// allow.
func Allowed(a netip.Addr, allow []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range allow {
		if p.Contains(a) {
			return true
		}
	}
	return Public(a)
}

// GuardedDialer returns a dialer that refuses, with a *BlockedError, to
// connect to an address Allowed does not allow. Its Control sees the
// address about to be connected, after name resolution: a name that
// resolves to a private address, on the first request or on a redirect,
// or again after a first public answer (DNS rebinding), is refused here.
// Every outbound fetch of user-given URLs (NFT token URIs, webhook URLs)
// dials through one.
func GuardedDialer(timeout time.Duration, allow []netip.Prefix) *net.Dialer {
	return &net.Dialer{
		Timeout: timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dialing %q: %w", address, err)
			}
			if !Allowed(ap.Addr(), allow) {
				return &BlockedError{Addr: ap.Addr()}
			}
			return nil
		},
	}
}

// NewFetcher returns a fetcher; cfg's zero fields take their defaults.
func NewFetcher(cfg Config) *Fetcher {
	cfg.Defaults()
	f := &Fetcher{cfg: cfg, hosts: map[string]chan struct{}{}}
	dialer := GuardedDialer(cfg.Timeout, cfg.AllowNetworks)
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, unchecked
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          cfg.Concurrency * 2,
		MaxIdleConnsPerHost:   cfg.PerHost,
		MaxConnsPerHost:       cfg.PerHost,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f.client = &http.Client{
		Transport: transport,
		Timeout:   cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > cfg.MaxRedirects {
				return errTooManyRedirects
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errRedirectScheme
			}
			return nil
		},
	}
	return f
}

var (
	errTooManyRedirects = errors.New("too many redirects")
	errRedirectScheme   = errors.New("redirect to a scheme other than http(s)")
)

// Outcome is why a fetch gave no document: the status to record, and
// whether trying again later may help.
type Outcome struct {
	Status internal.NFTStatus
	Retry  bool
	// RetryAfter is the wait the server asked for (HTTP 429 or 503 with
	// Retry-After in seconds); zero when it asked none.
	RetryAfter time.Duration
	Err        error
}

func fail(status internal.NFTStatus, retry bool, format string, args ...any) *Outcome {
	return &Outcome{Status: status, Retry: retry, Err: fmt.Errorf(format, args...)}
}

// Fetch returns the document uri names, or why it cannot.
func (f *Fetcher) Fetch(ctx context.Context, uri string) ([]byte, *Outcome) {
	uri = strings.TrimSpace(uri)
	if uri == "" {
		return nil, fail(internal.NFTInvalidTokenURI, false, "empty token URI")
	}
	if strings.HasPrefix(uri, "{") {
		// Some contracts return the document itself.
		if int64(len(uri)) > f.cfg.MaxBytes {
			return nil, fail(internal.NFTContentTooLarge, false, "inline document of %d bytes", len(uri))
		}
		return []byte(uri), nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fail(internal.NFTInvalidTokenURI, false, "parsing the token URI: %v", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "data":
		return f.data(uri)
	case "ipfs":
		p, err := ipfsPath(u)
		if err != nil {
			return nil, fail(internal.NFTInvalidTokenURI, false, "%v", err)
		}
		gw := strings.TrimRight(f.cfg.IPFSGateway, "/") + "/ipfs/" + p
		if u.RawQuery != "" {
			gw += "?" + u.RawQuery
		}
		return f.http(ctx, gw)
	case "http", "https":
		if u.Host == "" {
			return nil, fail(internal.NFTInvalidTokenURI, false, "http URI without a host")
		}
		return f.http(ctx, uri)
	case "":
		return nil, fail(internal.NFTInvalidTokenURI, false, "token URI without a scheme")
	default:
		return nil, fail(internal.NFTInvalidTokenURIScheme, false, "unsupported scheme %q", u.Scheme)
	}
}

// ipfsPath is the path under the gateway's /ipfs/ that an ipfs:// URI
// names (CID and path, as escaped in the URI), with its dot segments
// resolved. A path that would leave /ipfs/ (ipfs://../api/v0/shutdown)
// is refused, since the gateway may be a private host a flag allowed; so
// is a segment that decodes to a slash or backslash, which a gateway
// may read as a separator after decoding.
func ipfsPath(u *url.URL) (string, error) {
	p := strings.TrimPrefix(u.Host+u.EscapedPath(), "/")
	if after, ok := strings.CutPrefix(p, "ipfs/"); ok {
		p = after
	}
	var out []string
	for _, seg := range strings.Split(p, "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return "", fmt.Errorf("ipfs URI path: %w", err)
		}
		switch {
		case strings.ContainsAny(dec, `/\`):
			return "", fmt.Errorf("ipfs URI path segment %q holds a separator", seg)
		case dec == "" || dec == ".":
		case dec == "..":
			if len(out) == 0 {
				return "", errors.New("ipfs URI path leaves the gateway's /ipfs/")
			}
			out = out[:len(out)-1]
		default:
			out = append(out, seg)
		}
	}
	if len(out) == 0 {
		return "", errors.New("ipfs URI without a CID")
	}
	return strings.Join(out, "/"), nil
}

// data decodes a data: URI, data:[<media type>][;base64],<data>.
func (f *Fetcher) data(uri string) ([]byte, *Outcome) {
	head, body, ok := strings.Cut(uri[len("data:"):], ",")
	if !ok {
		return nil, fail(internal.NFTInvalidTokenURI, false, "data URI without a comma")
	}
	// The decoded size is at most the encoded size.
	if int64(len(body)) > f.cfg.MaxBytes*4/3+4 {
		return nil, fail(internal.NFTContentTooLarge, false, "data URI of %d bytes", len(body))
	}
	var doc []byte
	if strings.HasSuffix(strings.ToLower(head), ";base64") {
		b64 := strings.TrimRight(body, "=")
		var err error
		if doc, err = base64.RawStdEncoding.DecodeString(b64); err != nil {
			if doc, err = base64.RawURLEncoding.DecodeString(b64); err != nil {
				return nil, fail(internal.NFTInvalidTokenURI, false, "data URI: bad base64: %v", err)
			}
		}
	} else {
		s, err := url.PathUnescape(body)
		if err != nil {
			return nil, fail(internal.NFTInvalidTokenURI, false, "data URI: bad escape: %v", err)
		}
		doc = []byte(s)
	}
	if int64(len(doc)) > f.cfg.MaxBytes {
		return nil, fail(internal.NFTContentTooLarge, false, "data URI document of %d bytes", len(doc))
	}
	return doc, nil
}

// hostSlot takes one of the host's PerHost slots.
func (f *Fetcher) hostSlot(ctx context.Context, host string) (func(), error) {
	f.mu.Lock()
	ch, ok := f.hosts[host]
	if !ok {
		ch = make(chan struct{}, f.cfg.PerHost)
		f.hosts[host] = ch
	}
	f.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *Fetcher) http(ctx context.Context, uri string) ([]byte, *Outcome) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, fail(internal.NFTInvalidTokenURI, false, "token URI: %v", err)
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	req.Header.Set("User-Agent", "avaindex-nft-metadata")
	release, err := f.hostSlot(ctx, req.URL.Host)
	if err != nil {
		return nil, fail(internal.NFTUnreachableTokenURI, true, "%v", err)
	}
	defer release()
	resp, err := f.client.Do(req)
	if err != nil {
		var blocked *BlockedError
		switch {
		case errors.As(err, &blocked):
			return nil, fail(internal.NFTInvalidTokenURI, false, "%v", blocked)
		case errors.Is(err, errTooManyRedirects), errors.Is(err, errRedirectScheme):
			return nil, fail(internal.NFTUnreachableTokenURI, false, "%v", err)
		case ctx.Err() != nil:
			return nil, fail(internal.NFTUnreachableTokenURI, true, "%v", ctx.Err())
		}
		return nil, fail(internal.NFTUnreachableTokenURI, true, "%v", err)
	}
	defer resp.Body.Close()
	var after time.Duration
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		after = time.Duration(min(secs, 24*3600)) * time.Second
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		o := fail(internal.NFTThrottledTokenURI, true, "HTTP %d", resp.StatusCode)
		o.RetryAfter = after
		return nil, o
	case resp.StatusCode >= 500:
		o := fail(internal.NFTUnreachableTokenURI, true, "HTTP %d", resp.StatusCode)
		o.RetryAfter = after
		return nil, o
	case resp.StatusCode != http.StatusOK:
		return nil, fail(internal.NFTUnreachableTokenURI, false, "HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return nil, fail(internal.NFTContentTooLarge, false, "document of %d bytes", resp.ContentLength)
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return nil, fail(internal.NFTUnreachableTokenURI, true, "reading the document: %v", err)
	}
	if int64(len(doc)) > f.cfg.MaxBytes {
		return nil, fail(internal.NFTContentTooLarge, false, "document over %d bytes", f.cfg.MaxBytes)
	}
	return doc, nil
}

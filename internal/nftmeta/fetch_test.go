package nftmeta

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true}, {"2606:4700::1111", true}, {"1.1.1.1", true},
		{"127.0.0.1", false}, {"127.0.0.2", false}, {"::1", false}, {"10.1.2.3", false}, {"172.16.0.1", false},
		{"192.168.1.1", false}, {"169.254.169.254", false}, {"fe80::1", false}, {"fc00::1", false},
		{"224.0.0.1", false}, {"ff02::1", false}, {"0.0.0.0", false}, {"::", false}, {"100.64.0.1", false},
		{"::ffff:127.0.0.1", false}, {"::ffff:169.254.169.254", false}, {"fd00:ec2::254", false}, {"255.255.255.255", false},
		// IPv6 prefixes that embed an IPv4 address: IPv4-compatible,
		// IPv4-translated (SIIT), 6to4, Teredo, site-local, and the 6to4
		// relay anycast.
		{"::127.0.0.1", false}, {"::10.0.0.1", false}, {"::8.8.8.8", false},
		{"::ffff:0:127.0.0.1", false}, {"::ffff:0:8.8.8.8", false},
		{"2002:7f00:1::1", false}, {"2002:a9fe:a9fe::1", false}, {"2002:0a00:0001::", false}, {"2002:808:808::1", true},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, {"2001::1", false},
		{"fec0::1", false}, {"feff::1", false},
		{"192.88.99.1", false}, {"::ffff:192.88.99.1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Public(%s) = %t, want %t", tc.addr, got, tc.want)
		}
	}
}

// listen serves h on addr (127.0.0.x:0).
func listen(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s.URL
}

func TestFetch(t *testing.T) {
	doc := `{"name":"Token 7","image":"ipfs://img"}`
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(doc)) })
	mux.HandleFunc("/ipfs/QmCID/7.json", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(doc)) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 10 {
			_, _ = w.Write([]byte(strings.Repeat(" ", 1000)))
		}
	})
	// Paths of the gateway outside /ipfs/ that an ipfs:// URI must not reach.
	for _, p := range []string{"/api/v0/shutdown", "/admin/secret", "/debug/pprof", "/ipfs"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(doc)) })
	}
	mux.HandleFunc("/throttled", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTooManyRequests) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/to-doc", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/doc", http.StatusFound) })
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "ftp://x/y", http.StatusFound) })
	allowed := listen(t, "127.0.0.1:0", mux)
	other := listen(t, "127.0.0.2:0", mux)
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other+"/doc", http.StatusFound) })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String()
	}()

	f := NewFetcher(Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, MaxBytes: 4096,
		IPFSGateway: allowed + "/", MaxRedirects: 3, Timeout: 5 * time.Second})
	strict := NewFetcher(Config{MaxBytes: 4096, Timeout: 5 * time.Second})
	b64 := base64.StdEncoding.EncodeToString([]byte(doc))
	for _, tc := range []struct {
		name   string
		f      *Fetcher
		uri    string
		status internal.NFTStatus // "" when the document is fetched
		retry  bool
	}{
		{"data base64", strict, "data:application/json;base64," + b64, "", false},
		{"data base64 unpadded", strict, "data:application/json;base64," + strings.TrimRight(b64, "="), "", false},
		{"data plain", strict, "data:application/json," + strings.ReplaceAll(doc, " ", "%20"), "", false},
		{"data utf8 plain", strict, "data:application/json;charset=utf-8," + doc, "", false},
		{"inline json", strict, doc, "", false},
		{"data bad base64", strict, "data:application/json;base64,!!!", internal.NFTInvalidTokenURI, false},
		{"data no comma", strict, "data:application/json", internal.NFTInvalidTokenURI, false},
		{"data too large", strict, "data:text/plain," + strings.Repeat("a", 5000), internal.NFTContentTooLarge, false},
		{"loopback allowed", f, allowed + "/doc", "", false},
		{"ipfs through the gateway", f, "ipfs://QmCID/7.json", "", false},
		{"ipfs with ipfs/ prefix", f, "ipfs://ipfs/QmCID/7.json", "", false},
		{"ipfs dot segments inside the CID's path", f, "ipfs://QmCID/x/./../7.json", "", false},
		{"ipfs escaping to the gateway's API", f, "ipfs://../api/v0/shutdown", internal.NFTInvalidTokenURI, false},
		{"ipfs escaping past the CID", f, "ipfs://QmX/../../admin/secret?x=1", internal.NFTInvalidTokenURI, false},
		{"ipfs escaping after the ipfs/ prefix", f, "ipfs://ipfs/../../debug/pprof", internal.NFTInvalidTokenURI, false},
		{"ipfs escaping with encoded dots", f, "ipfs://QmX/%2e%2e/%2E%2E/admin/secret", internal.NFTInvalidTokenURI, false},
		{"ipfs escaping with an encoded slash", f, "ipfs://QmX/..%2f..%2fadmin/secret", internal.NFTInvalidTokenURI, false},
		{"ipfs escaping with a backslash", f, `ipfs://QmX/..\..\admin/secret`, internal.NFTInvalidTokenURI, false},
		{"ipfs up to the bare prefix", f, "ipfs://QmX/..", internal.NFTInvalidTokenURI, false},
		{"loopback refused", strict, allowed + "/doc", internal.NFTInvalidTokenURI, false},
		{"loopback outside the allowed network", f, other + "/doc", internal.NFTInvalidTokenURI, false},
		{"localhost name refused", strict, strings.Replace(allowed, "127.0.0.1", "localhost", 1) + "/doc", internal.NFTInvalidTokenURI, false},
		{"redirect followed", f, allowed + "/to-doc", "", false},
		{"redirect to another private address", f, allowed + "/to-other", internal.NFTInvalidTokenURI, false},
		{"redirect to the metadata service", f, allowed + "/to-metadata", internal.NFTInvalidTokenURI, false},
		{"redirect loop", f, allowed + "/loop", internal.NFTUnreachableTokenURI, false},
		{"redirect to ftp", f, allowed + "/to-ftp", internal.NFTUnreachableTokenURI, false},
		{"too large", f, allowed + "/big", internal.NFTContentTooLarge, false},
		{"throttled", f, allowed + "/throttled", internal.NFTThrottledTokenURI, true},
		{"server error", f, allowed + "/broken", internal.NFTUnreachableTokenURI, true},
		{"not found", f, allowed + "/gone", internal.NFTUnreachableTokenURI, false},
		{"unreachable", f, closed + "/doc", internal.NFTUnreachableTokenURI, true},
		{"unknown scheme", f, "ftp://example.com/1.json", internal.NFTInvalidTokenURIScheme, false},
		{"no scheme", f, "/1.json", internal.NFTInvalidTokenURI, false},
		{"empty", f, " ", internal.NFTInvalidTokenURI, false},
		{"bad URI", f, "http://[::1", internal.NFTInvalidTokenURI, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, out := tc.f.Fetch(context.Background(), tc.uri)
			if tc.status == "" {
				if out != nil {
					t.Fatalf("Fetch: %s (%v)", out.Status, out.Err)
				}
				if string(got) != doc {
					t.Fatalf("Fetch = %q, want %q", got, doc)
				}
				return
			}
			if out == nil {
				t.Fatalf("Fetch = %q, want %s", got, tc.status)
			}
			if out.Status != tc.status || out.Retry != tc.retry {
				t.Fatalf("Fetch: %s retry %t (%v), want %s retry %t", out.Status, out.Retry, out.Err, tc.status, tc.retry)
			}
		})
	}
}

func TestParse(t *testing.T) {
	m := Parse([]byte(`{"name":"A\u0000B","description":"d","image":"ipfs://i","animation_url":"a","external_url":"e",
		"background_color":"ffffff","attributes":[{"trait_type":"x", "value": 1}],"properties":{"p":1},"decimals":2}`))
	if m.Status != internal.NFTIndexed || m.Name != "AB" || m.Description != "d" || m.Image != "ipfs://i" || m.Animation != "a" ||
		m.ExternalURL != "e" || m.Background != "ffffff" || m.Attributes != `[{"trait_type":"x","value":1}]` ||
		m.Properties != `{"p":1}` || m.Decimals == nil || *m.Decimals != 2 {
		t.Errorf("Parse = %+v", m)
	}
	for doc, want := range map[string]internal.NFTStatus{
		`{"name":`:              internal.NFTInvalidMetadataJSON,
		`not json`:              internal.NFTInvalidMetadataJSON,
		`[1,2]`:                 internal.NFTInvalidMetadata,
		`"a string"`:            internal.NFTInvalidMetadata,
		`{"name": 7}`:           internal.NFTInvalidMetadata,
		`{"decimals": 1.5}`:     internal.NFTInvalidMetadata,
		`{}`:                    internal.NFTIndexed,
		`{"image_url":"x"}`:     internal.NFTIndexed,
		"\xef\xbb\xbf{\"a\":1}": internal.NFTIndexed,
	} {
		if got := Parse([]byte(doc)); got.Status != want {
			t.Errorf("Parse(%q) = %s, want %s", doc, got.Status, want)
		}
	}
}

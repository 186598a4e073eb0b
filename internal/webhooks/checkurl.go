package webhooks

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"time"

	"github.com/avaindex/avaindex/internal/nftmeta"
)

// Resolver resolves a host name to its addresses; net.DefaultResolver is
// one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL reports, as an error saying why, a webhook URL whose host the
// delivery's dialer would refuse (nftmeta.GuardedDialer): an address, or
// a name resolving to addresses, neither public nor in allow. A name that
// does not resolve now passes (it may later; its deliveries fail until
// then, which inactiveReason tells). The dialer checks again on every
// connection; this check tells the webhook's owner at once.
func CheckURL(ctx context.Context, r Resolver, u *url.URL, allow []netip.Prefix) error {
	host := u.Hostname()
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil
		}
	}
	for _, a := range addrs {
		if !nftmeta.Allowed(a, allow) {
			return fmt.Errorf("host %s is at %s, a non-public address that --webhook-allow-private-network does not allow", host, a)
		}
	}
	return nil
}

// resolveTimeout bounds CheckURL's name resolution.
const resolveTimeout = 5 * time.Second

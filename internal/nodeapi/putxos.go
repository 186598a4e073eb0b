package nodeapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/components/avax"

	"github.com/avaindex/avaindex/internal"
	nodeclient "github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
)

// The node's bounds of platform.getUTXOs (platformvm/service.go).
const (
	maxGetUTXOsAddrs = 1024
	maxUTXOsPageSize = 1024
)

var errNoAddresses = errors.New("no addresses provided")

// UTXOPageSource pages through an address's P-chain UTXOs.
type UTXOPageSource interface {
	PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*store.PagedUTXO, error)
}

// AtomicUTXOUpstream is what the platform service asks the node of the
// UTXOs other chains exported to the P-chain (its shared memory).
type AtomicUTXOUpstream interface {
	PUTXOs(ctx context.Context, args *api.GetUTXOsArgs) (*api.GetUTXOsReply, error)
}

// chainAliaser knows the primary network's chains by the aliases and ids
// the node knows them by.
func chainAliaser(n *internal.Network) (ids.Aliaser, error) {
	aliaser := ids.NewAliaser()
	for _, a := range []struct {
		id      ids.ID
		aliases []string
	}{
		{constants.PlatformChainID, []string{"P", "platform"}},
		{n.XChainID, []string{"X", "avm"}},
		{n.CChainID, []string{"C", "evm"}},
	} {
		if a.id == ids.Empty && a.aliases[0] != "P" {
			continue
		}
		for _, alias := range append(a.aliases, a.id.String()) {
			if err := aliaser.Alias(a.id, alias); err != nil {
				return nil, err
			}
		}
	}
	return aliaser, nil
}

// GetUTXOs answers the P-chain UTXOs of the addresses from the index, a
// page at a time as the node pages them (see getUTXOs). The atomic UTXOs
// of another source chain are in the node's shared memory only: the node
// is asked for them.
func (p *Platform) GetUTXOs(r *http.Request, args *api.GetUTXOsArgs, reply *api.GetUTXOsReply) error {
	up, _ := p.upstream.(AtomicUTXOUpstream)
	var atomic func(context.Context, *api.GetUTXOsArgs) (*api.GetUTXOsReply, error)
	if up != nil {
		atomic = up.PUTXOs
	}
	return getUTXOs(r.Context(), utxoChain{
		id: constants.PlatformChainID, network: p.network, page: p.store.PUTXOPageOf, atomic: atomic,
		encodeErr: func(id ids.ID, enc formatting.Encoding, err error) error {
			return fmt.Errorf("couldn't encode UTXO %s as %s: %w", id, enc, err)
		},
	}, args, reply)
}

// utxoChain is what getUTXOs needs of a chain: its id, its store's pages,
// the node's answer for atomic UTXOs (nil without a node), and its
// service's wording of an encoding failure.
type utxoChain struct {
	id        ids.ID
	network   *internal.Network
	page      func(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*store.PagedUTXO, error)
	atomic    func(context.Context, *api.GetUTXOsArgs) (*api.GetUTXOsReply, error)
	encodeErr func(id ids.ID, enc formatting.Encoding, err error) error
}

// getUTXOs is the P- and X-chain services' getUTXOs over the store, with
// the node's checks in the node's order: addresses in byte order, each
// address's UTXOs newest first, each UTXO once, and the end index to
// continue from. Atomic UTXOs (another source chain) are the node's.
func getUTXOs(ctx context.Context, c utxoChain, args *api.GetUTXOsArgs, reply *api.GetUTXOsReply) error {
	if len(args.Addresses) == 0 {
		return errNoAddresses
	}
	if len(args.Addresses) > maxGetUTXOsAddrs {
		return fmt.Errorf("number of addresses given, %d, exceeds maximum, %d", len(args.Addresses), maxGetUTXOsAddrs)
	}
	aliaser, err := chainAliaser(c.network)
	if err != nil {
		return err
	}
	if args.SourceChain != "" {
		source, err := aliaser.Lookup(args.SourceChain)
		if err != nil || source != c.id {
			// Another chain's, or a name only the node knows (an L1's).
			var lookupErr error
			if err != nil {
				lookupErr = fmt.Errorf("problem parsing source chainID %q: %w", args.SourceChain, err)
			}
			return atomicUTXOs(ctx, c.atomic, args, reply, lookupErr)
		}
	}
	am := avax.NewAddressManager(&snow.Context{NetworkID: c.network.ID, ChainID: c.id, BCLookup: aliaser})
	addrSet, err := avax.ParseServiceAddresses(am, args.Addresses)
	if err != nil {
		return err
	}
	startAddr, startUTXO := ids.ShortEmpty, ids.Empty
	if args.StartIndex.Address != "" || args.StartIndex.UTXO != "" {
		if startAddr, err = avax.ParseServiceAddress(am, args.StartIndex.Address); err != nil {
			return fmt.Errorf("couldn't parse start index address %q: %w", args.StartIndex.Address, err)
		}
		if startUTXO, err = ids.FromString(args.StartIndex.UTXO); err != nil {
			return fmt.Errorf("couldn't parse start index utxo: %w", err)
		}
	}
	limit := int(args.Limit)
	if limit <= 0 || limit > maxUTXOsPageSize {
		limit = maxUTXOsPageSize
	}
	utxos, endAddr, endUTXO, err := pageUTXOs(ctx, c.page, addrSet.List(), startAddr, startUTXO, limit)
	if err != nil {
		return storeError("problem retrieving UTXOs", err)
	}
	reply.UTXOs = make([]string, len(utxos))
	for i, u := range utxos {
		if reply.UTXOs[i], err = formatting.Encode(args.Encoding, u.Bytes); err != nil {
			return c.encodeErr(u.ID, args.Encoding, err)
		}
	}
	if reply.EndIndex.Address, err = am.FormatLocalAddress(endAddr); err != nil {
		return fmt.Errorf("problem formatting address: %w", err)
	}
	reply.EndIndex.UTXO = endUTXO.String()
	reply.NumFetched = avajson.Uint64(len(utxos))
	reply.Encoding = args.Encoding
	return nil
}

// pageUTXOs is avalanchego's avax.GetPaginatedUTXOs over the store: each
// address from lastAddr on, from lastUTXO for lastAddr itself, until
// limit UTXOs. Each address is asked for the whole limit, as the node
// asks, and the end index is the last UTXO looked at (not the last
// returned) and the last address searched.
func pageUTXOs(ctx context.Context, pageOf func(context.Context, ids.ShortID, ids.ID, int) ([]*store.PagedUTXO, error),
	addrs []ids.ShortID, lastAddr ids.ShortID, lastUTXO ids.ID, limit int,
) ([]*store.PagedUTXO, ids.ShortID, ids.ID, error) {
	slices.SortFunc(addrs, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	var (
		out        []*store.PagedUTXO
		seen       = map[ids.ID]bool{}
		searchSize = limit
	)
	for _, addr := range addrs {
		start := ids.Empty
		switch c := bytes.Compare(addr[:], lastAddr[:]); {
		case c < 0:
			continue
		case c == 0:
			start = lastUTXO
		}
		lastAddr = addr
		page, err := pageOf(ctx, addr, start, searchSize)
		if err != nil {
			return nil, ids.ShortEmpty, ids.Empty, err
		}
		for _, u := range page {
			lastUTXO = u.ID
			if seen[u.ID] {
				continue
			}
			seen[u.ID] = true
			out = append(out, u)
			if limit--; limit <= 0 {
				return out, lastAddr, lastUTXO, nil
			}
		}
	}
	return out, lastAddr, lastUTXO, nil
}

// atomicUTXOs answers with the node's getUTXOs (node nil: none). While
// the node does not answer, the error says so, or is lookupErr for a
// source chain avaindex does not know either.
func atomicUTXOs(ctx context.Context, node func(context.Context, *api.GetUTXOsArgs) (*api.GetUTXOsReply, error),
	args *api.GetUTXOsArgs, reply *api.GetUTXOsReply, lookupErr error,
) error {
	unreachable := lookupErr
	if unreachable == nil {
		unreachable = errors.New(ErrNodeUnreachable)
	}
	if node == nil {
		return unreachable
	}
	got, err := node(ctx, args)
	var rpcErr *nodeclient.RPCError
	switch {
	case errors.As(err, &rpcErr):
		return errors.New(rpcErr.Message) // the node's answer, as it words it
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case err != nil:
		return unreachable
	}
	*reply = *got
	return nil
}

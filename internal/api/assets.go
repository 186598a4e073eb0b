package api

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/xchain"
)

// maxKnownAssets bounds the assets an assetBook remembers.
const maxKnownAssets = 10_000

// missRetry is how long an asset whose creation was not found is answered
// with empty names before it is looked for again (it may be indexed
// since).
const missRetry = time.Minute

// assetBook finds the metadata of the assets amounts are in: the X-chain
// genesis's assets (AVAX among them) from the genesis, others from their
// CreateAssetTx. An asset never changes: what is found is remembered.
type assetBook struct {
	store   DataSource
	network *internal.Network

	mu      sync.Mutex
	entries map[ids.ID]assetEntry
}

// assetEntry is what the book knows of an asset: its metadata, its id in
// cb58 and, when its creation was not found, since when.
type assetEntry struct {
	xchain.AssetMeta
	id     string
	missed time.Time
}

func newAssetBook(store DataSource, n *internal.Network) *assetBook {
	return &assetBook{store: store, network: n, entries: map[ids.ID]assetEntry{}}
}

// lookup returns what the book knows of asset id. An asset whose creation
// is not indexed (yet) gets empty names; AVAX, whose genesis avaindex may
// not know (a custom network without --genesis-file), its well-known ones.
func (b *assetBook) lookup(ctx context.Context, id ids.ID) (assetEntry, error) {
	b.mu.Lock()
	e, ok := b.entries[id]
	b.mu.Unlock()
	if ok && (e.missed.IsZero() || time.Since(e.missed) < missRetry) {
		return e, nil
	}
	m, found, err := b.find(ctx, id)
	if err != nil {
		return assetEntry{}, err
	}
	e = assetEntry{AssetMeta: m, id: id.String()}
	if !found {
		e.AssetMeta, e.missed = xchain.AssetMeta{Type: "secp256k1"}, time.Now()
		if id == b.network.AVAXAssetID {
			e.AssetMeta = xchain.AssetMeta{Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: "secp256k1"}
		}
	}
	b.mu.Lock()
	if len(b.entries) >= maxKnownAssets {
		clear(b.entries)
	}
	b.entries[id] = e
	b.mu.Unlock()
	return e, nil
}

func (b *assetBook) find(ctx context.Context, id ids.ID) (xchain.AssetMeta, bool, error) {
	g, ok, err := xchain.GenesisFor(b.network.XChainID)
	if err != nil {
		return xchain.AssetMeta{}, false, err
	}
	if ok {
		if m, ok := g.AssetMeta[id]; ok {
			return m, true, nil
		}
	}
	raw, err := b.store.XAssetCreation(ctx, id)
	if errors.Is(err, derrors.NotFound) {
		return xchain.AssetMeta{}, false, nil
	}
	if err != nil {
		return xchain.AssetMeta{}, false, err
	}
	tx, err := xchain.ParseTx(raw)
	if err != nil {
		return xchain.AssetMeta{}, false, err
	}
	m, ok := xchain.AssetMetaOf(tx)
	return m, ok, nil
}

// amount returns amount of asset id with the asset's metadata.
func (b *assetBook) amount(ctx context.Context, id ids.ID, amount uint64) (AssetAmount, error) {
	e, err := b.lookup(ctx, id)
	if err != nil {
		return AssetAmount{}, err
	}
	return AssetAmount{AssetID: e.id, Name: e.Name, Symbol: e.Symbol, Denomination: int(e.Denomination),
		Type: e.Type, Amount: strconv.FormatUint(amount, 10)}, nil
}

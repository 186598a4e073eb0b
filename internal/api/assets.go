package api

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/xchain"
)

// maxKnownAssets bounds the assets an assetBook remembers.
const maxKnownAssets = 10_000

// assetBook finds the metadata of the assets amounts are in: the X-chain
// genesis's assets (AVAX among them) from the genesis, others from their
// CreateAssetTx. An asset never changes: what is found is remembered.
type assetBook struct {
	store   DataSource
	network *internal.Network

	mu    sync.Mutex
	known map[ids.ID]xchain.AssetMeta
}

func newAssetBook(store DataSource, n *internal.Network) *assetBook {
	return &assetBook{store: store, network: n, known: map[ids.ID]xchain.AssetMeta{}}
}

// meta returns the metadata of asset id. An asset whose creation is not
// indexed (yet) gets empty names; AVAX, whose genesis avaindex may not
// know (a custom network without --genesis-file), its well-known ones.
func (b *assetBook) meta(ctx context.Context, id ids.ID) (xchain.AssetMeta, error) {
	b.mu.Lock()
	m, ok := b.known[id]
	b.mu.Unlock()
	if ok {
		return m, nil
	}
	m, ok, err := b.find(ctx, id)
	if err != nil {
		return xchain.AssetMeta{}, err
	}
	if !ok {
		if id == b.network.AVAXAssetID {
			return xchain.AssetMeta{Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: "secp256k1"}, nil
		}
		return xchain.AssetMeta{Type: "secp256k1"}, nil
	}
	b.mu.Lock()
	if len(b.known) < maxKnownAssets {
		b.known[id] = m
	}
	b.mu.Unlock()
	return m, nil
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
	m, err := b.meta(ctx, id)
	if err != nil {
		return AssetAmount{}, err
	}
	return AssetAmount{AssetID: id.String(), Name: m.Name, Symbol: m.Symbol, Denomination: int(m.Denomination),
		Type: m.Type, Amount: strconv.FormatUint(amount, 10)}, nil
}

package api

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/xchain"
)

// Asset types and caps of the Data API (schemas PrimaryNetworkAssetType,
// PrimaryNetworkAssetCap).
const (
	assetSecp256k1 = "secp256k1"
	assetNFT       = "nft"
	capFixed       = "fixed"
	capVariable    = "variable"
)

// assetInfo is what AssetAmount and XChainAssetDetails tell of an asset.
type assetInfo struct {
	Name, Symbol string
	Denomination int
	Type, Cap    string
	// CreatedAt is its CreateAssetTx's time (the genesis time for genesis
	// assets), unix seconds.
	CreatedAt int64
}

// assets caches the details of the assets found: an asset never changes
// once created. Assets not found are not cached, so that one indexed later
// is found then.
type assets struct {
	mu    sync.Mutex
	known map[ids.ID]*assetInfo
}

// asset returns the details of the X-chain asset id: AVAX and the other
// genesis assets from the X-chain's genesis, any other asset from its
// CreateAssetTx. An asset avaindex has not indexed gets empty details.
func (a *API) asset(ctx context.Context, id ids.ID) (*assetInfo, error) {
	a.assets.mu.Lock()
	info, ok := a.assets.known[id]
	a.assets.mu.Unlock()
	if ok {
		return info, nil
	}
	info, found, err := a.findAsset(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found {
		return &assetInfo{Type: assetSecp256k1, Cap: capFixed}, nil
	}
	a.assets.mu.Lock()
	if a.assets.known == nil {
		a.assets.known = map[ids.ID]*assetInfo{}
	}
	a.assets.known[id] = info
	a.assets.mu.Unlock()
	return info, nil
}

func (a *API) findAsset(ctx context.Context, id ids.ID) (*assetInfo, bool, error) {
	genesis, ok, err := xchain.GenesisAssets(a.network.XChainID, a.networkGenesis)
	if err != nil {
		return nil, false, err
	}
	if g := genesis[id]; ok && g != nil {
		var created int64
		if xg, ok, err := xchain.GenesisFor(a.network.XChainID, a.networkGenesis); err == nil && ok {
			created = int64(xg.Timestamp)
		}
		return describedAsset(g, created), true, nil
	}
	tx, err := a.store.XTx(ctx, id)
	switch {
	case errors.Is(err, derrors.NotFound):
		if id == a.network.AVAXAssetID {
			// A network whose genesis avaindex cannot rebuild: AVAX is
			// still AVAX.
			return &assetInfo{Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: assetSecp256k1, Cap: capFixed}, true, nil
		}
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	d, ok, err := xchain.DescribeAsset(tx.Bytes)
	if err != nil || !ok {
		return nil, false, err
	}
	return describedAsset(d, tx.Timestamp.Unix()), true, nil
}

func describedAsset(d *xchain.Asset, created int64) *assetInfo {
	info := &assetInfo{Name: d.Name, Symbol: d.Symbol, Denomination: int(d.Denomination),
		Type: assetSecp256k1, Cap: capFixed, CreatedAt: created}
	if d.NFT {
		info.Type = assetNFT
	}
	if d.Variable {
		info.Cap = capVariable
	}
	return info
}

// assetAmount returns amount of asset id with the asset's details.
func (a *API) assetAmount(ctx context.Context, id ids.ID, amount uint64) (AssetAmount, error) {
	info, err := a.asset(ctx, id)
	if err != nil {
		return AssetAmount{}, err
	}
	// Few assets, each in many items: their text is kept.
	return AssetAmount{AssetID: a.idTexts.text(id), Name: info.Name, Symbol: info.Symbol, Denomination: info.Denomination,
		Type: info.Type, Amount: strconv.FormatUint(amount, 10)}, nil
}

// assetAmounts returns the non-zero amounts of sums, AVAX first, then by
// asset id; [] when there are none.
func (a *API) assetAmounts(ctx context.Context, sums map[ids.ID]uint64) ([]AssetAmount, error) {
	keys := make([]ids.ID, 0, len(sums))
	for id, v := range sums {
		if v != 0 {
			keys = append(keys, id)
		}
	}
	avax := a.network.AVAXAssetID
	slices.SortFunc(keys, func(x, y ids.ID) int {
		if c := cmp.Compare(boolRank(x != avax), boolRank(y != avax)); c != 0 {
			return c
		}
		return x.Compare(y)
	})
	out := make([]AssetAmount, 0, len(keys))
	for _, id := range keys {
		am, err := a.assetAmount(ctx, id, sums[id])
		if err != nil {
			return nil, err
		}
		out = append(out, am)
	}
	return out, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

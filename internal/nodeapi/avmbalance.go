package nodeapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	safemath "github.com/ava-labs/avalanchego/utils/math"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal/xchain"
)

// The avm service's errors, word for word (vms/avm/service.go).
var errTxNotCreateAsset = errors.New("transaction doesn't create an asset")

// xUTXOPage is the page size getBalance and getAllBalances read an
// address's whole UTXO set by.
const xUTXOPage = 1024

// parseAddress parses the address of getBalance and getAllBalances as
// the avm does, with its error.
func (x *AVM) parseAddress(s string) (ids.ShortID, error) {
	aliaser, err := chainAliaser(x.network)
	if err != nil {
		return ids.ShortEmpty, err
	}
	am := avax.NewAddressManager(&snow.Context{NetworkID: x.network.ID, ChainID: x.network.XChainID, BCLookup: aliaser})
	addr, err := avax.ParseServiceAddress(am, s)
	if err != nil {
		return ids.ShortEmpty, fmt.Errorf("problem parsing address '%s': %w", s, err)
	}
	return addr, nil
}

// genesisAssets returns the X-chain's genesis assets; ok is false when
// avaindex cannot rebuild its genesis.
func (x *AVM) genesisAssets() (map[ids.ID]*xchain.Asset, bool, error) {
	return xchain.GenesisAssets(x.network.XChainID, x.networkGenesis)
}

// lookupAssetID is the avm's: an alias of a genesis asset ("AVAX"), else
// an asset id.
func (x *AVM) lookupAssetID(s string) (ids.ID, error) {
	assets, ok, err := x.genesisAssets()
	if err != nil {
		return ids.Empty, err
	}
	if !ok && s == "AVAX" {
		// A genesis avaindex cannot rebuild: AVAX is still "AVAX".
		return x.network.AVAXAssetID, nil
	}
	for id, a := range assets {
		if a.Alias != "" && a.Alias == s {
			return id, nil
		}
	}
	if id, err := ids.FromString(s); err == nil {
		return id, nil
	}
	return ids.Empty, fmt.Errorf("asset '%s' not found", s)
}

// primaryAliasOrDefault is the avm's name of an asset in getAllBalances:
// a genesis asset's alias, else its id.
func (x *AVM) primaryAliasOrDefault(id ids.ID) string {
	assets, ok, err := x.genesisAssets()
	switch {
	case err == nil && ok && assets[id] != nil && assets[id].Alias != "":
		return assets[id].Alias
	case (err != nil || !ok) && id == x.network.AVAXAssetID:
		return "AVAX"
	}
	return id.String()
}

// GetAssetDescription answers a genesis asset from the X-chain's genesis
// and any other from its indexed CreateAssetTx.
func (x *AVM) GetAssetDescription(r *http.Request, args *avm.GetAssetDescriptionArgs, reply *avm.GetAssetDescriptionReply) error {
	id, err := x.lookupAssetID(args.AssetID)
	if err != nil {
		return err
	}
	assets, _, err := x.genesisAssets()
	if err != nil {
		return err
	}
	if a := assets[id]; a != nil {
		reply.AssetID, reply.Name, reply.Symbol, reply.Denomination = id, a.Name, a.Symbol, avajson.Uint8(a.Denomination)
		return nil
	}
	rec, err := x.store.XTx(r.Context(), id)
	if err != nil {
		return bareNotFound("couldn't get tx", err)
	}
	tx, err := xchain.ParseTx(rec.Bytes)
	if err != nil {
		return fmt.Errorf("couldn't decode stored tx %s: %w", id, err)
	}
	create, ok := tx.Unsigned.(*txs.CreateAssetTx)
	if !ok {
		return errTxNotCreateAsset
	}
	reply.AssetID, reply.Name, reply.Symbol = id, create.Name, create.Symbol
	reply.Denomination = avajson.Uint8(create.Denomination)
	return nil
}

// spendable returns, of the X-chain UTXOs of addr in the node's order,
// the secp256k1 transfer outputs getBalance and getAllBalances count:
// with includePartial all of them, else those addr alone owns, unlocked
// at the wall clock's now (the node's clock).
func (x *AVM) spendable(ctx context.Context, addr ids.ShortID, includePartial bool) ([]*avax.UTXO, error) {
	t := uint64(now().Unix())
	var out []*avax.UTXO
	for after := ids.Empty; ; {
		page, err := x.store.XUTXOPageOf(ctx, addr, after, xUTXOPage)
		if err != nil {
			return nil, err
		}
		for _, p := range page {
			u := &avax.UTXO{}
			if _, err := builder.Parser.Codec().Unmarshal(p.Bytes, u); err != nil {
				return nil, fmt.Errorf("decoding stored UTXO %s: %w", p.ID, err)
			}
			o, ok := u.Out.(*secp256k1fx.TransferOutput)
			if !ok || !includePartial && (len(o.Addrs) != 1 || o.Locktime > t) {
				continue
			}
			out = append(out, u)
		}
		if len(page) < xUTXOPage {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// GetBalance answers an address's balance of an asset from the indexed
// UTXO set, as the node's deprecated method counts it.
func (x *AVM) GetBalance(r *http.Request, args *avm.GetBalanceArgs, reply *avm.GetBalanceReply) error {
	addr, err := x.parseAddress(args.Address)
	if err != nil {
		return err
	}
	asset, err := x.lookupAssetID(args.AssetID)
	if err != nil {
		return err
	}
	utxos, err := x.spendable(r.Context(), addr, args.IncludePartial)
	if err != nil {
		return storeError("problem retrieving UTXOs", err)
	}
	reply.UTXOIDs = make([]avax.UTXOID, 0, len(utxos))
	for _, u := range utxos {
		if u.AssetID() != asset {
			continue
		}
		amt, err := safemath.Add(u.Out.(*secp256k1fx.TransferOutput).Amount(), uint64(reply.Balance))
		if err != nil {
			return err // the node fails on an overflow here
		}
		reply.Balance = avajson.Uint64(amt)
		reply.UTXOIDs = append(reply.UTXOIDs, u.UTXOID)
	}
	return nil
}

// GetAllBalances answers an address's balance of each asset it holds
// from the indexed UTXO set, saturating as the node does. The node lists
// the assets in map order (random); avaindex sorts them by name.
func (x *AVM) GetAllBalances(r *http.Request, args *avm.GetAllBalancesArgs, reply *avm.GetAllBalancesReply) error {
	addr, err := x.parseAddress(args.Address)
	if err != nil {
		return err
	}
	utxos, err := x.spendable(r.Context(), addr, args.IncludePartial)
	if err != nil {
		return storeError("couldn't get address's UTXOs", err)
	}
	sums := map[ids.ID]uint64{}
	for _, u := range utxos {
		asset := u.AssetID()
		s, err := safemath.Add(u.Out.(*secp256k1fx.TransferOutput).Amount(), sums[asset])
		if err != nil {
			s = math.MaxUint64
		}
		sums[asset] = s
	}
	reply.Balances = make([]avm.Balance, 0, len(sums))
	for id, s := range sums {
		reply.Balances = append(reply.Balances, avm.Balance{AssetID: x.primaryAliasOrDefault(id), Balance: avajson.Uint64(s)})
	}
	slices.SortFunc(reply.Balances, func(a, b avm.Balance) int { return strings.Compare(a.AssetID, b.AssetID) })
	return nil
}

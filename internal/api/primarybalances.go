package api

import (
	"cmp"
	"context"
	"math/big"
	"net/http"
	"slices"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/utxo"
	"github.com/avaindex/avaindex/internal/xchain"
)

// The Primary Network Balances tag: an address set's balances on one
// primary-network chain, summed from its UTXO list.

// balanceReadPage is how many UTXOs each read of eachListedUTXO takes: a
// wallet's few thousand in one, since each read's merged scan seeks every
// address again.
const balanceReadPage = 4096

// MaxBalanceAddresses bounds getBalancesByAddresses' addresses: a wallet
// asks for all its derived addresses at once (256 fit a URL of 12 KB).
const MaxBalanceAddresses = 256

// sharedStatus is the status of a P-chain atomic-memory balance: UTXOs
// another chain exported to the P-chain that no import took yet.
const sharedStatus = "exported"

// balanceKey is one line of a balance: an asset, in the shared memory of
// a chain (sharedWith) or not.
type balanceKey struct {
	asset      ids.ID
	sharedWith ids.ID
}

type balanceSum struct {
	amount *big.Int
	count  int
}

// bucket sums the UTXOs of one state.
type bucket map[balanceKey]*balanceSum

// add counts n UTXOs of amount in all.
func (b bucket) add(k balanceKey, amount *big.Int, n int) {
	s := b[k]
	if s == nil {
		s = &balanceSum{amount: new(big.Int)}
		b[k] = s
	}
	s.amount.Add(s.amount, amount)
	s.count += n
}

// getBalances serves getBalancesByAddresses: what the addresses hold on
// the chain at blockTimestamp (now when absent), from the UTXOs of the
// chain's UTXO list that any of the addresses owns, whatever their
// threshold: the node's rule (platform.getBalance, avm.getAllBalances
// with includePartial), not the UTXO list endpoints' one. Each UTXO is in
// one state:
//   - P-chain: a stake output is pendingStaked before its staking period,
//     staked during it (lockedStaked when its locktime is after the
//     period's end, else unlockedStaked); any other UTXO is lockedPlatform
//     while its locktime is ahead, lockedStakeable while its stakeable
//     locktime is, else unlockedUnstaked;
//   - X-chain: locked while its locktime is ahead, else unlocked;
//   - every chain: the UTXOs other chains exported to it and no import
//     took are its atomic memory, locked or not, by exporting chain.
//
// Without blockTimestamp the unspent UTXOs count, staked while the node's
// staker set holds their staker; with it, those created by then and not
// consumed by then, staked by their staking periods.
func (a *API) getBalances(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	if err != nil {
		return err
	}
	if err := param.OnlyParams(r, "addresses", "blockTimestamp"); err != nil {
		return err
	}
	at, historic, err := param.OptionalUint(r, "blockTimestamp")
	if err != nil {
		return err
	}
	addrs, err := Addresses(r, "addresses", MaxBalanceAddresses, a.network.HRP)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return derrors.Invalid("addresses is required")
	}
	now := time.Now().Unix()
	if historic {
		now = at
	}
	q := store.UTXOQuery{Chain: chain, IncludeSpent: historic, AnyOwner: true, NoOwners: true}
	for _, ad := range addrs {
		q.Addresses = append(q.Addresses, ad.ID)
	}
	var (
		unlocked, locked, stakeable           = bucket{}, bucket{}, bucket{}
		unlockedStaked, lockedStaked, pending = bucket{}, bucket{}, bucket{}
		sharedUnlocked, sharedLocked          = bucket{}, bucket{}
		t                                     = uint64(now)
	)
	// add counts n UTXOs alike (as u) of amount in all.
	add := func(u *store.ListedUTXO, amount *big.Int, n int) error {
		if u.Origin == chain && u.Exported() {
			return nil // in another chain's shared memory
		}
		info, err := a.balanceInfo(u)
		if err != nil {
			return err
		}
		if info.Mint {
			return nil // no amount
		}
		k := balanceKey{asset: u.AssetID}
		if u.Origin != chain {
			k.sharedWith = a.chainID(u.Origin)
			if info.Locktime > t {
				sharedLocked.add(k, amount, n)
			} else {
				sharedUnlocked.add(k, amount, n)
			}
			return nil
		}
		stake := u.StakeEnd != 0
		staked := u.Staked
		if historic {
			staked = stake && t < u.StakeEnd
		}
		switch {
		case staked && t < u.StakeStart:
			pending.add(k, amount, n)
		case staked && (info.Locktime > u.StakeEnd || info.StakeableLocktime > u.StakeEnd):
			lockedStaked.add(k, amount, n)
		case staked:
			unlockedStaked.add(k, amount, n)
		case info.Locktime > t:
			locked.add(k, amount, n)
		case info.StakeableLocktime > t:
			stakeable.add(k, amount, n)
		default:
			unlocked.add(k, amount, n)
		}
		return nil
	}
	// Now: the store's sums of alike UTXOs. At a time: every UTXO, spent
	// ones too, judged at it.
	if historic {
		err = a.store.EachUTXO(r.Context(), q, func(u *store.ListedUTXO) error {
			if u.CreatedTime > now || (u.Spent() && u.ConsumedTime <= now) {
				return nil
			}
			return add(u, new(big.Int).SetUint64(u.Amount), 1)
		})
	} else {
		err = a.store.SumUTXOs(r.Context(), q, func(s store.UTXOSum) error { return add(s.UTXO, s.Amount, s.Count) })
	}
	if err != nil {
		return err
	}
	ctx := r.Context()
	var resp BalancesResponse
	resp.ChainInfo = ChainInfo{ChainName: chainNames[chain], Network: network}
	switch chain {
	case internal.PChain:
		var b PChainBalance
		for _, f := range []struct {
			dst *[]AggregatedAssetAmount
			src bucket
		}{{&b.UnlockedUnstaked, unlocked}, {&b.UnlockedStaked, unlockedStaked}, {&b.LockedPlatform, locked},
			{&b.LockedStakeable, stakeable}, {&b.LockedStaked, lockedStaked}, {&b.PendingStaked, pending}} {
			if *f.dst, err = a.aggregated(ctx, f.src); err != nil {
				return err
			}
		}
		if b.AtomicMemoryUnlocked, err = a.shared(ctx, sharedUnlocked, sharedStatus); err != nil {
			return err
		}
		if b.AtomicMemoryLocked, err = a.shared(ctx, sharedLocked, sharedStatus); err != nil {
			return err
		}
		resp.Balances = b
	case internal.XChain:
		var b XChainBalances
		if b.Unlocked, err = a.aggregated(ctx, unlocked); err != nil {
			return err
		}
		if b.Locked, err = a.aggregated(ctx, locked); err != nil {
			return err
		}
		if b.AtomicMemoryUnlocked, err = a.shared(ctx, sharedUnlocked, ""); err != nil {
			return err
		}
		if b.AtomicMemoryLocked, err = a.shared(ctx, sharedLocked, ""); err != nil {
			return err
		}
		resp.Balances = b
	default:
		var b CChainAtomicBalances
		if b.AtomicMemoryUnlocked, err = a.shared(ctx, sharedUnlocked, ""); err != nil {
			return err
		}
		if b.AtomicMemoryLocked, err = a.shared(ctx, sharedLocked, ""); err != nil {
			return err
		}
		resp.Balances = b
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// eachListedUTXO calls f with every UTXO of q's list, read in pages.
func (a *API) eachListedUTXO(ctx context.Context, q store.UTXOQuery, f func(*store.ListedUTXO) error) error {
	var after *store.UTXOKey
	for {
		us, err := a.store.ListUTXOs(ctx, q, after, balanceReadPage)
		if err != nil {
			return err
		}
		for _, u := range us {
			if err := f(u); err != nil {
				return err
			}
		}
		if len(us) < balanceReadPage {
			return nil
		}
		k := us[len(us)-1].Key(q.ByAmount)
		after = &k
	}
}

// balanceInfo is what a balance reads of a listed UTXO's output: its
// locktimes, from the stored columns, without decoding the output, but
// for the X-chain's outputs of other kinds (mint outputs among them),
// decoded.
func (a *API) balanceInfo(u *store.ListedUTXO) (*utxo.Info, error) {
	if u.Origin == internal.XChain && u.Kind == xchain.KindOther {
		return a.listedInfo(u)
	}
	return &utxo.Info{AssetID: u.AssetID, Amount: u.Amount, Locktime: u.Locktime, StakeableLocktime: u.StakeableLocktime}, nil
}

// listedInfo decodes a listed UTXO's output in its origin chain's
// encoding.
func (a *API) listedInfo(u *store.ListedUTXO) (*utxo.Info, error) {
	return a.outputInfo(&store.UTXORow{ID: u.ID, Chain: u.Origin, Bytes: u.Bytes, AssetID: u.AssetID, Amount: u.Amount})
}

// aggregated renders a bucket, AVAX first, then by asset id.
func (a *API) aggregated(ctx context.Context, b bucket) ([]AggregatedAssetAmount, error) {
	out := make([]AggregatedAssetAmount, 0, len(b))
	for _, k := range a.sortedKeys(b) {
		v, err := a.aggregate(ctx, k.asset, b[k])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// shared renders a bucket of shared memory with status (omitted when "").
func (a *API) shared(ctx context.Context, b bucket, status string) ([]SharedAssetBalance, error) {
	out := make([]SharedAssetBalance, 0, len(b))
	for _, k := range a.sortedKeys(b) {
		v, err := a.aggregate(ctx, k.asset, b[k])
		if err != nil {
			return nil, err
		}
		out = append(out, SharedAssetBalance{AggregatedAssetAmount: v, SharedWithChainID: k.sharedWith.String(), Status: status})
	}
	return out, nil
}

func (a *API) aggregate(ctx context.Context, asset ids.ID, s *balanceSum) (AggregatedAssetAmount, error) {
	info, err := a.asset(ctx, asset)
	if err != nil {
		return AggregatedAssetAmount{}, err
	}
	return AggregatedAssetAmount{AssetID: a.idTexts.text(asset), Name: info.Name, Symbol: info.Symbol,
		Denomination: info.Denomination, Type: info.Type, Amount: s.amount.String(), UTXOCount: s.count}, nil
}

func (a *API) sortedKeys(b bucket) []balanceKey {
	keys := make([]balanceKey, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	avax := a.network.AVAXAssetID
	slices.SortFunc(keys, func(x, y balanceKey) int {
		if c := cmp.Compare(boolRank(x.asset != avax), boolRank(y.asset != avax)); c != 0 {
			return c
		}
		if c := cmp.Compare(x.asset.String(), y.asset.String()); c != 0 {
			return c
		}
		return cmp.Compare(x.sharedWith.String(), y.sharedWith.String())
	})
	return keys
}

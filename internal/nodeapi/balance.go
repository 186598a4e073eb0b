package nodeapi

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
)

// now is the clock getBalance compares locktimes with. The node uses its
// wall clock (not the chain's timestamp), and so does avaindex.
var now = time.Now

// addressManager parses addresses as the node's P-chain service does: a
// cb58 short id, or "<chain>-<bech32>" where the chain is the P-chain by an
// alias the node knows ("P", "platform" or its id) and the bech32 prefix is
// the network's.
func addressManager(n *internal.Network) (avax.AddressManager, error) {
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
	return avax.NewAddressManager(&snow.Context{
		NetworkID: n.ID,
		ChainID:   constants.PlatformChainID,
		BCLookup:  aliaser,
	}), nil
}

// balances sums amounts per asset, saturating at MaxUint64 as the node does.
type balances map[ids.ID]uint64

func (b balances) add(asset ids.ID, amount uint64) {
	if s := b[asset] + amount; s >= b[asset] {
		b[asset] = s
	} else {
		b[asset] = math.MaxUint64
	}
}

func (b balances) json() map[ids.ID]avajson.Uint64 {
	out := make(map[ids.ID]avajson.Uint64, len(b))
	for k, v := range b {
		out[k] = avajson.Uint64(v)
	}
	return out
}

// serviceAddresses is avax.ParseServiceAddresses, the node's parse of
// getBalance's addresses, with its answers and errors, trying the
// chain-prefixed bech32 form first: the node tries a cb58 short id first,
// and on the usual "P-..." address that failure costs a base58 decode and
// an error, most of what a call of 300,000 addresses allocates. No string
// is both (cb58 has no '-'), so the order changes no answer.
func serviceAddresses(am avax.AddressManager, strs []string) (set.Set[ids.ShortID], error) {
	addrs := set.NewSet[ids.ShortID](len(strs))
	for _, s := range strs {
		a, err := am.ParseLocalAddress(s)
		if err != nil {
			// Not chain-bech32: the node's parse, cb58 first, and its error.
			if a, err = avax.ParseServiceAddress(am, s); err != nil {
				return nil, err
			}
		}
		addrs.Add(a)
	}
	return addrs, nil
}

// GetBalance answers the balance of the addresses from the indexed UTXO
// set: each UTXO is unlocked, locked and stakeable, or locked and not
// stakeable, judged against the current time as the node judges it.
func (p *Platform) GetBalance(r *http.Request, args *platformvm.GetBalanceRequest, reply *platformvm.GetBalanceResponse) error {
	am, err := addressManager(p.network)
	if err != nil {
		return err
	}
	addrSet, err := serviceAddresses(am, args.Addresses)
	if err != nil {
		return err
	}
	utxos, err := p.store.PUTXOsOf(r.Context(), addrSet.List())
	if err != nil {
		return storeError(fmt.Sprintf("couldn't get UTXO set of %v", args.Addresses), err)
	}
	t := uint64(now().Unix())
	unlocked, lockedStakeable, lockedNotStakeable := balances{}, balances{}, balances{}
	for _, s := range utxos {
		var u avax.UTXO
		if _, err := txs.Codec.Unmarshal(s.Bytes, &u); err != nil {
			return fmt.Errorf("couldn't decode stored UTXO %s:%d: %w", s.TxID, s.OutputIndex, err)
		}
		asset := u.AssetID()
		var bucket balances
		switch out := u.Out.(type) {
		case *secp256k1fx.TransferOutput:
			if out.Locktime > t {
				bucket = lockedNotStakeable
			} else {
				bucket = unlocked
			}
			bucket.add(asset, out.Amt)
		case *stakeable.LockOut:
			inner, ok := out.TransferableOut.(*secp256k1fx.TransferOutput)
			if !ok {
				continue // not counted by the node either
			}
			switch {
			case inner.Locktime > t:
				bucket = lockedNotStakeable
			case out.Locktime > t:
				bucket = lockedStakeable
			default:
				bucket = unlocked
			}
			bucket.add(asset, out.Amount())
		default:
			continue
		}
		reply.UTXOIDs = append(reply.UTXOIDs, &avax.UTXOID{TxID: u.TxID, OutputIndex: u.OutputIndex})
	}
	total := balances{}
	for _, b := range []balances{lockedStakeable, lockedNotStakeable, unlocked} {
		for asset, v := range b {
			total.add(asset, v)
		}
	}
	avaxID := p.network.AVAXAssetID
	reply.Balances = total.json()
	reply.Unlockeds = unlocked.json()
	reply.LockedStakeables = lockedStakeable.json()
	reply.LockedNotStakeables = lockedNotStakeable.json()
	reply.Balance = reply.Balances[avaxID]
	reply.Unlocked = reply.Unlockeds[avaxID]
	reply.LockedStakeable = reply.LockedStakeables[avaxID]
	reply.LockedNotStakeable = reply.LockedNotStakeables[avaxID]
	return nil
}

// GetRewardUTXOs answers the reward UTXOs of a staker tx (the tx that added
// the validator or delegator), in the requested encoding; none for any
// other id, as on the node.
func (p *Platform) GetRewardUTXOs(r *http.Request, args *api.GetTxArgs, reply *platformvm.GetRewardUTXOsReply) error {
	utxos, err := p.store.PRewardUTXOs(r.Context(), args.TxID)
	if err != nil {
		return storeError("couldn't get reward UTXOs", err)
	}
	reply.NumFetched = avajson.Uint64(len(utxos))
	reply.UTXOs = make([]string, len(utxos))
	for i, b := range utxos {
		s, err := formatting.Encode(args.Encoding, b)
		if err != nil {
			return fmt.Errorf("couldn't encode utxo as %s: %w", args.Encoding, err)
		}
		reply.UTXOs[i] = s
	}
	reply.Encoding = args.Encoding
	return nil
}

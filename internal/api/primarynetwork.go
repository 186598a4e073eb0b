package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// The Primary Network tag: the network's staking, its subnets and
// blockchains, X-chain assets and the chains an address was used on.

// Page sizes of listSubnets and listBlockchains, the reference's.
const (
	DefaultNetworkListPageSize = 100
	MaxNetworkListPageSize     = 10000
	// MaxChainIDAddresses bounds getChainIdsForAddresses' addresses.
	MaxChainIDAddresses = 64
)

// primaryNetworkPos is where the primary network and its genesis chains
// sit in creation order: before every subnet and chain a block created.
var primaryNetworkPos = pchain.Pos{Height: 0, Index: -1}

// genesisChainNames are the names platform.getBlockchains gives the
// primary network's X- and C-chains.
const (
	xChainBlockchainName = "X-Chain"
	cChainBlockchainName = "C-Chain"
)

// primaryNetwork is the primary network as a subnet: no owner, created by
// the genesis, which platform.getSubnets lists first.
func (a *API) primaryNetwork(ctx context.Context) (*pchain.Subnet, error) {
	g, err := a.loadedGenesis(ctx)
	if err != nil {
		return nil, err
	}
	p := primaryNetworkPos
	p.Time = g.time
	return &pchain.Subnet{ID: constants.PrimaryNetworkID, Created: p}, nil
}

// genesisChains are the X- and C-chain as blockchains of the primary
// network, in that order (the order of platform.getBlockchains).
func (a *API) genesisChains(ctx context.Context) ([]*pchain.Blockchain, error) {
	g, err := a.loadedGenesis(ctx)
	if err != nil {
		return nil, err
	}
	return []*pchain.Blockchain{
		{ID: a.network.XChainID, Name: xChainBlockchainName, SubnetID: constants.PrimaryNetworkID, VMID: constants.AVMID,
			Created: pchain.Pos{Index: -2, Time: g.time}},
		{ID: a.network.CChainID, Name: cChainBlockchainName, SubnetID: constants.PrimaryNetworkID, VMID: constants.EVMID,
			Created: pchain.Pos{Index: -1, Time: g.time}},
	}, nil
}

// withGenesis pages through genesis items (at negative indexes of height
// 0, before every stored item) and then the stored ones, read by page, in
// creation order, newest first when desc.
func withGenesis[T any](genesis []T, posOf func(T) pchain.Pos, after *pchain.Pos, limit int, desc bool,
	page func(after *pchain.Pos, limit int) ([]T, error),
) ([]T, error) {
	before := func(p, q pchain.Pos) bool { return p.Height < q.Height || (p.Height == q.Height && p.Index < q.Index) }
	var out []T
	if !desc {
		for _, g := range genesis {
			if after == nil || before(*after, posOf(g)) {
				out = append(out, g)
			}
		}
		if len(out) >= limit {
			return out[:limit], nil
		}
	}
	stored, err := page(after, limit-len(out))
	if err != nil {
		return nil, err
	}
	out = append(out, stored...)
	if desc {
		for i := len(genesis) - 1; i >= 0 && len(out) < limit; i-- {
			if after == nil || before(posOf(genesis[i]), *after) {
				out = append(out, genesis[i])
			}
		}
	}
	return out, nil
}

// listByCreation is a page of listSubnets or listBlockchains (op): the
// genesis items, then those page reads from the store, in creation order,
// oldest first unless sortOrder is desc.
func listByCreation[T any](a *API, r *http.Request, op string, posOf func(T) pchain.Pos,
	genesis func(context.Context) ([]T, error),
	page func(ctx context.Context, after *pchain.Pos, limit int, desc bool) ([]T, error),
) ([]T, string, error) {
	if _, err := a.networks.Network(r); err != nil {
		return nil, "", err
	}
	order, err := SortOrder(r, Asc)
	if err != nil {
		return nil, "", err
	}
	desc := order == Desc
	spec := listSpec{Op: op, Filters: []string{order},
		DefaultPageSize: DefaultNetworkListPageSize, MaxPageSize: MaxNetworkListPageSize}
	return listPage(a, r, spec,
		func(ctx context.Context, after *pchain.Pos, limit int) ([]T, error) {
			g, err := genesis(ctx)
			if err != nil {
				return nil, err
			}
			return withGenesis(g, posOf, after, limit, desc, func(after *pchain.Pos, limit int) ([]T, error) {
				return page(ctx, after, limit, desc)
			})
		},
		func(v T) pchain.Pos { p := posOf(v); return pchain.Pos{Height: p.Height, Index: p.Index} })
}

// listSubnets serves listSubnets: the primary network and every subnet.
func (a *API) listSubnets(w http.ResponseWriter, r *http.Request) error {
	subnets, next, err := listByCreation(a, r, "listSubnets", func(s *pchain.Subnet) pchain.Pos { return s.Created },
		func(ctx context.Context) ([]*pchain.Subnet, error) {
			p, err := a.primaryNetwork(ctx)
			return []*pchain.Subnet{p}, err
		}, a.store.SubnetPage)
	if err != nil {
		return err
	}
	out, err := a.wireSubnets(r.Context(), subnets)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListSubnetsResponse{NextPageToken: next, Subnets: out})
	return nil
}

// getSubnet serves getSubnetById.
func (a *API) getSubnet(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	id, err := PathID(r, "subnetId")
	if err != nil {
		return err
	}
	var sn *pchain.Subnet
	if id == constants.PrimaryNetworkID {
		sn, err = a.primaryNetwork(r.Context())
	} else {
		sn, err = a.store.Subnet(r.Context(), id)
	}
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("subnet %s not found", id)
	}
	if err != nil {
		return err
	}
	out, err := a.wireSubnets(r.Context(), []*pchain.Subnet{sn})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, out[0])
	return nil
}

// wireSubnets renders subnets with their blockchains.
func (a *API) wireSubnets(ctx context.Context, subnets []*pchain.Subnet) ([]Subnet, error) {
	sids := make([]ids.ID, len(subnets))
	for i, s := range subnets {
		sids[i] = s.ID
	}
	chains, err := a.store.SubnetBlockchains(ctx, sids)
	if err != nil {
		return nil, err
	}
	out := make([]Subnet, 0, len(subnets))
	for _, s := range subnets {
		owners := a.bech32(s.Owner.Addresses)
		ws := Subnet{
			CreateBlockTimestamp: unixOrZero(s.Created.Time),
			CreateBlockIndex:     strconv.FormatUint(s.Created.Height, 10),
			SubnetID:             s.ID.String(),
			OwnerAddresses:       owners,
			Threshold:            s.Owner.Threshold,
			Locktime:             s.Owner.Locktime,
			SubnetOwnershipInfo:  SubnetOwnershipInfo{Locktime: s.Owner.Locktime, Threshold: s.Owner.Threshold, Addresses: owners},
			IsL1:                 s.Conversion != nil,
			Blockchains:          []Blockchain{},
		}
		if c := s.Conversion; c != nil {
			ws.L1ConversionTransactionHash = c.TxID.String()
			ws.L1ValidatorManagerDetails = &L1ValidatorManagerDetails{BlockchainID: c.ManagerChainID.String(),
				ContractAddress: hex0x(c.ManagerAddress)}
		}
		scs := chains[s.ID]
		if s.ID == constants.PrimaryNetworkID {
			if scs, err = a.genesisChains(ctx); err != nil {
				return nil, err
			}
		}
		for _, c := range scs {
			ws.Blockchains = append(ws.Blockchains, a.wireBlockchain(c))
		}
		out = append(out, ws)
	}
	return out, nil
}

// listBlockchains serves listBlockchains: the X- and C-chain, then every
// chain a CreateChainTx made.
func (a *API) listBlockchains(w http.ResponseWriter, r *http.Request) error {
	chains, next, err := listByCreation(a, r, "listBlockchains", func(c *pchain.Blockchain) pchain.Pos { return c.Created },
		a.genesisChains, a.store.BlockchainPage)
	if err != nil {
		return err
	}
	resp := ListBlockchainsResponse{NextPageToken: next, Blockchains: make([]Blockchain, 0, len(chains))}
	for _, c := range chains {
		resp.Blockchains = append(resp.Blockchains, a.wireBlockchain(c))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// getBlockchain serves getBlockchainById.
func (a *API) getBlockchain(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	id, err := PathID(r, "blockchainId")
	if err != nil {
		return err
	}
	genesis, err := a.genesisChains(r.Context())
	if err != nil {
		return err
	}
	for _, c := range genesis {
		if c.ID == id {
			WriteJSON(w, http.StatusOK, a.wireBlockchain(c))
			return nil
		}
	}
	c, err := a.store.Blockchain(r.Context(), id)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("blockchain %s not found", id)
	}
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, a.wireBlockchain(c))
	return nil
}

// wireBlockchain renders a blockchain. Its evmChainId is the registry's
// for a served EVM chain, else its genesis' config.chainId.
func (a *API) wireBlockchain(c *pchain.Blockchain) Blockchain {
	wc := Blockchain{
		CreateBlockTimestamp: unixOrZero(c.Created.Time),
		CreateBlockNumber:    strconv.FormatUint(c.Created.Height, 10),
		BlockchainID:         c.ID.String(),
		VMID:                 c.VMID.String(),
		SubnetID:             c.SubnetID.String(),
		BlockchainName:       c.Name,
	}
	if ec, ok := a.chains.ByBlockchainID(c.ID); ok {
		id := ec.ChainID
		wc.EVMChainID = &id
	} else if id, ok := genesisChainID(c.Genesis); ok {
		wc.EVMChainID = &id
	}
	if len(c.Genesis) > 0 {
		wc.GenesisData = genesisData(c.Genesis)
	}
	return wc
}

// genesisChainID is the config.chainId of an EVM genesis.
func genesisChainID(genesis []byte) (uint64, bool) {
	if len(genesis) == 0 || genesis[0] != '{' {
		return 0, false
	}
	var g struct {
		Config struct {
			ChainID json.Number `json:"chainId"`
		} `json:"config"`
	}
	dec := json.NewDecoder(bytes.NewReader(genesis))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		return 0, false
	}
	id, err := strconv.ParseUint(g.Config.ChainID.String(), 10, 64)
	return id, err == nil
}

// getAsset serves getAssetDetails: the X-chain's genesis assets and those
// a CreateAssetTx made.
func (a *API) getAsset(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	if _, err := a.blockchain(r, internal.XChain); err != nil {
		return err
	}
	id, err := PathID(r, "assetId")
	if err != nil {
		return err
	}
	info, found, err := a.findAsset(r.Context(), id)
	if err != nil {
		return err
	}
	if !found {
		return derrors.Missing("asset %s not found", id)
	}
	WriteJSON(w, http.StatusOK, XChainAssetDetails{AssetID: id.String(), Name: info.Name, Symbol: info.Symbol,
		Denomination: info.Denomination, Type: info.Type, CreatedAtTimestamp: info.CreatedAt, Cap: info.Cap})
	return nil
}

// getChainIDs serves getChainIdsForAddresses: for each address, the
// primary-network chains it was used on, those whose UTXO lists (spent
// included: what the address received there, atomic UTXOs included) hold
// one of its UTXOs.
func (a *API) getChainIDs(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	if err := param.OnlyParams(r, "addresses"); err != nil {
		return err
	}
	addrs, err := Addresses(r, "addresses", MaxChainIDAddresses, a.network.HRP)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return derrors.Invalid("addresses is required")
	}
	resp := ChainAddressChainIdMapListResponse{Addresses: make([]ChainAddressChainIdMap, 0, len(addrs))}
	for _, ad := range addrs {
		m := ChainAddressChainIdMap{Address: ad.Bech32, BlockchainIDs: []string{}}
		for i, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
			us, err := a.store.ListUTXOs(r.Context(), store.UTXOQuery{Chain: c, Addresses: []ids.ShortID{ad.ID}, IncludeSpent: true}, nil, 1)
			if err != nil {
				return err
			}
			if len(us) > 0 {
				m.BlockchainIDs = append(m.BlockchainIDs, a.chainIDs[i])
			}
		}
		resp.Addresses = append(resp.Addresses, m)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// getNetworkDetails serves getNetworkDetails from the current
// primary-network stakers at the last indexed block:
//   - totalAmountStaked: the sum of the validators' (delegators') weights;
//   - estimatedAnnualStakingReward: the sum of the current validators' and
//     delegators' potential rewards (what the schema describes: the
//     rewards promised to the current stakers, not a yearly projection);
//   - stakingRatio: all stake over the current supply, a decimal with six
//     digits after the point (rounded);
//   - stakingDistributionByVersion: the active validators whose version
//     the indexed node knows (stakingByVersion).
func (a *API) getNetworkDetails(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	if err := param.OnlyParams(r); err != nil {
		return err
	}
	cur, err := a.store.CurrentStakers(r.Context(), constants.PrimaryNetworkID)
	if err != nil {
		return err
	}
	supply, err := a.store.Supply(r.Context(), constants.PrimaryNetworkID)
	if err != nil && !errors.Is(err, derrors.NotFound) {
		return err
	}
	var (
		vCount, dCount       int
		vStake, dStake, rewd = new(big.Int), new(big.Int), new(big.Int)
	)
	for _, s := range cur.Stakers {
		w := new(big.Int).SetUint64(s.Weight)
		switch s.Kind {
		case pchain.KindValidator:
			vCount++
			vStake.Add(vStake, w)
		case pchain.KindDelegator:
			dCount++
			dStake.Add(dStake, w)
		default:
			continue
		}
		if s.PotentialReward != nil {
			rewd.Add(rewd, new(big.Int).SetUint64(*s.PotentialReward))
		}
	}
	dist, err := a.stakingByVersion(r.Context())
	if err != nil {
		return err
	}
	ratio := "0"
	if supply != nil && supply.Supply > 0 {
		staked := new(big.Int).Add(vStake, dStake)
		ratio = new(big.Rat).SetFrac(staked, new(big.Int).SetUint64(supply.Supply)).FloatString(6)
	}
	WriteJSON(w, http.StatusOK, GetNetworkDetailsResponse{
		ValidatorDetails: ValidatorsDetails{ValidatorCount: vCount, TotalAmountStaked: vStake.String(),
			EstimatedAnnualStakingReward: rewd.String(), StakingDistributionByVersion: dist,
			StakingRatio: ratio},
		DelegatorDetails: DelegatorsDetails{DelegatorCount: dCount, TotalAmountStaked: dStake.String()},
	})
	return nil
}

// stakingByVersion groups the active primary-network validators by the
// version the indexed node knows each to run (Uptime.Version: info.peers,
// read with the uptimes), with their own stake, by version; a validator
// that is no peer of the node is left out.
func (a *API) stakingByVersion(ctx context.Context) ([]StakingDistribution, error) {
	out := []StakingDistribution{}
	if a.uptimes == nil {
		return out, nil
	}
	v, err := a.validatorView(ctx)
	if err != nil {
		return nil, err
	}
	type group struct {
		stake *big.Int
		n     int
	}
	byVersion := map[string]*group{}
	for i := range v.vals {
		it := &v.vals[i]
		if it.status != statusActive || it.row.SubnetID != constants.PrimaryNetworkID || it.row.Kind != internal.StakerValidator ||
			it.uptime.Version == "" {
			continue
		}
		g := byVersion[it.uptime.Version]
		if g == nil {
			g = &group{stake: new(big.Int)}
			byVersion[it.uptime.Version] = g
		}
		g.stake.Add(g.stake, new(big.Int).SetUint64(it.row.Weight))
		g.n++
	}
	for ver, g := range byVersion {
		out = append(out, StakingDistribution{Version: ver, AmountStaked: g.stake.String(), ValidatorCount: g.n})
	}
	slices.SortFunc(out, func(x, y StakingDistribution) int { return strings.Compare(x.Version, y.Version) })
	return out, nil
}

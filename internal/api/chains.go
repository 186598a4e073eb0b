package api

import (
	"context"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/param"
)

// The "EVM Chains" operations: the EVM chains served (the registry's), and
// the {chainId} every EVM endpoint takes.

// listChains serves supportedChains: every chain, or those of network
// and with feature. All the chains are of the one network avaindex
// indexes: another network of the schema's enum lists none.
func (a *API) listChains(w http.ResponseWriter, r *http.Request) error {
	chains, err := a.networkChains(r)
	if err != nil {
		return err
	}
	feature, err := param.Enum(r, "feature", "", internal.EVMFeatures...)
	if err != nil {
		return err
	}
	resp := ListChainsResponse{Chains: make([]EVMChainInfo, 0, len(chains))}
	for _, c := range chains {
		if feature != "" && !slices.Contains(c.EnabledFeatures, feature) {
			continue
		}
		resp.Chains = append(resp.Chains, chainInfo(c))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// networkChains are the chains of the optional network query parameter:
// all of them for the served network's names, none for another network
// of the schema's enum.
func (a *API) networkChains(r *http.Request) ([]evmchains.Chain, error) {
	network, hasNetwork, err := param.QueryValue(r, "network")
	if err != nil {
		return nil, err
	}
	if hasNetwork {
		if _, err := a.networks.Parse(network); err != nil {
			if !slices.Contains([]string{Mainnet, Fuji, Testnet}, network) {
				names := append([]string{Mainnet, Fuji, Testnet}, a.networks.Names()...)
				return nil, derrors.Invalid("network must be one of %s, got %s", joinUnique(names), got(network))
			}
			return nil, nil
		}
	}
	return a.chains.List(), nil
}

// getChain serves getChainInfo.
func (a *API) getChain(w http.ResponseWriter, r *http.Request) error {
	c, err := a.evmChain(r)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, chainInfo(c))
	return nil
}

// evmChain finds the served chain {chainId} names (see ChainIDParam).
func (a *API) evmChain(r *http.Request) (evmchains.Chain, error) {
	id, err := ChainIDParam(r)
	if err != nil {
		return evmchains.Chain{}, err
	}
	var (
		c  evmchains.Chain
		ok bool
	)
	if id.IsEVM {
		c, ok = a.chains.ByChainID(id.EVM)
	} else {
		c, ok = a.chains.ByBlockchainID(id.Blockchain)
	}
	if !ok {
		return evmchains.Chain{}, derrors.Missing("chainId %s is not a chain served here (GET /v1/chains lists them)", id.Text)
	}
	return c, nil
}

// chainInfo renders a chain.
func chainInfo(c evmchains.Chain) EVMChainInfo {
	out := EVMChainInfo{
		ChainID:         strconv.FormatUint(c.ChainID, 10),
		Status:          string(c.Status),
		ChainName:       c.Name,
		Description:     c.Description,
		VMName:          "EVM",
		ExplorerURL:     c.ExplorerURL,
		RPCURL:          c.RPCURL,
		WSURL:           c.WSURL,
		IsTestnet:       c.IsTestnet,
		NetworkToken:    networkToken(c.NetworkToken),
		ChainLogoURI:    c.LogoURI,
		Private:         c.Private,
		EnabledFeatures: slices.Clone(c.EnabledFeatures),
	}
	if out.Status == "" {
		out.Status = string(evmchains.Unavailable)
	}
	if out.EnabledFeatures == nil {
		out.EnabledFeatures = []string{}
	}
	if c.BlockchainID != ids.Empty {
		out.PlatformChainID = c.BlockchainID.String()
		out.SubnetID = c.SubnetID.String()
		if c.VMID != ids.Empty {
			out.VMID = c.VMID.String()
		}
	}
	if c.Multicall != nil {
		out.UtilityAddresses = &UtilityAddresses{Multicall: c.Multicall.Hex()}
	}
	return out
}

func networkToken(t evmchains.NetworkToken) NetworkToken {
	return NetworkToken{Name: t.Name, Symbol: t.Symbol, Decimals: int(t.Decimals), LogoURI: t.LogoURI, Description: t.Description}
}

func joinUnique(names []string) string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// noChains is the registry of a Data API that serves no EVM chain.
type noChains struct{}

func (noChains) List() []evmchains.Chain                       { return nil }
func (noChains) ByChainID(uint64) (evmchains.Chain, bool)      { return evmchains.Chain{}, false }
func (noChains) ByBlockchainID(ids.ID) (evmchains.Chain, bool) { return evmchains.Chain{}, false }
func (noChains) NativeBalance(context.Context, uint64, common.Address, *uint64) (*big.Int, error) {
	return nil, derrors.NotFound
}
func (noChains) TokenBalance(context.Context, uint64, common.Address, common.Address, uint64) (*big.Int, error) {
	return nil, derrors.NotFound
}

// listAddressChains serves listAddressChains and the deprecated
// getAddressChains: the served chains on which the address took part in
// a tx (the address index), in the registry's order.
func (a *API) listAddressChains(w http.ResponseWriter, r *http.Request) error {
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	chains := a.chains.List()
	active, err := a.evm.EVMAddressChains(r.Context(), chainIDs(chains), addr)
	if err != nil {
		return err
	}
	resp := ListAddressChainsResponse{IndexedChains: make([]EVMChainInfo, 0, len(active)), UnindexedChains: []string{}}
	for _, c := range chains {
		if slices.Contains(active, c.ChainID) {
			resp.IndexedChains = append(resp.IndexedChains, chainInfo(c))
		}
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// getAddressChains serves the deprecated getAddressChains, routed as
// /v1/chains/{addressSegment}/{address}: any other segment than "address"
// is the 404 of a path no route serves.
func (a *API) getAddressChains(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("addressSegment") != "address" {
		return derrors.Missing("no route for %s %s", r.Method, param.Clip(r.URL.EscapedPath(), 256))
	}
	return a.listAddressChains(w, r)
}

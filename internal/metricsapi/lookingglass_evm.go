package metricsapi

import (
	"context"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The Looking Glass operations over EVM chains: an NFT contract's
// holders, an ERC-20 token's holders over a time range, and the net
// BTC.b bridged per address. Their lists are computed whole and paged by
// offset, bounded by maxLookingGlassResults.

// maxLookingGlassResults bounds the addresses one query may match.
const maxLookingGlassResults = 1_000_000

// BTCbChainID is the EVM chain whose BTC.b the reference's
// getAddressesByBtcbBridged names in its path (the Avalanche C-chain).
const BTCbChainID = 43114

// evmChainParam reads an EVM chain id the service indexes from the value v
// of the parameter name: a 400 when it is no chain id, a 404 when the
// chain is not indexed.
func (a *API) evmChainParam(name, v string) (uint64, error) {
	id, ok := param.ParseInt(v)
	if !ok || id < 1 {
		return 0, derrors.Invalid("%s must be an EVM chain id (a positive integer), got %s", name, derrors.Echo(v))
	}
	for _, c := range a.evm() {
		if c.EVMChainID == uint64(id) {
			return uint64(id), nil
		}
	}
	return 0, derrors.Client(derrors.NotFound, "%s %d is not an EVM chain this service indexes", name, id)
}

// addressParam reads an EVM address from the value v of the parameter
// name.
func addressParam(name, v string) (common.Address, error) {
	if !common.IsHexAddress(v) || len(v) != 42 {
		return common.Address{}, derrors.Invalid("%s must be an EVM address (0x and 40 hex digits), got %s", name, derrors.Echo(v))
	}
	return common.HexToAddress(v), nil
}

// amountParam reads a non-negative integer amount (base units, at most
// 2^256-1) from the value v of the parameter name.
func amountParam(name, v string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(v, 10)
	if !ok || len(v) > 78 || n.Sign() < 0 || n.BitLen() > 256 || v[0] == '+' {
		return nil, derrors.Invalid("%s must be a non-negative integer amount in the token's base units, got %s", name, derrors.Echo(v))
	}
	return n, nil
}

// requiredQuery returns the query parameter name, a 400 when absent.
func requiredQuery(r *http.Request, name string) (string, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil {
		return "", err
	}
	if !ok || v == "" {
		return "", derrors.Invalid("%s is required", name)
	}
	return v, nil
}

// offsetPage reads the page size (1,000 by default, at most 5,000) and
// the offset a page token of scope carries.
func (a *API) offsetPage(r *http.Request, scope string) (size int, offset int64, err error) {
	if size, err = param.PageSize(r, defaultLookingGlassPage, maxLookingGlassPage); err != nil {
		return 0, 0, err
	}
	token, err := param.PageToken(r)
	if err != nil || token == "" {
		return size, 0, err
	}
	offset, err = a.tokens.decode(token, scope, a.now())
	return size, offset, err
}

// amountPage answers the page [offset, offset+size) of list.
func (a *API) amountPage(list []store.AddressAmount, scope string, offset int64, size int) LookingGlassResponse {
	res := LookingGlassResponse{Addresses: []AddressDetails{}}
	if offset >= int64(len(list)) {
		return res
	}
	list = list[offset:]
	if len(list) > size {
		res.NextPageToken = a.tokens.encode(scope, offset+int64(size), a.now())
		list = list[:size]
	}
	for _, x := range list {
		res.Addresses = append(res.Addresses, AddressDetails{Address: x.Address.Hex(), SortKey: x.Amount.String()})
	}
	return res
}

// nftHolders serves GET /v2/chains/{chainId}/contracts/{address}/nfts:listHolders:
// the current holders of an ERC-721 or ERC-1155 contract by address, each
// with how many of its tokens it holds (ERC-1155: how many token ids).
func (a *API) nftHolders(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "pageToken", "pageSize"); err != nil {
		return err
	}
	chain, err := a.evmChainParam("chainId", r.PathValue("chainId"))
	if err != nil {
		return err
	}
	contract, err := addressParam("address", r.PathValue("address"))
	if err != nil {
		return err
	}
	// The token carries the page's last holder (a keyset cursor, not an
	// offset): a deep page costs as much as the first.
	scope := param.Scope("v2/nfts:listHolders/after", strconv.FormatUint(chain, 10), contract.Hex())
	size, err := param.PageSize(r, defaultLookingGlassPage, maxLookingGlassPage)
	if err != nil {
		return err
	}
	var after *common.Address
	token, err := param.PageToken(r)
	if err != nil {
		return err
	}
	if token != "" {
		key, err := a.tokens.decodeKey(token, scope, common.AddressLength, a.now())
		if err != nil {
			return err
		}
		after = new(common.Address)
		copy(after[:], key)
	}
	ctx := r.Context()
	// The store keeps the holders and their totals (nft_holders): a page
	// is a range of their key, read for each request.
	c, err := a.store.NFTCollection(ctx, chain, contract)
	if err != nil {
		return err
	}
	hs, err := a.store.NFTHolders(ctx, chain, contract, c.Type, after, size+1)
	if err != nil {
		return err
	}
	res := NftHoldersResponse{Addresses: []AddressDetails{}, TotalHolders: c.Holders, TotalTokens: c.Tokens}
	if len(hs) > size {
		hs = hs[:size]
		res.NextPageToken = a.tokens.encodeKey(scope, hs[size-1].Address[:], a.now())
	}
	for _, h := range hs {
		res.Addresses = append(res.Addresses, AddressDetails{Address: h.Address.Hex(), SortKey: strconv.FormatInt(h.Count, 10)})
	}
	if c.Name != "" {
		res.NftCollectionName = []string{c.Name}
	}
	if c.Symbol != "" {
		res.NftSymbol = []string{c.Symbol}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// balancesOverTime serves GET /v2/chains/{chainId}/contracts/{address}/balances:
// the addresses whose balance of the ERC-20 token was at least threshold
// at some time of [startTimestamp, endTimestamp], each with its balance
// at endTimestamp.
func (a *API) balancesOverTime(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r, "threshold", "startTimestamp", "endTimestamp", "pageToken", "pageSize"); err != nil {
		return err
	}
	chain, err := a.evmChainParam("chainId", r.PathValue("chainId"))
	if err != nil {
		return err
	}
	token, err := addressParam("address", r.PathValue("address"))
	if err != nil {
		return err
	}
	v, err := requiredQuery(r, "threshold")
	if err != nil {
		return err
	}
	threshold, err := amountParam("threshold", v)
	if err != nil {
		return err
	}
	from, to, err := rangeParams(r, "startTimestamp", "endTimestamp")
	if err != nil {
		return err
	}
	scope := param.Scope("v2/contracts/balances", strconv.FormatUint(chain, 10), token.Hex(), threshold.String(),
		strconv.FormatInt(from, 10), strconv.FormatInt(to, 10))
	size, offset, err := a.offsetPage(r, scope)
	if err != nil {
		return err
	}
	list, err := a.balanceList(r.Context(), store.BalanceQuery{ChainID: chain, Token: &token, From: from, To: to,
		Min: threshold, Mode: store.AnyTime, Max: maxLookingGlassResults}, false)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.amountPage(list, scope, offset, size))
	return nil
}

// btcbBridged serves GET /v2/chains/43114/btcb/bridged:getAddresses: the
// addresses whose net BTC.b bridged (minted to them by the bridge less
// burned from them to bridge back) is at least threshold. The BTC.b
// contract is configured per chain (--btcb-bridge); where it is not, the
// answer is a 404.
func (a *API) btcbBridged(chain uint64) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := param.OnlyParams(r, "threshold", "pageToken", "pageSize"); err != nil {
			return err
		}
		v, err := requiredQuery(r, "threshold")
		if err != nil {
			return err
		}
		threshold, err := amountParam("threshold", v)
		if err != nil {
			return err
		}
		token, ok := a.btcb[chain]
		if !ok {
			return derrors.Client(derrors.NotFound, "no BTC.b bridge contract is configured for chain %d (--btcb-bridge %d=ADDRESS)", chain, chain)
		}
		if _, err := a.evmChainParam("chainId", strconv.FormatUint(chain, 10)); err != nil {
			return err
		}
		scope := param.Scope("v2/btcb/bridged:getAddresses", strconv.FormatUint(chain, 10), token.Hex(), threshold.String())
		size, offset, err := a.offsetPage(r, scope)
		if err != nil {
			return err
		}
		list, err := a.store.BridgedAmounts(r.Context(), chain, token, threshold, maxLookingGlassResults)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, a.amountPage(list, scope, offset, size))
		return nil
	}
}

// AddressDetails is an EVM address and the route's value of it.
type AddressDetails struct {
	Address string `json:"address"`
	SortKey string `json:"sortKey"`
}

// LookingGlassResponse is a page of EVM addresses.
type LookingGlassResponse struct {
	NextPageToken string           `json:"nextPageToken,omitempty"`
	Addresses     []AddressDetails `json:"addresses"`
}

// NftHoldersResponse is a page of an NFT contract's holders.
type NftHoldersResponse struct {
	NextPageToken     string           `json:"nextPageToken,omitempty"`
	Addresses         []AddressDetails `json:"addresses"`
	NftCollectionName []string         `json:"nftCollectionName,omitempty"`
	NftSymbol         []string         `json:"nftSymbol,omitempty"`
	TotalHolders      int64            `json:"totalHolders"`
	TotalTokens       int64            `json:"totalTokens"`
}

// lookingGlassRoutes are the Looking Glass routes over EVM chains.
func (a *API) lookingGlassRoutes() []Route {
	return []Route{
		{"GET /v2/chains/{chainId}/contracts/{address}/nfts:listHolders", a.handle(a.nftHolders)},
		{"GET /v2/chains/{chainId}/contracts/{address}/balances", a.handle(a.balancesOverTime)},
		{"GET /v2/chains/43114/btcb/bridged:getAddresses", a.handle(a.btcbBridged(BTCbChainID))},
		{"POST /v1/lookingGlass/compositeQuery", a.handle(a.compositeQuery("v1"))},
		{"POST /v2/lookingGlass/compositeQuery", a.handle(a.compositeQuery("v2"))},
	}
}

// balanceList answers q (an NFT holders query when nft) at the chain's
// current state, from the cache when it holds it.
func (a *API) balanceList(ctx context.Context, q store.BalanceQuery, nft bool) ([]store.AddressAmount, error) {
	tok := ""
	if q.Token != nil {
		tok = q.Token.Hex()
	}
	key := param.Scope("balances", strconv.FormatBool(nft), strconv.FormatUint(q.ChainID, 10), tok, strconv.FormatInt(q.From, 10),
		strconv.FormatInt(q.To, 10), q.Min.String(), strconv.Itoa(int(q.Mode)), strconv.Itoa(q.Max), strconv.FormatBool(q.NoAmounts))
	e, err := a.cached(ctx, q.ChainID, key, func() (*lgEntry, error) {
		var (
			list []store.AddressAmount
			err  error
		)
		if nft {
			list, err = a.store.NFTHoldersOver(ctx, q)
		} else {
			list, err = a.store.BalanceHolders(ctx, q)
		}
		return &lgEntry{list: list}, err
	})
	if err != nil {
		return nil, err
	}
	return e.list, nil
}

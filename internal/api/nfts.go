package api

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The "NFTs" operations: listTokens (a collection's tokens),
// getTokenDetails and reindexNft; and the "EVM Balances" operations of
// the tokens an address holds: listErc721Balances, listErc1155Balances and
// listCollectibleBalances. Tokens and their metadata are what the indexer
// and the metadata worker (internal/nftmeta) stored.

// ReindexEvery is how often one token's metadata may be reindexed.
const ReindexEvery = time.Hour

// MaxBalancePageSize is the balance lists' largest pageSize.
const MaxBalancePageSize = 500

// reindexSuffix ends the reindexNft path segment {tokenId}:reindex, which
// http.ServeMux cannot route: the route's wildcard is the whole segment.
const reindexSuffix = ":reindex"

// TokenID parses the path segment name, a token id: a decimal (or
// 0x-prefixed hexadecimal) uint256.
func TokenID(r *http.Request, name string) (*big.Int, error) {
	return parseTokenID(name, r.PathValue(name))
}

func parseTokenID(name, v string) (*big.Int, error) {
	id, ok := new(big.Int), false
	switch {
	case strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X"):
		_, ok = id.SetString(v[2:], 16)
	case allDigits(v) && v != "":
		_, ok = id.SetString(v, 10)
	}
	if !ok || id.Sign() < 0 || id.BitLen() > 256 {
		return nil, derrors.Invalid("%s must be a token id, a decimal integer below 2^256, got %s", name, got(v))
	}
	return id, nil
}

// OptionalEVMAddress returns the query parameter name, an address, and
// nil when absent.
func OptionalEVMAddress(r *http.Request, name string) (*common.Address, error) {
	v, ok, err := param.QueryValue(r, name)
	if err != nil || !ok {
		return nil, err
	}
	if len(v) != 42 || (v[:2] != "0x" && v[:2] != "0X") || !common.IsHexAddress(v) {
		return nil, derrors.Invalid("%s must be a 0x-prefixed 20-byte hex address, got %s", name, got(v))
	}
	a := common.HexToAddress(v)
	return &a, nil
}

func metadataTimestamp(m *internal.NFTMetadata) *int64 {
	if m.UpdatedAt.IsZero() {
		return nil
	}
	s := m.UpdatedAt.Unix()
	return &s
}

func status(m *internal.NFTMetadata) string {
	if m.Status == "" {
		return string(internal.NFTUnindexed)
	}
	return string(m.Status)
}

func erc721Metadata(m *internal.NFTMetadata) Erc721TokenMetadata {
	return Erc721TokenMetadata{IndexStatus: status(m), MetadataLastUpdatedTimestamp: metadataTimestamp(m), Name: m.Name,
		Symbol: m.Symbol, ImageURI: m.Image, Description: m.Description, AnimationURI: m.Animation, ExternalURL: m.ExternalURL,
		Background: m.Background, Attributes: m.Attributes}
}

func erc1155Metadata(m *internal.NFTMetadata) Erc1155TokenMetadata {
	return Erc1155TokenMetadata{IndexStatus: status(m), MetadataLastUpdatedTimestamp: metadataTimestamp(m), Name: m.Name,
		Symbol: m.Symbol, ImageURI: m.Image, Description: m.Description, AnimationURI: m.Animation, ExternalURL: m.ExternalURL,
		Background: m.Background, Decimals: m.Decimals, Properties: m.Properties}
}

// nftToken renders a stored token: an Erc721Token or an Erc1155Token.
func (c *contracts) nftToken(ctx context.Context, t *internal.NFTToken) (any, error) {
	if t.Type == internal.ERC1155 {
		return Erc1155Token{Address: t.Token.Hex(), ERCType: string(internal.ERC1155), TokenID: decimal(t.TokenID),
			TokenURI: t.URI, Metadata: erc1155Metadata(&t.Metadata)}, nil
	}
	v, err := c.get(ctx, t.Token)
	if err != nil {
		return nil, err
	}
	out := Erc721Token{Address: t.Token.Hex(), Name: v.name(), Symbol: v.symbol(), ERCType: string(internal.ERC721),
		TokenID: decimal(t.TokenID), TokenURI: t.URI, Metadata: erc721Metadata(&t.Metadata)}
	if t.Owner != nil {
		out.OwnerAddress = t.Owner.Hex()
	}
	return out, nil
}

// collection returns the NFT contract at the path's address; NotFound when
// the chain has no ERC-721 or ERC-1155 contract there: none that says so
// through ERC-165, and none whose transfers minted tokens (a contract
// that emits ERC-721 transfers without ERC-165).
func (a *API) collection(r *http.Request, chain evmchains.Chain) (common.Address, error) {
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return addr, err
	}
	c, err := a.evm.EVMContract(r.Context(), chain.ChainID, addr)
	if err != nil && !errors.Is(err, derrors.NotFound) {
		return addr, err
	}
	if err == nil && (c.Type == internal.ERC721 || c.Type == internal.ERC1155) {
		return addr, nil
	}
	some, err := a.evm.NFTTokens(r.Context(), chain.ChainID, addr, nil, 1)
	if err != nil {
		return addr, err
	}
	if len(some) == 0 {
		return addr, derrors.Missing("address %s is not an ERC-721 or ERC-1155 contract indexed on chain %d", addr.Hex(), chain.ChainID)
	}
	return addr, nil
}

// tokenCursor is the keyset of listTokens' page tokens: the last token id.
type tokenCursor struct {
	ID string `json:"id"`
}

// listTokens serves listTokens.
func (a *API) listTokens(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := a.collection(r, chain)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listTokens", Filters: []string{strconv.FormatUint(chain.ChainID, 10), addr.Hex()}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *tokenCursor, limit int) ([]internal.NFTToken, error) {
			var id *big.Int
			if after != nil {
				var ok bool
				if id, ok = new(big.Int).SetString(after.ID, 10); !ok {
					return nil, derrors.Invalid("pageToken is not valid")
				}
			}
			return a.evm.NFTTokens(ctx, chain.ChainID, addr, id, limit)
		},
		func(t internal.NFTToken) tokenCursor { return tokenCursor{ID: t.TokenID.String()} })
	if err != nil {
		return err
	}
	c := a.contracts(chain.ChainID)
	tokens, err := renderPage(r.Context(), items, c.nftToken)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListNftTokens{NextPageToken: next, Tokens: tokens})
	return nil
}

// getTokenDetails serves getTokenDetails.
func (a *API) getTokenDetails(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	id, err := TokenID(r, "tokenId")
	if err != nil {
		return err
	}
	t, err := a.evm.NFTToken(r.Context(), chain.ChainID, addr, id)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("token %s of %s is not an NFT minted on chain %d", id, addr.Hex(), chain.ChainID)
	}
	if err != nil {
		return err
	}
	out, err := a.contracts(chain.ChainID).nftToken(r.Context(), t)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// reindexNft serves reindexNft: it queues the token's metadata to be
// fetched again, once an hour at most per token (the store keeps the last
// request's time, so the limit holds across restarts and instances).
func (a *API) reindexNft(w http.ResponseWriter, r *http.Request) error {
	seg := r.PathValue("tokenIdReindex")
	v, ok := strings.CutSuffix(seg, reindexSuffix)
	if !ok {
		return derrors.Missing("no route for %s %s", r.Method, param.Clip(r.URL.EscapedPath(), 256))
	}
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	id, err := parseTokenID("tokenId", v)
	if err != nil {
		return err
	}
	retry, err := a.evm.ReindexNFT(r.Context(), chain.ChainID, addr, id, time.Now(), ReindexEvery)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("token %s of %s is not an NFT minted on chain %d", id, addr.Hex(), chain.ChainID)
	}
	if err != nil {
		return err
	}
	if retry > 0 {
		secs := int(retry / time.Second)
		h := w.Header()
		h.Set("Retry-After", strconv.Itoa(secs))
		h.Set("RateLimit-Policy", fmt.Sprintf("1;w=%d;name=\"reindex\"", int(ReindexEvery/time.Second)))
		h.Set("RateLimit-Limit", "1")
		h.Set("RateLimit-Remaining", "0")
		h.Set("RateLimit-Reset", strconv.Itoa(secs))
		return derrors.Client(derrors.ResourceExhausted, "token %s of %s was reindexed less than an hour ago: retry in %d seconds", id, addr.Hex(), secs)
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// holdingCursor is the keyset of the balance lists' page tokens.
type holdingCursor struct {
	A  string `json:"a"`
	ID string `json:"id"`
	// T is 721 or 1155 for listCollectibleBalances, which merges both.
	T int `json:"t,omitempty"`
}

func (c *holdingCursor) key() (*store.NFTKey, error) {
	if c == nil {
		return nil, nil
	}
	id, ok := new(big.Int).SetString(c.ID, 10)
	if !ok || !common.IsHexAddress(c.A) {
		return nil, derrors.Invalid("pageToken is not valid")
	}
	return &store.NFTKey{Token: common.HexToAddress(c.A), TokenID: id}, nil
}

// holding is one item of the balance lists: an ERC-721 token owned, or an
// ERC-1155 balance.
type holding struct {
	token   internal.NFTToken
	balance *big.Int // ERC-1155
}

func holdingKey(h holding) holdingCursor {
	return holdingCursor{A: h.token.Token.Hex(), ID: h.token.TokenID.String(), T: ercCodeOf(h.token.Type)}
}

func ercCodeOf(t internal.ERCType) int {
	if t == internal.ERC1155 {
		return 1155
	}
	return 721
}

// balanceQuery is what the balance lists share: the chain, the address,
// the optional contract.
type balanceQuery struct {
	chain    evmchains.Chain
	addr     common.Address
	contract *common.Address
}

func (a *API) balanceQuery(r *http.Request) (balanceQuery, error) {
	var q balanceQuery
	var err error
	if q.chain, err = a.evmChain(r); err != nil {
		return q, err
	}
	if q.addr, err = EVMAddress(r, "address"); err != nil {
		return q, err
	}
	q.contract, err = OptionalEVMAddress(r, "contractAddress")
	return q, err
}

func (q balanceQuery) filters() []string {
	c := ""
	if q.contract != nil {
		c = q.contract.Hex()
	}
	return []string{strconv.FormatUint(q.chain.ChainID, 10), q.addr.Hex(), c}
}

func (a *API) owned(ctx context.Context, q balanceQuery, after *holdingCursor, limit int) ([]holding, error) {
	k, err := after.key()
	if err != nil {
		return nil, err
	}
	ts, err := a.evm.NFTsOwned(ctx, q.chain.ChainID, q.addr, q.contract, k, limit)
	out := make([]holding, len(ts))
	for i := range ts {
		out[i] = holding{token: ts[i]}
	}
	return out, err
}

func (a *API) held(ctx context.Context, q balanceQuery, after *holdingCursor, limit int) ([]holding, error) {
	k, err := after.key()
	if err != nil {
		return nil, err
	}
	hs, err := a.evm.NFTHoldings(ctx, q.chain.ChainID, q.addr, q.contract, k, limit)
	out := make([]holding, len(hs))
	for i := range hs {
		out[i] = holding{token: hs[i].NFTToken, balance: hs[i].Balance}
	}
	return out, err
}

// heldAt pages the ERC-1155 balances holder had after block number.
func (a *API) heldAt(ctx context.Context, q balanceQuery, number uint64, after *holdingCursor, limit int) ([]holding, error) {
	k, err := after.key()
	if err != nil {
		return nil, err
	}
	hs, err := a.evm.NFTHoldingsAt(ctx, q.chain.ChainID, q.addr, q.contract, number)
	if err != nil {
		return nil, err
	}
	var out []holding
	for i := range hs {
		h := holding{token: hs[i].NFTToken, balance: hs[i].Balance}
		if k != nil && !lessHolding(holding{token: internal.NFTToken{Token: k.Token, TokenID: k.TokenID}}, h) {
			continue
		}
		if out = append(out, h); len(out) == limit {
			break
		}
	}
	return out, nil
}

// nativeTokenBalance is the address's native balance at the last indexed
// block, as the balance lists carry it.
func (a *API) nativeTokenBalance(ctx context.Context, chain evmchains.Chain, addr common.Address, number *uint64) (NativeTokenBalance, error) {
	bal, err := a.nativeBalance(ctx, chain, addr, number)
	if err != nil {
		return NativeTokenBalance{}, err
	}
	return nativeToken(chain, bal), nil
}

// nativeToken is a balance of chain's network token.
func nativeToken(chain evmchains.Chain, bal *big.Int) NativeTokenBalance {
	tok := chain.NetworkToken
	return NativeTokenBalance{Name: tok.Name, Symbol: tok.Symbol, Decimals: int(tok.Decimals), LogoURI: tok.LogoURI,
		ChainID: strconv.FormatUint(chain.ChainID, 10), Balance: bal.String()}
}

func (c *contracts) erc721Balance(ctx context.Context, h *holding) (Erc721TokenBalance, error) {
	t, err := c.nftToken(ctx, &h.token)
	if err != nil {
		return Erc721TokenBalance{}, err
	}
	tok, _ := t.(Erc721Token)
	return Erc721TokenBalance{Erc721Token: tok, ChainID: strconv.FormatUint(c.chainID, 10)}, nil
}

func erc1155Balance(chainID uint64, h *holding) Erc1155TokenBalance {
	t := &h.token
	return Erc1155TokenBalance{Erc1155Token: Erc1155Token{Address: t.Token.Hex(), ERCType: string(internal.ERC1155),
		TokenID: decimal(t.TokenID), TokenURI: t.URI, Metadata: erc1155Metadata(&t.Metadata)},
		ChainID: strconv.FormatUint(chainID, 10), Balance: decimal(h.balance)}
}

// listErc721Balances serves listErc721Balances.
func (a *API) listErc721Balances(w http.ResponseWriter, r *http.Request) error {
	q, err := a.balanceQuery(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listErc721Balances", Filters: q.filters(), MaxPageSize: MaxBalancePageSize}
	items, next, err := listPage(a, r, spec, func(ctx context.Context, after *holdingCursor, limit int) ([]holding, error) {
		return a.owned(ctx, q, after, limit)
	}, holdingKey)
	if err != nil {
		return err
	}
	native, err := a.nativeTokenBalance(r.Context(), q.chain, q.addr, nil)
	if err != nil {
		return err
	}
	c := a.contracts(q.chain.ChainID)
	balances, err := renderPage(r.Context(), items, c.erc721Balance)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, ListErc721BalancesResponse{NextPageToken: next, NativeTokenBalance: native, Erc721TokenBalances: balances})
	return nil
}

// listErc1155Balances serves listErc1155Balances: the kept balances at
// the last indexed block, a past blockNumber's summed from the holder's
// transfers.
func (a *API) listErc1155Balances(w http.ResponseWriter, r *http.Request) error {
	q, err := a.balanceQuery(r)
	if err != nil {
		return err
	}
	number, err := BlockNumber(r, "blockNumber")
	if err != nil {
		return err
	}
	// A past block's balances are summed from the transfers; the last
	// indexed block's are the kept ones.
	past := false
	if number != nil {
		head, err := a.evm.EVMHead(r.Context(), q.chain.ChainID)
		if err != nil && !errors.Is(err, derrors.NotFound) {
			return err
		}
		if err != nil || *number > head.Number {
			last := "none"
			if head != nil {
				last = strconv.FormatUint(head.Number, 10)
			}
			return derrors.Missing("blockNumber %d is not indexed yet on chain %d (the last indexed block is %s)", *number, q.chain.ChainID, last)
		}
		past = *number < head.Number
	}
	filters := append(q.filters(), "")
	if past {
		filters[len(filters)-1] = strconv.FormatUint(*number, 10)
	}
	spec := listSpec{Op: "listErc1155Balances", Filters: filters, MaxPageSize: MaxBalancePageSize}
	items, next, err := listPage(a, r, spec, func(ctx context.Context, after *holdingCursor, limit int) ([]holding, error) {
		if !past {
			return a.held(ctx, q, after, limit)
		}
		return a.heldAt(ctx, q, *number, after, limit)
	}, holdingKey)
	if err != nil {
		return err
	}
	native, err := a.nativeTokenBalance(r.Context(), q.chain, q.addr, number)
	if err != nil {
		return err
	}
	resp := ListErc1155BalancesResponse{NextPageToken: next, NativeTokenBalance: native, Erc1155TokenBalances: make([]Erc1155TokenBalance, 0, len(items))}
	for i := range items {
		resp.Erc1155TokenBalances = append(resp.Erc1155TokenBalances, erc1155Balance(q.chain.ChainID, &items[i]))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// listCollectibleBalances serves listCollectibleBalances: the ERC-721
// tokens owned and the ERC-1155 balances, merged by contract then token id
// (a token is of one standard, so the key is unique).
func (a *API) listCollectibleBalances(w http.ResponseWriter, r *http.Request) error {
	q, err := a.balanceQuery(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listCollectibleBalances", Filters: q.filters(), MaxPageSize: MaxBalancePageSize}
	items, next, err := listPage(a, r, spec, func(ctx context.Context, after *holdingCursor, limit int) ([]holding, error) {
		owned, err := a.owned(ctx, q, after, limit)
		if err != nil {
			return nil, err
		}
		held, err := a.held(ctx, q, after, limit)
		if err != nil {
			return nil, err
		}
		out := make([]holding, 0, min(limit, len(owned)+len(held)))
		for len(out) < limit && (len(owned) > 0 || len(held) > 0) {
			if len(held) == 0 || (len(owned) > 0 && lessHolding(owned[0], held[0])) {
				out, owned = append(out, owned[0]), owned[1:]
			} else {
				out, held = append(out, held[0]), held[1:]
			}
		}
		return out, nil
	}, holdingKey)
	if err != nil {
		return err
	}
	c := a.contracts(q.chain.ChainID)
	resp := ListCollectibleBalancesResponse{NextPageToken: next, CollectibleBalances: make([]any, 0, len(items))}
	for i := range items {
		if items[i].token.Type == internal.ERC1155 {
			resp.CollectibleBalances = append(resp.CollectibleBalances, erc1155Balance(q.chain.ChainID, &items[i]))
			continue
		}
		b, err := c.erc721Balance(r.Context(), &items[i])
		if err != nil {
			return err
		}
		resp.CollectibleBalances = append(resp.CollectibleBalances, b)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

func lessHolding(x, y holding) bool {
	if c := x.token.Token.Cmp(y.token.Token); c != 0 {
		return c < 0
	}
	return x.token.TokenID.Cmp(y.token.TokenID) < 0
}

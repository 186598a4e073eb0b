package api

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/param"
)

// The "EVM Balances" operation getNativeBalance: an address's balance of
// the chain's native token after a block (the last indexed one by
// default), from the index when it keeps balances (the node traced
// every block), else from the chain's RPC (eth_getBalance).

func (a *API) getNativeBalance(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	number, err := BlockNumber(r, "blockNumber")
	if err != nil {
		return err
	}
	currency, err := Currency(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	bal, err := a.nativeBalance(ctx, chain, addr, number)
	if err != nil {
		return err
	}
	tok := chain.NetworkToken
	out := NativeTokenBalance{Name: tok.Name, Symbol: tok.Symbol, Decimals: int(tok.Decimals), LogoURI: tok.LogoURI,
		ChainID: strconv.FormatUint(chain.ChainID, 10), Balance: bal.String()}
	price, ok, err := a.responsePrices().TokenPrice(ctx, chain.ChainID, common.Address{}, time.Time{}, currency)
	if err != nil {
		return err
	}
	if ok {
		out.Price = &Money{CurrencyCode: currency, Value: price}
		out.BalanceValue = &Money{CurrencyCode: currency, Value: value(bal, tok.Decimals, price)}
	}
	WriteJSON(w, http.StatusOK, GetNativeBalanceResponse{NativeTokenBalance: out})
	return nil
}

// nativeBalance is addr's balance after block number (nil: the last
// indexed block). A chain nothing is indexed of yet is asked at its RPC.
func (a *API) nativeBalance(ctx context.Context, chain evmchains.Chain, addr common.Address, number *uint64) (*big.Int, error) {
	head, err := a.evm.EVMHead(ctx, chain.ChainID)
	switch {
	case errors.Is(err, derrors.NotFound):
		return a.chains.NativeBalance(ctx, chain.ChainID, addr, number)
	case err != nil:
		return nil, err
	}
	n := head.Number
	if number != nil {
		if *number > head.Number {
			return nil, derrors.Missing("blockNumber %d is not indexed yet on chain %d (the last indexed block is %d)", *number, chain.ChainID, head.Number)
		}
		n = *number
	}
	return a.nativeBalanceAt(ctx, chain, addr, n)
}

// nativeBalanceAt is addr's balance after block n, an indexed block: for
// a caller that has looked up the head already.
func (a *API) nativeBalanceAt(ctx context.Context, chain evmchains.Chain, addr common.Address, n uint64) (*big.Int, error) {
	bal, ok, err := a.evm.EVMNativeBalance(ctx, chain.ChainID, addr, n)
	if err != nil {
		return nil, err
	}
	if !ok {
		return a.chains.NativeBalance(ctx, chain.ChainID, addr, &n)
	}
	return bal, nil
}

// value is amount (in the token's smallest unit) of a token of decimals
// at price per whole token.
func value(amount *big.Int, decimals uint8, price float64) float64 {
	whole := new(big.Float).Quo(new(big.Float).SetInt(amount), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	v, _ := new(big.Float).Mul(whole, big.NewFloat(price)).Float64()
	return v
}

// The "EVM Balances" operation listErc20Balances: an address's ERC-20
// balances after a block (the last indexed one by default), kept by the
// index from the Transfer logs at every block (no archive node needed),
// by token address. A token whose logs do not explain its balances
// (store.ERC20Holding.Unexplained) is answered by its balanceOf at the
// block (eth_call, cached). Zero balances are left out, and, unless
// filterSpamTokens=false, spam tokens (isSpam).

// maxContractAddresses bounds listErc20Balances' contractAddresses.
const maxContractAddresses = 100

type erc20Query struct {
	chain     evmchains.Chain
	addr      common.Address
	number    uint64
	tokens    []common.Address
	spam      bool // filter spam out
	currency  string
	explicitN bool
}

func (q erc20Query) filters() []string {
	n := ""
	if q.explicitN {
		n = strconv.FormatUint(q.number, 10)
	}
	toks := make([]string, len(q.tokens))
	for i, t := range q.tokens {
		toks[i] = t.Hex()
	}
	return []string{strconv.FormatUint(q.chain.ChainID, 10), q.addr.Hex(), n, strings.Join(toks, ","), strconv.FormatBool(q.spam)}
}

func (a *API) erc20Query(r *http.Request) (q erc20Query, err error) {
	if q.chain, err = a.evmChain(r); err != nil {
		return q, err
	}
	if q.addr, err = EVMAddress(r, "address"); err != nil {
		return q, err
	}
	number, err := BlockNumber(r, "blockNumber")
	if err != nil {
		return q, err
	}
	list, err := param.List(r, "contractAddresses", maxContractAddresses)
	if err != nil {
		return q, err
	}
	seen := map[common.Address]bool{}
	for _, v := range list {
		if !common.IsHexAddress(v) || !strings.HasPrefix(v, "0x") {
			return q, derrors.Invalid("contractAddresses must be a comma-separated list of 0x addresses, got %s", got(v))
		}
		t := common.HexToAddress(v)
		if !seen[t] {
			seen[t] = true
			q.tokens = append(q.tokens, t)
		}
	}
	slices.SortFunc(q.tokens, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	if q.spam, err = param.Bool(r, "filterSpamTokens", true); err != nil {
		return q, err
	}
	if q.currency, err = Currency(r); err != nil {
		return q, err
	}
	head, err := a.evm.EVMHead(r.Context(), q.chain.ChainID)
	switch {
	case errors.Is(err, derrors.NotFound):
		return q, derrors.Missing("no block of chain %d is indexed yet", q.chain.ChainID)
	case err != nil:
		return q, err
	}
	q.number = head.Number
	if number != nil {
		if *number > head.Number {
			return q, derrors.Missing("blockNumber %d is not indexed yet on chain %d (the last indexed block is %d)", *number, q.chain.ChainID, head.Number)
		}
		q.number, q.explicitN = *number, true
	}
	return q, nil
}

// erc20Item is a listed balance.
type erc20Item struct {
	token   common.Address
	balance *big.Int
	spam    bool
}

// erc20Balances pages the address's balances: the kept ones, those of
// unexplained tokens from the node, without zero balances and, when asked,
// spam.
func (a *API) erc20Balances(ctx context.Context, q erc20Query, c *contracts, after *string, limit int) ([]erc20Item, error) {
	var from *common.Address
	if after != nil {
		if !common.IsHexAddress(*after) {
			return nil, derrors.Invalid("pageToken is not a page of this list")
		}
		t := common.HexToAddress(*after)
		from = &t
	}
	var out []erc20Item
	for len(out) < limit {
		want := limit - len(out)
		hs, err := a.evm.EVMERC20Balances(ctx, q.chain.ChainID, q.addr, q.number, q.tokens, from, want)
		if err != nil {
			return nil, err
		}
		toks := make([]common.Address, len(hs))
		for i, h := range hs {
			toks[i] = h.Token
		}
		if err := c.prefetch(ctx, toks); err != nil {
			return nil, err
		}
		for _, h := range hs {
			bal := h.Balance
			if h.Unexplained {
				if bal, err = a.chains.TokenBalance(ctx, q.chain.ChainID, h.Token, q.addr, q.number); err != nil {
					return nil, err
				}
				if bal.Sign() == 0 {
					continue
				}
			}
			spam, err := a.isSpam(ctx, c, h.Token)
			if err != nil {
				return nil, err
			}
			if spam && q.spam {
				continue
			}
			out = append(out, erc20Item{token: h.Token, balance: bal, spam: spam})
		}
		if len(hs) < want {
			break
		}
		from = &hs[len(hs)-1].Token
	}
	return out, nil
}

// spamWords are what marks a token's name or symbol as spam: links and
// calls to action, which airdropped scam tokens carry.
var spamWords = []string{"http", "www.", "://", ".com", ".io", ".org", ".net", ".xyz", ".app", ".site", "t.me/",
	"claim", "visit", "airdrop", "reward"}

// isSpam is the spam rule of docs/api/evm.md: a token the allow list names
// or the curated catalog describes is not spam; one the deny list names
// is; otherwise a token is spam when it did not answer name(), symbol()
// or decimals(), or its name or symbol carries a link, a call to action
// (spamWords) or a control character.
func (a *API) isSpam(ctx context.Context, c *contracts, token common.Address) (bool, error) {
	if a.spam != nil {
		if a.spam.Allowed(c.chainID, token) {
			return false, nil
		}
		if a.spam.Denied(c.chainID, token) {
			return true, nil
		}
	}
	v, err := c.get(ctx, token)
	if err != nil {
		return false, err
	}
	if v.listed {
		return false, nil
	}
	return spamText(v.name(), v.symbol(), v.decimals()), nil
}

// spamText is the heuristic part of the rule, on what a token described.
func spamText(name, symbol string, decimals *int) bool {
	if name == "" || symbol == "" || decimals == nil {
		return true
	}
	text := strings.ToLower(name + " " + symbol)
	for _, w := range spamWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return strings.IndexFunc(text, unicode.IsControl) >= 0
}

func (a *API) listErc20Balances(w http.ResponseWriter, r *http.Request) error {
	q, err := a.erc20Query(r)
	if err != nil {
		return err
	}
	c := a.contracts(q.chain.ChainID)
	spec := listSpec{Op: "listErc20Balances", Filters: q.filters(), MaxPageSize: MaxBalancePageSize}
	items, next, err := listPage(a, r, spec, func(ctx context.Context, after *string, limit int) ([]erc20Item, error) {
		return a.erc20Balances(ctx, q, c, after, limit)
	}, func(it erc20Item) string { return it.token.Hex() })
	if err != nil {
		return err
	}
	ctx := r.Context()
	// erc20Query checked q.number against the head: no second look-up.
	bal, err := a.nativeBalanceAt(ctx, q.chain, q.addr, q.number)
	if err != nil {
		return err
	}
	native := nativeToken(q.chain, bal)
	price, ok, err := c.priced.TokenPrice(ctx, q.chain.ChainID, common.Address{}, time.Time{}, q.currency)
	if err != nil {
		return err
	}
	if ok {
		bal, _ := new(big.Int).SetString(native.Balance, 10)
		native.Price = &Money{CurrencyCode: q.currency, Value: price}
		native.BalanceValue = &Money{CurrencyCode: q.currency, Value: value(bal, uint8(native.Decimals), price)}
	}
	resp := ListErc20BalancesResponse{NextPageToken: next, NativeTokenBalance: native, Erc20TokenBalances: make([]Erc20TokenBalance, 0, len(items))}
	for _, it := range items {
		tok, err := c.erc20Token(ctx, it.token, q.currency)
		if err != nil {
			return err
		}
		b := Erc20TokenBalance{Erc20Token: tok, ChainID: strconv.FormatUint(q.chain.ChainID, 10), Balance: it.balance.String(),
			TokenReputation: "Benign"}
		if it.spam {
			b.TokenReputation = "Malicious"
		}
		if tok.Price != nil {
			b.BalanceValue = &Money{CurrencyCode: q.currency, Value: value(it.balance, uint8(tok.Decimals), tok.Price.Value)}
		}
		resp.Erc20TokenBalances = append(resp.Erc20TokenBalances, b)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

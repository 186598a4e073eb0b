package api

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
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

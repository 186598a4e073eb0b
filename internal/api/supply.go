package api

import (
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// The AVAX Supply tag: the primary network's supply, what the chains
// burned, staked and locked. docs/api/data-api.md defines each field.

// nAVAXDecimals and weiDecimals are the decimals of AVAX's base units on
// the P- and X-chains and on the C-chain's EVM.
const (
	nAVAXDecimals = 9
	weiDecimals   = 18
)

func (a *API) getAvaxSupply(w http.ResponseWriter, r *http.Request) error {
	if err := param.OnlyParams(r); err != nil {
		return err
	}
	ctx := r.Context()
	g, err := a.loadedGenesis(ctx)
	if err != nil {
		return err
	}
	if !g.known {
		return fmt.Errorf("no genesis is known for the stored P-chain: its initial supply is not: %w", derrors.Unavailable)
	}
	supply, err := a.store.Supply(ctx, constants.PrimaryNetworkID)
	if errors.Is(err, derrors.NotFound) {
		return fmt.Errorf("the primary network's supply is not indexed yet: %w", derrors.Unavailable)
	}
	if err != nil {
		return err
	}
	cur, err := a.store.CurrentStakers(ctx, constants.PrimaryNetworkID)
	if err != nil {
		return err
	}
	staked := new(big.Int)
	for _, s := range cur.Stakers {
		if s.Kind == pchain.KindValidator || s.Kind == pchain.KindDelegator {
			staked.Add(staked, new(big.Int).SetUint64(s.Weight))
		}
	}
	at := cur.ChainTime
	if at.IsZero() {
		at = time.Now()
	}

	sum := func(keys ...string) (*big.Int, error) {
		t := new(big.Int)
		for _, k := range keys {
			v, _, err := a.store.Burned(ctx, k)
			if err != nil {
				return nil, err
			}
			t.Add(t, v)
		}
		return t, nil
	}
	l1Fees, err := a.store.L1ValidatorFees(ctx)
	if err != nil {
		return err
	}
	pBurned, err := sum(store.BurnedP)
	if err != nil {
		return err
	}
	pBurned.Add(pBurned, l1Fees)
	xBurned, err := sum(store.BurnedX, store.BurnedXDAG)
	if err != nil {
		return err
	}
	atomicBurned, err := sum(store.BurnedC)
	if err != nil {
		return err
	}
	cChain := a.blockQuery(internal.CChain)
	if cChain.EVMChainID == 0 {
		return fmt.Errorf("the C-chain's EVM blocks are not indexed (no EVM chain serves it): its burned fees are unknown: %w", derrors.Unavailable)
	}
	evmBurned, err := sum(store.EVMBurnedKey(cChain.EVMChainID))
	if err != nil {
		return err
	}
	// In wei: the atomic txs' nAVAX scaled up.
	cBurned := new(big.Int).Mul(atomicBurned, big.NewInt(1_000_000_000))
	cBurned.Add(cBurned, evmBurned)

	pLocked, xLocked, err := a.store.LockedAVAX(ctx, a.network.AVAXAssetID, uint64(at.Unix()))
	if err != nil {
		return err
	}
	locked := new(big.Int).SetUint64(pLocked)
	locked.Add(locked, new(big.Int).SetUint64(xLocked))

	total := new(big.Int).SetUint64(supply.Supply)
	genesis := new(big.Int).SetUint64(g.supply)
	rewards := new(big.Int).Sub(total, genesis)
	// Circulating, in wei: the supply less every burn and lock.
	circ := new(big.Int).Mul(total, big.NewInt(1_000_000_000))
	for _, v := range []*big.Int{pBurned, xBurned, locked} {
		circ.Sub(circ, new(big.Int).Mul(v, big.NewInt(1_000_000_000)))
	}
	circ.Sub(circ, cBurned)
	if circ.Sign() < 0 {
		circ.SetInt64(0)
	}

	WriteJSON(w, http.StatusOK, AvaxSupplyResponse{
		CirculatingSupply: avaxDecimal(circ, weiDecimals),
		TotalSupply:       avaxDecimal(total, nAVAXDecimals),
		TotalPBurned:      avaxDecimal(pBurned, nAVAXDecimals),
		TotalCBurned:      avaxDecimal(cBurned, weiDecimals),
		TotalXBurned:      avaxDecimal(xBurned, nAVAXDecimals),
		TotalStaked:       avaxDecimal(staked, nAVAXDecimals),
		TotalLocked:       avaxDecimal(locked, nAVAXDecimals),
		TotalRewards:      avaxDecimal(rewards, nAVAXDecimals),
		LastUpdated:       at.UTC().Format("2006-01-02T15:04:05.000Z"),
		GenesisUnlock:     avaxDecimal(genesis, nAVAXDecimals),
		L1ValidatorFees:   avaxDecimal(l1Fees, nAVAXDecimals),
	})
	return nil
}

// avaxDecimal writes v base units of decimals as an exact decimal number
// of AVAX, without trailing zeros: 1500000000 nAVAX is "1.5".
func avaxDecimal(v *big.Int, decimals int) string {
	neg := v.Sign() < 0
	s := new(big.Int).Abs(v).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	if frac != "" {
		whole += "." + frac
	}
	if neg {
		whole = "-" + whole
	}
	return whole
}

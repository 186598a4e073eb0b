package testnet

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// GrowPChain issues P-chain BaseTxs to the key's own address, one block
// each, until the P-chain has at least want blocks (heights 0..want-1),
// and returns the tip's height and how many blocks it added. Every tx
// leaves one more UTXO at the key's address. The P-chain's gas capacity
// refills with time, so this takes about a minute per thousand blocks.
func (n *Network) GrowPChain(ctx context.Context, want uint64) (tip, added uint64, err error) {
	pc := platformvm.NewClient(n.URL)
	if tip, err = pc.GetHeight(ctx); err != nil {
		return 0, 0, fmt.Errorf("P-chain height: %w", err)
	}
	from := tip
	out := []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: n.AVAXAssetID},
		Out: &secp256k1fx.TransferOutput{Amt: 1000,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{n.Addr}}},
	}}
	for tip+1 < want {
		// A wallet knows the gas price of when it was made: back-to-back
		// txs exhaust the gas capacity and raise the price, so a refused tx
		// waits for the capacity to refill and a new wallet prices the next.
		err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
			for range want - tip - 1 {
				if _, err := w.P().IssueBaseTx(out); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "exceeds current gas capacity") && !strings.Contains(err.Error(), "insufficient unlocked funds") {
			return tip, tip - from, fmt.Errorf("issuing a P-chain BaseTx: %w", err)
		}
		if err != nil {
			if err := sleep(ctx, time.Second); err != nil {
				return tip, tip - from, err
			}
		}
		if tip, err = pc.GetHeight(ctx); err != nil {
			return tip, tip - from, fmt.Errorf("P-chain height: %w", err)
		}
	}
	return tip, tip - from, nil
}

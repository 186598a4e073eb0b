package testnet

import (
	"context"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

// XBaseTx sends amount nAVAX to `to` on the X-chain.
func (n *Network) XBaseTx(ctx context.Context, to ids.ShortID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.X().IssueBaseTx([]*avax.TransferableOutput{n.avaxOutput(to, amount)})
		if err != nil {
			return fmt.Errorf("X-chain BaseTx: %w", err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// CreateAsset creates a fungible X-chain asset whose whole supply is owned by
// the local key and returns its id, which is also the CreateAssetTx's id.
func (n *Network) CreateAsset(ctx context.Context, name, symbol string, denomination byte, supply uint64) (ids.ID, error) {
	if supply == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.X().IssueCreateAssetTx(name, symbol, denomination, map[uint32][]verify.State{
			0: {&secp256k1fx.TransferOutput{Amt: supply, OutputOwners: *n.Owner()}},
		})
		if err != nil {
			return fmt.Errorf("CreateAssetTx: %w", err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// ExportX exports amount nAVAX from the X-chain to the local key on the
// chain dest (the P- or C-chain id).
func (n *Network) ExportX(ctx context.Context, dest ids.ID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.X().IssueExportTx(dest, []*avax.TransferableOutput{n.avaxOutput(n.Addr, amount)})
		if err != nil {
			return fmt.Errorf("X-chain ExportTx to %s: %w", dest, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// ImportX imports into the X-chain all of the local key's funds exported to
// it from source (the P- or C-chain id).
func (n *Network) ImportX(ctx context.Context, source ids.ID) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.X().IssueImportTx(source, n.Owner())
		if err != nil {
			return fmt.Errorf("X-chain ImportTx from %s: %w", source, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

package testnet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
)

// ExportC exports amount nAVAX from the local key's C-chain EVM balance to
// the local key on the chain dest (the P- or X-chain id).
func (n *Network) ExportC(ctx context.Context, dest ids.ID, amount uint64) (ids.ID, error) {
	if amount == 0 {
		return ids.Empty, errNoAmount
	}
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.C().IssueExportTx(dest, []*secp256k1fx.TransferOutput{{Amt: amount, OutputOwners: *n.Owner()}})
		if err != nil {
			return fmt.Errorf("C-chain ExportTx to %s: %w", dest, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// ImportC imports into the local key's C-chain EVM balance all of the local
// key's funds exported to the C-chain from source (the P- or X-chain id).
func (n *Network) ImportC(ctx context.Context, source ids.ID) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.C().IssueImportTx(source, n.EthAddr)
		if err != nil {
			return fmt.Errorf("C-chain ImportTx from %s: %w", source, err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// TestContractRuntime is the code of the contract DeployContract deploys:
// every call returns the 32-byte word 42.
var TestContractRuntime = hexutil.MustDecode("0x602a60005260206000f3")

// TestContractInit is DeployContract's creation code: it emits one
// anonymous log (LOG0) with the 32-byte word 42 as data and returns
// TestContractRuntime.
var TestContractInit = append(hexutil.MustDecode("0x602a60005260206000a0600a6016600039600a6000f3"), TestContractRuntime...)

// SendEVM sends wei from the local key's EVM address to `to` in a plain
// C-chain transaction and waits for its successful receipt.
func (n *Network) SendEVM(ctx context.Context, to common.Address, wei *big.Int) (common.Hash, error) {
	r, err := n.SendEVMTx(ctx, &to, wei, nil, 21_000)
	if err != nil {
		return common.Hash{}, err
	}
	return r.TxHash, nil
}

// DeployContract deploys TestContractInit from the local key's EVM address,
// waits for its successful receipt and returns the tx hash and the new
// contract's address.
func (n *Network) DeployContract(ctx context.Context) (common.Hash, common.Address, error) {
	r, err := n.SendEVMTx(ctx, nil, nil, TestContractInit, 0)
	if err != nil {
		return common.Hash{}, common.Address{}, err
	}
	return r.TxHash, r.ContractAddress, nil
}

// SendEVMTx signs a dynamic-fee transaction from the local key's EVM address
// (to == nil creates a contract; gas == 0 estimates it), sends it to the
// C-chain, waits for its receipt and returns it. A receipt whose status is
// not successful is returned together with an error.
func (n *Network) SendEVMTx(ctx context.Context, to *common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error) {
	return n.sendEVMTx(ctx, n.EthRPCURL(), n.EVMChainID, to, value, data, gas)
}

// sendEVMTx is SendEVMTx on the EVM chain whose JSON-RPC is at rpcURL and
// whose EVM chain id is evmChainID.
func (n *Network) sendEVMTx(ctx context.Context, rpcURL string, evmChainID uint64, to *common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error) {
	return n.sendEVMTxList(ctx, rpcURL, evmChainID, to, value, data, gas, nil)
}

// SendEVMTxAccessList is SendEVMTx with an access list (a warp message's
// predicate rides in one) on the EVM chain at rpcURL whose EVM chain id is
// evmChainID.
func (n *Network) SendEVMTxAccessList(ctx context.Context, rpcURL string, evmChainID uint64, to *common.Address, data []byte, gas uint64, al types.AccessList) (*types.Receipt, error) {
	return n.sendEVMTxList(ctx, rpcURL, evmChainID, to, nil, data, gas, al)
}

// SendRawEVMTx sends an already signed transaction to the EVM chain at
// rpcURL and waits for its receipt (a receipt whose status is not
// successful comes with an error).
func SendRawEVMTx(ctx context.Context, rpcURL string, tx *types.Transaction) (*types.Receipt, error) {
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", rpcURL, err)
	}
	defer ec.Close()
	if err := ec.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("eth_sendRawTransaction: %w", err)
	}
	r, err := waitReceipt(ctx, ec, tx.Hash())
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return r, fmt.Errorf("EVM tx %s failed (receipt status %d)", tx.Hash(), r.Status)
	}
	return r, nil
}

func (n *Network) sendEVMTxList(ctx context.Context, rpcURL string, evmChainID uint64, to *common.Address, value *big.Int, data []byte, gas uint64, al types.AccessList) (*types.Receipt, error) {
	if value == nil {
		value = new(big.Int)
	}
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", rpcURL, err)
	}
	defer ec.Close()

	n.mu.Lock()
	defer n.mu.Unlock()

	var nonce hexutil.Uint64
	if err := ec.Client().CallContext(ctx, &nonce, "eth_getTransactionCount", n.EthAddr, "pending"); err != nil {
		return nil, fmt.Errorf("eth_getTransactionCount: %w", err)
	}
	if gas == 0 {
		est, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: n.EthAddr, To: to, Value: value, Data: data, AccessList: al})
		if err != nil {
			return nil, fmt.Errorf("eth_estimateGas: %w", err)
		}
		gas = est + est/4
	}
	tip, feeCap, err := fees(ctx, ec, 2)
	if err != nil {
		return nil, err
	}
	chainID := new(big.Int).SetUint64(evmChainID)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID:    chainID,
		Nonce:      uint64(nonce),
		GasTipCap:  tip,
		GasFeeCap:  feeCap,
		Gas:        gas,
		To:         to,
		Value:      value,
		Data:       data,
		AccessList: al,
	}), types.LatestSignerForChainID(chainID), n.Key.ToECDSA())
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("eth_sendRawTransaction: %w", err)
	}
	r, err := waitReceipt(ctx, ec, tx.Hash())
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return r, fmt.Errorf("EVM tx %s failed (receipt status %d)", tx.Hash(), r.Status)
	}
	if to == nil && r.ContractAddress != crypto.CreateAddress(n.EthAddr, uint64(nonce)) {
		return r, fmt.Errorf("EVM tx %s created %s, want %s", tx.Hash(), r.ContractAddress, crypto.CreateAddress(n.EthAddr, uint64(nonce)))
	}
	return r, nil
}

// fees are the node's suggested tip and a fee cap of baseFees times its
// base fee, plus the tip.
func fees(ctx context.Context, ec *ethclient.Client, baseFees int64) (tip, feeCap *big.Int, err error) {
	if tip, err = ec.SuggestGasTipCap(ctx); err != nil {
		return nil, nil, fmt.Errorf("eth_maxPriorityFeePerGas: %w", err)
	}
	baseFee, err := ec.EstimateBaseFee(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("eth_baseFee: %w", err)
	}
	return tip, new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(baseFees)), tip), nil
}

func waitReceipt(ctx context.Context, ec *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	tick := time.NewTicker(pollFrequency)
	defer tick.Stop()
	for {
		r, err := ec.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) && ctx.Err() == nil {
			return nil, fmt.Errorf("eth_getTransactionReceipt %s: %w", hash, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for EVM tx %s: %w", hash, ctx.Err())
		case <-tick.C:
		}
	}
}

// EVMCall is one tx of SendEVMTxs: to (nil creates a contract), its data
// and its gas.
type EVMCall struct {
	To   *common.Address
	Data []byte
	Gas  uint64
}

// evmBurst is how many txs SendEVMTxs sends before waiting for them: well
// under the tx pool's slots for one account.
const evmBurst = 64

// SendEVMTxs sends calls from the local key's EVM address with consecutive
// nonces, evmBurst at a time, waiting for each burst's receipts, and
// returns the receipts: many txs land in each block, where SendEVMTx waits
// a block (about two seconds on the local network) for each. A receipt
// that is not successful is an error.
func (n *Network) SendEVMTxs(ctx context.Context, calls []EVMCall) ([]*types.Receipt, error) {
	ec, err := ethclient.DialContext(ctx, n.EthRPCURL())
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", n.EthRPCURL(), err)
	}
	defer ec.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	chainID := new(big.Int).SetUint64(n.EVMChainID)
	signer := types.LatestSignerForChainID(chainID)
	var receipts []*types.Receipt
	for len(calls) > 0 {
		burst := calls[:min(evmBurst, len(calls))]
		calls = calls[len(burst):]
		var pending hexutil.Uint64
		if err := ec.Client().CallContext(ctx, &pending, "eth_getTransactionCount", n.EthAddr, "pending"); err != nil {
			return receipts, fmt.Errorf("eth_getTransactionCount: %w", err)
		}
		nonce := uint64(pending)
		// A burst raises the base fee of the blocks it fills.
		tip, feeCap, err := fees(ctx, ec, 10)
		if err != nil {
			return receipts, err
		}
		var hashes []common.Hash
		for i, c := range burst {
			tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce + uint64(i), GasTipCap: tip,
				GasFeeCap: feeCap, Gas: c.Gas, To: c.To, Value: new(big.Int), Data: c.Data}), signer, n.Key.ToECDSA())
			if err != nil {
				return receipts, fmt.Errorf("signing: %w", err)
			}
			if err := ec.SendTransaction(ctx, tx); err != nil {
				return receipts, fmt.Errorf("eth_sendRawTransaction of nonce %d: %w", nonce+uint64(i), err)
			}
			hashes = append(hashes, tx.Hash())
		}
		for _, h := range hashes {
			r, err := waitReceipt(ctx, ec, h)
			if err != nil {
				return receipts, err
			}
			if r.Status != types.ReceiptStatusSuccessful {
				return receipts, fmt.Errorf("EVM tx %s failed (receipt status %d)", h, r.Status)
			}
			receipts = append(receipts, r)
		}
	}
	return receipts, nil
}

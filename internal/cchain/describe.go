package cchain

import (
	"fmt"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/utxo"
	"github.com/avaindex/avaindex/internal/xchain"
)

// TxDescription is what a C-chain atomic tx says, decoded for display (the
// Data API's CChainExportTransaction and CChainImportTransaction).
type TxDescription struct {
	ID ids.ID
	// Type is "ImportTx" or "ExportTx".
	Type string
	// SourceChain and DestinationChain: the C-chain is the destination of
	// an ImportTx and the source of an ExportTx.
	SourceChain, DestinationChain ids.ID
	// Inputs are the ids of the UTXOs an ImportTx takes from shared
	// memory, in the tx's order, and Credentials their signatures by id.
	Inputs      []ids.ID
	Credentials map[ids.ID][]utxo.Credential
	// EVMInputs are the accounts an ExportTx debits; EVMOutputs those an
	// ImportTx credits. Amounts are in nAVAX for AVAX.
	EVMInputs  []EVMInput
	EVMOutputs []EVMOutput
	// In is what the tx unlocks by asset (imported UTXOs or EVM inputs);
	// Out what it creates (EVM outputs or exported UTXOs).
	In, Out map[ids.ID]uint64
}

// EVMInput is an account an ExportTx debits, with the signatures that
// authorize it.
type EVMInput struct {
	Address     common.Address
	AssetID     ids.ID
	Amount      uint64
	Credentials []utxo.Credential
}

// EVMOutput is an account an ImportTx credits.
type EVMOutput struct {
	Address common.Address
	AssetID ids.ID
	Amount  uint64
}

// DescribeTx decodes the signed atomic tx b.
func DescribeTx(b []byte) (*TxDescription, error) {
	tx, err := atomic.ExtractAtomicTx(b, atomic.Codec)
	if err != nil {
		return nil, fmt.Errorf("parsing C-chain atomic tx: %w", err)
	}
	d := &TxDescription{
		ID:          tx.ID(),
		Credentials: map[ids.ID][]utxo.Credential{},
		In:          map[ids.ID]uint64{},
		Out:         map[ids.ID]uint64{},
	}
	hash := hashing.ComputeHash256(tx.Bytes())
	cred := func(i int) []utxo.Credential {
		if i >= len(tx.Creds) {
			return []utxo.Credential{}
		}
		c, ok := tx.Creds[i].(*secp256k1fx.Credential)
		if !ok {
			return []utxo.Credential{}
		}
		return xchain.Credentials(hash, c.Sigs)
	}
	switch u := tx.UnsignedAtomicTx.(type) {
	case *atomic.UnsignedImportTx:
		d.Type = "ImportTx"
		d.SourceChain, d.DestinationChain = u.SourceChain, u.BlockchainID
		for i, in := range u.ImportedInputs {
			if in == nil || in.In == nil {
				return nil, fmt.Errorf("atomic tx %s: nil input", d.ID)
			}
			id := in.InputID()
			d.Inputs = append(d.Inputs, id)
			d.Credentials[id] = cred(i)
			d.In[in.AssetID()] += in.In.Amount()
		}
		for _, o := range u.Outs {
			d.EVMOutputs = append(d.EVMOutputs, EVMOutput{Address: o.Address, AssetID: o.AssetID, Amount: o.Amount})
			d.Out[o.AssetID] += o.Amount
		}
	case *atomic.UnsignedExportTx:
		d.Type = "ExportTx"
		d.SourceChain, d.DestinationChain = u.BlockchainID, u.DestinationChain
		for i, in := range u.Ins {
			d.EVMInputs = append(d.EVMInputs, EVMInput{Address: in.Address, AssetID: in.AssetID, Amount: in.Amount, Credentials: cred(i)})
			d.In[in.AssetID] += in.Amount
		}
		for _, o := range u.ExportedOutputs {
			if o == nil || o.Out == nil {
				return nil, fmt.Errorf("atomic tx %s: nil exported output", d.ID)
			}
			d.Out[o.AssetID()] += o.Out.Amount()
		}
	default:
		return nil, fmt.Errorf("atomic tx %s has unknown type %T", d.ID, tx.UnsignedAtomicTx)
	}
	return d, nil
}

// DescribeUTXO decodes a UTXO in coreth's atomic encoding (the UTXOs the
// C-chain exports).
func DescribeUTXO(b []byte) (*utxo.Info, error) {
	u := &avax.UTXO{}
	if _, err := atomic.Codec.Unmarshal(b, u); err != nil {
		return nil, fmt.Errorf("decoding C-chain UTXO: %w", err)
	}
	return utxo.Describe(u), nil
}

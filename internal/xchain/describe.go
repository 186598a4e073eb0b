package xchain

import (
	"fmt"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal/utxo"
)

// TxDescription is what a signed X-chain tx says, decoded for display (the
// Data API's XChain(Non)LinearTransaction).
type TxDescription struct {
	ID ids.ID
	// Type is the avm type name, e.g. "CreateAssetTx".
	Type string
	Memo []byte
	// Inputs are the ids of the UTXOs the tx spends, in the tx's order: its
	// inputs, an ImportTx's imported inputs, an OperationTx's operations'
	// UTXOs.
	Inputs []ids.ID
	// In is what the inputs (own and imported) unlock by asset; Out what
	// all its outputs create (outputs, initial states, operation outputs,
	// exported outputs).
	In, Out map[ids.ID]uint64
	// SourceChain and DestinationChain are set for ImportTx and ExportTx.
	SourceChain, DestinationChain ids.ID
	// Asset is what a CreateAssetTx creates (its id is the tx's).
	Asset *Asset
	// Credentials are the signatures that authorize spending each input,
	// by the id of the UTXO spent.
	Credentials map[ids.ID][]utxo.Credential
}

// Asset is an X-chain asset as its CreateAssetTx defines it.
type Asset struct {
	// Alias is the name the X-chain's genesis gives a genesis asset (the
	// node's alias of it, as "AVAX"); empty for any other asset.
	Alias        string
	Name         string
	Symbol       string
	Denomination uint8
	// NFT is true for an asset of NFT outputs (nftfx).
	NFT bool
	// Variable is true when the asset can be minted after its creation
	// (an initial state holds a mint output).
	Variable bool
}

// DescribeTx decodes the signed X-chain tx b.
func DescribeTx(b []byte) (*TxDescription, error) {
	tx, err := ParseTx(b)
	if err != nil {
		return nil, err
	}
	d := &TxDescription{
		ID:          tx.ID(),
		Type:        TxType(tx),
		In:          map[ids.ID]uint64{},
		Out:         map[ids.ID]uint64{},
		Credentials: map[ids.ID][]utxo.Credential{},
	}
	var base *txs.BaseTx
	// Credentials sign, in order, the inputs, then the imported inputs or
	// the operations (one credential for all of an operation's UTXOs).
	var spent [][]ids.ID
	addIns := func(ins []*avax.TransferableInput) error {
		for _, in := range ins {
			if in == nil || in.In == nil {
				return fmt.Errorf("tx %s: nil input", d.ID)
			}
			id := in.InputID()
			d.Inputs = append(d.Inputs, id)
			d.In[in.AssetID()] += in.In.Amount()
			spent = append(spent, []ids.ID{id})
		}
		return nil
	}
	switch u := tx.Unsigned.(type) {
	case *txs.BaseTx:
		base = u
	case *txs.CreateAssetTx:
		base = &u.BaseTx
		d.Asset = describeAsset(u)
	case *txs.OperationTx:
		base = &u.BaseTx
	case *txs.ImportTx:
		base = &u.BaseTx
		d.SourceChain, d.DestinationChain = u.SourceChain, u.BlockchainID
	case *txs.ExportTx:
		base = &u.BaseTx
		d.SourceChain, d.DestinationChain = u.BlockchainID, u.DestinationChain
	default:
		return nil, fmt.Errorf("tx %s: unexpected type %T", d.ID, tx.Unsigned)
	}
	d.Memo = base.Memo
	if err := addIns(base.Ins); err != nil {
		return nil, err
	}
	switch u := tx.Unsigned.(type) {
	case *txs.ImportTx:
		if err := addIns(u.ImportedIns); err != nil {
			return nil, err
		}
	case *txs.OperationTx:
		for _, op := range u.Ops {
			if op == nil {
				return nil, fmt.Errorf("tx %s: nil operation", d.ID)
			}
			var opIDs []ids.ID
			for _, id := range op.UTXOIDs {
				opIDs = append(opIDs, id.InputID())
			}
			d.Inputs = append(d.Inputs, opIDs...)
			spent = append(spent, opIDs)
		}
	case *txs.ExportTx:
		for _, o := range u.ExportedOuts {
			if o == nil || o.Out == nil {
				return nil, fmt.Errorf("tx %s: nil exported output", d.ID)
			}
			d.Out[o.AssetID()] += o.Out.Amount()
		}
	}
	for _, u := range tx.UTXOs() {
		if a, ok := u.Out.(avax.Amounter); ok {
			d.Out[u.AssetID()] += a.Amount()
		}
	}
	hash := hashing.ComputeHash256(tx.Unsigned.Bytes())
	for i, c := range tx.Creds {
		if i >= len(spent) || c == nil {
			break
		}
		creds := credentials(hash, c.Credential)
		for _, id := range spent[i] {
			d.Credentials[id] = creds
		}
	}
	return d, nil
}

// credentials returns the signatures of c, a secp256k1fx (or nftfx,
// propertyfx) credential, with the keys they recover to over hash.
func credentials(hash []byte, c verify.Verifiable) []utxo.Credential {
	var sigs [][secp256k1.SignatureLen]byte
	switch c := c.(type) {
	case *secp256k1fx.Credential:
		sigs = c.Sigs
	case *nftfx.Credential:
		sigs = c.Sigs
	case *propertyfx.Credential:
		sigs = c.Sigs
	}
	return Credentials(hash, sigs)
}

// Credentials returns sigs with the compressed public keys they recover to
// over hash (the hash of a tx's unsigned bytes).
func Credentials(hash []byte, sigs [][secp256k1.SignatureLen]byte) []utxo.Credential {
	out := make([]utxo.Credential, 0, len(sigs))
	for _, s := range sigs {
		c := utxo.Credential{Signature: append([]byte(nil), s[:]...)}
		if pk, err := secp256k1.RecoverPublicKeyFromHash(hash, s[:]); err == nil {
			c.PublicKey = pk.Bytes()
		}
		out = append(out, c)
	}
	return out
}

func describeAsset(u *txs.CreateAssetTx) *Asset {
	a := &Asset{Name: u.Name, Symbol: u.Symbol, Denomination: u.Denomination}
	for _, st := range u.States {
		if st == nil {
			continue
		}
		for _, o := range st.Outs {
			switch o.(type) {
			case *nftfx.MintOutput:
				a.NFT, a.Variable = true, true
			case *nftfx.TransferOutput:
				a.NFT = true
			case *secp256k1fx.MintOutput, *propertyfx.MintOutput:
				a.Variable = true
			}
		}
	}
	return a
}

// DescribeAsset returns the asset a CreateAssetTx (signed bytes b)
// creates; ok is false for any other tx.
func DescribeAsset(b []byte) (_ *Asset, ok bool, _ error) {
	tx, err := ParseTx(b)
	if err != nil {
		return nil, false, err
	}
	u, ok := tx.Unsigned.(*txs.CreateAssetTx)
	if !ok {
		return nil, false, nil
	}
	return describeAsset(u), true, nil
}

// DescribeUTXO decodes a UTXO in the avm's encoding (the X-chain's UTXOs
// and those it exports).
func DescribeUTXO(b []byte) (*utxo.Info, error) {
	u := &avax.UTXO{}
	if _, err := builder.Parser.Codec().Unmarshal(b, u); err != nil {
		return nil, fmt.Errorf("decoding X-chain UTXO: %w", err)
	}
	return utxo.Describe(u), nil
}

// genesisAssets caches the genesis assets of X-chains.
var genesisAssets genesisReads[map[ids.ID]*Asset]

// GenesisAssets returns the assets the genesis of the X-chain xChainID
// creates (AVAX among them), by asset id, when the network is one
// avalanchego builds in or its genesis bytes are among networkGeneses;
// ok is false otherwise.
func GenesisAssets(xChainID ids.ID, networkGeneses ...[]byte) (_ map[ids.ID]*Asset, ok bool, _ error) {
	return genesisAssets.lookup(xChainID, networkGeneses, assetsOfGenesis)
}

// assetsOfGenesis returns the id of the AVM chain a network genesis
// creates and that chain's genesis assets; ids.Empty when it creates none.
func assetsOfGenesis(networkGenesis []byte) (ids.ID, map[ids.ID]*Asset, error) {
	pg, err := pgenesis.Parse(networkGenesis)
	if err != nil {
		return ids.Empty, nil, fmt.Errorf("parsing a network genesis: %w", err)
	}
	for _, chain := range pg.Chains {
		cc, ok := chain.Unsigned.(*ptxs.CreateChainTx)
		if !ok || cc.VMID != constants.AVMID {
			continue
		}
		var ag avm.Genesis
		codec := builder.Parser.GenesisCodec()
		if _, err := codec.Unmarshal(cc.GenesisData, &ag); err != nil {
			return ids.Empty, nil, fmt.Errorf("parsing the AVM genesis: %w", err)
		}
		assets := map[ids.ID]*Asset{}
		for _, g := range ag.Txs {
			tx := &txs.Tx{Unsigned: &g.CreateAssetTx}
			if err := tx.Initialize(codec); err != nil {
				return ids.Empty, nil, err
			}
			a := describeAsset(&g.CreateAssetTx)
			a.Alias = g.Alias
			assets[tx.ID()] = a
		}
		return chain.ID(), assets, nil
	}
	return ids.Empty, nil, nil
}

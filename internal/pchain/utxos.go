package pchain

import (
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal/utxo"
)

// UTXO is one output as the P-chain (or shared memory) holds it: Bytes in
// the node's encoding (txs.Codec), as served by platform.getUTXOs and
// platform.getRewardUTXOs, Kind one of the kinds above.
type UTXO = utxo.Output

// ParseTx parses a signed P-chain tx.
func ParseTx(b []byte) (*txs.Tx, error) {
	return txs.Parse(txs.Codec, b)
}

// UTXOsOfTx returns what tx consumes and produces.
func UTXOsOfTx(tx *txs.Tx) (*TxUTXOs, error) {
	txID := tx.ID()
	out := &TxUTXOs{TxID: txID}
	var outs []*avax.TransferableOutput
	var exported []*UTXO
	switch u := tx.Unsigned.(type) {
	case *txs.RewardValidatorTx:
		out.RewardedStaker = u.TxID
		return out, nil
	case *txs.AdvanceTimeTx:
		return out, nil
	case *txs.ImportTx:
		var err error
		if out.Consumed, err = utxo.AppendInputs(nil, u.Ins, ids.Empty); err != nil {
			return nil, fmt.Errorf("tx %s: %w", txID, err)
		}
		if out.Imported, err = utxo.AppendInputs(nil, u.ImportedInputs, u.SourceChain); err != nil {
			return nil, fmt.Errorf("tx %s: imported: %w", txID, err)
		}
		outs = u.Outs
	case *txs.ExportTx:
		var err error
		if out.Consumed, err = utxo.AppendInputs(nil, u.Ins, ids.Empty); err != nil {
			return nil, fmt.Errorf("tx %s: %w", txID, err)
		}
		outs = u.Outs
		for i, o := range u.ExportedOutputs {
			p, err := newOutput(txID, uint32(len(u.Outs)+i), o, KindExported)
			if err != nil {
				return nil, err
			}
			p.PeerChain = u.DestinationChain
			exported = append(exported, p)
		}
	default:
		b, ok := tx.Unsigned.(interface {
			Outputs() []*avax.TransferableOutput
		})
		if !ok {
			return nil, fmt.Errorf("tx %s: unexpected type %T", txID, tx.Unsigned)
		}
		outs = b.Outputs()
		if bt, ok := baseTx(tx.Unsigned); ok {
			var err error
			if out.Consumed, err = utxo.AppendInputs(nil, bt.Ins, ids.Empty); err != nil {
				return nil, fmt.Errorf("tx %s: %w", txID, err)
			}
		} else {
			return nil, fmt.Errorf("tx %s: %T has no base tx", txID, tx.Unsigned)
		}
	}
	for i, o := range outs {
		p, err := newOutput(txID, uint32(i), o, KindRegular)
		if err != nil {
			return nil, err
		}
		out.Produced = append(out.Produced, p)
	}
	if s, ok := tx.Unsigned.(txs.PermissionlessStaker); ok {
		out.HasStake = len(s.Stake()) > 0
		for i, o := range s.Stake() {
			p, err := newOutput(txID, uint32(len(outs)+i), o, KindStake)
			if err != nil {
				return nil, err
			}
			out.Produced = append(out.Produced, p)
		}
	}
	out.Produced = append(out.Produced, exported...)
	return out, nil
}

// baseTx returns the avax.BaseTx every tx type but RewardValidatorTx and
// AdvanceTimeTx embeds.
func baseTx(u txs.UnsignedTx) (*avax.BaseTx, bool) {
	switch t := u.(type) {
	case *txs.BaseTx:
		return &t.BaseTx, true
	case *txs.AddValidatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.AddSubnetValidatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.AddDelegatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.CreateChainTx:
		return &t.BaseTx.BaseTx, true
	case *txs.CreateSubnetTx:
		return &t.BaseTx.BaseTx, true
	case *txs.RemoveSubnetValidatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.TransformSubnetTx:
		return &t.BaseTx.BaseTx, true
	case *txs.AddPermissionlessValidatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.AddPermissionlessDelegatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.TransferSubnetOwnershipTx:
		return &t.BaseTx.BaseTx, true
	case *txs.ConvertSubnetToL1Tx:
		return &t.BaseTx.BaseTx, true
	case *txs.RegisterL1ValidatorTx:
		return &t.BaseTx.BaseTx, true
	case *txs.SetL1ValidatorWeightTx:
		return &t.BaseTx.BaseTx, true
	case *txs.IncreaseL1ValidatorBalanceTx:
		return &t.BaseTx.BaseTx, true
	case *txs.DisableL1ValidatorTx:
		return &t.BaseTx.BaseTx, true
	}
	return nil, false
}

func newOutput(txID ids.ID, index uint32, o *avax.TransferableOutput, kind string) (*UTXO, error) {
	if o == nil || o.Out == nil {
		return nil, fmt.Errorf("tx %s output %d is nil", txID, index)
	}
	return NewUTXO(&avax.UTXO{
		UTXOID: avax.UTXOID{TxID: txID, OutputIndex: index},
		Asset:  avax.Asset{ID: o.AssetID()},
		Out:    o.Out,
	}, kind)
}

// NewUTXO encodes u as the node does and reads its indexed fields.
func NewUTXO(u *avax.UTXO, kind string) (*UTXO, error) {
	b, err := txs.Codec.Marshal(txs.CodecVersion, u)
	if err != nil {
		return nil, fmt.Errorf("encoding UTXO %s: %w", &u.UTXOID, err)
	}
	return utxo.New(u, b, kind), nil
}

// ParseUTXO decodes a UTXO in the node's encoding.
func ParseUTXO(b []byte) (*UTXO, error) {
	u := &avax.UTXO{}
	if _, err := txs.Codec.Unmarshal(b, u); err != nil {
		return nil, fmt.Errorf("decoding UTXO: %w", err)
	}
	r, err := NewUTXO(u, KindReward)
	if err != nil {
		return nil, err
	}
	r.Bytes = b
	return r, nil
}

// Genesis is the P-chain's state before its first block.
type Genesis struct {
	// Timestamp is the genesis time, unix seconds.
	Timestamp uint64
	// InitialSupply is the primary network's supply at the genesis.
	InitialSupply uint64
	// UTXOs are the genesis allocations (tx id ids.Empty).
	UTXOs []*UTXO
	// Validators are the genesis validator txs, whose stake outputs are
	// staked from genesis; Stakes is what each does to the UTXO set, and
	// Stakers what each is as a staker.
	Validators []*txs.Tx
	Stakes     []*TxUTXOs
	Stakers    []Staker
}

// parsedGenesis is the genesis genesisID as avalanchego parses it; ok is
// false when it is not known.
func parsedGenesis(genesisID ids.ID) (_ *pgenesis.Genesis, ok bool, _ error) {
	b, found, err := genesisBytes(genesisID)
	if err != nil || !found {
		return nil, false, err
	}
	g, err := pgenesis.Parse(b)
	if err != nil {
		return nil, false, fmt.Errorf("parsing the P-chain genesis: %w", err)
	}
	return g, true, nil
}

// GenesisFor returns the genesis whose hash is genesisID: the parent id of
// the P-chain block at height 0. ok is false when the genesis is not one of
// the known networks' (nor registered).
func GenesisFor(genesisID ids.ID) (_ *Genesis, ok bool, _ error) {
	g, found, err := parsedGenesis(genesisID)
	if err != nil || !found {
		return nil, false, err
	}
	out := &Genesis{Timestamp: g.Timestamp, InitialSupply: g.InitialSupply, Validators: g.Validators}
	for _, u := range g.UTXOs {
		utxo := u.UTXO
		r, err := NewUTXO(&utxo, KindRegular)
		if err != nil {
			return nil, false, err
		}
		out.UTXOs = append(out.UTXOs, r)
	}
	for i, tx := range g.Validators {
		eff, err := UTXOsOfTx(tx)
		if err != nil {
			return nil, false, fmt.Errorf("genesis validator %s: %w", tx.ID(), err)
		}
		out.Stakes = append(out.Stakes, eff)
		s, err := StakerFromTx(tx, time.Time{})
		if err != nil {
			return nil, false, fmt.Errorf("genesis validator %s: %w", tx.ID(), err)
		}
		// Genesis stakers are current from the genesis time.
		s.StartTime = g.Timestamp
		s.Height, s.Index = 0, i
		out.Stakers = append(out.Stakers, *s)
	}
	return out, true, nil
}

package xchain

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	pgenesis "github.com/ava-labs/avalanchego/vms/platformvm/genesis"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/utxo"
)

// Kinds of X-chain UTXOs, as the store records them.
const (
	// KindRegular is a secp256k1fx transfer output in the X-chain's UTXO
	// set: what balances count.
	KindRegular = "regular"
	// KindOther is any other output in the UTXO set: mint outputs, NFT and
	// property outputs. Its amount is 0 unless the output has one.
	KindOther = "other"
	// KindExported is an output an ExportTx put into another chain's shared
	// memory; it is never part of the X-chain's UTXO set.
	KindExported = internal.UTXOKindExported
)

// UTXO is one X-chain output (or one the X-chain exported): Bytes in the
// avm's encoding (the parser's codec), as avm.getUTXOs serves it and as an
// ExportTx puts it into shared memory, Kind one of the kinds above.
type UTXO = utxo.Output

// TxUTXOs is what one X-chain tx does to the UTXO set, as the avm's
// executor does it (vms/avm/txs/executor).
type TxUTXOs struct {
	TxID ids.ID
	// Consumed are the X-chain UTXOs the tx spends: its inputs and, for an
	// OperationTx, the UTXOs its operations consume.
	Consumed []utxo.Input
	// Imported are the other chain's UTXOs an ImportTx spends.
	Imported []utxo.Input
	// Produced are the outputs it creates, in output index order: the
	// outputs, a CreateAssetTx's initial states or an OperationTx's
	// operations' outputs, then an ExportTx's exported outputs.
	Produced []*UTXO
}

// ParseTx parses a signed X-chain tx.
func ParseTx(b []byte) (*txs.Tx, error) {
	return builder.Parser.ParseTx(b)
}

// UTXOsOfTx returns what tx consumes and produces.
func UTXOsOfTx(tx *txs.Tx) (*TxUTXOs, error) {
	txID := tx.ID()
	out := &TxUTXOs{TxID: txID}
	var base *txs.BaseTx
	switch u := tx.Unsigned.(type) {
	case *txs.BaseTx:
		base = u
	case *txs.CreateAssetTx:
		base = &u.BaseTx
	case *txs.OperationTx:
		base = &u.BaseTx
		for _, op := range u.Ops {
			if op == nil {
				return nil, errors.New("nil operation")
			}
			for _, id := range op.UTXOIDs {
				out.Consumed = append(out.Consumed, utxo.Input{
					UTXOID:  avax.UTXOID{TxID: id.TxID, OutputIndex: id.OutputIndex},
					ID:      id.InputID(),
					AssetID: op.AssetID(),
				})
			}
		}
	case *txs.ImportTx:
		base = &u.BaseTx
		var err error
		if out.Imported, err = utxo.AppendInputs(nil, u.ImportedIns, u.SourceChain); err != nil {
			return nil, fmt.Errorf("tx %s: imported: %w", txID, err)
		}
	case *txs.ExportTx:
		base = &u.BaseTx
	default:
		return nil, fmt.Errorf("tx %s: unexpected type %T", txID, tx.Unsigned)
	}
	// The base tx's inputs come first in the executor; an OperationTx's
	// consumed UTXOs were added above, order does not matter to the set.
	ins, err := utxo.AppendInputs(nil, base.Ins, ids.Empty)
	if err != nil {
		return nil, fmt.Errorf("tx %s: %w", txID, err)
	}
	out.Consumed = append(ins, out.Consumed...)

	// Outputs, initial states and operation outputs, numbered as the avm
	// numbers them.
	for _, u := range tx.UTXOs() {
		p, err := NewUTXO(u)
		if err != nil {
			return nil, err
		}
		out.Produced = append(out.Produced, p)
	}
	if e, ok := tx.Unsigned.(*txs.ExportTx); ok {
		for i, o := range e.ExportedOuts {
			if o == nil || o.Out == nil {
				return nil, fmt.Errorf("tx %s exported output %d is nil", txID, i)
			}
			p, err := NewUTXO(&avax.UTXO{
				UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(len(e.Outs) + i)},
				Asset:  avax.Asset{ID: o.AssetID()},
				Out:    o.Out,
			})
			if err != nil {
				return nil, err
			}
			p.Kind = KindExported
			p.PeerChain = e.DestinationChain
			out.Produced = append(out.Produced, p)
		}
	}
	return out, nil
}

// NewUTXO encodes u as the avm does and reads its indexed fields; its
// kind is KindRegular or KindOther.
func NewUTXO(u *avax.UTXO) (*UTXO, error) {
	if u.Out == nil {
		return nil, fmt.Errorf("UTXO %s has no output", &u.UTXOID)
	}
	b, err := builder.Parser.Codec().Marshal(txs.CodecVersion, u)
	if err != nil {
		return nil, fmt.Errorf("encoding UTXO %s: %w", &u.UTXOID, err)
	}
	kind := KindOther
	if _, ok := u.Out.(*secp256k1fx.TransferOutput); ok {
		kind = KindRegular
	}
	return utxo.New(u, b, kind), nil
}

// ParseUTXO decodes a UTXO in the avm's encoding.
func ParseUTXO(b []byte) (*UTXO, error) {
	u := &avax.UTXO{}
	if _, err := builder.Parser.Codec().Unmarshal(b, u); err != nil {
		return nil, fmt.Errorf("decoding UTXO: %w", err)
	}
	r, err := NewUTXO(u)
	if err != nil {
		return nil, err
	}
	r.Bytes = b
	return r, nil
}

// Genesis is the X-chain's state before its first tx: the UTXOs of the
// genesis assets' initial states.
type Genesis struct {
	NetworkID uint32
	// Timestamp is the network's genesis time, unix seconds.
	Timestamp uint64
	// DAG is true for an X-chain that ran as a DAG until Cortina (mainnet,
	// fuji): its block 0 is the linearization, and the genesis precedes the
	// txs of the node's X/tx index, not block 0.
	DAG bool
	// Assets are the genesis CreateAssetTxs' ids (the asset ids), in
	// genesis order.
	Assets []ids.ID
	UTXOs  []*UTXO
}

// genesisCache holds the X-chain geneses read from network geneses.
var genesisCache genesisReads[*Genesis]

// GenesisFor returns the genesis of the X-chain whose id is xChainID, when
// it belongs to one of the networks avalanchego builds in or to a network
// whose genesis bytes are among networkGeneses (a custom network's, from
// --genesis-file); ok is false otherwise. See Genesis.DAG for where it goes
// in the chain's history.
func GenesisFor(xChainID ids.ID, networkGeneses ...[]byte) (_ *Genesis, ok bool, _ error) {
	return genesisCache.lookup(xChainID, networkGeneses, func(b []byte) (ids.ID, *Genesis, error) {
		g, chainID, err := genesisOf(b)
		return chainID, g, err
	})
}

// genesisReads caches what read, a reading of a network genesis, gives
// for the X-chain it creates, by chain id, and which network geneses were
// read (by hash; builtin: avalanchego's), so that an X-chain no genesis
// creates costs no read the next time, and a network genesis given at a
// later lookup is read then.
type genesisReads[T any] struct {
	mu      sync.Mutex
	byChain map[ids.ID]T
	read    map[ids.ID]bool
	builtin bool
}

// lookup returns what read gives for the X-chain xChainID, reading the
// built-in geneses and networkGeneses not read yet; read returns
// ids.Empty for a genesis that creates no X-chain.
func (c *genesisReads[T]) lookup(xChainID ids.ID, networkGeneses [][]byte, read func([]byte) (ids.ID, T, error)) (_ T, ok bool, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero T
	if v, ok := c.byChain[xChainID]; ok {
		return v, true, nil
	}
	if c.byChain == nil {
		c.byChain, c.read = map[ids.ID]T{}, map[ids.ID]bool{}
	}
	sources := byHash(networkGeneses)
	if !c.builtin {
		for _, id := range []uint32{constants.LocalID, constants.FujiID, constants.MainnetID} {
			gb, _, err := genesis.FromConfig(genesis.GetConfig(id))
			if err != nil {
				return zero, false, fmt.Errorf("building the genesis of network %d: %w", id, err)
			}
			sources[hashing.ComputeHash256Array(gb)] = gb
		}
	}
	for h, b := range sources {
		if c.read[h] {
			continue
		}
		chainID, v, err := read(b)
		if err != nil {
			return zero, false, fmt.Errorf("network genesis %s: %w", ids.ID(h), err)
		}
		if chainID != ids.Empty {
			c.byChain[chainID] = v
		}
		c.read[h] = true
	}
	c.builtin = true
	v, ok := c.byChain[xChainID]
	return v, ok, nil
}

// genesisOf reads the X-chain genesis in a network's genesis bytes, as the
// avm's initGenesis does, and returns it with the X-chain's id (the id of
// the network genesis's AVM CreateChainTx); nil when the network genesis
// creates no AVM chain.
func genesisOf(networkGenesis []byte) (*Genesis, ids.ID, error) {
	pg, err := pgenesis.Parse(networkGenesis)
	if err != nil {
		return nil, ids.Empty, fmt.Errorf("parsing the network genesis: %w", err)
	}
	var (
		createChain *ptxs.Tx
		cc          *ptxs.CreateChainTx
	)
	for _, chain := range pg.Chains {
		if c, ok := chain.Unsigned.(*ptxs.CreateChainTx); ok && c.VMID == constants.AVMID {
			createChain, cc = chain, c
			break
		}
	}
	if cc == nil {
		return nil, ids.Empty, nil
	}
	var ag avm.Genesis
	codec := builder.Parser.GenesisCodec()
	if _, err := codec.Unmarshal(cc.GenesisData, &ag); err != nil {
		return nil, ids.Empty, fmt.Errorf("parsing the AVM genesis: %w", err)
	}
	g := &Genesis{
		NetworkID: cc.NetworkID,
		Timestamp: pg.Timestamp,
		DAG:       upgrade.GetConfig(cc.NetworkID).CortinaXChainStopVertexID != ids.Empty,
	}
	for _, asset := range ag.Txs {
		tx := &txs.Tx{Unsigned: &asset.CreateAssetTx}
		if err := tx.Initialize(codec); err != nil {
			return nil, ids.Empty, err
		}
		g.Assets = append(g.Assets, tx.ID())
		for _, u := range tx.UTXOs() {
			p, err := NewUTXO(u)
			if err != nil {
				return nil, ids.Empty, err
			}
			g.UTXOs = append(g.UTXOs, p)
		}
	}
	return g, createChain.ID(), nil
}

// byHash keys network geneses by their hash (the id the P-chain's block 0
// names as its parent); an empty one (no --genesis-file) is none.
func byHash(networkGeneses [][]byte) map[ids.ID][]byte {
	out := make(map[ids.ID][]byte, len(networkGeneses))
	for _, b := range networkGeneses {
		if len(b) > 0 {
			out[hashing.ComputeHash256Array(b)] = b
		}
	}
	return out
}

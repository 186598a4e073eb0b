package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
)

// Config is what decoding needs to know of the chain.
type Config struct {
	// BlockchainID is the chain's Avalanche blockchain id: the local end
	// of its Teleporter messages.
	BlockchainID ids.ID
	// Teleporter is the TeleporterMessenger's address (DefaultTeleporter
	// when zero).
	Teleporter common.Address
	// IsCChain marks the primary network's C-chain, whose blocks carry
	// atomic txs (NetworkID and AVAXAssetID decode them).
	IsCChain    bool
	NetworkID   uint32
	AVAXAssetID ids.ID
}

// Input is one block as the node answered it.
type Input struct {
	// Block is eth_getBlockByNumber's answer with full txs.
	Block json.RawMessage
	// Receipts are the block's receipts in tx order (eth_getBlockReceipts).
	Receipts json.RawMessage
	// Traces is debug_traceBlockByNumber's answer with TraceConfig; nil
	// when the node has no tracer.
	Traces json.RawMessage
	// Genesis is the genesis allocation's balances, read for block 0;
	// nil when not known.
	Genesis map[common.Address]*big.Int
}

// x2cRate converts nAVAX (atomic txs' amounts) to the C-chain's wei.
var x2cRate = big.NewInt(1_000_000_000)

type decoder struct {
	cfg *Config
	b   *Block
	bal balances
	// slow reads the answers with encoding/json only (the tests compare).
	slow bool
}

// Decode decodes one block. Its transfers are decoded from the logs of
// possible transfers once the types of their contracts are known
// (Classify); the contracts it deployed are described by the caller.
func Decode(cfg *Config, in Input) (*Block, error) {
	return decode(cfg, in, false)
}

func decode(cfg *Config, in Input, slow bool) (*Block, error) {
	var rb *rpcBlock
	if err := unmarshalFast(in.Block, &rb, readBlock, slow); err != nil {
		return nil, fmt.Errorf("decoding the block: %w", err)
	}
	if rb == nil {
		return nil, fmt.Errorf("no block")
	}
	d := &decoder{cfg: cfg, b: &Block{}, bal: balances{}, slow: slow}
	if err := d.header(rb); err != nil {
		return nil, fmt.Errorf("block %s: %w", rb.Number, err)
	}
	if err := d.decode(rb, in); err != nil {
		return nil, fmt.Errorf("block %d (%s): %w", d.b.Number, d.b.Hash, err)
	}
	return d.b, nil
}

func (d *decoder) header(rb *rpcBlock) error {
	b := d.b
	var err error
	if b.Number, err = quantity("number", rb.Number); err != nil {
		return err
	}
	if b.Hash, err = hash("hash", rb.Hash); err != nil {
		return err
	}
	if b.ParentHash, err = hash("parentHash", rb.ParentHash); err != nil {
		return err
	}
	ts, err := quantity("timestamp", rb.Timestamp)
	if err != nil {
		return err
	}
	b.Timestamp = time.Unix(int64(ts), 0).UTC()
	if b.Miner, err = address("miner", rb.Miner); err != nil {
		return err
	}
	if b.GasLimit, err = quantity("gasLimit", rb.GasLimit); err != nil {
		return err
	}
	if b.GasUsed, err = quantity("gasUsed", rb.GasUsed); err != nil {
		return err
	}
	if b.BaseFee, err = optBigQuantity("baseFeePerGas", rb.BaseFee); err != nil {
		return err
	}
	if b.Size, err = optQuantity("size", rb.Size); err != nil {
		return err
	}
	if b.TimeMilliseconds, err = optQuantityPtr("timestampMilliseconds", rb.TimeMilliseconds); err != nil {
		return err
	}
	if b.MinDelayExcess, err = optQuantityPtr("minDelayExcess", rb.MinDelayExcess); err != nil {
		return err
	}
	if b.BlockGasCost, err = optBigQuantity("blockGasCost", rb.BlockGasCost); err != nil {
		return err
	}
	b.TxCount = len(rb.Transactions)
	return nil
}

func (d *decoder) decode(rb *rpcBlock, in Input) error {
	b := d.b
	if b.Number == 0 {
		// The genesis has no txs; its balances are the allocation's.
		b.Traced = in.Genesis != nil
		for a, v := range in.Genesis {
			if v.Sign() != 0 {
				d.bal.set(a, new(big.Int).Set(v))
			}
		}
		b.Balances, _ = d.bal.changes()
		return nil
	}
	var receipts []rpcReceipt
	if err := unmarshalFast(in.Receipts, &receipts, readReceipts, d.slow); err != nil {
		return fmt.Errorf("decoding the receipts: %w", err)
	}
	if len(receipts) != len(rb.Transactions) {
		return fmt.Errorf("%d receipts for %d txs", len(receipts), len(rb.Transactions))
	}
	b.Txs = make([]internal.EVMTx, len(rb.Transactions))
	for i := range rb.Transactions {
		if err := d.tx(i, &rb.Transactions[i], &receipts[i]); err != nil {
			return err
		}
	}
	messenger := d.cfg.Teleporter
	if messenger == (common.Address{}) {
		messenger = DefaultTeleporter
	}
	for i := range b.Logs {
		l := &b.Logs[i]
		if isCandidate(l) {
			b.candidates = append(b.candidates, i)
		}
		if isNFTEvent(l) {
			b.nftEvents = append(b.nftEvents, i)
		}
		if m, ok := teleporter(l, b.Txs[l.TxIndex].Hash, b.Number, messenger, d.cfg.BlockchainID); ok {
			b.Teleporter = append(b.Teleporter, m)
		}
		if ev, ok := icmEvent(l, b.Txs[l.TxIndex].Hash, b.Number, messenger, d.cfg.BlockchainID); ok {
			b.ICM = append(b.ICM, ev)
		}
	}

	if in.Traces != nil {
		var traces []rpcTrace
		if err := unmarshalFast(in.Traces, &traces, readTraces, d.slow); err != nil {
			return fmt.Errorf("decoding the traces: %w", err)
		}
		if len(traces) != len(b.Txs) {
			return fmt.Errorf("%d traces for %d txs", len(traces), len(b.Txs))
		}
		for i := range traces {
			if err := d.applyTrace(i, &traces[i]); err != nil {
				return err
			}
		}
		b.Traced = true
	}
	if d.cfg.IsCChain {
		if err := d.atomic(rb); err != nil {
			return err
		}
	}
	if b.Traced {
		b.Balances, b.Unresolved = d.bal.changes()
	}
	return nil
}

// tx decodes tx i with its receipt: the tx, its logs, and the contract it
// deployed, if any.
func (d *decoder) tx(i int, rt *rpcTx, rr *rpcReceipt) error {
	b := d.b
	t := &b.Txs[i]
	var err error
	if t.Hash, err = hash("tx hash", rt.Hash); err != nil {
		return err
	}
	if h, err := hash("receipt transactionHash", rr.TxHash); err != nil || h != t.Hash {
		return fmt.Errorf("receipt %d is of tx %s, not %s", i, rr.TxHash, t.Hash)
	}
	idx, err := quantity("transactionIndex", rt.Index)
	if err != nil {
		return err
	}
	if idx != uint64(i) {
		return fmt.Errorf("tx %s is at index %d, not %d", t.Hash, idx, i)
	}
	t.Index, t.BlockNumber, t.BlockHash, t.Timestamp = uint32(i), b.Number, b.Hash, b.Timestamp
	if t.From, err = address("from", rt.From); err != nil {
		return err
	}
	if t.To, err = optAddress("to", rt.To); err != nil {
		return err
	}
	if t.Value, err = bigQuantity("value", rt.Value); err != nil {
		return err
	}
	if t.Nonce, err = quantity("nonce", rt.Nonce); err != nil {
		return err
	}
	typ, err := optQuantity("type", rt.Type)
	if err != nil {
		return err
	}
	t.Type = uint8(typ)
	if t.GasLimit, err = quantity("gas", rt.Gas); err != nil {
		return err
	}
	if t.MaxFeePerGas, err = optBigQuantity("maxFeePerGas", rt.MaxFeePerGas); err != nil {
		return err
	}
	if t.MaxPriorityFeePerGas, err = optBigQuantity("maxPriorityFeePerGas", rt.MaxPriorityFeePerGas); err != nil {
		return err
	}
	if t.Input, err = data("input", rt.Input); err != nil {
		return err
	}
	// The price paid is the receipt's; older nodes only give the tx's.
	price := rr.EffectiveGasPrice
	if price == "" {
		price = rt.GasPrice
	}
	if t.GasPrice, err = bigQuantity("effectiveGasPrice", price); err != nil {
		return err
	}
	if t.GasUsed, err = quantity("gasUsed", rr.GasUsed); err != nil {
		return err
	}
	status, err := quantity("status", rr.Status)
	if err != nil {
		return err
	}
	t.Status = uint8(status)
	if t.ContractAddress, err = optAddress("contractAddress", rr.ContractAddress); err != nil {
		return err
	}
	if t.To == nil && t.ContractAddress != nil && t.Status == 1 {
		b.Contracts = append(b.Contracts, internal.EVMContract{Address: *t.ContractAddress, Deployer: t.From,
			TxHash: t.Hash, BlockNumber: b.Number, Timestamp: b.Timestamp, Index: uint64(i) << 16,
			CreateType: "CREATE", Type: internal.ERCUnknown})
	}
	for k := range rr.Logs {
		rl := &rr.Logs[k]
		l := Log{TxIndex: uint32(i)}
		li, err := quantity("logIndex", rl.LogIndex)
		if err != nil {
			return err
		}
		l.Index = uint32(li)
		if l.Address, err = address("log address", rl.Address); err != nil {
			return err
		}
		l.Topics = make([]common.Hash, len(rl.Topics))
		for j, s := range rl.Topics {
			if l.Topics[j], err = hash("topic", s); err != nil {
				return err
			}
		}
		if l.Data, err = data("log data", rl.Data); err != nil {
			return err
		}
		b.Logs = append(b.Logs, l)
	}
	return nil
}

// atomic applies the block's atomic txs to balances, after its EVM txs as
// coreth does: AVAX imported into an address, exported out of one.
func (d *decoder) atomic(rb *rpcBlock) error {
	if rb.ExtData == "" || rb.ExtData == "0x" {
		return nil
	}
	ext, err := data("blockExtraData", rb.ExtData)
	if err != nil {
		return err
	}
	txs, err := cchain.AtomicTxs(d.cfg.NetworkID, d.b.Timestamp, ext)
	if err != nil {
		return err
	}
	for _, tx := range txs {
		for _, c := range tx.EVM {
			if c.AssetID != d.cfg.AVAXAssetID {
				continue // other assets are multicoin balances, not native
			}
			v := new(big.Int).Mul(new(big.Int).SetUint64(c.Amount), x2cRate)
			if c.Debit {
				v.Neg(v)
			}
			d.bal.add(c.Address, v)
		}
	}
	return nil
}

package evm

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal"
)

// recorded reads what TestRecordCChain recorded.
func recorded(t testing.TB) (*recording, []recordedBlock, *Config) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(recordDir, "recording.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	blocks := make([]recordedBlock, rec.Tip+1)
	for h := range blocks {
		raw, err := os.ReadFile(filepath.Join(recordDir, blockFile(uint64(h))))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &blocks[h]); err != nil {
			t.Fatal(err)
		}
	}
	cChain, err := ids.FromString(rec.Network.CChainID)
	if err != nil {
		t.Fatal(err)
	}
	avax, err := ids.FromString(rec.Network.AVAXAssetID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{BlockchainID: cChain, Teleporter: rec.Scenario.Emitter, IsCChain: true, NetworkID: rec.Network.ID, AVAXAssetID: avax}
	return &rec, blocks, cfg
}

// decodeRecorded decodes the recorded blocks as the follower does: the
// genesis allocation for block 0, unresolved balances from the node's
// answers, transfers classified with the types describe gives (the
// evmcode contracts answer no view function: UNKNOWN).
func decodeRecorded(t testing.TB, rec *recording, blocks []recordedBlock, cfg *Config) []*Block {
	t.Helper()
	g, ok, err := NetworkGenesisData(cfg.BlockchainID)
	if err != nil || !ok {
		t.Fatalf("the C-chain genesis: %t, %v", ok, err)
	}
	alloc, err := GenesisAlloc(g)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Block
	for h, rb := range blocks {
		in := Input{Block: rb.Block, Receipts: rb.Receipts, Traces: rb.Traces}
		if h == 0 {
			in.Genesis = alloc
		}
		b, err := Decode(cfg, in)
		if err != nil {
			t.Fatal(err)
		}
		if b.Number != uint64(h) {
			t.Fatalf("block %d decoded as %d", h, b.Number)
		}
		if len(b.Unresolved) > 0 {
			b.Resolve(rec.Balances[h])
		}
		types := map[common.Address]internal.ERCType{}
		for _, a := range b.TokenAddresses() {
			types[a] = Describe(nil).Type
		}
		b.Classify(types)
		out = append(out, b)
	}
	return out
}

// TestDecodeRecordedBalances replays the balance changes of every
// recorded block, as the store folds them, and compares each address's
// balance after each block with the node's eth_getBalance: gas paid and
// burned, values sent by txs and by internal calls, contracts that
// self-destructed (to their caller, to themselves), and the atomic export
// and import applied after the block's txs.
func TestDecodeRecordedBalances(t *testing.T) {
	rec, raw, cfg := recorded(t)
	blocks := decodeRecorded(t, rec, raw, cfg)
	bal := map[common.Address]*big.Int{}
	for h, b := range blocks {
		if !b.Traced {
			t.Fatalf("block %d is not traced", h)
		}
		for _, c := range b.Balances {
			switch {
			case c.Balance != nil:
				bal[c.Address] = c.Balance
			default:
				prev := bal[c.Address]
				if prev == nil {
					prev = new(big.Int)
				}
				bal[c.Address] = new(big.Int).Add(prev, c.Delta)
			}
		}
		for a, want := range rec.Balances[h] {
			got := bal[a]
			if got == nil {
				got = new(big.Int)
			}
			if got.Cmp(want) != 0 {
				t.Errorf("block %d: balance of %s = %s, the node says %s", h, a, got, want)
			}
		}
	}
}

// txBlock returns the block holding tx hash and the tx's index in it.
func txBlock(t *testing.T, blocks []*Block, hash common.Hash) (*Block, int) {
	t.Helper()
	for _, b := range blocks {
		for i, tx := range b.Txs {
			if tx.Hash == hash {
				return b, i
			}
		}
	}
	t.Fatalf("tx %s not in the recorded blocks", hash)
	return nil, 0
}

func TestDecodeRecordedScenario(t *testing.T) {
	rec, raw, cfg := recorded(t)
	blocks := decodeRecorded(t, rec, raw, cfg)
	s := rec.Scenario
	me := common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")
	step := func(name string) (*Block, *internal.EVMTx) {
		b, i := txBlock(t, blocks, s.Txs[name])
		return b, &b.Txs[i]
	}

	b, tx := step("value")
	if tx.From != me || tx.To == nil || *tx.To != s.Recipient || tx.Value.Cmp(big.NewInt(1e18)) != 0 || tx.Status != 1 ||
		tx.Type != 2 || tx.GasUsed != 21_000 || tx.GasPrice.Sign() <= 0 || tx.MaxFeePerGas == nil || len(b.InternalTxs) != 0 {
		t.Errorf("value tx = %+v, internal txs %v", tx, b.InternalTxs)
	}

	for name, addr := range map[string]common.Address{"deploy emitter": s.Emitter, "deploy forwarder": s.Forwarder, "deploy factory": s.Factory} {
		b, tx := step(name)
		if tx.To != nil || tx.ContractAddress == nil || *tx.ContractAddress != addr {
			t.Errorf("%s: tx to %v, contract %v", name, tx.To, tx.ContractAddress)
		}
		if len(b.Contracts) != 1 || b.Contracts[0].Address != addr || b.Contracts[0].Deployer != me ||
			b.Contracts[0].DeployerContract != nil || b.Contracts[0].CreateType != "CREATE" || b.Contracts[0].TxHash != tx.Hash {
			t.Errorf("%s: contracts %+v", name, b.Contracts)
		}
	}

	type transfer struct {
		typ          internal.ERCType
		from, to, op common.Address
		value, id    int64
		batch        uint32
		token        common.Address
		noID         bool
	}
	for name, want := range map[string][]transfer{
		"erc20":          {{typ: internal.ERC20, from: me, to: s.Recipient, value: 1000, noID: true, token: s.Emitter}},
		"erc721":         {{typ: internal.ERC721, from: me, to: s.Recipient, value: 1, id: 7, token: s.Emitter}},
		"erc1155 single": {{typ: internal.ERC1155, from: me, to: s.Recipient, op: me, value: 10, id: 5, token: s.Emitter}},
		"erc1155 batch": {{typ: internal.ERC1155, from: me, to: s.Recipient, op: me, value: 3, id: 1, token: s.Emitter},
			{typ: internal.ERC1155, from: me, to: s.Recipient, op: me, value: 4, id: 2, batch: 1, token: s.Emitter}},
		"forward erc20": {{typ: internal.ERC20, from: s.Forwarder, to: s.Recipient, value: 5, noID: true, token: s.Emitter}},
		"teleporter":    nil,
		"revert":        nil,
	} {
		b, tx := step(name)
		if len(b.Transfers) != len(want) {
			t.Errorf("%s: %d transfers, want %d: %+v", name, len(b.Transfers), len(want), b.Transfers)
			continue
		}
		for i, w := range want {
			g := b.Transfers[i]
			ok := g.Type == w.typ && g.From == w.from && g.To == w.to && g.Operator == w.op && g.Token == w.token &&
				g.Value.Cmp(big.NewInt(w.value)) == 0 && g.BatchIndex == w.batch && g.TxHash == tx.Hash &&
				g.BlockNumber == b.Number && g.BlockHash == b.Hash && g.Timestamp.Equal(b.Timestamp)
			if w.noID {
				ok = ok && g.TokenID == nil
			} else {
				ok = ok && g.TokenID != nil && g.TokenID.Cmp(big.NewInt(w.id)) == 0
			}
			if !ok {
				t.Errorf("%s: transfer %d = %+v, want %+v", name, i, g, w)
			}
		}
	}

	b, tx = step("teleporter")
	if len(b.Teleporter) != 1 || b.Teleporter[0] != (internal.TeleporterMessage{TxHash: tx.Hash, BlockNumber: b.Number,
		LogIndex: 0, Direction: internal.TeleporterSource, MessageID: s.MessageID, SourceBlockchainID: cfg.BlockchainID,
		DestinationBlockchainID: ids.ID{7}}) {
		t.Errorf("teleporter messages %+v", b.Teleporter)
	}
	other := *cfg
	other.Teleporter = s.Forwarder
	if b2, err := Decode(&other, Input{Block: raw[b.Number].Block, Receipts: raw[b.Number].Receipts}); err != nil || len(b2.Teleporter) != 0 {
		t.Errorf("with another messenger address: %+v, %v; want no message", b2.Teleporter, err)
	}

	b, tx = step("forward value")
	if len(b.InternalTxs) != 1 || b.InternalTxs[0] != (internal.EVMInternalTx{TxHash: tx.Hash, BlockNumber: b.Number, Index: 0,
		From: s.Forwarder, To: s.Recipient, Value: b.InternalTxs[0].Value, CallType: "CALL", Gas: b.InternalTxs[0].Gas}) ||
		b.InternalTxs[0].Value.Cmp(big.NewInt(5e17)) != 0 {
		t.Errorf("forwarded value: internal txs %+v", b.InternalTxs)
	}

	b, tx = step("create2")
	if len(b.InternalTxs) != 1 || b.InternalTxs[0].CallType != "CREATE2" || b.InternalTxs[0].To != s.Child || b.InternalTxs[0].Reverted {
		t.Errorf("create2: internal txs %+v", b.InternalTxs)
	}
	if len(b.Contracts) != 1 || b.Contracts[0].Address != s.Child || b.Contracts[0].Deployer != me ||
		b.Contracts[0].DeployerContract == nil || *b.Contracts[0].DeployerContract != s.Factory ||
		b.Contracts[0].CreateType != "CREATE2" || b.Contracts[0].Index != uint64(tx.Index)<<16+1 {
		t.Errorf("create2: contracts %+v", b.Contracts)
	}
	// The address is taken: the creation fails before the call tracer
	// opens a frame, and nothing is deployed.
	b, _ = step("create2 again")
	if len(b.InternalTxs) != 0 || len(b.Contracts) != 0 {
		t.Errorf("failed create2: internal txs %+v, contracts %+v", b.InternalTxs, b.Contracts)
	}

	b, tx = step("revert")
	if tx.Status != 0 || len(b.Logs) != 0 || tx.GasUsed == 0 {
		t.Errorf("reverted tx: status %d, gas used %d, logs %v", tx.Status, tx.GasUsed, b.Logs)
	}

	b, _ = step("call self-destructor")
	if len(b.InternalTxs) != 1 || b.InternalTxs[0].CallType != "SELFDESTRUCT" || b.InternalTxs[0].To != s.SelfDestructor {
		t.Errorf("self-destruct to itself: internal txs %+v", b.InternalTxs)
	}
}

// TestDecodeHeaderExtras: Avalanche's header fields (Granite's
// millisecond timestamp and minimum delay excess, the block gas cost) are
// decoded as the node recorded them, and the millisecond timestamp agrees
// with the block's seconds.
func TestDecodeHeaderExtras(t *testing.T) {
	rec, blocks, cfg := recorded(t)
	decoded := decodeRecorded(t, rec, blocks, cfg)
	seen := 0
	for h, rb := range blocks {
		var raw map[string]any
		if err := json.Unmarshal(rb.Block, &raw); err != nil {
			t.Fatal(err)
		}
		b := decoded[h]
		want := func(field string) *uint64 {
			s, ok := raw[field].(string)
			if !ok {
				return nil
			}
			v, err := hexutil.DecodeUint64(s)
			if err != nil {
				t.Fatalf("block %d %s: %v", h, field, err)
			}
			return &v
		}
		eq := func(field string, got *uint64) {
			w := want(field)
			if (w == nil) != (got == nil) || (w != nil && *w != *got) {
				t.Errorf("block %d %s = %v, the node's %v", h, field, got, w)
			}
		}
		eq("timestampMilliseconds", b.TimeMilliseconds)
		eq("minDelayExcess", b.MinDelayExcess)
		var gasCost *uint64
		if b.BlockGasCost != nil {
			v := b.BlockGasCost.Uint64()
			gasCost = &v
		}
		eq("blockGasCost", gasCost)
		if b.TimeMilliseconds != nil {
			seen++
			if *b.TimeMilliseconds/1000 != uint64(b.Timestamp.Unix()) {
				t.Errorf("block %d: %d ms is not in second %d", h, *b.TimeMilliseconds, b.Timestamp.Unix())
			}
		}
	}
	if seen == 0 {
		t.Fatal("no recorded block carries timestampMilliseconds: the test checks nothing")
	}
}

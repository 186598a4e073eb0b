package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// Cases no chain of the local network makes, in hand-written RPC JSON:
// contracts' non-standard answers, non-standard transfer logs, a node
// without tracers, reverted frames, the native minter of an L1.

var (
	hwFrom  = common.HexToAddress("0x1000000000000000000000000000000000000001")
	hwTo    = common.HexToAddress("0x2000000000000000000000000000000000000002")
	hwToken = common.HexToAddress("0x3000000000000000000000000000000000000003")
	hwTx    = common.HexToHash("0xaa00000000000000000000000000000000000000000000000000000000000001")
)

// hwBlock is block 5 with one tx from hwFrom to `to` (nil: a creation of
// hwToken) whose receipt holds logs.
func hwBlock(to *common.Address, status int, logs ...string) Input {
	toJSON := "null"
	if to != nil {
		toJSON = fmt.Sprintf("%q", to.Hex())
	}
	contract := "null"
	if to == nil {
		contract = fmt.Sprintf("%q", hwToken.Hex())
	}
	block := fmt.Sprintf(`{"number":"0x5","hash":"0x%064x","parentHash":"0x%064x","timestamp":"0x64","miner":"0x0100000000000000000000000000000000000000",
		"gasLimit":"0x7a1200","gasUsed":"0x5208","baseFeePerGas":"0x19","size":"0x2a0","blockExtraData":"0x",
		"transactions":[{"hash":"%s","from":"%s","to":%s,"value":"0x0","nonce":"0x1","type":"0x0","gas":"0x186a0",
		"gasPrice":"0x1d","input":"0x","transactionIndex":"0x0"}]}`, 5, 4, hwTx.Hex(), hwFrom.Hex(), toJSON)
	receipts := fmt.Sprintf(`[{"transactionHash":"%s","status":"0x%x","gasUsed":"0x5208","contractAddress":%s,"logs":[%s]}]`,
		hwTx.Hex(), status, contract, strings.Join(logs, ","))
	return Input{Block: json.RawMessage(block), Receipts: json.RawMessage(receipts)}
}

func hwLog(index int, addr common.Address, data []byte, topics ...common.Hash) string {
	ts := make([]string, len(topics))
	for i, t := range topics {
		ts[i] = fmt.Sprintf("%q", t.Hex())
	}
	return fmt.Sprintf(`{"address":"%s","topics":[%s],"data":"0x%x","logIndex":"0x%x"}`, addr.Hex(), strings.Join(ts, ","), data, index)
}

func hwWord(v int64) []byte { return common.BigToHash(big.NewInt(v)).Bytes() }

func abiString(s string) []byte {
	out := append(hwWord(32), hwWord(int64(len(s)))...)
	padded := make([]byte, (len(s)+31)/32*32)
	copy(padded, s)
	return append(out, padded...)
}

func TestDescribe(t *testing.T) {
	yes, no := hwWord(1), hwWord(0)
	bytes32 := make([]byte, 32)
	copy(bytes32, "Maker")
	dec18 := uint8(18)
	for _, c := range []struct {
		name    string
		answers [][]byte
		want    Description
	}{
		{"ERC-20 with string name", [][]byte{nil, nil, nil, nil, abiString("Wrapped AVAX"), abiString("WAVAX"), hwWord(18), hwWord(1e6)},
			Description{Type: internal.ERC20, Name: "Wrapped AVAX", Symbol: "WAVAX", Decimals: &dec18}},
		{"ERC-20 with bytes32 name and symbol", [][]byte{nil, nil, nil, nil, bytes32, bytes32, hwWord(18), hwWord(1)},
			Description{Type: internal.ERC20, Name: "Maker", Symbol: "Maker", Decimals: &dec18}},
		{"ERC-721 through ERC-165", [][]byte{yes, no, yes, no, abiString("Punks"), abiString("P"), nil, hwWord(10)},
			Description{Type: internal.ERC721, Name: "Punks", Symbol: "P"}},
		{"ERC-1155 through ERC-165", [][]byte{yes, no, no, yes, nil, nil, nil, nil}, Description{Type: internal.ERC1155}},
		{"says yes to everything: not ERC-165", [][]byte{yes, yes, yes, yes, nil, nil, nil, nil}, Description{Type: internal.ERCUnknown}},
		{"decimals out of range", [][]byte{nil, nil, nil, nil, nil, nil, hwWord(256), hwWord(1)}, Description{Type: internal.ERCUnknown}},
		{"nothing answers", nil, Description{Type: internal.ERCUnknown}},
		{"name not text", [][]byte{nil, nil, nil, nil, append(hwWord(32), append(hwWord(2), 0xff, 0xfe)...), abiString("A\x00B"), nil, nil},
			Description{Type: internal.ERCUnknown, Symbol: "AB"}},
		{"string length past the answer", [][]byte{nil, nil, nil, nil, append(hwWord(32), hwWord(1000)...), nil, nil, nil},
			Description{Type: internal.ERCUnknown}},
	} {
		got := Describe(c.answers)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(c.want)
		if string(g) != string(w) {
			t.Errorf("%s: %s, want %s", c.name, g, w)
		}
	}
	if len(DescribeCalls) != 8 {
		t.Errorf("%d describe calls", len(DescribeCalls))
	}
}

func TestClassifyLayouts(t *testing.T) {
	from, to := common.BytesToHash(hwFrom[:]), common.BytesToHash(hwTo[:])
	op := common.BytesToHash(hwToken[:])
	in := hwBlock(&hwToken, 1,
		// ERC-20 by layout, or ERC-721 when the contract says so.
		hwLog(0, hwToken, hwWord(42), TopicTransfer, from, to),
		// All arguments unindexed (early NFTs).
		hwLog(1, hwToken, append(append(hwWord(0), common.BytesToHash(hwTo[:]).Bytes()...), hwWord(9)...), TopicTransfer),
		// Not a transfer: two topics.
		hwLog(2, hwToken, hwWord(1), TopicTransfer, from),
		// A batch whose arrays differ in length.
		hwLog(3, hwToken, append(append(hwWord(64), hwWord(128)...), append(append(hwWord(1), hwWord(1)...), hwWord(0)...)...),
			TopicTransferBatch, op, from, to),
		// A batch whose offsets point past the data.
		hwLog(4, hwToken, append(hwWord(4096), hwWord(64)...), TopicTransferBatch, op, from, to),
	)
	b, err := Decode(&Config{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.TokenAddresses(); len(got) != 1 || got[0] != hwToken {
		t.Fatalf("token addresses %v", got)
	}
	b.Classify(map[common.Address]internal.ERCType{hwToken: internal.ERCUnknown})
	if len(b.Transfers) != 2 || b.Transfers[0].Type != internal.ERC20 || b.Transfers[0].Value.Int64() != 42 ||
		b.Transfers[1].Type != internal.ERC20 || b.Transfers[1].From != (common.Address{}) || b.Transfers[1].To != hwTo ||
		b.Transfers[1].Value.Int64() != 9 {
		t.Errorf("as ERC-20: %+v", b.Transfers)
	}
	b.Classify(map[common.Address]internal.ERCType{hwToken: internal.ERC721})
	if len(b.Transfers) != 2 || b.Transfers[0].Type != internal.ERC721 || b.Transfers[0].TokenID.Int64() != 42 ||
		b.Transfers[0].Value.Int64() != 1 || b.Transfers[1].Type != internal.ERC721 || b.Transfers[1].TokenID.Int64() != 9 {
		t.Errorf("as ERC-721: %+v", b.Transfers)
	}
}

// TestDecodeWithoutTracer decodes a block without traces: txs, logs and
// top-level deployments from the receipts, no internal txs, no balances.
func TestDecodeWithoutTracer(t *testing.T) {
	b, err := Decode(&Config{}, hwBlock(nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if b.Traced || len(b.Balances) != 0 || len(b.InternalTxs) != 0 {
		t.Errorf("traced %t, balances %v, internal txs %v", b.Traced, b.Balances, b.InternalTxs)
	}
	if len(b.Contracts) != 1 || b.Contracts[0].Address != hwToken || b.Contracts[0].Deployer != hwFrom || b.Contracts[0].Index != 0 {
		t.Errorf("contracts %+v", b.Contracts)
	}
	if b.Number != 5 || b.TxCount != 1 || b.BaseFee.Int64() != 25 || b.Txs[0].GasPrice.Int64() != 29 || b.Txs[0].MaxFeePerGas != nil {
		t.Errorf("block %+v tx %+v", b.EVMBlock, b.Txs[0])
	}
	// A failed creation deploys nothing, though its receipt names the
	// address.
	if b, err := Decode(&Config{}, hwBlock(nil, 0)); err != nil || len(b.Contracts) != 0 {
		t.Errorf("failed creation: contracts %+v, %v", b.Contracts, err)
	}
}

func hwTrace(call string, post, pre map[common.Address]int64) json.RawMessage {
	acct := func(m map[common.Address]int64) string {
		var parts []string
		for a, v := range m {
			parts = append(parts, fmt.Sprintf(`"%s":{"balance":"0x%x","nonce":1}`, strings.ToLower(a.Hex()), v))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return json.RawMessage(fmt.Sprintf(`[{"txHash":"%s","result":{"callTracer":%s,"prestateTracer":{"post":%s,"pre":%s}}}]`,
		hwTx.Hex(), call, acct(post), acct(pre)))
}

func TestDecodeFrames(t *testing.T) {
	child := common.HexToAddress("0x4000000000000000000000000000000000000004")
	minted := common.HexToAddress("0x5000000000000000000000000000000000000005")
	mintInput := fmt.Sprintf("0x%x%x%x", mintNativeCoin, common.BytesToHash(minted[:]), hwWord(1000))
	call := fmt.Sprintf(`{"type":"CALL","from":"%s","to":"%s","gas":"0x186a0","gasUsed":"0x5208","value":"0x0","calls":[
		{"type":"CALL","from":"%s","to":"%s","gas":"0x100","gasUsed":"0x10","value":"0x5","error":"execution reverted","calls":[
			{"type":"CREATE","from":"%s","to":"%s","gas":"0x10","gasUsed":"0x1","value":"0x0"}]},
		{"type":"CREATE2","from":"%s","to":"%s","gas":"0x100","gasUsed":"0x10"},
		{"type":"CALL","from":"%s","to":"%s","gas":"0x8000","gasUsed":"0x7530","input":"%s"},
		{"type":"CALL","from":"%s","to":"%s","gas":"0x8000","gasUsed":"0x0","input":"%s"}]}`,
		hwFrom.Hex(), hwToken.Hex(), hwToken.Hex(), hwTo.Hex(), hwTo.Hex(), child.Hex(), hwToken.Hex(), child.Hex(),
		hwToken.Hex(), NativeMinter.Hex(), mintInput, hwToken.Hex(), NativeMinter.Hex(), mintInput)
	in := hwBlock(&hwToken, 1)
	in.Traces = hwTrace(call, map[common.Address]int64{hwFrom: 900}, map[common.Address]int64{hwFrom: 1000})

	l1, err := Decode(&Config{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(l1.InternalTxs) != 5 {
		t.Fatalf("internal txs %+v", l1.InternalTxs)
	}
	for i, want := range []struct {
		typ      string
		reverted bool
	}{{"CALL", true}, {"CREATE", true}, {"CREATE2", false}, {"CALL", false}, {"CALL", false}} {
		if it := l1.InternalTxs[i]; it.Index != uint32(i) || it.CallType != want.typ || it.Reverted != want.reverted {
			t.Errorf("internal tx %d = %+v, want %s reverted %t", i, it, want.typ, want.reverted)
		}
	}
	// Only the creation that was not reverted deploys, by the contract.
	if len(l1.Contracts) != 1 || l1.Contracts[0].CreateType != "CREATE2" || *l1.Contracts[0].DeployerContract != hwToken ||
		l1.Contracts[0].Index != 3 {
		t.Errorf("contracts %+v", l1.Contracts)
	}
	// The mint that ran credits the minted address; the call that used no
	// gas (no precompile) does not.
	wantBal := map[common.Address]BalanceChange{hwFrom: {Address: hwFrom, Balance: big.NewInt(900)},
		minted: {Address: minted, Delta: big.NewInt(1000)}}
	if len(l1.Balances) != len(wantBal) {
		t.Errorf("balances %+v", l1.Balances)
	}
	for _, c := range l1.Balances {
		w := wantBal[c.Address]
		if (w.Balance == nil) != (c.Balance == nil) || (w.Balance != nil && w.Balance.Cmp(c.Balance) != 0) ||
			(w.Delta != nil && w.Delta.Cmp(c.Delta) != 0) {
			t.Errorf("balance change %+v, want %+v", c, w)
		}
	}
	// On the C-chain nothing mints.
	c, err := Decode(&Config{IsCChain: true}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Balances) != 1 || c.Balances[0].Address != hwFrom {
		t.Errorf("C-chain balances %+v", c.Balances)
	}

	// Traces that do not match the txs are refused.
	bad := in
	bad.Traces = json.RawMessage(`[]`)
	if _, err := Decode(&Config{}, bad); err == nil {
		t.Error("no trace for the tx was accepted")
	}
	bad.Traces = json.RawMessage(strings.Replace(string(in.Traces), hwTx.Hex(), common.Hash{1}.Hex(), 1))
	if _, err := Decode(&Config{}, bad); err == nil {
		t.Error("the trace of another tx was accepted")
	}
	bad.Traces = json.RawMessage(fmt.Sprintf(`[{"txHash":"%s","error":"execution timeout"}]`, hwTx.Hex()))
	if _, err := Decode(&Config{}, bad); err == nil {
		t.Error("a failed trace was accepted")
	}
}

func TestGenesisAlloc(t *testing.T) {
	got, err := GenesisAlloc([]byte(`{"config":{},"alloc":{"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC":{"balance":"0x10"},
		"0x0100000000000000000000000000000000000000":{"balance":"20","code":"0x00"},
		"0x0200000000000000000000000000000000000000":{"code":"0x00"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")].Int64() != 16 ||
		got[common.HexToAddress("0x0100000000000000000000000000000000000000")].Int64() != 20 {
		t.Errorf("alloc %v", got)
	}
	for _, bad := range []string{`{"alloc":{"0x12":{"balance":"1"}}}`, `{"alloc":{"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC":{"balance":"x"}}}`, `[`} {
		if _, err := GenesisAlloc([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestDecodeTopLevelMint: a tx sent to the native minter itself (its
// admin minting) credits the minted address when the precompile ran (the
// tx used more than its intrinsic gas) and the tx did not revert.
func TestDecodeTopLevelMint(t *testing.T) {
	minted := common.HexToAddress("0x6000000000000000000000000000000000000006")
	input := append(append(append([]byte(nil), mintNativeCoin...), common.BytesToHash(minted[:]).Bytes()...), hwWord(4242)...)
	intrinsic := intrinsicGas(input)
	for _, tc := range []struct {
		name    string
		gasUsed uint64
		errStr  string
		want    bool
	}{
		{"ran", intrinsic + 30_000, "", true},
		{"no precompile", intrinsic, "", false},
		{"reverted", intrinsic + 30_000, "execution reverted", false},
	} {
		call := fmt.Sprintf(`{"type":"CALL","from":"%s","to":"%s","gas":"0x186a0","gasUsed":"0x%x","value":"0x0","input":"0x%x","error":%q}`,
			hwFrom.Hex(), NativeMinter.Hex(), tc.gasUsed, input, tc.errStr)
		in := hwBlock(&NativeMinter, 1)
		in.Traces = hwTrace(call, map[common.Address]int64{hwFrom: 900}, map[common.Address]int64{hwFrom: 1000})
		b, err := Decode(&Config{}, in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := false
		for _, c := range b.Balances {
			if c.Address == minted {
				got = c.Delta != nil && c.Delta.Int64() == 4242
			}
		}
		if got != tc.want {
			t.Errorf("%s: balances %+v, want the mint: %t", tc.name, b.Balances, tc.want)
		}
	}
}

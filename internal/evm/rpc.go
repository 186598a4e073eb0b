package evm

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/ava-labs/libevm/common"
)

// The shapes of the node's JSON-RPC answers avaindex reads: only the
// fields it keeps, as the strings the node writes (hex quantities and
// data), parsed by the helpers below, which are several times faster than
// the hexutil types' decoders on large blocks.

// rpcBlock is eth_getBlockByNumber's answer with full transactions.
type rpcBlock struct {
	Number     string  `json:"number"`
	Hash       string  `json:"hash"`
	ParentHash string  `json:"parentHash"`
	Timestamp  string  `json:"timestamp"`
	Miner      string  `json:"miner"`
	GasLimit   string  `json:"gasLimit"`
	GasUsed    string  `json:"gasUsed"`
	BaseFee    *string `json:"baseFeePerGas"`
	Size       string  `json:"size"`
	ExtData    string  `json:"blockExtraData"` // the C-chain's atomic txs
	// Avalanche's header fields: since Granite, Apricot Phase 4.
	TimeMilliseconds *string `json:"timestampMilliseconds"`
	MinDelayExcess   *string `json:"minDelayExcess"`
	BlockGasCost     *string `json:"blockGasCost"`
	Transactions     []rpcTx `json:"transactions"`
}

type rpcTx struct {
	Hash                 string  `json:"hash"`
	From                 string  `json:"from"`
	To                   *string `json:"to"`
	Value                string  `json:"value"`
	Nonce                string  `json:"nonce"`
	Type                 string  `json:"type"`
	Gas                  string  `json:"gas"`
	GasPrice             string  `json:"gasPrice"`
	MaxFeePerGas         *string `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *string `json:"maxPriorityFeePerGas"`
	Input                string  `json:"input"`
	Index                string  `json:"transactionIndex"`
}

// rpcReceipt is one element of eth_getBlockReceipts's answer.
type rpcReceipt struct {
	TxHash            string   `json:"transactionHash"`
	Status            string   `json:"status"`
	GasUsed           string   `json:"gasUsed"`
	EffectiveGasPrice string   `json:"effectiveGasPrice"`
	ContractAddress   *string  `json:"contractAddress"`
	Logs              []rpcLog `json:"logs"`
}

type rpcLog struct {
	Address  string   `json:"address"`
	Topics   []string `json:"topics"`
	Data     string   `json:"data"`
	LogIndex string   `json:"logIndex"`
}

// rpcTrace is one element of debug_traceBlockByNumber's answer with the
// mux tracer running the call and prestate (diff mode) tracers.
type rpcTrace struct {
	TxHash string       `json:"txHash"`
	Result *traceResult `json:"result"`
	Error  string       `json:"error"`
}

type traceResult struct {
	Call     *callFrame    `json:"callTracer"`
	Prestate *prestateDiff `json:"prestateTracer"`
}

// callFrame is a call tracer frame.
type callFrame struct {
	Type    string      `json:"type"`
	From    string      `json:"from"`
	To      string      `json:"to"`
	Value   string      `json:"value"`
	Gas     string      `json:"gas"`
	GasUsed string      `json:"gasUsed"`
	Input   string      `json:"input"`
	Error   string      `json:"error"`
	Calls   []callFrame `json:"calls"`
}

// prestateDiff is the prestate tracer's diff: accounts before and after a
// tx, each listing only what the tx changed (post) or what it read of
// them (pre). An account in pre but not post was deleted.
type prestateDiff struct {
	Pre  map[string]accountState `json:"pre"`
	Post map[string]accountState `json:"post"`
}

type accountState struct {
	Balance *string `json:"balance"`
}

// TraceConfig is the debug_traceBlockByNumber configuration whose answer
// Decode reads: the call tracer and the prestate tracer in diff mode,
// together under the mux tracer, so one trace gives both.
var TraceConfig = map[string]any{
	"tracer": "muxTracer",
	"tracerConfig": map[string]any{
		"callTracer":     map[string]any{},
		"prestateTracer": map[string]any{"diffMode": true},
	},
}

func hexDigits(s string) (string, bool) {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return "", false
	}
	return s[2:], true
}

// quantity parses a hex quantity that fits in 64 bits.
func quantity(field, s string) (uint64, error) {
	d, ok := hexDigits(s)
	if !ok || d == "" || len(d) > 16 {
		return 0, fmt.Errorf("%s: bad quantity %q", field, s)
	}
	v, err := strconv.ParseUint(d, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: bad quantity %q", field, s)
	}
	return v, nil
}

// optQuantity is quantity for a field that may be absent: 0.
func optQuantity(field, s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	return quantity(field, s)
}

// bigQuantity parses a hex quantity of up to 256 bits; "" is zero (a
// field the node leaves out, such as a frame's value).
func bigQuantity(field, s string) (*big.Int, error) {
	if s == "" {
		return new(big.Int), nil
	}
	d, ok := hexDigits(s)
	if !ok || d == "" || len(d) > 64 {
		return nil, fmt.Errorf("%s: bad quantity %q", field, s)
	}
	if len(d) <= 16 {
		v, err := strconv.ParseUint(d, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: bad quantity %q", field, s)
		}
		return new(big.Int).SetUint64(v), nil
	}
	v, ok := new(big.Int).SetString(d, 16)
	if !ok {
		return nil, fmt.Errorf("%s: bad quantity %q", field, s)
	}
	return v, nil
}

// optQuantityPtr is quantity for a field that may be absent: nil.
func optQuantityPtr(field string, s *string) (*uint64, error) {
	if s == nil {
		return nil, nil
	}
	v, err := quantity(field, *s)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func optBigQuantity(field string, s *string) (*big.Int, error) {
	if s == nil {
		return nil, nil
	}
	return bigQuantity(field, *s)
}

// data parses hex data ("0x" is empty).
func data(field, s string) ([]byte, error) {
	d, ok := hexDigits(s)
	if !ok || len(d)%2 != 0 {
		return nil, fmt.Errorf("%s: bad data %q", field, abbreviate(s))
	}
	b := make([]byte, len(d)/2)
	if !unhexTo(b, d) {
		return nil, fmt.Errorf("%s: bad data %q", field, abbreviate(s))
	}
	return b, nil
}

func address(field, s string) (common.Address, error) {
	var a common.Address
	d, ok := hexDigits(s)
	if !ok || len(d) != 2*common.AddressLength {
		return a, fmt.Errorf("%s: bad address %q", field, s)
	}
	if !unhexTo(a[:], d) {
		return a, fmt.Errorf("%s: bad address %q", field, s)
	}
	return a, nil
}

func optAddress(field string, s *string) (*common.Address, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	a, err := address(field, *s)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

func hash(field, s string) (common.Hash, error) {
	var h common.Hash
	d, ok := hexDigits(s)
	if !ok || len(d) != 2*common.HashLength {
		return h, fmt.Errorf("%s: bad hash %q", field, s)
	}
	if !unhexTo(h[:], d) {
		return h, fmt.Errorf("%s: bad hash %q", field, s)
	}
	return h, nil
}

// unhex is each byte's value as a hex digit, -1 if it is none.
var unhex = func() (t [256]int8) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = int8(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = int8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = int8(c - 'A' + 10)
		default:
			t[c] = -1
		}
	}
	return t
}()

// unhexTo decodes the hex digits s, of twice dst's length, into dst, as
// hex.Decode does but from a string, without copying it to bytes.
func unhexTo(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, lo := unhex[s[2*i]], unhex[s[2*i+1]]
		if hi < 0 || lo < 0 {
			return false
		}
		dst[i] = byte(hi)<<4 | byte(lo)
	}
	return true
}

func abbreviate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

package evm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// A single-pass reader of the node's answers into the rpc* shapes.
// encoding/json reads each answer twice (a validating scan, then a
// reflective decode) and copies every string; most of a block's bytes are
// values avaindex skips (logs blooms, signatures, the prestate tracer's
// code and storage). This reader validates and skips them in one pass,
// eight bytes at a time through long strings, and copies only the kept
// strings.
//
// It reads only the node's plain shape, and gives up on anything else: a
// duplicate or case-folded key of a kept field, a kept string with an
// escape or a non-ASCII byte, a value of an unexpected type, nesting
// deeper than maxDepth, or invalid JSON. The caller then decodes the
// answer with encoding/json, so the result, error included, is always
// encoding/json's.

// maxDepth bounds the nesting the reader follows (encoding/json allows
// 10,000); deeper answers go to encoding/json.
const maxDepth = 1000

type rpcReader struct {
	s     []byte
	i     int
	depth int
}

// readBlock reads eth_getBlockByNumber's answer; false: use encoding/json.
func readBlock(raw []byte) (*rpcBlock, bool) {
	r := rpcReader{s: raw}
	b := new(rpcBlock)
	if !r.block(b) || !r.end() {
		return nil, false
	}
	return b, true
}

// readReceipts reads eth_getBlockReceipts' answer; false: use
// encoding/json.
func readReceipts(raw []byte) ([]rpcReceipt, bool) { return readArray(raw, (*rpcReader).receipt) }

// readTraces reads debug_traceBlockByNumber's answer; false: use
// encoding/json.
func readTraces(raw []byte) ([]rpcTrace, bool) { return readArray(raw, (*rpcReader).trace) }

// readArray reads a JSON array of the whole of raw, each element with
// elem; [] is an empty slice, not nil, as encoding/json gives it.
func readArray[T any](raw []byte, elem func(*rpcReader, *T) bool) ([]T, bool) {
	r := rpcReader{s: raw}
	var out []T
	ok := r.array(func() bool {
		out = append(out, *new(T))
		return elem(&r, &out[len(out)-1])
	}, func() { out = make([]T, 0) })
	if !ok || !r.end() {
		return nil, false
	}
	return out, true
}

func (r *rpcReader) ws() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// next returns the next byte after spaces, 0 at the end.
func (r *rpcReader) next() byte {
	r.ws()
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// end reports whether only spaces are left.
func (r *rpcReader) end() bool {
	r.ws()
	return r.i == len(r.s)
}

func (r *rpcReader) literal(w string) bool {
	if bytes.HasPrefix(r.s[r.i:], []byte(w)) {
		r.i += len(w)
		return true
	}
	return false
}

// plain marks the bytes a kept string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string with no escape and no byte outside printable ASCII.
func (r *rpcReader) str() (string, bool) {
	b, ok := r.strBytes()
	return string(b), ok
}

// strBytes is str without copying.
func (r *rpcReader) strBytes() ([]byte, bool) {
	if r.next() != '"' {
		return nil, false
	}
	start := r.i + 1
	for j := start; j < len(r.s); j++ {
		if !plain[r.s[j]] {
			if r.s[j] != '"' {
				return nil, false
			}
			r.i = j + 1
			return r.s[start:j], true
		}
	}
	return nil, false
}

// skipStr skips any valid string.
func (r *rpcReader) skipStr() bool {
	if r.i >= len(r.s) || r.s[r.i] != '"' {
		return false
	}
	for j := r.i + 1; j < len(r.s); j++ {
		// Eight bytes at a time through the long ones (code, blooms).
		for j+8 <= len(r.s) && !special(binary.LittleEndian.Uint64(r.s[j:])) {
			j += 8
		}
		if j >= len(r.s) {
			break
		}
		c := r.s[j]
		if plain[c] || c >= 0x80 {
			continue // encoding/json takes invalid UTF-8 too
		}
		switch c {
		case '"':
			r.i = j + 1
			return true
		case '\\':
			j++
			if j >= len(r.s) {
				return false
			}
			switch r.s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(r.s) {
					return false
				}
				for _, h := range r.s[j+1 : j+5] {
					if unhex[h] < 0 {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		default:
			return false // a control character
		}
	}
	return false
}

// special reports whether any byte of w ends or escapes a string, or is a
// control character: w has a byte below 0x20, or a zero byte once xored
// with the quote or the backslash (the bit tricks tell whether any byte is
// below n by the borrow that sets its top bit).
func special(w uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	q, b := w^(ones*'"'), w^(ones*'\\')
	return ((w-ones*0x20)&^w|(q-ones)&^q|(b-ones)&^b)&tops != 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber skips a number as JSON writes them.
func (r *rpcReader) skipNumber() bool {
	s, i := r.s, r.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && isDigit(s[i]):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	r.i = i
	return true
}

// skip skips any valid value.
func (r *rpcReader) skip() bool {
	switch r.next() {
	case '"':
		return r.skipStr()
	case '{':
		return r.members(func([]byte) bool { return r.skip() }, false)
	case '[':
		return r.array(r.skip, nil)
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	default:
		return r.skipNumber()
	}
}

// null reads a null if one is next.
func (r *rpcReader) null() bool {
	return r.next() == 'n' && r.literal("null")
}

// object reads an object, calling member with each key and the reader at
// its value. A key is a plain string (str).
func (r *rpcReader) object(member func(key []byte) bool) bool {
	return r.members(member, true)
}

// members reads an object; plainKeys gives up on keys that are not plain
// strings, else any key is skipped.
func (r *rpcReader) members(member func(key []byte) bool, plainKeys bool) bool {
	if r.next() != '{' {
		return false
	}
	r.i++
	if r.depth++; r.depth > maxDepth {
		return false
	}
	if r.next() == '}' {
		r.i++
		r.depth--
		return true
	}
	for {
		var k []byte
		if plainKeys {
			var ok bool
			if k, ok = r.strBytes(); !ok {
				return false
			}
		} else if r.next() != '"' || !r.skipStr() {
			return false
		}
		if r.next() != ':' {
			return false
		}
		r.i++
		if !member(k) {
			return false
		}
		switch r.next() {
		case ',':
			r.i++
		case '}':
			r.i++
			r.depth--
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem with the reader at each element;
// empty, when not nil, is called for an empty array.
func (r *rpcReader) array(elem func() bool, empty func()) bool {
	if r.next() != '[' {
		return false
	}
	r.i++
	if r.depth++; r.depth > maxDepth {
		return false
	}
	if r.next() == ']' {
		r.i++
		r.depth--
		if empty != nil {
			empty()
		}
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch r.next() {
		case ',':
			r.i++
		case ']':
			r.i++
			r.depth--
			return true
		default:
			return false
		}
	}
}

// fields tracks the kept fields an object has set: a second one gives up
// (encoding/json merges or overwrites).
type fields uint32

func (f *fields) first(bit uint) bool {
	if *f&(1<<bit) != 0 {
		return false
	}
	*f |= 1 << bit
	return true
}

// other skips the value of a key that is none of names, giving up when it
// is one of them but for case (encoding/json matches it).
func (r *rpcReader) other(key []byte, names []string) bool {
	for _, n := range names {
		if len(n) == len(key) && bytes.EqualFold([]byte(n), key) {
			return false
		}
	}
	return r.skip()
}

// strField reads a string field: null leaves it as is, as encoding/json does.
func (r *rpcReader) strField(dst *string) bool {
	if r.null() {
		return true
	}
	s, ok := r.str()
	*dst = s
	return ok
}

// optStrField reads a string field that null sets to nil.
func (r *rpcReader) optStrField(dst **string) bool {
	if r.null() {
		*dst = nil
		return true
	}
	s, ok := r.str()
	*dst = &s
	return ok
}

var blockFields = []string{"number", "hash", "parentHash", "timestamp", "miner", "gasLimit", "gasUsed",
	"baseFeePerGas", "size", "blockExtraData", "timestampMilliseconds", "minDelayExcess", "blockGasCost", "transactions"}

func (r *rpcReader) block(b *rpcBlock) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "number":
			return seen.first(0) && r.strField(&b.Number)
		case "hash":
			return seen.first(1) && r.strField(&b.Hash)
		case "parentHash":
			return seen.first(2) && r.strField(&b.ParentHash)
		case "timestamp":
			return seen.first(3) && r.strField(&b.Timestamp)
		case "miner":
			return seen.first(4) && r.strField(&b.Miner)
		case "gasLimit":
			return seen.first(5) && r.strField(&b.GasLimit)
		case "gasUsed":
			return seen.first(6) && r.strField(&b.GasUsed)
		case "baseFeePerGas":
			return seen.first(7) && r.optStrField(&b.BaseFee)
		case "size":
			return seen.first(8) && r.strField(&b.Size)
		case "blockExtraData":
			return seen.first(9) && r.strField(&b.ExtData)
		case "timestampMilliseconds":
			return seen.first(10) && r.optStrField(&b.TimeMilliseconds)
		case "minDelayExcess":
			return seen.first(11) && r.optStrField(&b.MinDelayExcess)
		case "blockGasCost":
			return seen.first(12) && r.optStrField(&b.BlockGasCost)
		case "transactions":
			if !seen.first(13) {
				return false
			}
			if r.null() {
				b.Transactions = nil
				return true
			}
			return r.array(func() bool {
				b.Transactions = append(b.Transactions, rpcTx{})
				return r.tx(&b.Transactions[len(b.Transactions)-1])
			}, func() { b.Transactions = make([]rpcTx, 0) })
		}
		return r.other(k, blockFields)
	})
}

var txFields = []string{"hash", "from", "to", "value", "nonce", "type", "gas", "gasPrice",
	"maxFeePerGas", "maxPriorityFeePerGas", "input", "transactionIndex"}

func (r *rpcReader) tx(t *rpcTx) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "hash":
			return seen.first(0) && r.strField(&t.Hash)
		case "from":
			return seen.first(1) && r.strField(&t.From)
		case "to":
			return seen.first(2) && r.optStrField(&t.To)
		case "value":
			return seen.first(3) && r.strField(&t.Value)
		case "nonce":
			return seen.first(4) && r.strField(&t.Nonce)
		case "type":
			return seen.first(5) && r.strField(&t.Type)
		case "gas":
			return seen.first(6) && r.strField(&t.Gas)
		case "gasPrice":
			return seen.first(7) && r.strField(&t.GasPrice)
		case "maxFeePerGas":
			return seen.first(8) && r.optStrField(&t.MaxFeePerGas)
		case "maxPriorityFeePerGas":
			return seen.first(9) && r.optStrField(&t.MaxPriorityFeePerGas)
		case "input":
			return seen.first(10) && r.strField(&t.Input)
		case "transactionIndex":
			return seen.first(11) && r.strField(&t.Index)
		}
		return r.other(k, txFields)
	})
}

var receiptFields = []string{"transactionHash", "status", "gasUsed", "effectiveGasPrice", "contractAddress", "logs"}

func (r *rpcReader) receipt(rc *rpcReceipt) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "transactionHash":
			return seen.first(0) && r.strField(&rc.TxHash)
		case "status":
			return seen.first(1) && r.strField(&rc.Status)
		case "gasUsed":
			return seen.first(2) && r.strField(&rc.GasUsed)
		case "effectiveGasPrice":
			return seen.first(3) && r.strField(&rc.EffectiveGasPrice)
		case "contractAddress":
			return seen.first(4) && r.optStrField(&rc.ContractAddress)
		case "logs":
			if !seen.first(5) {
				return false
			}
			if r.null() {
				rc.Logs = nil
				return true
			}
			return r.array(func() bool {
				rc.Logs = append(rc.Logs, rpcLog{})
				return r.log(&rc.Logs[len(rc.Logs)-1])
			}, func() { rc.Logs = make([]rpcLog, 0) })
		}
		return r.other(k, receiptFields)
	})
}

var logFields = []string{"address", "topics", "data", "logIndex"}

func (r *rpcReader) log(l *rpcLog) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "address":
			return seen.first(0) && r.strField(&l.Address)
		case "topics":
			if !seen.first(1) {
				return false
			}
			if r.null() {
				l.Topics = nil
				return true
			}
			l.Topics = make([]string, 0, 4)
			return r.array(func() bool {
				l.Topics = append(l.Topics, "")
				// A null element is "", as encoding/json leaves it.
				return r.strField(&l.Topics[len(l.Topics)-1])
			}, nil)
		case "data":
			return seen.first(2) && r.strField(&l.Data)
		case "logIndex":
			return seen.first(3) && r.strField(&l.LogIndex)
		}
		return r.other(k, logFields)
	})
}

var traceFields = []string{"txHash", "result", "error"}

func (r *rpcReader) trace(t *rpcTrace) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "txHash":
			return seen.first(0) && r.strField(&t.TxHash)
		case "result":
			if !seen.first(1) {
				return false
			}
			if r.null() {
				t.Result = nil
				return true
			}
			t.Result = new(traceResult)
			return r.traceResult(t.Result)
		case "error":
			return seen.first(2) && r.strField(&t.Error)
		}
		return r.other(k, traceFields)
	})
}

var traceResultFields = []string{"callTracer", "prestateTracer"}

func (r *rpcReader) traceResult(t *traceResult) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "callTracer":
			if !seen.first(0) {
				return false
			}
			if r.null() {
				t.Call = nil
				return true
			}
			t.Call = new(callFrame)
			return r.frame(t.Call)
		case "prestateTracer":
			if !seen.first(1) {
				return false
			}
			if r.null() {
				t.Prestate = nil
				return true
			}
			t.Prestate = new(prestateDiff)
			return r.prestate(t.Prestate)
		}
		return r.other(k, traceResultFields)
	})
}

var frameFields = []string{"type", "from", "to", "value", "gas", "gasUsed", "input", "error", "calls"}

func (r *rpcReader) frame(c *callFrame) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "type":
			if !seen.first(0) || !r.strField(&c.Type) {
				return false
			}
			return true
		case "from":
			return seen.first(1) && r.strField(&c.From)
		case "to":
			return seen.first(2) && r.strField(&c.To)
		case "value":
			return seen.first(3) && r.strField(&c.Value)
		case "gas":
			return seen.first(4) && r.strField(&c.Gas)
		case "gasUsed":
			return seen.first(5) && r.strField(&c.GasUsed)
		case "input":
			return seen.first(6) && r.strField(&c.Input)
		case "error":
			return seen.first(7) && r.strField(&c.Error)
		case "calls":
			if !seen.first(8) {
				return false
			}
			if r.null() {
				c.Calls = nil
				return true
			}
			return r.array(func() bool {
				c.Calls = append(c.Calls, callFrame{})
				return r.frame(&c.Calls[len(c.Calls)-1])
			}, func() { c.Calls = make([]callFrame, 0) })
		}
		return r.other(k, frameFields)
	})
}

var prestateFields = []string{"pre", "post"}

func (r *rpcReader) prestate(p *prestateDiff) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		switch string(k) {
		case "pre":
			return seen.first(0) && r.accounts(&p.Pre)
		case "post":
			return seen.first(1) && r.accounts(&p.Post)
		}
		return r.other(k, prestateFields)
	})
}

// accounts reads a prestate map: a repeated key's last value wins, as in
// encoding/json.
func (r *rpcReader) accounts(m *map[string]accountState) bool {
	if r.null() {
		*m = nil
		return true
	}
	*m = map[string]accountState{}
	return r.object(func(k []byte) bool {
		var a accountState
		if !r.account(&a) {
			return false
		}
		(*m)[string(k)] = a
		return true
	})
}

var accountFields = []string{"balance"}

func (r *rpcReader) account(a *accountState) bool {
	var seen fields
	return r.object(func(k []byte) bool {
		if string(k) == "balance" {
			return seen.first(0) && r.optStrField(&a.Balance)
		}
		return r.other(k, accountFields)
	})
}

// unmarshalFast decodes raw into v with read, or with encoding/json when
// read gives up (or slow is set, for the tests).
func unmarshalFast[T any](raw []byte, v *T, read func([]byte) (T, bool), slow bool) error {
	if !slow {
		if x, ok := read(raw); ok {
			*v = x
			return nil
		}
	}
	return json.Unmarshal(raw, v)
}

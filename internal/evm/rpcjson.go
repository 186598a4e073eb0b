package evm

import (
	"encoding/json"

	"github.com/avaindex/avaindex/internal/jsonscan"
)

// A single-pass reader of the node's answers into the rpc* shapes
// (jsonscan): most of a block's bytes are values avaindex skips (logs
// blooms, signatures, the prestate tracer's code and storage). On
// anything but the node's plain shape the caller decodes the answer with
// encoding/json, so the result, error included, is always encoding/json's.

type rpcReader struct{ jsonscan.Reader }

// readBlock reads eth_getBlockByNumber's answer; false: use encoding/json.
func readBlock(raw []byte) (*rpcBlock, bool) {
	r := rpcReader{jsonscan.NewReader(raw)}
	b := new(rpcBlock)
	if !r.block(b) || !r.End() {
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
	r := rpcReader{jsonscan.NewReader(raw)}
	var out []T
	ok := r.Array(func() bool {
		out = append(out, *new(T))
		return elem(&r, &out[len(out)-1])
	}, func() { out = make([]T, 0) })
	if !ok || !r.End() {
		return nil, false
	}
	return out, true
}

// strField reads a string field: null leaves it as is, as encoding/json does.
func (r *rpcReader) strField(dst *string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.Str()
	*dst = s
	return ok
}

// optStrField reads a string field that null sets to nil.
func (r *rpcReader) optStrField(dst **string) bool {
	if r.Null() {
		*dst = nil
		return true
	}
	s, ok := r.Str()
	*dst = &s
	return ok
}

var blockFields = []string{"number", "hash", "parentHash", "timestamp", "miner", "gasLimit", "gasUsed",
	"baseFeePerGas", "size", "blockExtraData", "timestampMilliseconds", "minDelayExcess", "blockGasCost", "transactions"}

func (r *rpcReader) block(b *rpcBlock) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "number":
			return seen.First(0) && r.strField(&b.Number)
		case "hash":
			return seen.First(1) && r.strField(&b.Hash)
		case "parentHash":
			return seen.First(2) && r.strField(&b.ParentHash)
		case "timestamp":
			return seen.First(3) && r.strField(&b.Timestamp)
		case "miner":
			return seen.First(4) && r.strField(&b.Miner)
		case "gasLimit":
			return seen.First(5) && r.strField(&b.GasLimit)
		case "gasUsed":
			return seen.First(6) && r.strField(&b.GasUsed)
		case "baseFeePerGas":
			return seen.First(7) && r.optStrField(&b.BaseFee)
		case "size":
			return seen.First(8) && r.strField(&b.Size)
		case "blockExtraData":
			return seen.First(9) && r.strField(&b.ExtData)
		case "timestampMilliseconds":
			return seen.First(10) && r.optStrField(&b.TimeMilliseconds)
		case "minDelayExcess":
			return seen.First(11) && r.optStrField(&b.MinDelayExcess)
		case "blockGasCost":
			return seen.First(12) && r.optStrField(&b.BlockGasCost)
		case "transactions":
			if !seen.First(13) {
				return false
			}
			if r.Null() {
				b.Transactions = nil
				return true
			}
			return r.Array(func() bool {
				b.Transactions = append(b.Transactions, rpcTx{})
				return r.tx(&b.Transactions[len(b.Transactions)-1])
			}, func() { b.Transactions = make([]rpcTx, 0) })
		}
		return r.Other(k, blockFields)
	})
}

var txFields = []string{"hash", "from", "to", "value", "nonce", "type", "gas", "gasPrice",
	"maxFeePerGas", "maxPriorityFeePerGas", "input", "transactionIndex"}

func (r *rpcReader) tx(t *rpcTx) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "hash":
			return seen.First(0) && r.strField(&t.Hash)
		case "from":
			return seen.First(1) && r.strField(&t.From)
		case "to":
			return seen.First(2) && r.optStrField(&t.To)
		case "value":
			return seen.First(3) && r.strField(&t.Value)
		case "nonce":
			return seen.First(4) && r.strField(&t.Nonce)
		case "type":
			return seen.First(5) && r.strField(&t.Type)
		case "gas":
			return seen.First(6) && r.strField(&t.Gas)
		case "gasPrice":
			return seen.First(7) && r.strField(&t.GasPrice)
		case "maxFeePerGas":
			return seen.First(8) && r.optStrField(&t.MaxFeePerGas)
		case "maxPriorityFeePerGas":
			return seen.First(9) && r.optStrField(&t.MaxPriorityFeePerGas)
		case "input":
			return seen.First(10) && r.strField(&t.Input)
		case "transactionIndex":
			return seen.First(11) && r.strField(&t.Index)
		}
		return r.Other(k, txFields)
	})
}

var receiptFields = []string{"transactionHash", "status", "gasUsed", "effectiveGasPrice", "contractAddress", "logs"}

func (r *rpcReader) receipt(rc *rpcReceipt) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "transactionHash":
			return seen.First(0) && r.strField(&rc.TxHash)
		case "status":
			return seen.First(1) && r.strField(&rc.Status)
		case "gasUsed":
			return seen.First(2) && r.strField(&rc.GasUsed)
		case "effectiveGasPrice":
			return seen.First(3) && r.strField(&rc.EffectiveGasPrice)
		case "contractAddress":
			return seen.First(4) && r.optStrField(&rc.ContractAddress)
		case "logs":
			if !seen.First(5) {
				return false
			}
			if r.Null() {
				rc.Logs = nil
				return true
			}
			return r.Array(func() bool {
				rc.Logs = append(rc.Logs, rpcLog{})
				return r.log(&rc.Logs[len(rc.Logs)-1])
			}, func() { rc.Logs = make([]rpcLog, 0) })
		}
		return r.Other(k, receiptFields)
	})
}

var logFields = []string{"address", "topics", "data", "logIndex"}

func (r *rpcReader) log(l *rpcLog) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "address":
			return seen.First(0) && r.strField(&l.Address)
		case "topics":
			if !seen.First(1) {
				return false
			}
			if r.Null() {
				l.Topics = nil
				return true
			}
			l.Topics = make([]string, 0, 4)
			return r.Array(func() bool {
				l.Topics = append(l.Topics, "")
				// A null element is "", as encoding/json leaves it.
				return r.strField(&l.Topics[len(l.Topics)-1])
			}, nil)
		case "data":
			return seen.First(2) && r.strField(&l.Data)
		case "logIndex":
			return seen.First(3) && r.strField(&l.LogIndex)
		}
		return r.Other(k, logFields)
	})
}

var traceFields = []string{"txHash", "result", "error"}

func (r *rpcReader) trace(t *rpcTrace) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "txHash":
			return seen.First(0) && r.strField(&t.TxHash)
		case "result":
			if !seen.First(1) {
				return false
			}
			if r.Null() {
				t.Result = nil
				return true
			}
			t.Result = new(traceResult)
			return r.traceResult(t.Result)
		case "error":
			return seen.First(2) && r.strField(&t.Error)
		}
		return r.Other(k, traceFields)
	})
}

var traceResultFields = []string{"callTracer", "prestateTracer"}

func (r *rpcReader) traceResult(t *traceResult) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "callTracer":
			if !seen.First(0) {
				return false
			}
			if r.Null() {
				t.Call = nil
				return true
			}
			t.Call = new(callFrame)
			return r.frame(t.Call)
		case "prestateTracer":
			if !seen.First(1) {
				return false
			}
			if r.Null() {
				t.Prestate = nil
				return true
			}
			t.Prestate = new(prestateDiff)
			return r.prestate(t.Prestate)
		}
		return r.Other(k, traceResultFields)
	})
}

var frameFields = []string{"type", "from", "to", "value", "gas", "gasUsed", "input", "error", "calls"}

func (r *rpcReader) frame(c *callFrame) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "type":
			if !seen.First(0) || !r.strField(&c.Type) {
				return false
			}
			return true
		case "from":
			return seen.First(1) && r.strField(&c.From)
		case "to":
			return seen.First(2) && r.strField(&c.To)
		case "value":
			return seen.First(3) && r.strField(&c.Value)
		case "gas":
			return seen.First(4) && r.strField(&c.Gas)
		case "gasUsed":
			return seen.First(5) && r.strField(&c.GasUsed)
		case "input":
			return seen.First(6) && r.strField(&c.Input)
		case "error":
			return seen.First(7) && r.strField(&c.Error)
		case "calls":
			if !seen.First(8) {
				return false
			}
			if r.Null() {
				c.Calls = nil
				return true
			}
			return r.Array(func() bool {
				c.Calls = append(c.Calls, callFrame{})
				return r.frame(&c.Calls[len(c.Calls)-1])
			}, func() { c.Calls = make([]callFrame, 0) })
		}
		return r.Other(k, frameFields)
	})
}

var prestateFields = []string{"pre", "post"}

func (r *rpcReader) prestate(p *prestateDiff) bool {
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		switch string(k) {
		case "pre":
			return seen.First(0) && r.accounts(&p.Pre)
		case "post":
			return seen.First(1) && r.accounts(&p.Post)
		}
		return r.Other(k, prestateFields)
	})
}

// accounts reads a prestate map: a repeated key's last value wins, as in
// encoding/json.
func (r *rpcReader) accounts(m *map[string]accountState) bool {
	if r.Null() {
		*m = nil
		return true
	}
	*m = map[string]accountState{}
	return r.Object(func(k []byte) bool {
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
	var seen jsonscan.Fields
	return r.Object(func(k []byte) bool {
		if string(k) == "balance" {
			return seen.First(0) && r.optStrField(&a.Balance)
		}
		return r.Other(k, accountFields)
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

package evm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeBoth decodes in with the single-pass reader and with encoding/json
// only, and fails unless both give the same block, or the same error.
func decodeBoth(t testing.TB, cfg *Config, in Input) (*Block, error) {
	t.Helper()
	fast, ferr := decode(cfg, in, false)
	slow, serr := decode(cfg, in, true)
	if fmt.Sprint(ferr) != fmt.Sprint(serr) {
		t.Fatalf("the reader's error %v, encoding/json's %v", ferr, serr)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the reader and encoding/json decode different blocks:\n%+v\n%+v", fast, slow)
	}
	return fast, ferr
}

// TestReadRecorded reads the real node's answers with the single-pass
// reader, as they are and compacted: it must take them all (not give up
// to encoding/json), into the shapes encoding/json gives, and Decode must
// give the blocks it gives.
func TestReadRecorded(t *testing.T) {
	_, blocks, cfg := recorded(t)
	compact := func(raw []byte) []byte {
		if raw == nil {
			return nil
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for h, rb := range blocks {
		for _, form := range []func([]byte) []byte{func(b []byte) []byte { return b }, compact} {
			in := Input{Block: form(rb.Block), Receipts: form(rb.Receipts), Traces: form(rb.Traces)}
			checkRead(t, h, "block", in.Block, readBlock)
			if h > 0 { // the genesis has neither
				checkRead(t, h, "receipts", in.Receipts, readReceipts)
				checkRead(t, h, "traces", in.Traces, readTraces)
			}
			if _, err := decodeBoth(t, cfg, in); err != nil {
				t.Fatalf("block %d: %v", h, err)
			}
		}
	}
}

func checkRead[T any](t *testing.T, h int, what string, raw []byte, read func([]byte) (T, bool)) {
	t.Helper()
	got, ok := read(raw)
	if !ok {
		t.Fatalf("block %d: the reader gave up on the %s", h, what)
	}
	var want T
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("block %d: the reader read the %s as\n%+v\nencoding/json as\n%+v", h, what, got, want)
	}
}

// TestReadVariants decodes the recorded answers changed in ways the node
// does not write but JSON allows (or does not), where the reader must give
// up to encoding/json or read what encoding/json reads.
func TestReadVariants(t *testing.T) {
	_, blocks, cfg := recorded(t)
	type variant struct {
		name         string
		part         string // block, receipts or traces
		old, new     string
		wantErr      bool
		wantReaderOK bool // the reader still takes it
	}
	variants := []variant{
		{"folded key", "block", `"number"`, `"NUMBER"`, false, false},
		{"folded key in a tx", "block", `"transactionIndex"`, `"TransactionIndex"`, false, false},
		{"duplicate key", "block", `"hash"`, `"number": "0x7fffffff", "hash"`, false, false},
		{"escaped call type", "traces", `"CALL"`, `"\u0043ALL"`, false, false},
		{"escaped status", "receipts", `"status": "0x`, `"status": "\u0030x`, false, false},
		{"non-ASCII", "traces", `"CALL"`, `"CALLé"`, false, false},
		{"null string", "block", `"size"`, `"size": null, "ignored"`, false, true},
		{"null pointer", "block", `"baseFeePerGas": "`, `"baseFeePerGas": null, "x": "`, false, true},
		{"null list", "receipts", `"logs": [`, `"logs": null, "x": [`, false, true},
		{"unknown values", "block", `"hash"`, `"extra": {"a": [1, -2.5e+3, 0.0, 1E-7, true, false, null, "\u00e9\n\"\\\/\b\f\r\t", {}, []], "ſ": "\ud800"}, "hash"`, false, true},
		{"number for a string", "block", `"gasUsed": "0x`, `"gasUsed": 1, "x": "0x`, true, false},
		{"object for a list", "traces", `"calls": [`, `"calls": {}, "x": [`, true, false},
		{"bad number", "block", `"hash"`, `"x": 01, "hash"`, true, false},
		{"bad escape", "block", `"hash"`, `"x": "\q", "hash"`, true, false},
		{"control character", "block", `"hash"`, "\"x\": \"\t\", \"hash\"", true, false},
		{"trailing comma", "receipts", `"logs": [`, `"logs": [], "x": [1,],"y": [`, true, false},
		{"trailing data", "traces", ``, ``, true, false},
		{"truncated", "block", ``, ``, true, false},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			changed := 0
			for h, rb := range blocks {
				if h == 0 && v.part != "block" {
					continue // the genesis's receipts and traces are not read
				}
				parts := map[string][]byte{"block": rb.Block, "receipts": rb.Receipts, "traces": rb.Traces}
				raw := string(parts[v.part])
				switch v.name {
				case "trailing data":
					raw += " x"
				case "truncated":
					raw = raw[:len(raw)/2]
				default:
					raw = strings.Replace(raw, v.old, v.new, 1)
				}
				if raw == string(parts[v.part]) {
					continue
				}
				changed++
				parts[v.part] = []byte(raw)
				in := Input{Block: parts["block"], Receipts: parts["receipts"], Traces: parts["traces"]}
				_, err := decodeBoth(t, cfg, in)
				if (err != nil) != v.wantErr {
					t.Fatalf("block %d: error %v", h, err)
				}
				var ok bool
				switch v.part {
				case "block":
					_, ok = readBlock(in.Block)
				case "receipts":
					_, ok = readReceipts(in.Receipts)
				case "traces":
					_, ok = readTraces(in.Traces)
				}
				if ok != v.wantReaderOK {
					t.Fatalf("block %d: the reader took it: %t", h, ok)
				}
			}
			if changed == 0 {
				t.Fatal("no recorded block has it")
			}
		})
	}
}

// FuzzReadRPC decodes arbitrary node answers with the single-pass reader
// and with encoding/json only: both give the same block or the same error.
func FuzzReadRPC(f *testing.F) {
	_, blocks, cfg := recorded(f)
	for _, rb := range blocks {
		f.Add([]byte(rb.Block), []byte(rb.Receipts), []byte(rb.Traces))
	}
	f.Add([]byte(`{"number":"0x1","Number":"0x2","transactions":[{"to":null}],"x":[1e5,"\u0041"]}`), []byte(`[{"logs":[{"topics":[null,"0x"]}]}]`), []byte(`[{"result":{"callTracer":{"calls":null},"prestateTracer":{"pre":{"0x":{}},"post":null}}}]`))
	f.Fuzz(func(t *testing.T, block, receipts, traces []byte) {
		in := Input{Block: block, Receipts: receipts}
		if traces != nil {
			in.Traces = traces
		}
		fast, ferr := decode(cfg, in, false)
		slow, serr := decode(cfg, in, true)
		if fmt.Sprint(ferr) == fmt.Sprint(serr) && reflect.DeepEqual(fast, slow) {
			return
		}
		// Two keys of a prestate map naming one address (in different
		// cases) with different balances: which wins is the map's
		// iteration order, so encoding/json's decoding differs from itself.
		for range 20 {
			again, aerr := decode(cfg, in, true)
			if fmt.Sprint(aerr) != fmt.Sprint(serr) || !reflect.DeepEqual(again, slow) {
				return
			}
		}
		t.Fatalf("the reader: %v\n%+v\nencoding/json: %v\n%+v", ferr, fast, serr, slow)
	})
}

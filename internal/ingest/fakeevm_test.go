package ingest

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
)

// fakeEVMChain serves blocks 0 (a genesis without txs) to tip, each
// block's answers (JSON) slices of one buffer that alloc returns (nil:
// the Go heap).
type fakeEVMChain struct {
	chainID                  uint64
	blocks, receipts, traces [][]byte
	size                     int
}

func newFakeEVMChain(tb testing.TB, chainID uint64, tip int, alloc func(size int) []byte) *fakeEVMChain {
	_, block1, receipts1, traces1 := genEVMBlock(1, common.Hash{})
	// Room for every block at twice the first one's size: pages never
	// written are not resident.
	room := (tip + 1) * 2 * (len(block1) + len(receipts1) + len(traces1))
	var mem []byte
	if alloc != nil {
		mem = alloc(room)
	} else {
		mem = make([]byte, room)
	}
	c := &fakeEVMChain{chainID: chainID}
	keep := func(p []byte) []byte {
		if c.size+len(p) > len(mem) {
			tb.Fatalf("the fake chain outgrew its %d bytes", len(mem))
		}
		s := mem[c.size : c.size+len(p) : c.size+len(p)]
		copy(s, p)
		c.size += len(p)
		return s
	}
	parent, block, receipts, traces := genEVMBlockTxs(0, common.Hash{}, 0)
	for n := 0; ; {
		c.blocks = append(c.blocks, keep(block))
		c.receipts = append(c.receipts, keep(receipts))
		c.traces = append(c.traces, keep(traces))
		if n++; n > tip {
			break
		}
		parent, block, receipts, traces = genEVMBlock(n, parent)
	}
	return c
}

// The eth_call answers: the tokens are ERC-20 contracts named "Bench
// Token" (BENCH, 18 decimals) that hold nothing; ERC-165 and any other
// call revert.
var (
	fakeTokenName   = abiString("Bench Token")
	fakeTokenSymbol = abiString("BENCH")
	fakeWord18      = fmt.Sprintf(`"0x%064x"`, 18)
	fakeWordZero    = fmt.Sprintf(`"0x%064x"`, 0)
)

func abiString(s string) string {
	word := func(v int) string { return fmt.Sprintf("%064x", v) }
	data := hex.EncodeToString([]byte(s))
	data += strings.Repeat("0", (64-len(data)%64)%64)
	return `"0x` + word(32) + word(len(s)) + data + `"`
}

func (c *fakeEVMChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var reqs []struct {
		ID     int               `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	height := func(params []json.RawMessage) (int, error) {
		var s string
		if len(params) == 0 || json.Unmarshal(params[0], &s) != nil {
			return 0, fmt.Errorf("no block number in %s", params)
		}
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
		if err != nil || int(n) >= len(c.blocks) {
			return 0, fmt.Errorf("no block %q", s)
		}
		return int(n), nil
	}
	// The answers go straight out, not copied into one reply first: the
	// fake's garbage would count as the follower's.
	w.Header().Set("Content-Type", "application/json")
	out := bufio.NewWriter(w)
	defer out.Flush()
	out.WriteByte('[')
	for i, req := range reqs {
		if i > 0 {
			out.WriteByte(',')
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,`, req.ID)
		var result []byte
		var err error
		switch req.Method {
		case "eth_chainId":
			result = []byte(`"` + hexq(c.chainID) + `"`)
		case "eth_blockNumber":
			result = []byte(`"` + hexq(uint64(len(c.blocks)-1)) + `"`)
		case "eth_getBlockByNumber", "eth_getBlockReceipts", "debug_traceBlockByNumber":
			var n int
			if n, err = height(req.Params); err == nil {
				result = map[string][][]byte{"eth_getBlockByNumber": c.blocks, "eth_getBlockReceipts": c.receipts,
					"debug_traceBlockByNumber": c.traces}[req.Method][n]
			}
		case "eth_getBalance":
			result = []byte(`"0x0"`)
		case "eth_call":
			var call struct {
				Data string `json:"data"`
			}
			if len(req.Params) > 0 {
				_ = json.Unmarshal(req.Params[0], &call)
			}
			switch sel := strings.TrimPrefix(call.Data, "0x"); {
			case strings.HasPrefix(sel, "06fdde03"): // name()
				result = []byte(fakeTokenName)
			case strings.HasPrefix(sel, "95d89b41"): // symbol()
				result = []byte(fakeTokenSymbol)
			case strings.HasPrefix(sel, "313ce567"): // decimals()
				result = []byte(fakeWord18)
			case strings.HasPrefix(sel, "18160ddd"), strings.HasPrefix(sel, "70a08231"): // totalSupply(), balanceOf(address)
				result = []byte(fakeWordZero)
			default:
				err = fmt.Errorf("execution reverted")
			}
		default:
			err = fmt.Errorf("the method %s does not exist/is not available", req.Method)
		}
		if err != nil {
			msg, _ := json.Marshal(err.Error())
			fmt.Fprintf(out, `"error":{"code":-32000,"message":%s}}`, msg)
			continue
		}
		out.WriteString(`"result":`)
		out.Write(result)
		out.WriteByte('}')
	}
	out.WriteByte(']')
}

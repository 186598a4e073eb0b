package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/jsonscan"
)

// maxEVMReply bounds one EVM batch reply: a block with its receipts and
// traces (prestate diffs list every storage slot a tx changed) is larger
// than a P-chain block, but past this it is an upstream fault.
const maxEVMReply = 256 << 20

// EVMClient calls one EVM chain's JSON-RPC endpoint (the C-chain's
// /ext/bc/C/rpc, an L1's /ext/bc/<id>/rpc, any EVM's URL). Calls that
// belong together go in one JSON-RPC batch request.
type EVMClient struct {
	url  string
	http *http.Client
}

// NewEVM returns a client of the EVM JSON-RPC endpoint at rpcURL.
func NewEVM(rpcURL string) *EVMClient {
	// Tracing a large block takes the node a while.
	return &EVMClient{url: rpcURL, http: &http.Client{Timeout: 2 * time.Minute}}
}

// URL returns the endpoint.
func (c *EVMClient) URL() string { return c.url }

type evmRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

type evmReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// err is the reply's error object as an error, nil when it succeeded.
func (r *evmReply) err(method string) error {
	if r.Error != nil {
		return fmt.Errorf("%s: %w", method, r.Error)
	}
	return nil
}

// batch sends reqs as one JSON-RPC batch and returns the replies in the
// order of reqs. Transport failures wrap derrors.Unavailable, malformed
// replies derrors.BadGateway; each reply's own error is left in it.
func (c *EVMClient) batch(ctx context.Context, reqs []evmRequest) (_ []evmReply, err error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	start := time.Now()
	defer func() {
		for _, r := range reqs {
			instrument.ObserveUpstream(r.Method, start, err)
		}
	}()
	for i := range reqs {
		reqs[i].JSONRPC, reqs[i].ID = "2.0", i
	}
	what := reqs[0].Method
	body, err := json.Marshal(reqs)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding params: %w", what, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %w", what, c.url, derrors.Unavailable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxEVMReply+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading reply: %w: %w", what, derrors.Unavailable, err)
	}
	if len(raw) > maxEVMReply {
		return nil, fmt.Errorf("%s: reply larger than %d bytes: %w", what, maxEVMReply, derrors.BadGateway)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %w: %w", what, c.url, &HTTPError{StatusCode: resp.StatusCode}, derrors.BadGateway)
	}
	replies, ok := readReplies(raw)
	if !ok {
		if err := json.Unmarshal(raw, &replies); err != nil {
			// A node that refuses the whole batch answers one error object.
			var one evmReply
			if json.Unmarshal(raw, &one) == nil && one.Error != nil {
				return nil, fmt.Errorf("%s: %w", what, one.Error)
			}
			return nil, fmt.Errorf("%s: decoding reply: %w: %w", what, derrors.BadGateway, err)
		}
	}
	out := make([]evmReply, len(reqs))
	seen := make([]bool, len(reqs))
	for _, r := range replies {
		if r.ID < 0 || r.ID >= len(reqs) || seen[r.ID] {
			return nil, fmt.Errorf("%s: reply with unexpected id %d: %w", what, r.ID, derrors.BadGateway)
		}
		out[r.ID], seen[r.ID] = r, true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%s: no reply to %s: %w", what, reqs[i].Method, derrors.BadGateway)
		}
	}
	return out, nil
}

// replyKeys are the keys of a reply that readReplies reads or gives up on.
var replyKeys = []string{"id", "result", "error"}

// readReplies reads a batch's replies in one pass (jsonscan), each result
// aliasing raw. It gives up (false) on a reply with an error member and on
// anything but the plain shape, which encoding/json then decodes: a
// block's replies are its whole size, and encoding/json read them three
// times (a validating scan, a scan to skip each result, a copy of it),
// four times what decoding the block then took (BenchmarkCatchUpMemoryEVM).
func readReplies(raw []byte) ([]evmReply, bool) {
	r := jsonscan.NewReader(raw)
	var out []evmReply
	ok := r.Array(func() bool {
		var (
			rep  evmReply
			seen jsonscan.Fields
			ok   bool
		)
		read := r.Object(func(k []byte) bool {
			switch string(k) {
			case "id":
				var id int64
				id, ok = r.Uint()
				rep.ID = int(id)
				return seen.First(0) && ok
			case "result":
				rep.Result, ok = r.Raw()
				return seen.First(1) && ok
			default:
				return r.Other(k, replyKeys)
			}
		})
		out = append(out, rep)
		return read
	}, func() { out = make([]evmReply, 0) })
	if !ok || !r.End() {
		return nil, false
	}
	return out, true
}

// call makes one call.
func (c *EVMClient) call(ctx context.Context, method string, reply any, params ...any) error {
	rs, err := c.batch(ctx, []evmRequest{{Method: method, Params: params}})
	if err != nil {
		return err
	}
	if err := rs[0].err(method); err != nil {
		return err
	}
	if err := json.Unmarshal(rs[0].Result, reply); err != nil {
		return fmt.Errorf("%s: decoding result: %w: %w", method, derrors.BadGateway, err)
	}
	return nil
}

// IsMethodNotFound reports whether err is the node's answer for a method
// it does not serve (a debug API not enabled, say).
func IsMethodNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && (re.Code == -32601 || strings.Contains(re.Message, "does not exist/is not available"))
}

func hexNumber(n uint64) string { return "0x" + strconv.FormatUint(n, 16) }

// ChainID returns the chain's EVM chain id (eth_chainId).
func (c *EVMClient) ChainID(ctx context.Context) (uint64, error) {
	var s string
	if err := c.call(ctx, "eth_chainId", &s); err != nil {
		return 0, err
	}
	return parseQuantity("eth_chainId", s)
}

// BlockNumber returns the number of the chain's last accepted block.
func (c *EVMClient) BlockNumber(ctx context.Context) (uint64, error) {
	var s string
	if err := c.call(ctx, "eth_blockNumber", &s); err != nil {
		return 0, err
	}
	return parseQuantity("eth_blockNumber", s)
}

// EVMBlockReply is one block as the node answered it, in JSON.
type EVMBlockReply struct {
	// Block is eth_getBlockByNumber's answer with full txs.
	Block json.RawMessage
	// Receipts are the block's receipts, in tx order.
	Receipts json.RawMessage
	// Traces is debug_traceBlockByNumber's answer; nil when not asked
	// (block 0 has none) or when TraceErr says why there is none.
	Traces   json.RawMessage
	TraceErr error
}

// Block fetches block number n with its receipts and, when traceConfig is
// not nil, its debug_traceBlockByNumber traces with that configuration,
// in one batch. perTxReceipts asks eth_getTransactionReceipt for each tx
// instead of eth_getBlockReceipts, for nodes without the latter
// (IsMethodNotFound on its error). A trace the node refuses is returned
// in TraceErr, for the caller to tell a missing tracer from a failure.
func (c *EVMClient) Block(ctx context.Context, n uint64, traceConfig any, perTxReceipts bool) (*EVMBlockReply, error) {
	num := hexNumber(n)
	reqs := []evmRequest{{Method: "eth_getBlockByNumber", Params: []any{num, true}}}
	if !perTxReceipts {
		reqs = append(reqs, evmRequest{Method: "eth_getBlockReceipts", Params: []any{num}})
	}
	traced := traceConfig != nil && n > 0 // the genesis is not traceable
	if traced {
		reqs = append(reqs, evmRequest{Method: "debug_traceBlockByNumber", Params: []any{num, traceConfig}})
	}
	rs, err := c.batch(ctx, reqs)
	if err != nil {
		return nil, err
	}
	if err := rs[0].err("eth_getBlockByNumber"); err != nil {
		return nil, err
	}
	if bytes.Equal(bytes.TrimSpace(rs[0].Result), []byte("null")) {
		return nil, fmt.Errorf("eth_getBlockByNumber(%d): no such block: %w", n, derrors.NotFound)
	}
	out := &EVMBlockReply{Block: rs[0].Result}
	if perTxReceipts {
		if out.Receipts, err = c.txReceipts(ctx, n, rs[0].Result); err != nil {
			return nil, err
		}
	} else {
		if err := rs[1].err("eth_getBlockReceipts"); err != nil {
			return nil, err
		}
		out.Receipts = rs[1].Result
	}
	if traced {
		r := rs[len(rs)-1]
		if out.TraceErr = r.err("debug_traceBlockByNumber"); out.TraceErr == nil {
			out.Traces = r.Result
		}
	}
	return out, nil
}

// txReceipts fetches the receipt of each tx of a block, in one batch, and
// returns them as eth_getBlockReceipts would.
func (c *EVMClient) txReceipts(ctx context.Context, n uint64, block json.RawMessage) (json.RawMessage, error) {
	var b struct {
		Transactions []struct {
			Hash string `json:"hash"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(block, &b); err != nil {
		return nil, fmt.Errorf("eth_getBlockByNumber(%d): %w: %w", n, derrors.BadGateway, err)
	}
	if len(b.Transactions) == 0 {
		return json.RawMessage("[]"), nil
	}
	reqs := make([]evmRequest, len(b.Transactions))
	for i, t := range b.Transactions {
		reqs[i] = evmRequest{Method: "eth_getTransactionReceipt", Params: []any{t.Hash}}
	}
	rs, err := c.batch(ctx, reqs)
	if err != nil {
		return nil, err
	}
	parts := make([]json.RawMessage, len(rs))
	for i, r := range rs {
		if err := r.err("eth_getTransactionReceipt"); err != nil {
			return nil, err
		}
		parts[i] = r.Result
	}
	return json.Marshal(parts)
}

// CallAll makes eth_call of each input to contract to, at block number
// (nil: the latest), in one batch, and returns the answers in order: nil
// for a call that failed or reverted (the contract does not implement
// it). A node that no longer keeps the block's state answers an error
// IsStateUnavailable reports.
func (c *EVMClient) CallAll(ctx context.Context, to common.Address, inputs [][]byte, block *uint64) ([][]byte, error) {
	at := "latest"
	if block != nil {
		at = hexNumber(*block)
	}
	reqs := make([]evmRequest, len(inputs))
	for i, in := range inputs {
		reqs[i] = evmRequest{Method: "eth_call", Params: []any{
			map[string]any{"to": to, "data": hexutil.Bytes(in)}, at}}
	}
	rs, err := c.batch(ctx, reqs)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(rs))
	for i, r := range rs {
		if r.Error != nil {
			if isStateUnavailable(r.Error) {
				return nil, fmt.Errorf("eth_call at %s: %w", at, r.Error)
			}
			continue // reverted, or not implemented
		}
		var b hexutil.Bytes
		if err := json.Unmarshal(r.Result, &b); err != nil {
			return nil, fmt.Errorf("eth_call: decoding result: %w: %w", derrors.BadGateway, err)
		}
		out[i] = b
	}
	return out, nil
}

// IsStateUnavailable reports whether err is the node's answer for a block
// whose state it does not keep (a pruned node).
func IsStateUnavailable(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && isStateUnavailable(re)
}

// isStateUnavailable reports whether a call failed because the node does
// not keep the state of the block asked, rather than because of the call
// itself.
func isStateUnavailable(e *RPCError) bool {
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "missing trie node") || strings.Contains(m, "historical state") ||
		strings.Contains(m, "state not available") || strings.Contains(m, "header not found")
}

// Balances returns the balances of addrs after block number, in one batch
// (eth_getBalance).
func (c *EVMClient) Balances(ctx context.Context, addrs []common.Address, block uint64) (map[common.Address]*big.Int, error) {
	if len(addrs) == 0 {
		return map[common.Address]*big.Int{}, nil
	}
	reqs := make([]evmRequest, len(addrs))
	for i, a := range addrs {
		reqs[i] = evmRequest{Method: "eth_getBalance", Params: []any{a, hexNumber(block)}}
	}
	rs, err := c.batch(ctx, reqs)
	if err != nil {
		return nil, err
	}
	out := make(map[common.Address]*big.Int, len(addrs))
	for i, r := range rs {
		if err := r.err("eth_getBalance"); err != nil {
			return nil, err
		}
		var v hexutil.Big
		if err := json.Unmarshal(r.Result, &v); err != nil {
			return nil, fmt.Errorf("eth_getBalance: decoding result: %w: %w", derrors.BadGateway, err)
		}
		out[addrs[i]] = v.ToInt()
	}
	return out, nil
}

// The ERC-20 view functions the balances are checked with: balanceOf's
// and totalSupply's selectors.
var (
	erc20BalanceOf   = []byte{0x70, 0xa0, 0x82, 0x31}
	erc20TotalSupply = []byte{0x18, 0x16, 0x0d, 0xdd}
)

// ERC20State asks an ERC-20 token its totalSupply and the balanceOf each
// of holders at block number (nil: the latest), in one batch. A value the
// contract did not answer as a uint256 is nil.
func (c *EVMClient) ERC20State(ctx context.Context, token common.Address, holders []common.Address, block *uint64) (supply *big.Int, balances []*big.Int, err error) {
	inputs := [][]byte{erc20TotalSupply}
	for _, h := range holders {
		inputs = append(inputs, append(append(append([]byte{}, erc20BalanceOf...), make([]byte, 12)...), h[:]...))
	}
	answers, err := c.CallAll(ctx, token, inputs, block)
	if err != nil {
		return nil, nil, err
	}
	word := func(b []byte) *big.Int {
		if len(b) != 32 {
			return nil
		}
		return new(big.Int).SetBytes(b)
	}
	balances = make([]*big.Int, len(holders))
	for i := range holders {
		balances[i] = word(answers[i+1])
	}
	return word(answers[0]), balances, nil
}

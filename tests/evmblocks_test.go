package tests

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// nodeFullBlock is what eth_getBlockByNumber says of a block with its txs,
// Avalanche's header fields included.
type nodeFullBlock struct {
	Hash                  common.Hash     `json:"hash"`
	ParentHash            common.Hash     `json:"parentHash"`
	Number                hexutil.Uint64  `json:"number"`
	Timestamp             hexutil.Uint64  `json:"timestamp"`
	TimestampMilliseconds *hexutil.Uint64 `json:"timestampMilliseconds"`
	MinDelayExcess        *hexutil.Uint64 `json:"minDelayExcess"`
	BlockGasCost          *hexutil.Big    `json:"blockGasCost"`
	BaseFee               *hexutil.Big    `json:"baseFeePerGas"`
	GasUsed               hexutil.Uint64  `json:"gasUsed"`
	GasLimit              hexutil.Uint64  `json:"gasLimit"`
	Transactions          []nodeTx        `json:"transactions"`
}

// nodeTx is a tx as eth_getBlockByNumber and eth_getTransactionByHash say.
type nodeTx struct {
	Hash        common.Hash     `json:"hash"`
	BlockHash   common.Hash     `json:"blockHash"`
	BlockNumber hexutil.Uint64  `json:"blockNumber"`
	Index       hexutil.Uint64  `json:"transactionIndex"`
	From        common.Address  `json:"from"`
	To          *common.Address `json:"to"`
	Value       hexutil.Big     `json:"value"`
	Nonce       hexutil.Uint64  `json:"nonce"`
	Type        hexutil.Uint64  `json:"type"`
	Gas         hexutil.Uint64  `json:"gas"`
	Input       hexutil.Bytes   `json:"input"`
	MaxFee      *hexutil.Big    `json:"maxFeePerGas"`
	MaxPriority *hexutil.Big    `json:"maxPriorityFeePerGas"`
}

type nodeReceipt struct {
	Status            hexutil.Uint64  `json:"status"`
	GasUsed           hexutil.Uint64  `json:"gasUsed"`
	EffectiveGasPrice hexutil.Big     `json:"effectiveGasPrice"`
	ContractAddress   *common.Address `json:"contractAddress"`
}

// callFrame is the callTracer's frame.
type callFrame struct {
	Type    string         `json:"type"`
	From    common.Address `json:"from"`
	To      common.Address `json:"to"`
	Value   *hexutil.Big   `json:"value"`
	Gas     hexutil.Uint64 `json:"gas"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	Error   string         `json:"error"`
	Calls   []callFrame    `json:"calls"`
}

// flatten lists the frames below f depth first, each reverted when it or
// a frame above it failed.
func (f *callFrame) flatten(reverted bool, out *[]api.InternalTransactionDetails) {
	for i := range f.Calls {
		c := &f.Calls[i]
		r := reverted || c.Error != ""
		value := "0"
		if c.Value != nil {
			value = c.Value.ToInt().String()
		}
		*out = append(*out, api.InternalTransactionDetails{From: api.RichAddress{Address: c.From.Hex()},
			To: api.RichAddress{Address: c.To.Hex()}, InternalTxType: c.Type, Value: value, IsReverted: r,
			GasUsed: strconv.FormatUint(uint64(c.GasUsed), 10), GasLimit: strconv.FormatUint(uint64(c.Gas), 10)})
		c.flatten(r, out)
	}
}

// TestEVMBlocksAndTransactionsMatchNode checks the EVM blocks and
// transactions endpoints, on both stores, against the node, for every
// block of the C-chain since the EVM scenarios began: each block by number
// and by hash against eth_getBlockByNumber and eth_getBlockByHash (the
// Granite header fields, the block gas cost, the fees its receipts say
// were paid, the txs counted from the genesis), its txs against the
// node's txs and receipts, each tx against eth_getTransactionByHash, its
// receipt and its call trace, the latest blocks and txs lists, of the
// chain and of every chain, against the node's order, and the ERC-20
// transfers of the scenario's addresses against what it did. Every body is
// validated against the reference document.
func TestEVMBlocksAndTransactionsMatchNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n, r := evmScenario(t)
	doc := openapitest.Default(t)
	ctx := t.Context()
	const rpc = "/ext/bc/C/rpc"
	call := func(method string, out any, params ...any) {
		t.Helper()
		if err := n.Call(ctx, rpc, method, params, out); err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
	}

	// The node's blocks, txs, receipts and traces since the scenarios
	// began, and the txs of every block since the genesis.
	first := r.s.First - 1
	blocks := map[uint64]*nodeFullBlock{}
	receipts := map[common.Hash]*nodeReceipt{}
	traces := map[common.Hash][]api.InternalTransactionDetails{}
	cumulative := map[uint64]uint64{}
	total := uint64(0)
	failed := 0
	granite := false
	for h := uint64(0); h <= r.head; h++ {
		var count hexutil.Uint64
		call("eth_getBlockTransactionCountByNumber", &count, hexutil.Uint64(h))
		total += uint64(count)
		cumulative[h] = total
		if h < first {
			continue
		}
		b := &nodeFullBlock{}
		call("eth_getBlockByNumber", b, hexutil.Uint64(h), true)
		var byHash nodeFullBlock
		call("eth_getBlockByHash", &byHash, b.Hash, true)
		if byHash.Number != b.Number || len(byHash.Transactions) != len(b.Transactions) {
			t.Fatalf("the node's block %d by hash is %d", h, byHash.Number)
		}
		granite = granite || b.TimestampMilliseconds != nil
		blocks[h] = b
		for _, tx := range b.Transactions {
			rc := &nodeReceipt{}
			call("eth_getTransactionReceipt", rc, tx.Hash)
			receipts[tx.Hash] = rc
			if rc.Status == 0 {
				failed++
			}
			var frame callFrame
			call("debug_traceTransaction", &frame, tx.Hash, map[string]any{"tracer": "callTracer"})
			var frames []api.InternalTransactionDetails
			frame.flatten(frame.Error != "", &frames)
			traces[tx.Hash] = frames
		}
	}
	if !granite || len(receipts) == 0 {
		t.Fatalf("the node's blocks show no Granite header (%t) or no tx (%d): the test checks nothing", granite, len(receipts))
	}
	chainID := strconv.FormatUint(n.EVMChainID, 10)
	var descending []uint64 // the heights since the scenarios began, most recent first
	for h := r.head + 1; h > first; h-- {
		descending = append(descending, h-1)
	}

	wantBlock := func(b *nodeFullBlock) api.EvmBlock {
		fees := new(big.Int)
		for _, tx := range b.Transactions {
			rc := receipts[tx.Hash]
			fees.Add(fees, new(big.Int).Mul(new(big.Int).SetUint64(uint64(rc.GasUsed)), rc.EffectiveGasPrice.ToInt()))
		}
		out := api.EvmBlock{ChainID: chainID, BlockNumber: strconv.FormatUint(uint64(b.Number), 10),
			BlockTimestamp: int64(b.Timestamp), BlockHash: b.Hash.Hex(), TxCount: len(b.Transactions),
			BaseFee: b.BaseFee.ToInt().String(), GasUsed: strconv.FormatUint(uint64(b.GasUsed), 10),
			GasLimit: strconv.FormatUint(uint64(b.GasLimit), 10), GasCost: "0", ParentHash: b.ParentHash.Hex(),
			FeesSpent: fees.String(), CumulativeTransactions: strconv.FormatUint(cumulative[uint64(b.Number)], 10)}
		if b.BlockGasCost != nil {
			out.GasCost = b.BlockGasCost.ToInt().String()
		}
		if b.TimestampMilliseconds != nil {
			ms, d := uint64(*b.TimestampMilliseconds), uint64(*b.MinDelayExcess)
			out.BlockTimestampMilliseconds, out.BlockMinDelayExcess = &ms, &d
		}
		return out
	}
	wantTx := func(b *nodeFullBlock, tx *nodeTx) api.NativeTransaction {
		rc := receipts[tx.Hash]
		to := tx.To
		if to == nil {
			to = rc.ContractAddress
		}
		out := api.NativeTransaction{BlockNumber: strconv.FormatUint(uint64(b.Number), 10), BlockTimestamp: int64(b.Timestamp),
			BlockHash: b.Hash.Hex(), ChainID: chainID, BlockIndex: uint32(tx.Index), TxHash: tx.Hash.Hex(),
			TxStatus: strconv.FormatUint(uint64(rc.Status), 10), TxType: int(tx.Type), GasLimit: strconv.FormatUint(uint64(tx.Gas), 10),
			GasUsed: strconv.FormatUint(uint64(rc.GasUsed), 10), GasPrice: rc.EffectiveGasPrice.ToInt().String(),
			Nonce: strconv.FormatUint(uint64(tx.Nonce), 10), From: api.RichAddress{Address: tx.From.Hex()},
			To: api.RichAddress{Address: to.Hex()}, Value: tx.Value.ToInt().String()}
		if b.TimestampMilliseconds != nil {
			ms, d := uint64(*b.TimestampMilliseconds), uint64(*b.MinDelayExcess)
			out.BlockTimestampMilliseconds, out.BlockMinDelayExcess = &ms, &d
		}
		return out
	}
	// bare is a listed tx as the node can tell it: its ends' addresses
	// only, without the method avaindex names.
	bare := func(tx api.NativeTransaction) api.NativeTransaction {
		tx.From, tx.To, tx.Method = api.RichAddress{Address: tx.From.Address}, api.RichAddress{Address: tx.To.Address}, nil
		return tx
	}

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn)
		waitEVMIndexed(t, dsn, n.EVMChainID, r.head)
		getJSON := apiGetter(t, base, doc)
		cbase := "/v1/chains/" + chainID

		var health api.HealthCheckResult
		getJSON("/v1/health-check", nil, &health)
		if health.Status != "ok" || health.Details["database"].Status != "up" {
			t.Errorf("health-check = %+v", health)
		}

		var nodeOrder []api.NativeTransaction // the node's txs, most recent first
		for _, h := range descending {
			b := blocks[h]
			want := wantBlock(b)
			for _, id := range []string{strconv.FormatUint(h, 10), b.Hash.Hex()} {
				var got api.EvmBlock
				getJSON(cbase+"/blocks/"+id, nil, &got)
				sameJSON(t, "block "+id, got, want)
			}
			var page api.ListNativeTransactionsResponse
			getJSON(cbase+"/blocks/"+b.Hash.Hex()+"/transactions", nil, &page)
			var wantTxs []api.NativeTransaction
			for i := range b.Transactions {
				wantTxs = append(wantTxs, wantTx(b, &b.Transactions[i]))
			}
			var gotTxs []api.NativeTransaction
			for _, tx := range page.Transactions {
				gotTxs = append(gotTxs, bare(tx))
			}
			sameJSON(t, "the txs of block "+want.BlockNumber, gotTxs, wantTxs)
			for i := len(wantTxs) - 1; i >= 0; i-- {
				nodeOrder = append(nodeOrder, wantTxs[i])
			}

			for i := range b.Transactions {
				tx := &b.Transactions[i]
				var byHash nodeTx
				call("eth_getTransactionByHash", &byHash, tx.Hash)
				if byHash.BlockHash != b.Hash || byHash.Index != tx.Index {
					t.Fatalf("the node's tx %s by hash is in %s at %d", tx.Hash, byHash.BlockHash, byHash.Index)
				}
				var d api.GetTransactionResponse
				getJSON(cbase+"/transactions/"+tx.Hash.Hex(), nil, &d)
				got := d.NativeTransaction
				w := wantTx(b, &byHash)
				sameJSON(t, "tx "+tx.Hash.Hex(), bare(got.NativeTransaction), w)
				if got.Input != hexutil.Encode(byHash.Input) || got.BaseFeePerGas != b.BaseFee.ToInt().String() ||
					(byHash.MaxFee != nil && got.MaxFeePerGas != byHash.MaxFee.ToInt().String()) {
					t.Errorf("tx %s: input %s, base fee %s, max fee %s; the node's %s, %s, %v", tx.Hash, got.Input, got.BaseFeePerGas,
						got.MaxFeePerGas, hexutil.Encode(byHash.Input), b.BaseFee.ToInt(), byHash.MaxFee)
				}
				var frames []api.InternalTransactionDetails
				for _, f := range d.InternalTransactions {
					f.From, f.To = api.RichAddress{Address: f.From.Address}, api.RichAddress{Address: f.To.Address}
					frames = append(frames, f)
				}
				wantFrames := traces[tx.Hash]
				for i := range wantFrames {
					if !slices.Contains([]string{"CALL", "CREATE", "CREATE2", "CALLCODE", "DELEGATECALL", "STATICCALL"}, wantFrames[i].InternalTxType) {
						wantFrames[i].InternalTxType = "UNKNOWN"
					}
				}
				sameJSON(t, "the internal txs of "+tx.Hash.Hex(), frames, wantFrames)
			}
		}

		// The latest lists, down to the scenarios' first block (the chain
		// may have grown since: items past the head are skipped).
		// since keeps the items of the blocks the node was read for and
		// stops at the first below them.
		since := func(number string) (keep, more bool) {
			n, _ := strconv.ParseUint(number, 10, 64)
			return n >= first && n <= r.head, n >= first
		}
		latest := func(path string, q url.Values) []api.NativeTransaction {
			q.Set("pageSize", "7")
			txs := collectPages(getJSON, path, q, func(p *api.ListNativeTransactionsResponse) ([]api.NativeTransaction, string) {
				return p.Transactions, p.NextPageToken
			}, func(tx api.NativeTransaction) (bool, bool) { return since(tx.BlockNumber) })
			for i := range txs {
				txs[i] = bare(txs[i])
			}
			return txs
		}
		var nodeFailed, nodeSucceeded []api.NativeTransaction
		for _, tx := range nodeOrder {
			if tx.TxStatus == "0" {
				nodeFailed = append(nodeFailed, tx)
			} else {
				nodeSucceeded = append(nodeSucceeded, tx)
			}
		}
		for _, path := range []string{cbase + "/transactions", "/v1/transactions", "/v1/chains/allTransactions"} {
			sameJSON(t, path, latest(path, url.Values{}), nodeOrder)
			sameJSON(t, path+" failed", latest(path, url.Values{"status": {"failed"}}), nodeFailed)
			sameJSON(t, path+" success", latest(path, url.Values{"status": {"success"}}), nodeSucceeded)
		}
		t.Logf("%d txs since block %d, %d failed", len(nodeOrder), first, failed)

		var nodeBlocks []api.EvmBlock
		for _, h := range descending {
			nodeBlocks = append(nodeBlocks, wantBlock(blocks[h]))
		}
		for _, path := range []string{cbase + "/blocks", "/v1/blocks", "/v1/chains/allBlocks"} {
			got := collectPages(getJSON, path, url.Values{"pageSize": {"9"}}, func(p *api.ListEvmBlocksResponse) ([]api.EvmBlock, string) {
				return p.Blocks, p.NextPageToken
			}, func(b api.EvmBlock) (bool, bool) { return since(b.BlockNumber) })
			sameJSON(t, path, got, nodeBlocks)
		}
		// An address's ERC-20 transfers during the contracts' scenario
		// (evmcode's comes after): the scenario's, newest first.
		for _, who := range []common.Address{r.s.Alice, r.s.Bob, r.s.Deployer} {
			var want []string
			for i := len(r.s.Transfers) - 1; i >= 0; i-- {
				tr := r.s.Transfers[i]
				if tr.Standard == "ERC-20" && (tr.From == who || tr.To == who) {
					want = append(want, strings.Join([]string{tr.Tx.Hex(), strconv.FormatUint(tr.Block, 10), tr.From.Hex(), tr.To.Hex(), tr.Value.String()}, " "))
				}
			}
			q := url.Values{"pageSize": {"1"}, "startBlock": {strconv.FormatUint(r.s.First, 10)}, "endBlock": {strconv.FormatUint(r.s.Last+1, 10)}}
			var got []string
			for _, tr := range collectPages(getJSON, cbase+"/addresses/"+who.Hex()+"/transactions:listErc20", q,
				func(p *api.ListErc20TransactionsResponse) ([]api.Erc20Transfer, string) {
					return p.Transactions, p.NextPageToken
				},
				func(api.Erc20Transfer) (bool, bool) { return true, true }) {
				got = append(got, strings.Join([]string{tr.TxHash, tr.BlockNumber, tr.From.Address, tr.To.Address, tr.Value}, " "))
			}
			if len(want) == 0 && who == r.s.Alice {
				t.Fatal("the scenario made no ERC-20 transfer of Alice's: the test checks nothing")
			}
			sameJSON(t, "the ERC-20 transfers of "+who.Hex(), got, want)
		}

		status, body, _ := get(t, base+cbase+"/blocks/"+strconv.FormatUint(r.head+1000, 10))
		if status != http.StatusNotFound || !strings.Contains(string(body), "is not indexed") {
			t.Errorf("a block past the head: %d %s", status, body)
		}
	})
}

// collectPages GETs path with q page after page (each a P) and returns
// the items of the pages that keep keeps, until the last page or an item
// after which keep wants no more.
func collectPages[P, I any](getJSON func(string, url.Values, any), path string, q url.Values, items func(*P) ([]I, string),
	keep func(I) (keep, more bool),
) []I {
	var out []I
	for {
		var page P
		getJSON(path, q, &page)
		list, next := items(&page)
		for _, it := range list {
			k, more := keep(it)
			if !more {
				return out
			}
			if k {
				out = append(out, it)
			}
		}
		if next == "" {
			return out
		}
		q.Set("pageToken", next)
	}
}

// sameJSON compares values by their JSON.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

package ingest

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// The EVM ingestion benchmark's blocks are generated RPC JSON shaped as
// the local network's C-chain answers it (see internal/evm/testdata):
// every field the node writes, logs blooms, signatures, and prestate diffs
// carrying the touched contracts' code and storage. Each block holds
// benchTxsPerBlock ERC-20 transfers (transfer(address,uint256) calls)
// among benchSenders addresses and benchTokens tokens, one Transfer log
// each; a fifth of them also make a STATICCALL (an internal tx).
const (
	benchTxsPerBlock = 100
	benchSenders     = 10_000
	benchTokens      = 50
	benchCodeSize    = 2_400 // bytes of a token's runtime code
)

func benchAddr(kind string, i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(kind), binary.BigEndian.AppendUint64(nil, uint64(i))))
}

func benchHash(kind string, i, j int) common.Hash {
	return crypto.Keccak256Hash([]byte(kind), binary.BigEndian.AppendUint64(nil, uint64(i)), binary.BigEndian.AppendUint64(nil, uint64(j)))
}

func hexq(v uint64) string { return fmt.Sprintf("0x%x", v) }

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

var (
	benchBloom = "0x" + strings.Repeat("00", 256)
	benchCode  = "0x" + strings.Repeat("6080604052", benchCodeSize/5)
)

// genEVMBlock returns block number n's answers: the block with its
// benchTxsPerBlock txs, the receipts, the traces.
func genEVMBlock(n int, parent common.Hash) (hash common.Hash, block, receipts, traces []byte) {
	return genEVMBlockTxs(n, parent, benchTxsPerBlock)
}

// genEVMBlockTxs is genEVMBlock with txs txs (0 for a genesis).
func genEVMBlockTxs(n int, parent common.Hash, txCount int) (hash common.Hash, block, receipts, traces []byte) {
	hash = benchHash("block", n, 0)
	coinbase := lower(common.HexToAddress("0x0100000000000000000000000000000000000000"))
	var txs, rcs, trs []string
	for j := range txCount {
		k := n*benchTxsPerBlock + j
		from := benchAddr("sender", k%benchSenders)
		to := benchAddr("recipient", k*7%benchSenders)
		token := benchAddr("token", k%benchTokens)
		txHash := benchHash("tx", n, j)
		amount := common.BigToHash(big.NewInt(int64(k + 1)))
		input := "0xa9059cbb" + hex.EncodeToString(common.BytesToHash(to[:]).Bytes()) + hex.EncodeToString(amount[:])
		nonce := uint64(k / benchSenders)
		sig := hex.EncodeToString(txHash[:])
		txs = append(txs, fmt.Sprintf(`{"blockHash":"%s","blockNumber":"%s","from":"%s","gas":"0x186a0","gasPrice":"0x5d21dba00",`+
			`"maxFeePerGas":"0xba43b7400","maxPriorityFeePerGas":"0x3b9aca00","hash":"%s","input":"%s","nonce":"%s","to":"%s",`+
			`"transactionIndex":"%s","value":"0x0","type":"0x2","accessList":[],"chainId":"0xa86a","v":"0x1","r":"0x%s","s":"0x%s","yParity":"0x1"}`,
			hash.Hex(), hexq(uint64(n)), lower(from), txHash.Hex(), input, hexq(nonce), lower(token), hexq(uint64(j)), sig, sig))
		rcs = append(rcs, fmt.Sprintf(`{"blockHash":"%s","blockNumber":"%s","contractAddress":null,"cumulativeGasUsed":"%s",`+
			`"effectiveGasPrice":"0x5d21dba00","from":"%s","gasUsed":"0xcb5b","logs":[{"address":"%s","topics":["%s","%s","%s"],`+
			`"data":"%s","blockNumber":"%s","transactionHash":"%s","transactionIndex":"%s","blockHash":"%s","logIndex":"%s","removed":false}],`+
			`"logsBloom":"%s","status":"0x1","to":"%s","transactionHash":"%s","transactionIndex":"%s","type":"0x2"}`,
			hash.Hex(), hexq(uint64(n)), hexq(uint64(52059*(j+1))), lower(from), lower(token), evm.TopicTransfer.Hex(),
			common.BytesToHash(from[:]).Hex(), common.BytesToHash(to[:]).Hex(), amount.Hex(), hexq(uint64(n)), txHash.Hex(),
			hexq(uint64(j)), hash.Hex(), hexq(uint64(j)), benchBloom, lower(token), txHash.Hex(), hexq(uint64(j))))
		calls := ""
		if j%5 == 0 {
			oracle := benchAddr("oracle", 0)
			calls = fmt.Sprintf(`,"calls":[{"from":"%s","gas":"0x1d4c0","gasUsed":"0x9c4","to":"%s","input":"0x50d25bcd","output":"0x%s","type":"STATICCALL"}]`,
				lower(token), lower(oracle), hex.EncodeToString(amount[:]))
		}
		slot := benchHash("slot", k, 0)
		slot2 := benchHash("slot", k, 1)
		bal := 1_000_000_000_000_000_000 - uint64(k)*1_000_000
		trs = append(trs, fmt.Sprintf(`{"txHash":"%s","result":{"callTracer":{"from":"%s","gas":"0x186a0","gasUsed":"0xcb5b","to":"%s",`+
			`"input":"%s","output":"0x0000000000000000000000000000000000000000000000000000000000000001"%s,"value":"0x0","type":"CALL"},`+
			`"prestateTracer":{"post":{"%s":{"balance":"%s"},"%s":{"balance":"%s","nonce":%d},"%s":{"storage":{"%s":"%s","%s":"%s"}}},`+
			`"pre":{"%s":{"balance":"%s"},"%s":{"balance":"%s","nonce":%d},"%s":{"balance":"0x0","code":"%s","nonce":1,"storage":{"%s":"%s","%s":"%s"}}}}}}`,
			txHash.Hex(), lower(from), lower(token), input, calls,
			coinbase, hexq(uint64(k+1)*52059), lower(from), hexq(bal-52059*25_000_000_000), nonce+1, lower(token), slot.Hex(), amount.Hex(), slot2.Hex(), amount.Hex(),
			coinbase, hexq(uint64(k)*52059), lower(from), hexq(bal), nonce, lower(token), benchCode, slot.Hex(), common.Hash{}.Hex(), slot2.Hex(), amount.Hex()))
	}
	block = fmt.Appendf(nil, `{"baseFeePerGas":"0x5d21dba00","blobGasUsed":"0x0","blockExtraData":"0x","blockGasCost":"0x0","difficulty":"0x1",`+
		`"excessBlobGas":"0x0","extDataGasUsed":"0x0","extDataHash":"0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",`+
		`"extraData":"0x0000000000973cb300000000000159cd0000000000000000000000000000","gasLimit":"0xe4e1c0","gasUsed":"%s","hash":"%s",`+
		`"logsBloom":"%s","miner":"0x0100000000000000000000000000000000000000","mixHash":"0x%064x","nonce":"0x0000000000000000",`+
		`"number":"%s","parentBeaconBlockRoot":"0x%064x","parentHash":"%s","receiptsRoot":"%s","sha3Uncles":"%s","size":"0x%x",`+
		`"stateRoot":"%s","timestamp":"%s","totalDifficulty":"%s","transactions":[%s],"transactionsRoot":"%s","uncles":[]}`,
		hexq(52059*uint64(txCount)), hash.Hex(), benchBloom, 0, hexq(uint64(n)), 0, parent.Hex(), hash.Hex(), hash.Hex(),
		200*txCount, hash.Hex(), hexq(1_700_000_000+uint64(n)*2), hexq(uint64(n)), strings.Join(txs, ","), hash.Hex())
	return hash, block, []byte("[" + strings.Join(rcs, ",") + "]"), []byte("[" + strings.Join(trs, ",") + "]")
}

// rawEVMBlock is a block's three answers, as the node sends them.
type rawEVMBlock struct{ block, receipts, traces []byte }

// genEVMBlocks generates n chained blocks (genEVMBlock) and their size in
// bytes.
func genEVMBlocks(n int) ([]rawEVMBlock, int) {
	blocks := make([]rawEVMBlock, n)
	parent := common.Hash{}
	size := 0
	for i := range blocks {
		var r rawEVMBlock
		parent, r.block, r.receipts, r.traces = genEVMBlock(i+1, parent)
		blocks[i] = r
		size += len(r.block) + len(r.receipts) + len(r.traces)
	}
	return blocks, size
}

// BenchmarkIngestEVM measures what the EVM follower does with blocks once
// fetched: decode the block, receipts and traces, classify the transfers,
// and apply them in batches made as the follower makes them
// (decodedBatches: decoded in parallel, the next batch while one is
// applied, bounded by DefaultBatchRecords records), one transaction each.
// b.N is the number of blocks of benchTxsPerBlock txs (and logs).
func BenchmarkIngestEVM(b *testing.B) {
	dbtest.Run(b, func(b *testing.B, dsn string) {
		ctx := context.Background()
		blocks, size := genEVMBlocks(b.N)
		var bufs []*[]byte
		for i := range blocks {
			bufs = append(bufs, &blocks[i].block, &blocks[i].receipts, &blocks[i].traces)
		}
		offHeap(b, bufs...)
		st := openLocalStore(b, dsn)
		types := map[common.Address]internal.ERCType{}
		for i := range benchTokens {
			types[benchAddr("token", i)] = internal.ERC20
		}
		cfg := &evm.Config{IsCChain: false}
		b.SetBytes(int64(size / max(b.N, 1)))
		b.ResetTimer()
		batches := decodedBatches(ctx, len(blocks), func(i int) (*evm.Block, error) {
			d, err := evm.Decode(cfg, evm.Input{Block: blocks[i].block, Receipts: blocks[i].receipts, Traces: blocks[i].traces})
			if err != nil {
				return nil, err
			}
			d.Classify(types)
			return d, nil
		}, evmRecords)
		txs, logs := 0, 0
		for r := range batches {
			if r.err != nil {
				b.Fatal(r.err)
			}
			for _, d := range r.blocks {
				txs += len(d.Txs)
				logs += len(d.Logs)
			}
			if err := st.ApplyEVMBlocks(ctx, 43114, evm.Data(r.blocks), evmstate.Apply[*store.EVMTx]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		secs := b.Elapsed().Seconds()
		b.ReportMetric(float64(b.N)/secs, "blocks/s")
		b.ReportMetric(float64(txs)/secs, "txs/s")
		b.ReportMetric(float64(logs)/secs, "logs/s")
	})
}

// BenchmarkDecodeEVM measures evm.Decode alone, on one goroutine, on
// BenchmarkIngestEVM's blocks: b.N blocks of benchTxsPerBlock txs, 64
// distinct ones decoded in turn.
func BenchmarkDecodeEVM(b *testing.B) {
	blocks, size := genEVMBlocks(64)
	cfg := &evm.Config{IsCChain: false}
	b.SetBytes(int64(size / len(blocks)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r := blocks[i%len(blocks)]
		if _, err := evm.Decode(cfg, evm.Input{Block: r.block, Receipts: r.receipts, Traces: r.traces}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*benchTxsPerBlock)/b.Elapsed().Seconds(), "txs/s")
}

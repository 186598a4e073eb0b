package webhookevents

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// BenchmarkWebhookMatch matches a block of 1,000 txs (each with an ERC-20
// transfer and an internal call) against 10,000 active webhooks watching
// 100,000 addresses, 1% of the txs touching a watched address, and
// renders their events: the derivation's work in memory, without the
// outbox's insert. It reports the p99 of a block.
func BenchmarkWebhookMatch(b *testing.B) {
	const hooks, perHook, txs = 10_000, 10, 1_000
	byAddr := map[internal.WatchedAddress][]int32{}
	var hookList []internal.AddressWatch
	watched := func(i int) common.Address { return addr(fmt.Sprint("watched", i)) }
	for h := range hooks {
		hookList = append(hookList, internal.AddressWatch{ID: fmt.Sprintf("hook-%d", h), Logs: h%2 == 0})
		for a := range perHook {
			k := internal.WatchedAddress{ChainID: testChain, Address: watched(h*perHook + a)}
			byAddr[k] = append(byAddr[k], int32(h))
		}
	}
	w := &fakeOutbox{watches: internal.NewAddressWatches(hookList, byAddr)}
	ts := time.Now()
	blk := &internal.EVMBlockData{EVMBlock: internal.EVMBlock{Number: 1, Hash: hash("bench"), Timestamp: ts, TxCount: txs}}
	for i := range txs {
		from, to := addr(fmt.Sprint("from", i)), addr(fmt.Sprint("to", i))
		if i%100 == 0 {
			to = watched(i * 97)
		}
		tx := internal.EVMTx{Hash: hash("tx", i), BlockNumber: 1, Index: uint32(i), From: from, To: &to, Value: big.NewInt(1),
			GasPrice: big.NewInt(1), GasUsed: 21_000, Status: 1}
		blk.Txs = append(blk.Txs, tx)
		blk.Transfers = append(blk.Transfers, internal.EVMTransfer{TxHash: tx.Hash, Token: token, Type: internal.ERC20,
			From: from, To: addr(fmt.Sprint("holder", i)), Value: big.NewInt(5), LogIndex: uint32(i)})
		blk.InternalTxs = append(blk.InternalTxs, internal.EVMInternalTx{TxHash: tx.Hash, From: to, To: addr(fmt.Sprint("callee", i)),
			Value: big.NewInt(0), CallType: "CALL"})
		blk.Logs = append(blk.Logs, internal.EVMLog{TxIndex: uint32(i), Index: uint32(i), Address: token,
			Topics: []common.Hash{hash("Transfer")}})
	}
	times := make([]time.Duration, 0, b.N)
	events := 0
	b.ResetTimer()
	for range b.N {
		w.events = w.events[:0]
		start := time.Now()
		if err := EVM(context.Background(), w, []*internal.EVMBlockData{blk}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		events = len(w.events)
	}
	b.StopTimer()
	if events != txs/100 {
		b.Fatalf("%d events, want %d", events, txs/100)
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

package store

import (
	"context"
	"math/big"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestICMJoin stores a message's delivery before its send (the
// destination chain indexed first): it is delivered_source_not_indexed
// material (Destination only, the message from the delivery's copy), then,
// once the source chain's send and receipt are stored, one message with
// both ends, the send's fee plus an added fee, executed after a failure.
func TestICMJoin(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		const dstChain = 99
		src, dst := ids.ID{1}, ids.ID{2}
		id := evmHash("icm message")
		from, to, relayer, token := evmAddr("app a"), evmAddr("app b"), evmAddr("relayer"), evmAddr("fee token")
		msg := func(e internal.ICMEvent) internal.ICMEvent {
			e.Messenger, e.MessageID, e.SourceBlockchainID, e.DestinationBlockchainID = evmAddr("messenger"), id, src, dst
			e.Nonce, e.From, e.To, e.RequiredGasLimit, e.Data = big.NewInt(7), from, to, big.NewInt(300_000), []byte("hi")
			e.Receipts = []internal.ICMReceiptInfo{{ReceivedMessageNonce: big.NewInt(3), RelayerRewardAddress: relayer}}
			return e
		}

		dstBlocks := makeEVMBlocks("dst", 4)
		d2, d3 := dstBlocks[2], dstBlocks[3]
		d2.ICM = []internal.ICMEvent{
			msg(internal.ICMEvent{Kind: internal.ICMReceive, TxHash: d2.Txs[0].Hash, BlockNumber: 2, LogIndex: 5,
				Deliverer: evmAddr("deliverer"), RewardRedeemer: relayer}),
			msg(internal.ICMEvent{Kind: internal.ICMExecutionFailed, TxHash: d2.Txs[0].Hash, BlockNumber: 2, LogIndex: 6}),
		}
		d3.ICM = []internal.ICMEvent{{Kind: internal.ICMExecuted, Messenger: evmAddr("messenger"), TxHash: d3.Txs[0].Hash,
			BlockNumber: 3, LogIndex: 9, MessageID: id, SourceBlockchainID: src, DestinationBlockchainID: dst}}
		if err := s.ApplyEVMBlocks(ctx, dstChain, dstBlocks, deriveEVM); err != nil {
			t.Fatal(err)
		}
		m, err := s.ICMMessage(ctx, id)
		if err != nil || m == nil {
			t.Fatalf("the delivered message: %v, %v", m, err)
		}
		if m.Source != nil || m.Destination == nil || m.Destination.ChainID != dstChain || m.Destination.TxHash != d2.Txs[0].Hash ||
			m.Destination.Deliverer != evmAddr("deliverer") || m.Destination.GasUsed != 50_000 ||
			m.Destination.Timestamp != uint64(d2.Timestamp.Unix()) || !m.Executed || m.ReceiptDelivered ||
			m.From != from || m.To != to || m.Nonce.Int64() != 7 || string(m.Data) != "hi" || len(m.Receipts) != 1 ||
			m.Receipts[0].RelayerRewardAddress != relayer || m.FeeAmount != nil {
			t.Errorf("before its send: %+v (destination %+v)", m, m.Destination)
		}

		srcBlocks := makeEVMBlocks("src", 3)
		s1, s2 := srcBlocks[1], srcBlocks[2]
		s1.ICM = []internal.ICMEvent{
			msg(internal.ICMEvent{Kind: internal.ICMSend, TxHash: s1.Txs[0].Hash, BlockNumber: 1, FeeToken: token, FeeAmount: big.NewInt(100)}),
			{Kind: internal.ICMAddFee, Messenger: evmAddr("messenger"), TxHash: s1.Txs[0].Hash, BlockNumber: 1, LogIndex: 1,
				MessageID: id, FeeToken: token, FeeAmount: big.NewInt(20)},
		}
		s2.ICM = []internal.ICMEvent{{Kind: internal.ICMReceipt, Messenger: evmAddr("messenger"), TxHash: s2.Txs[0].Hash,
			BlockNumber: 2, MessageID: id, SourceBlockchainID: src, DestinationBlockchainID: dst, RelayerRewardAddress: relayer,
			FeeToken: token, FeeAmount: big.NewInt(120)}}
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, srcBlocks, deriveEVM); err != nil {
			t.Fatal(err)
		}
		m, err = s.ICMMessage(ctx, id)
		if err != nil || m == nil || m.Source == nil || m.Destination == nil {
			t.Fatalf("the joined message: %+v, %v", m, err)
		}
		if m.Source.ChainID != testEVMChain || m.Source.TxHash != s1.Txs[0].Hash || m.FeeToken != token ||
			m.FeeAmount.Int64() != 120 || !m.ReceiptDelivered || !m.Executed || m.SourceBlockchainID != src || m.DestinationBlockchainID != dst {
			t.Errorf("joined: %+v (source %+v)", m, m.Source)
		}

		// Lists: filters on either end, the pages' order.
		for _, c := range []struct {
			f    internal.ICMFilter
			want int
		}{
			{internal.ICMFilter{}, 1},
			{internal.ICMFilter{SourceBlockchainID: &src}, 1},
			{internal.ICMFilter{SourceBlockchainID: &dst}, 0},
			{internal.ICMFilter{BlockchainID: &dst}, 1},
			{internal.ICMFilter{From: &from, To: &to}, 1},
			{internal.ICMFilter{From: &to}, 0},
			{internal.ICMFilter{Address: &to}, 1},
			{internal.ICMFilter{Address: &relayer}, 0},
		} {
			got, err := s.ICMMessages(ctx, c.f, nil, 10)
			if err != nil || len(got) != c.want {
				t.Errorf("%+v: %d messages (%v), want %d", c.f, len(got), err, c.want)
			}
		}
		after := &internal.ICMCursor{Time: uint64(srcBlocks[1].Timestamp.Unix()), ID: id}
		if got, err := s.ICMMessages(ctx, internal.ICMFilter{}, after, 10); err != nil || len(got) != 0 {
			t.Errorf("after the only message: %d (%v)", len(got), err)
		}
		// The metrics count the send, in its block's hour.
		sendTime := srcBlocks[1].Timestamp.Unix()
		counts, err := s.ICMHourlySends(ctx, &src, nil, 0, sendTime)
		if err != nil || len(counts) != 1 || counts[0].Count != 1 || counts[0].Hour != sendTime/3600*3600 ||
			counts[0].Source != src || counts[0].Destination != dst {
			t.Errorf("hourly sends: %+v, %v", counts, err)
		}
		if counts, err := s.ICMHourlySends(ctx, &dst, nil, 0, sendTime); err != nil || len(counts) != 0 {
			t.Errorf("hourly sends from the destination: %+v, %v", counts, err)
		}
		if counts, err := s.ICMHourlySends(ctx, nil, nil, 0, sendTime-1); err != nil || len(counts) != 0 {
			t.Errorf("hourly sends before the send: %+v, %v", counts, err)
		}
		if m, err := s.ICMMessage(ctx, evmHash("unknown")); err != nil || m != nil {
			t.Errorf("an unknown message: %+v, %v", m, err)
		}
	})
}

// TestICMBackfillReads: the stored logs of an address come back with
// their txs' hashes and topics, and the backfill's rows are written once
// and its row deleted when done.
func TestICMBackfillReads(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		bs := makeEVMBlocks("backfill", 6)
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs, deriveEVM); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.ICMBackfill(ctx, testEVMChain); err != nil || ok {
			t.Fatalf("a store migrated empty has a backfill: %t, %v", ok, err)
		}
		if _, err := s.db.Exec(ctx, "INSERT INTO evm_icm_backfill (chain_id, up_to) VALUES (?, ?)", testEVMChain, 5); err != nil {
			t.Fatal(err)
		}
		if upTo, ok, err := s.ICMBackfill(ctx, testEVMChain); err != nil || !ok || upTo != 5 {
			t.Fatalf("backfill: %d, %t, %v", upTo, ok, err)
		}
		logs, err := s.EVMStoredLogs(ctx, testEVMChain, token20, 2, 4)
		if err != nil {
			t.Fatal(err)
		}
		var want []StoredLog
		for _, b := range bs[2:5] {
			for _, l := range b.Logs {
				if l.Address == token20 {
					want = append(want, StoredLog{BlockNumber: b.Number, BlockTime: uint64(b.Timestamp.Unix()), TxHash: b.Txs[l.TxIndex].Hash, Log: l})
				}
			}
		}
		if len(want) == 0 {
			t.Fatal("the blocks have no logs of the token")
		}
		jsonEqual(t, "stored logs", logs, want)

		ev := internal.ICMEvent{Kind: internal.ICMExecuted, Messenger: evmAddr("messenger"), TxHash: logs[0].TxHash,
			BlockNumber: logs[0].BlockNumber, LogIndex: logs[0].Log.Index, MessageID: evmHash("m"), SourceBlockchainID: ids.ID{1},
			DestinationBlockchainID: ids.ID{2}}
		for _, done := range []bool{false, true} {
			if err := s.ApplyICMBackfill(ctx, testEVMChain, []internal.ICMEvent{ev}, done); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM evm_icm_events").Scan(&n); err != nil || n != 1 {
			t.Errorf("%d ICM rows (%v), want 1", n, err)
		}
		if _, ok, err := s.ICMBackfill(ctx, testEVMChain); err != nil || ok {
			t.Errorf("the backfill is still there after done: %t, %v", ok, err)
		}
	})
}

package store

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// BenchmarkICMReads reads ICM messages from a SQLite store of 2,000 blocks
// each sending 5 messages (10,000), 1 in 5 delivered on another chain:
// a message by id, the newest page of 10, a page filtered by sender.
func BenchmarkICMReads(b *testing.B) {
	ctx := context.Background()
	s := openStore(b, dbtest.SQLite(b))
	const blocks, perBlock = 2000, 5
	src, dst := ids.ID{1}, ids.ID{2}
	bs := makeEVMBlocks("icm bench", blocks)
	var delivered []internal.ICMEvent
	var some = evmHash("icm bench", 1000, 0)
	for _, blk := range bs[1:] {
		for i := range perBlock {
			id := evmHash("icm bench", blk.Number, i)
			from := evmAddr(fmt.Sprint("sender ", i))
			ev := internal.ICMEvent{Kind: internal.ICMSend, Messenger: evmAddr("messenger"), TxHash: blk.Txs[0].Hash,
				BlockNumber: blk.Number, LogIndex: uint32(100 + i), MessageID: id, SourceBlockchainID: src,
				DestinationBlockchainID: dst, Nonce: big.NewInt(int64(blk.Number*perBlock) + int64(i)), From: from,
				To: evmAddr("app"), RequiredGasLimit: big.NewInt(300_000), Data: []byte("bench"), FeeToken: evmAddr("fee"),
				FeeAmount: big.NewInt(1)}
			blk.ICM = append(blk.ICM, ev)
			if i == 0 {
				rcv := ev
				rcv.Kind, rcv.Deliverer, rcv.RewardRedeemer = internal.ICMReceive, evmAddr("relayer"), evmAddr("relayer")
				delivered = append(delivered, rcv)
			}
		}
	}
	for i := 0; i < len(bs); i += 500 {
		if err := s.ApplyEVMBlocks(ctx, testEVMChain, bs[i:min(i+500, len(bs))], deriveEVM); err != nil {
			b.Fatal(err)
		}
	}
	// The deliveries, on another chain, in its blocks of the same numbers.
	other := makeEVMBlocks("icm bench", blocks)
	for i := range delivered {
		n := delivered[i].BlockNumber
		delivered[i].TxHash = other[n].Txs[0].Hash
		other[n].ICM = append(other[n].ICM, delivered[i])
	}
	for i := 0; i < len(other); i += 500 {
		if err := s.ApplyEVMBlocks(ctx, 99, other[i:min(i+500, len(other))], deriveEVM); err != nil {
			b.Fatal(err)
		}
	}
	sender := evmAddr("sender 3")
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			if m, err := s.ICMMessage(ctx, some); err != nil || m == nil || m.Destination == nil {
				b.Fatal(m, err)
			}
		}
	})
	b.Run("list10", func(b *testing.B) {
		for b.Loop() {
			if ms, err := s.ICMMessages(ctx, internal.ICMFilter{}, nil, 10); err != nil || len(ms) != 10 {
				b.Fatal(len(ms), err)
			}
		}
	})
	b.Run("list10BySender", func(b *testing.B) {
		for b.Loop() {
			if ms, err := s.ICMMessages(ctx, internal.ICMFilter{From: &sender}, nil, 10); err != nil || len(ms) != 10 {
				b.Fatal(len(ms), err)
			}
		}
	})
}

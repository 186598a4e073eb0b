package evm

import (
	"math/big"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

// TestICMEvents decodes each TeleporterMessenger event from logs packed
// with the events' ABI, and leaves out another contract's log and one
// whose data is cut short.
func TestICMEvents(t *testing.T) {
	messenger := DefaultTeleporter
	local, other := ids.ID{1}, ids.ID{2}
	id := common.Hash{9}
	from, to, relayer, token := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}, common.Address{0xd}
	m := icmMessage{MessageNonce: big.NewInt(5), OriginSenderAddress: from, DestinationBlockchainID: other,
		DestinationAddress: to, RequiredGasLimit: big.NewInt(300_000), AllowedRelayerAddresses: []common.Address{relayer},
		Message: []byte("hello")}
	m.Receipts = append(m.Receipts, struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}{big.NewInt(2), relayer})
	fee := icmFee{FeeTokenAddress: token, Amount: big.NewInt(1000)}
	pack := func(args interface{ Pack(...any) ([]byte, error) }, vals ...any) []byte {
		b, err := args.Pack(vals...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	addrTopic := func(a common.Address) common.Hash { return common.BytesToHash(a[:]) }
	sendData := pack(icmSendArgs, m, fee)
	logs := []Log{
		{Address: messenger, Topics: []common.Hash{TopicSendCrossChainMessage, id, common.Hash(other)}, Data: sendData},
		{Address: messenger, Topics: []common.Hash{TopicReceiveCrossChainMessage, id, common.Hash(other), addrTopic(relayer)},
			Data: pack(icmReceiveArgs, from, m)},
		{Address: messenger, Topics: []common.Hash{TopicMessageExecuted, id, common.Hash(other)}},
		{Address: messenger, Topics: []common.Hash{TopicMessageFailed, id, common.Hash(other)}, Data: pack(icmFailedArgs, m)},
		{Address: messenger, Topics: []common.Hash{TopicReceiptReceived, id, common.Hash(other), addrTopic(relayer)},
			Data: pack(icmFeeArgs, fee)},
		{Address: messenger, Topics: []common.Hash{TopicAddFeeAmount, id}, Data: pack(icmFeeArgs, fee)},
		{Address: common.Address{1}, Topics: []common.Hash{TopicSendCrossChainMessage, id, common.Hash(other)}, Data: sendData},
		{Address: messenger, Topics: []common.Hash{TopicSendCrossChainMessage, id, common.Hash(other)}, Data: sendData[:100]},
	}
	var got []internal.ICMEvent
	for i := range logs {
		logs[i].Index = uint32(i)
		if ev, ok := icmEvent(&logs[i], common.Hash{7}, 10, messenger, local); ok {
			got = append(got, ev)
		}
	}
	kinds := []internal.ICMEventKind{internal.ICMSend, internal.ICMReceive, internal.ICMExecuted, internal.ICMExecutionFailed,
		internal.ICMReceipt, internal.ICMAddFee}
	if len(got) != len(kinds) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(kinds), got)
	}
	for i, ev := range got {
		if ev.Kind != kinds[i] || ev.MessageID != id || ev.LogIndex != uint32(i) || ev.Messenger != messenger {
			t.Errorf("event %d: %+v", i, ev)
		}
	}
	send, recv, failed, receipt, add := got[0], got[1], got[3], got[4], got[5]
	if send.SourceBlockchainID != local || send.DestinationBlockchainID != other || send.Nonce.Int64() != 5 || send.From != from ||
		send.To != to || string(send.Data) != "hello" || len(send.Receipts) != 1 || send.Receipts[0].RelayerRewardAddress != relayer ||
		send.FeeToken != token || send.FeeAmount.Int64() != 1000 || send.AllowedRelayers[0] != relayer {
		t.Errorf("send: %+v", send)
	}
	if recv.SourceBlockchainID != other || recv.DestinationBlockchainID != local || recv.Deliverer != relayer ||
		recv.RewardRedeemer != from || recv.Nonce.Int64() != 5 {
		t.Errorf("receive: %+v", recv)
	}
	if failed.SourceBlockchainID != other || string(failed.Data) != "hello" {
		t.Errorf("failed: %+v", failed)
	}
	if receipt.SourceBlockchainID != local || receipt.RelayerRewardAddress != relayer || receipt.FeeAmount.Int64() != 1000 {
		t.Errorf("receipt: %+v", receipt)
	}
	if add.FeeToken != token || add.FeeAmount.Int64() != 1000 {
		t.Errorf("add fee: %+v", add)
	}
}

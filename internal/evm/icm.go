package evm

import (
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
)

// ICM v1's TeleporterMessenger events beyond the two that teleporter()
// reads for teleporterMessageInfo.
var (
	TopicMessageExecuted = crypto.Keccak256Hash([]byte("MessageExecuted(bytes32,bytes32)"))
	TopicMessageFailed   = crypto.Keccak256Hash([]byte(
		"MessageExecutionFailed(bytes32,bytes32," + teleporterMessage + ")"))
	TopicReceiptReceived = crypto.Keccak256Hash([]byte("ReceiptReceived(bytes32,bytes32,address,(address,uint256))"))
	TopicAddFeeAmount    = crypto.Keccak256Hash([]byte("AddFeeAmount(bytes32,(address,uint256))"))
)

// The events' non-indexed values.
var (
	icmMessageType = mustType("tuple", []abi.ArgumentMarshaling{
		{Name: "messageNonce", Type: "uint256"}, {Name: "originSenderAddress", Type: "address"},
		{Name: "destinationBlockchainID", Type: "bytes32"}, {Name: "destinationAddress", Type: "address"},
		{Name: "requiredGasLimit", Type: "uint256"}, {Name: "allowedRelayerAddresses", Type: "address[]"},
		{Name: "receipts", Type: "tuple[]", Components: []abi.ArgumentMarshaling{
			{Name: "receivedMessageNonce", Type: "uint256"}, {Name: "relayerRewardAddress", Type: "address"}}},
		{Name: "message", Type: "bytes"},
	})
	icmFeeType = mustType("tuple", []abi.ArgumentMarshaling{
		{Name: "feeTokenAddress", Type: "address"}, {Name: "amount", Type: "uint256"}})
	addressType = mustType("address", nil)

	icmSendArgs    = abi.Arguments{{Type: icmMessageType}, {Type: icmFeeType}}
	icmReceiveArgs = abi.Arguments{{Type: addressType}, {Type: icmMessageType}}
	icmFailedArgs  = abi.Arguments{{Type: icmMessageType}}
	icmFeeArgs     = abi.Arguments{{Type: icmFeeType}}
)

func mustType(t string, components []abi.ArgumentMarshaling) abi.Type {
	ty, err := abi.NewType(t, "", components)
	if err != nil {
		panic(err)
	}
	return ty
}

// icmMessage and icmFee are the tuples as abi unpacks them.
type icmMessage struct {
	MessageNonce            *big.Int
	OriginSenderAddress     common.Address
	DestinationBlockchainID [32]byte
	DestinationAddress      common.Address
	RequiredGasLimit        *big.Int
	AllowedRelayerAddresses []common.Address
	Receipts                []struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}
	Message []byte
}

type icmFee struct {
	FeeTokenAddress common.Address
	Amount          *big.Int
}

// icmEvent decodes a log of the messenger at messenger on the chain local;
// ok is false for any other log and for one whose data does not decode
// (the chain's data is not trusted: such a log is left out, not fatal).
func icmEvent(l *Log, txHash common.Hash, number uint64, messenger common.Address, local ids.ID) (ev internal.ICMEvent, ok bool) {
	if l.Address != messenger || len(l.Topics) < 2 {
		return ev, false
	}
	ev = internal.ICMEvent{Messenger: messenger, TxHash: txHash, BlockNumber: number, LogIndex: l.Index, MessageID: l.Topics[1]}
	if l.Topics[0] == TopicAddFeeAmount {
		fee, ok := unpackFee(icmFeeArgs, l.Data, 0)
		ev.Kind, ev.FeeToken, ev.FeeAmount = internal.ICMAddFee, fee.FeeTokenAddress, fee.Amount
		return ev, ok
	}
	if len(l.Topics) < 3 {
		return ev, false
	}
	other := ids.ID(l.Topics[2])
	var (
		vals []any
		err  error
	)
	switch l.Topics[0] {
	case TopicSendCrossChainMessage:
		ev.Kind, ev.SourceBlockchainID, ev.DestinationBlockchainID = internal.ICMSend, local, other
		if vals, err = icmSendArgs.Unpack(l.Data); err != nil {
			return ev, false
		}
		if !setMessage(&ev, vals[0]) {
			return ev, false
		}
		fee, ok := convert[icmFee](vals[1])
		ev.FeeToken, ev.FeeAmount = fee.FeeTokenAddress, fee.Amount
		return ev, ok
	case TopicReceiveCrossChainMessage:
		if len(l.Topics) < 4 {
			return ev, false
		}
		ev.Kind, ev.SourceBlockchainID, ev.DestinationBlockchainID = internal.ICMReceive, other, local
		ev.Deliverer = common.BytesToAddress(l.Topics[3][12:])
		if vals, err = icmReceiveArgs.Unpack(l.Data); err != nil {
			return ev, false
		}
		if ev.RewardRedeemer, ok = vals[0].(common.Address); !ok {
			return ev, false
		}
		return ev, setMessage(&ev, vals[1])
	case TopicMessageExecuted:
		ev.Kind, ev.SourceBlockchainID, ev.DestinationBlockchainID = internal.ICMExecuted, other, local
		return ev, true
	case TopicMessageFailed:
		ev.Kind, ev.SourceBlockchainID, ev.DestinationBlockchainID = internal.ICMExecutionFailed, other, local
		if vals, err = icmFailedArgs.Unpack(l.Data); err != nil {
			return ev, false
		}
		return ev, setMessage(&ev, vals[0])
	case TopicReceiptReceived:
		if len(l.Topics) < 4 {
			return ev, false
		}
		ev.Kind, ev.SourceBlockchainID, ev.DestinationBlockchainID = internal.ICMReceipt, local, other
		ev.RelayerRewardAddress = common.BytesToAddress(l.Topics[3][12:])
		fee, ok := unpackFee(icmFeeArgs, l.Data, 0)
		ev.FeeToken, ev.FeeAmount = fee.FeeTokenAddress, fee.Amount
		return ev, ok
	}
	return ev, false
}

func unpackFee(args abi.Arguments, data []byte, i int) (icmFee, bool) {
	vals, err := args.Unpack(data)
	if err != nil || len(vals) <= i {
		return icmFee{}, false
	}
	return convert[icmFee](vals[i])
}

// convert is abi.ConvertType without its panic on a value of another shape.
func convert[T any](v any) (out T, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p, ok := abi.ConvertType(v, new(T)).(*T)
	if !ok {
		return out, false
	}
	return *p, true
}

func setMessage(ev *internal.ICMEvent, v any) bool {
	m, ok := convert[icmMessage](v)
	if !ok {
		return false
	}
	ev.Nonce, ev.From, ev.To, ev.RequiredGasLimit = m.MessageNonce, m.OriginSenderAddress, m.DestinationAddress, m.RequiredGasLimit
	ev.AllowedRelayers, ev.Data = m.AllowedRelayerAddresses, m.Message
	for _, r := range m.Receipts {
		ev.Receipts = append(ev.Receipts, internal.ICMReceiptInfo{ReceivedMessageNonce: r.ReceivedMessageNonce, RelayerRewardAddress: r.RelayerRewardAddress})
	}
	return true
}

// DecodeICMEvent decodes a stored log of the chain local, in the tx txHash
// of block number, when it is an event of the messenger (DefaultTeleporter
// when zero): what the indexer decodes again of the blocks stored before
// ICM events were (store.ICMBackfill).
func DecodeICMEvent(l *Log, txHash common.Hash, number uint64, messenger common.Address, local ids.ID) (internal.ICMEvent, bool) {
	if messenger == (common.Address{}) {
		messenger = DefaultTeleporter
	}
	return icmEvent(l, txHash, number, messenger, local)
}

package evm

import (
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
)

// DefaultTeleporter is the address of the TeleporterMessenger deployed
// with the same keyless transaction on every chain.
var DefaultTeleporter = common.HexToAddress("0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf")

// The TeleporterMessenger's events: both index the message id, then the
// other chain's blockchain id.
var (
	teleporterMessage = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)"

	TopicSendCrossChainMessage = crypto.Keccak256Hash([]byte(
		"SendCrossChainMessage(bytes32,bytes32," + teleporterMessage + ",(address,uint256))"))
	TopicReceiveCrossChainMessage = crypto.Keccak256Hash([]byte(
		"ReceiveCrossChainMessage(bytes32,bytes32,address,address," + teleporterMessage + ")"))
)

// teleporter returns the Teleporter message of a log of the messenger at
// messenger, on the chain local; ok is false for any other log.
func teleporter(l *Log, txHash common.Hash, number uint64, messenger common.Address, local ids.ID) (internal.TeleporterMessage, bool) {
	if l.Address != messenger || len(l.Topics) < 3 {
		return internal.TeleporterMessage{}, false
	}
	m := internal.TeleporterMessage{TxHash: txHash, BlockNumber: number, LogIndex: l.Index, MessageID: l.Topics[1]}
	other := ids.ID(l.Topics[2])
	switch l.Topics[0] {
	case TopicSendCrossChainMessage:
		m.Direction, m.SourceBlockchainID, m.DestinationBlockchainID = internal.TeleporterSource, local, other
	case TopicReceiveCrossChainMessage:
		m.Direction, m.SourceBlockchainID, m.DestinationBlockchainID = internal.TeleporterDestination, other, local
	default:
		return internal.TeleporterMessage{}, false
	}
	return m, true
}

package internal

import (
	"math/big"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
)

// EVMChain is one EVM chain avaindex follows: the C-chain of the served
// network, or an Avalanche L1 (or any EVM) added by configuration.
type EVMChain struct {
	// ChainID is the EVM chain id (eth_chainId), the key of everything
	// stored for the chain.
	ChainID uint64
	// BlockchainID, SubnetID and VMID are the chain's ids on the P-chain;
	// empty for an EVM that is not an Avalanche chain.
	BlockchainID ids.ID
	SubnetID     ids.ID
	VMID         ids.ID
	// RPCURL is the chain's JSON-RPC endpoint; WSURL its optional websocket.
	RPCURL string
	WSURL  string
	// IsCChain marks the served network's C-chain, whose blocks also carry
	// atomic txs (balance changes from shared memory).
	IsCChain bool
}

// ERCType is the token standard of a contract or transfer, spelled as the
// Data API spells it.
type ERCType string

const (
	ERC20      ERCType = "ERC-20"
	ERC721     ERCType = "ERC-721"
	ERC1155    ERCType = "ERC-1155"
	ERCUnknown ERCType = "UNKNOWN"
)

// EVMBlock is one accepted block of an EVM chain.
type EVMBlock struct {
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
	Timestamp  time.Time
	Miner      common.Address
	GasLimit   uint64
	GasUsed    uint64
	// BaseFee is nil before the chain's London-equivalent upgrade.
	BaseFee *big.Int
	Size    uint64
	TxCount int
	// TimeMilliseconds and MinDelayExcess are the header's since Granite
	// (ACP-226), BlockGasCost since Apricot Phase 4; nil before, and in
	// blocks stored before avaindex kept them.
	TimeMilliseconds *uint64
	MinDelayExcess   *uint64
	BlockGasCost     *big.Int
	// FeesSpent is what the block's txs paid (gas used times effective
	// gas price), CumulativeTxs the chain's txs up to and including the
	// block; both set by the store, CumulativeTxs nil when unknown.
	FeesSpent     *big.Int
	CumulativeTxs *uint64
}

// EVMTx is one transaction with what its receipt says.
type EVMTx struct {
	Hash        common.Hash
	BlockNumber uint64
	BlockHash   common.Hash
	Timestamp   time.Time
	// BlockTimeMilliseconds and BlockMinDelayExcess are the block's
	// header fields (EVMBlock), set by the store's tx lists.
	BlockTimeMilliseconds *uint64
	BlockMinDelayExcess   *uint64
	// Index is the tx's position in its block.
	Index uint32
	From  common.Address
	// To is nil for a contract creation.
	To       *common.Address
	Value    *big.Int
	Nonce    uint64
	Type     uint8
	GasLimit uint64
	// GasPrice is the effective gas price the sender paid (receipt).
	GasPrice *big.Int
	// MaxFeePerGas and MaxPriorityFeePerGas are nil for legacy txs.
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	GasUsed              uint64
	// Status is the receipt status: 1 success, 0 failure.
	Status uint8
	Input  []byte
	// ContractAddress is the contract a creation tx made (receipt).
	ContractAddress *common.Address
}

// EVMInternalTx is one call frame below a transaction's top-level call, in
// depth-first order (from the call tracer).
type EVMInternalTx struct {
	TxHash      common.Hash
	BlockNumber uint64
	// Index is the frame's depth-first position in its tx, from 0.
	Index uint32
	From  common.Address
	To    common.Address
	Value *big.Int
	// CallType is the tracer's frame type: CALL, CREATE, CREATE2,
	// DELEGATECALL, STATICCALL, CALLCODE, SELFDESTRUCT...
	CallType string
	Gas      uint64
	GasUsed  uint64
	Reverted bool
}

// Listed tells whether the internal tx is one the address index and the
// lists hold: one that moves value or creates a contract (the Data API's
// rule for its internal transaction lists).
func (it *EVMInternalTx) Listed() bool {
	switch it.CallType {
	case "CREATE", "CREATE2", "CREATE3":
		return true
	}
	return it.Value != nil && it.Value.Sign() != 0
}

// EVMAddressRole is the part an address took in a tx, as the address
// index (derive/addresstxs) holds it: an address's history is the txs it
// took part in as RoleNative or RoleOther, each tx once.
type EVMAddressRole int

const (
	// RoleNative: the tx's sender, recipient or created contract.
	RoleNative EVMAddressRole = 1
	// RoleOther: another party of the tx's token transfers or listed
	// internal txs.
	RoleOther EVMAddressRole = 2
	// RoleInternal: a party of the tx's listed internal txs.
	RoleInternal EVMAddressRole = 3
)

// EVMAddressTx is a row of the address index: address took part in the
// tx at (Block, TxIndex) as Role.
type EVMAddressTx struct {
	Address common.Address
	Role    EVMAddressRole
	Block   uint64
	TxIndex uint32
}

// EVMTransfer is one token transfer decoded from a Transfer,
// TransferSingle or TransferBatch log.
type EVMTransfer struct {
	BlockNumber uint64
	BlockHash   common.Hash
	Timestamp   time.Time
	TxHash      common.Hash
	LogIndex    uint32
	// BatchIndex is the position within a TransferBatch; 0 otherwise.
	BatchIndex uint32
	Token      common.Address
	Type       ERCType
	// Operator is the ERC-1155 operator; zero otherwise.
	Operator common.Address
	From     common.Address
	To       common.Address
	// Value is the amount moved: ERC-20 and ERC-1155 amounts, 1 for an
	// ERC-721 token.
	Value *big.Int
	// TokenID is nil for ERC-20.
	TokenID *big.Int
}

// EVMContract is a contract and how it was deployed, with what eth_call
// told of it.
type EVMContract struct {
	Address common.Address
	// Deployer is the sender of the deploying tx.
	Deployer common.Address
	// DeployerContract is the contract whose CREATE or CREATE2 made it;
	// nil for a top-level deployment.
	DeployerContract *common.Address
	TxHash           common.Hash
	BlockNumber      uint64
	Timestamp        time.Time
	// Index orders deployments within a block: the tx index times 2^16
	// plus the frame index within the tx (0 for top level).
	Index uint64
	// CreateType is "CREATE" (and top-level creations) or "CREATE2".
	CreateType string
	Type       ERCType
	Name       string
	Symbol     string
	// Decimals is set for ERC-20 tokens that answer decimals().
	Decimals *uint8
}

// EVMBlockData is an EVM block with everything decoded with it that the
// store keeps (the evm package decodes it).
type EVMBlockData struct {
	EVMBlock
	Txs  []EVMTx
	Logs []EVMLog
	// InternalTxs are the call frames below each tx's top-level call, in
	// tx order then depth-first order; empty when not Traced.
	InternalTxs []EVMInternalTx
	// Transfers are the token transfers of the logs, in log order.
	Transfers []EVMTransfer
	// Contracts are the contracts the block's txs deployed (top level and
	// internal CREATE/CREATE2 that were not reverted), described.
	Contracts []EVMContract
	// Seen are contracts whose logs are transfers but that no indexed
	// block deployed (a genesis allocation, or a deployment in an earlier
	// block of the same batch), described; a deployment row wins over them.
	Seen []EVMContract
	// NFTURIs are the token URIs read for the block (at its height): of
	// the tokens it minted and whose metadata events it emitted, in log
	// order.
	NFTURIs []NFTURI
	// NFTRefreshes are its ERC-4906 BatchMetadataUpdate events.
	NFTRefreshes []NFTRefresh
	// Teleporter are the block's Teleporter messages, in log order.
	Teleporter []TeleporterMessage
	// ICM are the block's TeleporterMessenger events, in log order.
	ICM []ICMEvent
	// Balances are the native balance changes of the block, one per
	// address, in address order.
	Balances []EVMBalanceChange
	// Traced is true when internal txs and balances come from the node's
	// tracers (and, for block 0, from a known genesis): the block's
	// balances are exact.
	Traced bool
}

// EVMLog is one log of a block's receipts.
type EVMLog struct {
	TxIndex uint32
	// Index is the log's position in the block.
	Index   uint32
	Address common.Address
	Topics  []common.Hash
	Data    []byte
}

// EVMBalanceChange is an address's native balance after a block: Balance
// when the block tells it (a tx's trace, the genesis), otherwise Delta, to
// add to the balance after the previous block (an atomic import or export
// that no tx of the block touched). Exactly one of them is set.
type EVMBalanceChange struct {
	Address common.Address
	Balance *big.Int
	Delta   *big.Int
}

// FeesSpent is what txs paid: gas used times effective gas price.
func FeesSpent(txs []EVMTx) *big.Int {
	sum, fee := new(big.Int), new(big.Int)
	for i := range txs {
		if txs[i].GasPrice != nil {
			sum.Add(sum, fee.Mul(fee.SetUint64(txs[i].GasUsed), txs[i].GasPrice))
		}
	}
	return sum
}

// EVMNativeBalance is an address's native balance after a block that
// changed it, as the derivation (derive/balances) makes it of the block's
// EVMBalanceChange and the balance before.
type EVMNativeBalance struct {
	Address common.Address
	Block   uint64
	Balance *big.Int
}

// TeleporterDirection says which end of a Teleporter message a tx is.
type TeleporterDirection string

const (
	TeleporterSource      TeleporterDirection = "SOURCE_TRANSACTION"
	TeleporterDestination TeleporterDirection = "DESTINATION_TRANSACTION"
)

// TeleporterMessage is a SendCrossChainMessage or ReceiveCrossChainMessage
// event of the TeleporterMessenger.
type TeleporterMessage struct {
	TxHash      common.Hash
	BlockNumber uint64
	LogIndex    uint32
	Direction   TeleporterDirection
	MessageID   common.Hash
	// SourceBlockchainID and DestinationBlockchainID are the message's two
	// chains (the local chain's id on the side the event does not name).
	SourceBlockchainID      ids.ID
	DestinationBlockchainID ids.ID
}

// EVMTxDetails is a tx with everything it did that avaindex keeps.
type EVMTxDetails struct {
	Tx          EVMTx
	InternalTxs []EVMInternalTx
	Transfers   []EVMTransfer
	Teleporter  *TeleporterMessage
}

// NFTStatus is the state of an NFT's metadata, spelled as the Data API's
// NftTokenMetadataStatus enum.
type NFTStatus string

const (
	NFTUnindexed             NFTStatus = "UNINDEXED"
	NFTIndexed               NFTStatus = "INDEXED"
	NFTMissingToken          NFTStatus = "MISSING_TOKEN"
	NFTInvalidTokenURI       NFTStatus = "INVALID_TOKEN_URI"
	NFTInvalidTokenURIScheme NFTStatus = "INVALID_TOKEN_URI_SCHEME"
	NFTUnreachableTokenURI   NFTStatus = "UNREACHABLE_TOKEN_URI"
	NFTThrottledTokenURI     NFTStatus = "THROTTLED_TOKEN_URI"
	NFTContentTooLarge       NFTStatus = "METADATA_CONTENT_TOO_LARGE"
	NFTInvalidMetadata       NFTStatus = "INVALID_METADATA"
	NFTInvalidMetadataJSON   NFTStatus = "INVALID_METADATA_JSON"
)

// NFTURI is a token's URI as its contract tells it: the answer to
// tokenURI (ERC-721) or uri (ERC-1155, its {id} substituted) at a block,
// or an ERC-1155 URI event.
type NFTURI struct {
	Token   common.Address
	TokenID *big.Int
	Type    ERCType
	// URI is nil when the contract did not answer (the call reverted: no
	// such token).
	URI *string
}

// NFTRefresh is an ERC-4906 event: the metadata of the contract's tokens
// From to To (inclusive) changed.
type NFTRefresh struct {
	Token    common.Address
	From, To *big.Int
}

// NFTMetadata is what a token's metadata document says, and how fetching
// it went.
type NFTMetadata struct {
	Status NFTStatus
	// UpdatedAt is when the metadata was last fetched; zero when never.
	UpdatedAt   time.Time
	Name        string
	Symbol      string
	Description string
	Image       string
	Animation   string
	ExternalURL string
	Background  string
	// Attributes (ERC-721) and Properties (ERC-1155) are the document's
	// JSON values, as JSON text.
	Attributes string
	Properties string
	Decimals   *int
}

// NFTToken is one ERC-721 or ERC-1155 token ever minted.
type NFTToken struct {
	Token   common.Address
	TokenID *big.Int
	Type    ERCType
	// Owner is an ERC-721 token's current owner (zero once burned); nil
	// for ERC-1155.
	Owner *common.Address
	// URI is the token's URI; URIKnown is false until its contract
	// answered (a token whose tokenURI reverts).
	URI      string
	URIKnown bool
	Metadata NFTMetadata
}

// EVMFeatures are the features an EVM chain may have enabled (the Data
// API's schema ApiFeature).
var EVMFeatures = []string{"nftIndexing", "webhooks", "teleporter"}

// ICMEventKind names an event of ICM's TeleporterMessenger.
type ICMEventKind string

const (
	// ICMSend is SendCrossChainMessage, on the source chain.
	ICMSend ICMEventKind = "send"
	// ICMReceive is ReceiveCrossChainMessage, on the destination chain.
	ICMReceive ICMEventKind = "receive"
	// ICMExecuted and ICMExecutionFailed are the message's execution on
	// the destination chain (a failed one may be retried).
	ICMExecuted        ICMEventKind = "executed"
	ICMExecutionFailed ICMEventKind = "failed"
	// ICMReceipt is ReceiptReceived, on the source chain: the destination
	// confirmed the delivery, the fee goes to the relayer.
	ICMReceipt ICMEventKind = "receipt"
	// ICMAddFee is AddFeeAmount, on the source chain: the fee grew.
	ICMAddFee ICMEventKind = "add_fee"
)

// ICMReceiptInfo is one receipt that a message carries back to the chain
// that sent the message it confirms.
type ICMReceiptInfo struct {
	ReceivedMessageNonce *big.Int       `json:"nonce"`
	RelayerRewardAddress common.Address `json:"relayer"`
}

// ICMEvent is one event of ICM's TeleporterMessenger, decoded. The message
// fields are set on send, receive and failed; the fee on send, receipt
// and add_fee.
type ICMEvent struct {
	Kind        ICMEventKind
	Messenger   common.Address
	TxHash      common.Hash
	BlockNumber uint64
	// BlockTime is the block's timestamp (unix seconds), set by the store
	// from its block.
	BlockTime uint64
	LogIndex  uint32
	MessageID common.Hash
	// SourceBlockchainID and DestinationBlockchainID are the message's two
	// chains (the local chain on the side the event does not name); zero
	// for add_fee, whose event names neither.
	SourceBlockchainID      ids.ID
	DestinationBlockchainID ids.ID

	Nonce            *big.Int
	From, To         common.Address
	RequiredGasLimit *big.Int
	AllowedRelayers  []common.Address
	Receipts         []ICMReceiptInfo
	Data             []byte

	FeeToken  common.Address
	FeeAmount *big.Int

	// Deliverer and RewardRedeemer are a receive's; RelayerRewardAddress a
	// receipt's.
	Deliverer, RewardRedeemer common.Address
	RelayerRewardAddress      common.Address
}

// ICMTxEnd is one end of an ICM message: the tx that sent or delivered it.
type ICMTxEnd struct {
	// ChainID is the EVM chain id of the chain it is on.
	ChainID   uint64
	TxHash    common.Hash
	Timestamp uint64
	GasUsed   uint64
	// Deliverer and RewardRedeemer are the delivery's (destination only).
	Deliverer, RewardRedeemer common.Address
}

// ICMMessage is an ICM message as the indexed chains show it, joined across
// its two chains: Source is nil while its source chain's send is not
// indexed, Destination while no delivery is.
type ICMMessage struct {
	MessageID                                   common.Hash
	Messenger                                   common.Address
	SourceBlockchainID, DestinationBlockchainID ids.ID
	Nonce                                       *big.Int
	From, To                                    common.Address
	RequiredGasLimit                            *big.Int
	Data                                        []byte
	Receipts                                    []ICMReceiptInfo
	// FeeToken and FeeAmount are the relayer's reward (the send's fee plus
	// any added); zero when only the destination is indexed.
	FeeToken  common.Address
	FeeAmount *big.Int
	// Executed: the destination ran it (at delivery or on a retry);
	// ReceiptDelivered: its receipt came back to the source chain.
	Executed, ReceiptDelivered bool
	Source, Destination        *ICMTxEnd
}

// ICMFilter selects ICM messages; zero fields select all.
type ICMFilter struct {
	SourceBlockchainID, DestinationBlockchainID *ids.ID
	// BlockchainID is either end.
	BlockchainID *ids.ID
	From, To     *common.Address
	// Address is either the sender or the recipient.
	Address *common.Address
}

// ICMCursor is where a page of ICM messages (newest first) resumes: after
// the message at Time (its first indexed event's block time) and ID.
type ICMCursor struct {
	Time uint64
	ID   common.Hash
}

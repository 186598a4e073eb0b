package api

import "encoding/json"

// Wire types shared by Data API endpoints. JSON names and types follow the
// reference OpenAPI document. A field the schema requires has no omitempty;
// an optional field is omitted when absent, never sent as null: optional
// strings use omitempty (absent == ""), optional numbers whose zero is a
// meaningful value are pointers with omitempty. Required arrays are sent as
// [] when empty, never null.

// ErrorBody is the body of every Data API error response (schemas
// BadRequest, Unauthorized, ..., ServiceUnavailable).
type ErrorBody struct {
	Message    string `json:"message"`
	StatusCode int    `json:"statusCode"`
	// Error is the reason phrase of StatusCode, e.g. "Bad Request".
	Error string `json:"error"`
}

// Primary-network chain names (schema PrimaryNetworkChainName).
const (
	PChainName = "p-chain"
	XChainName = "x-chain"
	CChainName = "c-chain"
)

// ChainInfo names the primary-network chain and network a list answers for
// (schema PrimaryNetworkChainInfo).
type ChainInfo struct {
	// ChainName is PChainName, XChainName or CChainName.
	ChainName string `json:"chainName"`
	// Network is what Networks.Parse reports for the requested network.
	Network string `json:"network"`
}

// ProposerDetails describes the proposervm wrapper of a primary-network
// block (schema ProposerDetails); every field is optional.
type ProposerDetails struct {
	ProposerID           string  `json:"proposerId,omitempty"`
	ProposerParentID     string  `json:"proposerParentId,omitempty"`
	ProposerNodeID       string  `json:"proposerNodeId,omitempty"`
	ProposerPChainHeight *uint64 `json:"proposerPChainHeight,omitempty"`
	ProposerTimestamp    *int64  `json:"proposerTimestamp,omitempty"`
}

// PrimaryNetworkBlock is one P- or X-chain block (schema
// PrimaryNetworkBlock).
type PrimaryNetworkBlock struct {
	// BlockNumber is the height as a decimal string.
	BlockNumber string `json:"blockNumber"`
	BlockHash   string `json:"blockHash"`
	ParentHash  string `json:"parentHash"`
	// BlockTimestamp is Unix seconds.
	BlockTimestamp int64  `json:"blockTimestamp"`
	BlockType      string `json:"blockType"`
	TxCount        int    `json:"txCount"`
	// Transactions are the ids of the block's transactions, in block order.
	Transactions   []string `json:"transactions"`
	BlockSizeBytes int      `json:"blockSizeBytes"`
	// L1ValidatorsAccruedFees, in nAVAX, and ActiveL1Validators are optional
	// (P-chain blocks after Etna).
	L1ValidatorsAccruedFees *uint64 `json:"l1ValidatorsAccruedFees,omitempty"`
	ActiveL1Validators      *uint64 `json:"activeL1Validators,omitempty"`
	// CurrentSupply is the P-chain's current supply in nAVAX, a decimal
	// string; optional.
	CurrentSupply   string           `json:"currentSupply,omitempty"`
	ProposerDetails *ProposerDetails `json:"proposerDetails,omitempty"`
}

// MarshalJSON sends a nil Transactions as [].
func (b PrimaryNetworkBlock) MarshalJSON() ([]byte, error) {
	type plain PrimaryNetworkBlock
	if b.Transactions == nil {
		b.Transactions = []string{}
	}
	return json.Marshal(plain(b))
}

// ListPrimaryNetworkBlocksResponse is a page of primary-network blocks
// (schema ListPrimaryNetworkBlocksResponse).
type ListPrimaryNetworkBlocksResponse struct {
	// NextPageToken is present only when more blocks exist.
	NextPageToken string                `json:"nextPageToken,omitempty"`
	Blocks        []PrimaryNetworkBlock `json:"blocks"`
	ChainInfo     ChainInfo             `json:"chainInfo"`
}

// MarshalJSON sends a nil Blocks as [].
func (r ListPrimaryNetworkBlocksResponse) MarshalJSON() ([]byte, error) {
	type plain ListPrimaryNetworkBlocksResponse
	if r.Blocks == nil {
		r.Blocks = []PrimaryNetworkBlock{}
	}
	return json.Marshal(plain(r))
}

// ---- UTXO lists and historical rewards (utxos.go, rewards.go) ----
//
// These types have no MarshalJSON: a page of 1024 UTXOs encoded twice
// (each item's own Marshal, then the outer encoder compacting it) costs a
// third of the request. Their handlers make every required slice non-nil.

// AssetAmount is an amount of an asset, with the asset's metadata (schema
// AssetAmount).
type AssetAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	// Type is "secp256k1" or "nft".
	Type string `json:"type"`
	// Amount is a decimal string.
	Amount string `json:"amount"`
}

// Money is a value in a currency (schema Money).
type Money struct {
	CurrencyCode string  `json:"currencyCode"`
	Value        float64 `json:"value"`
}

// AssetWithPriceInfo is an AssetAmount with the asset's price when it was
// granted, when known (schema AssetWithPriceInfo).
type AssetWithPriceInfo struct {
	AssetAmount
	HistoricalPrice *Money `json:"historicalPrice,omitempty"`
}

// PChainUtxo is one UTXO of the P-chain's list (schema PChainUtxo).
type PChainUtxo struct {
	// Addresses are the owners, bare bech32.
	Addresses         []string    `json:"addresses"`
	Asset             AssetAmount `json:"asset"`
	ConsumedOnChainID string      `json:"consumedOnChainId"`
	ConsumingTxHash   string      `json:"consumingTxHash,omitempty"`
	CreatedOnChainID  string      `json:"createdOnChainId"`
	UtxoID            string      `json:"utxoId"`
	// UtxoBytes is the avax.UTXO in its chain's encoding, 0x-prefixed hex.
	UtxoBytes string `json:"utxoBytes,omitempty"`
	// Amount and AssetID repeat Asset's (deprecated, still required).
	Amount                  string  `json:"amount"`
	AssetID                 string  `json:"assetId"`
	BlockNumber             string  `json:"blockNumber"`
	BlockTimestamp          int64   `json:"blockTimestamp"`
	ConsumingBlockNumber    string  `json:"consumingBlockNumber,omitempty"`
	ConsumingBlockTimestamp *int64  `json:"consumingBlockTimestamp,omitempty"`
	PlatformLocktime        *uint64 `json:"platformLocktime,omitempty"`
	OutputIndex             uint32  `json:"outputIndex"`
	StakeableLocktime       *uint64 `json:"stakeableLocktime,omitempty"`
	Staked                  *bool   `json:"staked,omitempty"`
	Threshold               *uint32 `json:"threshold,omitempty"`
	// TxHash is the tx id the UTXO is referred to by (UTXOID.TxID).
	TxHash             string  `json:"txHash"`
	UtxoEndTimestamp   *uint64 `json:"utxoEndTimestamp,omitempty"`
	UtxoStartTimestamp *uint64 `json:"utxoStartTimestamp,omitempty"`
	// UtxoType is "STAKE" or "TRANSFER".
	UtxoType string `json:"utxoType"`
}

// Utxo is one UTXO of the X- or C-chain's list (schema Utxo).
type Utxo struct {
	Addresses            []string    `json:"addresses"`
	Asset                AssetAmount `json:"asset"`
	ConsumedOnChainID    string      `json:"consumedOnChainId"`
	ConsumingTxHash      string      `json:"consumingTxHash,omitempty"`
	CreatedOnChainID     string      `json:"createdOnChainId"`
	UtxoID               string      `json:"utxoId"`
	UtxoBytes            string      `json:"utxoBytes,omitempty"`
	ConsumingTxTimestamp *int64      `json:"consumingTxTimestamp,omitempty"`
	CreationTxHash       string      `json:"creationTxHash"`
	GroupID              *uint32     `json:"groupId,omitempty"`
	Locktime             uint64      `json:"locktime"`
	// OutputIndex is a decimal string.
	OutputIndex string `json:"outputIndex"`
	// Payload is an NFT output's, 0x-prefixed hex.
	Payload   string `json:"payload,omitempty"`
	Threshold uint32 `json:"threshold"`
	Timestamp int64  `json:"timestamp"`
	// UtxoType is "transfer" or "mint".
	UtxoType string `json:"utxoType"`
}

// ListPChainUtxosResponse is a page of the P-chain's UTXO list.
type ListPChainUtxosResponse struct {
	NextPageToken string       `json:"nextPageToken,omitempty"`
	Utxos         []PChainUtxo `json:"utxos"`
	ChainInfo     ChainInfo    `json:"chainInfo"`
}

// ListUtxosResponse is a page of the X- or C-chain's UTXO list.
type ListUtxosResponse struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	Utxos         []Utxo    `json:"utxos"`
	ChainInfo     ChainInfo `json:"chainInfo"`
}

// HistoricalReward is one reward UTXO and the staker it paid (schema
// HistoricalReward).
type HistoricalReward struct {
	// Addresses are the reward UTXO's owners, bare bech32.
	Addresses []string `json:"addresses"`
	// TxHash is the staker's tx; RewardTxHash the RewardValidatorTx.
	TxHash         string `json:"txHash"`
	AmountStaked   string `json:"amountStaked"`
	NodeID         string `json:"nodeId"`
	StartTimestamp uint64 `json:"startTimestamp"`
	EndTimestamp   uint64 `json:"endTimestamp"`
	// RewardType is "VALIDATOR", "DELEGATOR" or "VALIDATOR_FEE".
	RewardType   string             `json:"rewardType"`
	UtxoID       string             `json:"utxoId"`
	OutputIndex  uint32             `json:"outputIndex"`
	Reward       AssetWithPriceInfo `json:"reward"`
	RewardTxHash string             `json:"rewardTxHash"`
}

// ListHistoricalRewardsResponse is a page of historical rewards.
type ListHistoricalRewardsResponse struct {
	NextPageToken     string             `json:"nextPageToken,omitempty"`
	HistoricalRewards []HistoricalReward `json:"historicalRewards"`
}

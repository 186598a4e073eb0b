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

// MarshalJSON sends a nil Blocks, and a block's nil Transactions, as [].
// The blocks are encoded as plain structs, not through their MarshalJSON,
// which encoding/json would validate and compact once more per block.
func (r ListPrimaryNetworkBlocksResponse) MarshalJSON() ([]byte, error) {
	type plainBlock PrimaryNetworkBlock
	blocks := make([]plainBlock, len(r.Blocks))
	for i, b := range r.Blocks {
		if b.Transactions == nil {
			b.Transactions = []string{}
		}
		blocks[i] = plainBlock(b)
	}
	return json.Marshal(struct {
		NextPageToken string       `json:"nextPageToken,omitempty"`
		Blocks        []plainBlock `json:"blocks"`
		ChainInfo     ChainInfo    `json:"chainInfo"`
	}{r.NextPageToken, blocks, r.ChainInfo})
}

// The primary-network transaction endpoints' types follow: their required
// arrays are never null because the renderers make them non-nil.

// AssetAmount is an amount of an asset with the asset's details (schema
// AssetAmount).
type AssetAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	// Type is "secp256k1" or "nft" (schema PrimaryNetworkAssetType).
	Type string `json:"type"`
	// Amount is a decimal string.
	Amount string `json:"amount"`
}

// PChainUtxo is a UTXO a P-chain tx consumed or emitted (schema
// PChainUtxo).
type PChainUtxo struct {
	Addresses               []string    `json:"addresses"`
	Asset                   AssetAmount `json:"asset"`
	ConsumedOnChainID       string      `json:"consumedOnChainId"`
	ConsumingTxHash         string      `json:"consumingTxHash,omitempty"`
	CreatedOnChainID        string      `json:"createdOnChainId"`
	UtxoID                  string      `json:"utxoId"`
	UtxoBytes               string      `json:"utxoBytes,omitempty"`
	Amount                  string      `json:"amount"`
	AssetID                 string      `json:"assetId"`
	BlockNumber             string      `json:"blockNumber"`
	BlockTimestamp          int64       `json:"blockTimestamp"`
	ConsumingBlockNumber    string      `json:"consumingBlockNumber,omitempty"`
	ConsumingBlockTimestamp *int64      `json:"consumingBlockTimestamp,omitempty"`
	PlatformLocktime        *uint64     `json:"platformLocktime,omitempty"`
	// OutputIndex is a number on the P-chain (a string on X and C).
	OutputIndex        uint32  `json:"outputIndex"`
	RewardType         string  `json:"rewardType,omitempty"`
	StakeableLocktime  *uint64 `json:"stakeableLocktime,omitempty"`
	Staked             *bool   `json:"staked,omitempty"`
	Threshold          *uint32 `json:"threshold,omitempty"`
	TxHash             string  `json:"txHash"`
	UtxoEndTimestamp   *uint64 `json:"utxoEndTimestamp,omitempty"`
	UtxoStartTimestamp *uint64 `json:"utxoStartTimestamp,omitempty"`
	// UtxoType is "STAKE" or "TRANSFER".
	UtxoType string `json:"utxoType"`
}

// Utxo is a UTXO an X-chain or C-chain tx consumed or emitted (schema
// Utxo).
type Utxo struct {
	Addresses            []string         `json:"addresses"`
	Asset                AssetAmount      `json:"asset"`
	ConsumedOnChainID    string           `json:"consumedOnChainId"`
	ConsumingTxHash      string           `json:"consumingTxHash,omitempty"`
	CreatedOnChainID     string           `json:"createdOnChainId"`
	UtxoID               string           `json:"utxoId"`
	UtxoBytes            string           `json:"utxoBytes,omitempty"`
	ConsumingTxTimestamp *int64           `json:"consumingTxTimestamp,omitempty"`
	CreationTxHash       string           `json:"creationTxHash"`
	Credentials          []UtxoCredential `json:"credentials,omitempty"`
	GroupID              *uint32          `json:"groupId,omitempty"`
	Locktime             uint64           `json:"locktime"`
	// OutputIndex is a decimal string on X and C.
	OutputIndex string `json:"outputIndex"`
	Payload     string `json:"payload,omitempty"`
	Threshold   uint32 `json:"threshold"`
	Timestamp   int64  `json:"timestamp"`
	// UtxoType is "transfer" or "mint".
	UtxoType string `json:"utxoType"`
}

// UtxoCredential is a signature and the public key it recovers to (schema
// UtxoCredential), both 0x-hex.
type UtxoCredential struct {
	Signature string `json:"signature,omitempty"`
	PublicKey string `json:"publicKey,omitempty"`
}

// PChainTransaction is a P-chain tx (schema PChainTransaction).
type PChainTransaction struct {
	TxHash                         string                     `json:"txHash"`
	TxType                         string                     `json:"txType"`
	BlockTimestamp                 int64                      `json:"blockTimestamp"`
	BlockNumber                    string                     `json:"blockNumber"`
	BlockHash                      string                     `json:"blockHash"`
	ConsumedUtxos                  []PChainUtxo               `json:"consumedUtxos"`
	EmittedUtxos                   []PChainUtxo               `json:"emittedUtxos"`
	SourceChain                    string                     `json:"sourceChain,omitempty"`
	DestinationChain               string                     `json:"destinationChain,omitempty"`
	Value                          []AssetAmount              `json:"value"`
	AmountBurned                   []AssetAmount              `json:"amountBurned"`
	AmountStaked                   []AssetAmount              `json:"amountStaked"`
	AmountL1ValidatorBalanceBurned []AssetAmount              `json:"amountL1ValidatorBalanceBurned"`
	StartTimestamp                 *uint64                    `json:"startTimestamp,omitempty"`
	EndTimestamp                   *uint64                    `json:"endTimestamp,omitempty"`
	DelegationFeePercent           string                     `json:"delegationFeePercent,omitempty"`
	NodeID                         string                     `json:"nodeId,omitempty"`
	SubnetID                       string                     `json:"subnetId,omitempty"`
	L1ValidatorManagerDetails      *L1ValidatorManagerDetails `json:"l1ValidatorManagerDetails,omitempty"`
	L1ValidatorDetails             []L1ValidatorDetails       `json:"l1ValidatorDetails,omitempty"`
	EstimatedReward                string                     `json:"estimatedReward,omitempty"`
	RewardTxHash                   string                     `json:"rewardTxHash,omitempty"`
	RewardAddresses                []string                   `json:"rewardAddresses,omitempty"`
	Memo                           string                     `json:"memo,omitempty"`
	StakingTxHash                  string                     `json:"stakingTxHash,omitempty"`
	SubnetOwnershipInfo            *SubnetOwnershipInfo       `json:"subnetOwnershipInfo,omitempty"`
	BlsCredentials                 *BlsCredentials            `json:"blsCredentials,omitempty"`
	BlockchainInfo                 *BlockchainInfo            `json:"blockchainInfo,omitempty"`
}

// L1ValidatorManagerDetails is a ConvertSubnetToL1Tx's validator manager
// (schema L1ValidatorManagerDetails).
type L1ValidatorManagerDetails struct {
	BlockchainID    string `json:"blockchainId"`
	ContractAddress string `json:"contractAddress"`
}

// L1ValidatorDetails is an L1 validator as a tx left it (schema
// L1ValidatorDetailsTransaction).
type L1ValidatorDetails struct {
	ValidationID     string          `json:"validationId"`
	ValidationIDHex  string          `json:"validationIdHex"`
	NodeID           string          `json:"nodeId"`
	SubnetID         string          `json:"subnetId"`
	Weight           uint64          `json:"weight"`
	RemainingBalance uint64          `json:"remainingBalance"`
	BalanceChange    *int64          `json:"balanceChange,omitempty"`
	BlsCredentials   *BlsCredentials `json:"blsCredentials,omitempty"`
}

// SubnetOwnershipInfo is a subnet's owner (schema SubnetOwnershipInfo).
type SubnetOwnershipInfo struct {
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

// BlsCredentials is a BLS public key and its proof of possession, 0x-hex
// (schema BlsCredentials).
type BlsCredentials struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

// BlockchainInfo is what a CreateChainTx creates (schema BlockchainInfo).
// GenesisData is an EvmGenesisDto object for an EVM genesis and a string
// otherwise.
type BlockchainInfo struct {
	ChainName   string          `json:"chainName"`
	VMID        string          `json:"vmId"`
	GenesisData json.RawMessage `json:"genesisData,omitempty"`
}

// XChainTransaction is an X-chain tx: XChainLinearTransaction when it is in
// a block (BlockHeight and BlockHash set), XChainNonLinearTransaction when
// it was accepted by the pre-Cortina DAG (Vertices set).
type XChainTransaction struct {
	TxHash string `json:"txHash"`
	// ChainFormat is "linear" or "non-linear".
	ChainFormat      string               `json:"chainFormat"`
	Timestamp        int64                `json:"timestamp"`
	TxType           string               `json:"txType"`
	Memo             string               `json:"memo"`
	ConsumedUtxos    []Utxo               `json:"consumedUtxos"`
	EmittedUtxos     []Utxo               `json:"emittedUtxos"`
	AmountUnlocked   []AssetAmount        `json:"amountUnlocked"`
	AmountCreated    []AssetAmount        `json:"amountCreated"`
	SourceChain      string               `json:"sourceChain,omitempty"`
	DestinationChain string               `json:"destinationChain,omitempty"`
	AssetCreated     *XChainAssetDetails  `json:"assetCreated,omitempty"`
	BlockHeight      *uint64              `json:"blockHeight,omitempty"`
	BlockHash        string               `json:"blockHash,omitempty"`
	Vertices         *[]TransactionVertex `json:"vertices,omitempty"`
}

// XChainAssetDetails is the asset a CreateAssetTx creates (schema
// XChainAssetDetails).
type XChainAssetDetails struct {
	AssetID            string `json:"assetId"`
	Name               string `json:"name"`
	Symbol             string `json:"symbol"`
	Denomination       int    `json:"denomination"`
	Type               string `json:"type"`
	CreatedAtTimestamp int64  `json:"createdAtTimestamp"`
	// Cap is "fixed" or "variable".
	Cap string `json:"cap"`
}

// TransactionVertex is a DAG vertex that accepted a tx (schema
// TransactionVertexDetail).
type TransactionVertex struct {
	Hash      string `json:"hash"`
	Height    uint64 `json:"height"`
	Timestamp int64  `json:"timestamp"`
}

// CChainExportTransaction is a C-chain atomic ExportTx (schema
// CChainExportTransaction).
type CChainExportTransaction struct {
	TxHash           string        `json:"txHash"`
	BlockHeight      uint64        `json:"blockHeight"`
	BlockHash        string        `json:"blockHash"`
	Timestamp        int64         `json:"timestamp"`
	Memo             string        `json:"memo"`
	AmountUnlocked   []AssetAmount `json:"amountUnlocked"`
	AmountCreated    []AssetAmount `json:"amountCreated"`
	SourceChain      string        `json:"sourceChain"`
	DestinationChain string        `json:"destinationChain"`
	TxType           string        `json:"txType"`
	EVMInputs        []EVMInput    `json:"evmInputs"`
	EmittedUtxos     []Utxo        `json:"emittedUtxos"`
}

// CChainImportTransaction is a C-chain atomic ImportTx (schema
// CChainImportTransaction).
type CChainImportTransaction struct {
	TxHash           string        `json:"txHash"`
	BlockHeight      uint64        `json:"blockHeight"`
	BlockHash        string        `json:"blockHash"`
	Timestamp        int64         `json:"timestamp"`
	Memo             string        `json:"memo"`
	AmountUnlocked   []AssetAmount `json:"amountUnlocked"`
	AmountCreated    []AssetAmount `json:"amountCreated"`
	SourceChain      string        `json:"sourceChain"`
	DestinationChain string        `json:"destinationChain"`
	TxType           string        `json:"txType"`
	EVMOutputs       []EVMOutput   `json:"evmOutputs"`
	ConsumedUtxos    []Utxo        `json:"consumedUtxos"`
}

// EVMInput is an account a C-chain ExportTx debits (schema EVMInput).
type EVMInput struct {
	FromAddress string           `json:"fromAddress"`
	Asset       AssetAmount      `json:"asset"`
	Credentials []UtxoCredential `json:"credentials"`
}

// EVMOutput is an account a C-chain ImportTx credits (schema EVMOutput).
type EVMOutput struct {
	ToAddress string      `json:"toAddress"`
	Asset     AssetAmount `json:"asset"`
}

// ListPChainTransactionsResponse is a page of P-chain txs (schema
// ListPChainTransactionsResponse).
type ListPChainTransactionsResponse struct {
	NextPageToken string              `json:"nextPageToken,omitempty"`
	Transactions  []PChainTransaction `json:"transactions"`
	ChainInfo     ChainInfo           `json:"chainInfo"`
}

// ListXChainTransactionsResponse is a page of X-chain txs (schema
// ListXChainTransactionsResponse).
type ListXChainTransactionsResponse struct {
	NextPageToken string              `json:"nextPageToken,omitempty"`
	Transactions  []XChainTransaction `json:"transactions"`
	ChainInfo     ChainInfo           `json:"chainInfo"`
}

// SignatureAggregationResponse is the body of both signature aggregator
// operations' 201: the signed warp message in hex, without 0x.
type SignatureAggregationResponse struct {
	SignedMessage string `json:"signedMessage"`
}

// ---- UTXO lists and historical rewards (utxos.go, rewards.go) ----

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

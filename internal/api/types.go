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

// ---- EVM chains (chains.go, contracts.go, balances.go, evmtransactions.go) ----
//
// EVM addresses are in EIP-55 mixed-case checksum encoding, hashes in
// lowercase 0x-prefixed hex, block numbers and amounts decimal strings.

// NetworkToken is an EVM chain's native token (schema NetworkToken).
type NetworkToken struct {
	Name        string `json:"name"`
	Symbol      string `json:"symbol"`
	Decimals    int    `json:"decimals"`
	LogoURI     string `json:"logoUri,omitempty"`
	Description string `json:"description,omitempty"`
}

// UtilityAddresses are contracts of an EVM chain (schema UtilityAddresses).
type UtilityAddresses struct {
	Multicall string `json:"multicall,omitempty"`
}

// EVMChainInfo is one EVM chain (schemas ChainInfo and GetChainResponse).
type EVMChainInfo struct {
	// ChainID is the EVM chain id, decimal.
	ChainID string `json:"chainId"`
	// Status is "OK" or "UNAVAILABLE".
	Status      string `json:"status"`
	ChainName   string `json:"chainName"`
	Description string `json:"description"`
	// PlatformChainID, SubnetID and VMID are the chain's P-chain ids in
	// cb58, absent for an EVM that is no Avalanche chain.
	PlatformChainID string `json:"platformChainId,omitempty"`
	SubnetID        string `json:"subnetId,omitempty"`
	VMID            string `json:"vmId,omitempty"`
	// VMName is "EVM".
	VMName           string            `json:"vmName"`
	ExplorerURL      string            `json:"explorerUrl,omitempty"`
	RPCURL           string            `json:"rpcUrl"`
	WSURL            string            `json:"wsUrl,omitempty"`
	IsTestnet        bool              `json:"isTestnet"`
	UtilityAddresses *UtilityAddresses `json:"utilityAddresses,omitempty"`
	NetworkToken     NetworkToken      `json:"networkToken"`
	ChainLogoURI     string            `json:"chainLogoUri,omitempty"`
	Private          bool              `json:"private"`
	// EnabledFeatures are among "nftIndexing", "webhooks", "teleporter".
	EnabledFeatures []string `json:"enabledFeatures"`
}

// ListChainsResponse is the list of EVM chains (schema ListChainsResponse).
type ListChainsResponse struct {
	Chains []EVMChainInfo `json:"chains"`
}

// ImageAsset is an image of a contract (schema ImageAsset).
type ImageAsset struct {
	AssetID  string `json:"assetId,omitempty"`
	ImageURI string `json:"imageUri,omitempty"`
}

// ResourceLink is a link about a contract (schema ResourceLink); Type is
// one of the schema's ResourceLinkType.
type ResourceLink struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// ContractDeploymentDetails tells how a contract was deployed (schema
// ContractDeploymentDetails).
type ContractDeploymentDetails struct {
	TxHash          string `json:"txHash"`
	DeployerAddress string `json:"deployerAddress"`
	// DeployerContractAddress is the contract whose CREATE or CREATE2 made
	// it, absent for a top-level deployment.
	DeployerContractAddress string `json:"deployerContractAddress,omitempty"`
}

// PricingProviders names a token at price providers (schema
// PricingProviders).
type PricingProviders struct {
	CoingeckoCoinID string `json:"coingeckoCoinId,omitempty"`
}

// ContractMetadata is the union Erc20Contract | Erc721Contract |
// Erc1155Contract | UnknownContract, discriminated by ERCType. Fields a
// variant lacks stay empty: Decimals is set for ERC-20 only (where it is
// required), Symbol for all but UNKNOWN, PricingProviders for ERC-20 and
// ERC-1155.
type ContractMetadata struct {
	Name              string                     `json:"name,omitempty"`
	Description       string                     `json:"description,omitempty"`
	OfficialSite      string                     `json:"officialSite,omitempty"`
	Email             string                     `json:"email,omitempty"`
	LogoAsset         *ImageAsset                `json:"logoAsset,omitempty"`
	BannerAsset       *ImageAsset                `json:"bannerAsset,omitempty"`
	Color             string                     `json:"color,omitempty"`
	ResourceLinks     []ResourceLink             `json:"resourceLinks,omitempty"`
	Tags              []string                   `json:"tags,omitempty"`
	Address           string                     `json:"address"`
	DeploymentDetails *ContractDeploymentDetails `json:"deploymentDetails,omitempty"`
	// ERCType is "ERC-20", "ERC-721", "ERC-1155" or "UNKNOWN".
	ERCType          string            `json:"ercType"`
	Symbol           string            `json:"symbol,omitempty"`
	Decimals         *int              `json:"decimals,omitempty"`
	PricingProviders *PricingProviders `json:"pricingProviders,omitempty"`
}

// ListContractsResponse is a page of contracts (schema
// ListContractsResponse).
type ListContractsResponse struct {
	NextPageToken string             `json:"nextPageToken,omitempty"`
	Contracts     []ContractMetadata `json:"contracts"`
}

// NativeTokenBalance is an address's balance of the chain's native token
// (schema NativeTokenBalance); Price and BalanceValue are absent while no
// price is known.
type NativeTokenBalance struct {
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Decimals     int    `json:"decimals"`
	LogoURI      string `json:"logoUri,omitempty"`
	ChainID      string `json:"chainId"`
	Price        *Money `json:"price,omitempty"`
	Balance      string `json:"balance"`
	BalanceValue *Money `json:"balanceValue,omitempty"`
}

// GetNativeBalanceResponse is the body of getNativeBalance.
type GetNativeBalanceResponse struct {
	NativeTokenBalance NativeTokenBalance `json:"nativeTokenBalance"`
}

// RichAddress is an address with what is known of the contract at it
// (schema RichAddress).
type RichAddress struct {
	Name     string `json:"name,omitempty"`
	Symbol   string `json:"symbol,omitempty"`
	Decimals *int   `json:"decimals,omitempty"`
	LogoURI  string `json:"logoUri,omitempty"`
	Address  string `json:"address"`
}

// Method is what a tx calls (schema Method).
type Method struct {
	// CallType is "NATIVE_TRANSFER", "CONTRACT_CALL" or
	// "CONTRACT_CREATION".
	CallType string `json:"callType"`
	// MethodHash is the 4-byte selector of a contract call, "" otherwise.
	MethodHash string `json:"methodHash"`
	MethodName string `json:"methodName,omitempty"`
}

// FullNativeTransactionDetails is an EVM tx with its receipt (schema
// FullNativeTransactionDetails): a listed tx with its input and fees.
type FullNativeTransactionDetails struct {
	NativeTransaction
	// Input is the tx's data in 0x-prefixed hex.
	Input                string `json:"input"`
	BaseFeePerGas        string `json:"baseFeePerGas"`
	MaxFeePerGas         string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas,omitempty"`
}

// NativeTransaction is a listed EVM tx with its receipt (schema
// NativeTransaction).
type NativeTransaction struct {
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	// BlockTimestampMilliseconds and BlockMinDelayExcess are the block
	// header's since Granite, absent before.
	BlockTimestampMilliseconds *uint64 `json:"blockTimestampMilliseconds,omitempty"`
	BlockMinDelayExcess        *uint64 `json:"blockMinDelayExcess,omitempty"`
	BlockHash                  string  `json:"blockHash"`
	ChainID                    string  `json:"chainId"`
	// BlockIndex is the tx's position in its block.
	BlockIndex uint32 `json:"blockIndex"`
	TxHash     string `json:"txHash"`
	// TxStatus is the receipt status, "1" (success) or "0".
	TxStatus string      `json:"txStatus"`
	TxType   int         `json:"txType"`
	GasLimit string      `json:"gasLimit"`
	GasUsed  string      `json:"gasUsed"`
	GasPrice string      `json:"gasPrice"`
	Nonce    string      `json:"nonce"`
	From     RichAddress `json:"from"`
	// To is the callee, or the contract a creation made.
	To     RichAddress `json:"to"`
	Method *Method     `json:"method,omitempty"`
	Value  string      `json:"value"`
}

// ListNativeTransactionsResponse is a page of EVM txs.
type ListNativeTransactionsResponse struct {
	NextPageToken string              `json:"nextPageToken,omitempty"`
	Transactions  []NativeTransaction `json:"transactions"`
}

// EvmBlock is an EVM block (schemas EvmBlock and GetEvmBlockResponse):
// amounts and counts in decimal strings but TxCount.
type EvmBlock struct {
	ChainID        string `json:"chainId"`
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	// BlockTimestampMilliseconds and BlockMinDelayExcess are the header's
	// since Granite, absent before.
	BlockTimestampMilliseconds *uint64 `json:"blockTimestampMilliseconds,omitempty"`
	BlockMinDelayExcess        *uint64 `json:"blockMinDelayExcess,omitempty"`
	BlockHash                  string  `json:"blockHash"`
	TxCount                    int     `json:"txCount"`
	// BaseFee is 0 before the chain's London-equivalent upgrade.
	BaseFee  string `json:"baseFee"`
	GasUsed  string `json:"gasUsed"`
	GasLimit string `json:"gasLimit"`
	// GasCost is the header's blockGasCost (Apricot Phase 4), 0 before.
	GasCost    string `json:"gasCost"`
	ParentHash string `json:"parentHash"`
	// FeesSpent is what the block's txs paid: gas used times effective
	// gas price.
	FeesSpent string `json:"feesSpent"`
	// CumulativeTransactions counts the chain's txs up to and including
	// the block.
	CumulativeTransactions string `json:"cumulativeTransactions"`
}

// ListEvmBlocksResponse is a page of EVM blocks.
type ListEvmBlocksResponse struct {
	NextPageToken string     `json:"nextPageToken,omitempty"`
	Blocks        []EvmBlock `json:"blocks"`
}

// InternalTransactionDetails is a call frame below a tx's top-level call
// (schema InternalTransactionDetails).
type InternalTransactionDetails struct {
	From RichAddress `json:"from"`
	To   RichAddress `json:"to"`
	// InternalTxType is one of the schema's InternalTransactionOpCall.
	InternalTxType string `json:"internalTxType"`
	Value          string `json:"value"`
	IsReverted     bool   `json:"isReverted"`
	GasUsed        string `json:"gasUsed"`
	GasLimit       string `json:"gasLimit"`
}

// InternalTransaction is a listed internal tx of an address (schema
// InternalTransaction): InternalTransactionDetails with its tx and block.
type InternalTransaction struct {
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	// BlockTimestampMilliseconds is the header's since Granite, absent
	// before.
	BlockTimestampMilliseconds *uint64 `json:"blockTimestampMilliseconds,omitempty"`
	BlockHash                  string  `json:"blockHash"`
	TxHash                     string  `json:"txHash"`
	InternalTransactionDetails
}

// ListInternalTransactionsResponse is a page of an address's internal txs.
type ListInternalTransactionsResponse struct {
	NextPageToken string                `json:"nextPageToken,omitempty"`
	Transactions  []InternalTransaction `json:"transactions"`
}

// TransactionDetails is a tx of an address's history with its transfers
// and listed internal txs (schema TransactionDetails).
type TransactionDetails struct {
	NativeTransaction    NativeTransaction            `json:"nativeTransaction"`
	Erc20Transfers       []Erc20TransferDetails       `json:"erc20Transfers,omitempty"`
	Erc721Transfers      []Erc721TransferDetails      `json:"erc721Transfers,omitempty"`
	Erc1155Transfers     []Erc1155TransferDetails     `json:"erc1155Transfers,omitempty"`
	InternalTransactions []InternalTransactionDetails `json:"internalTransactions,omitempty"`
}

// ListTransactionDetailsResponse is a page of an address's history.
type ListTransactionDetailsResponse struct {
	NextPageToken string               `json:"nextPageToken,omitempty"`
	Transactions  []TransactionDetails `json:"transactions"`
}

// ListAddressChainsResponse is the chains an address is active on
// (schema ListAddressChainsResponse).
type ListAddressChainsResponse struct {
	IndexedChains []EVMChainInfo `json:"indexedChains"`
	// UnindexedChains are the chains the hosted service does not index;
	// every chain avaindex serves is indexed: always empty.
	UnindexedChains []string `json:"unindexedChains"`
}

// Erc20Token is an ERC-20 token (schema Erc20Token).
type Erc20Token struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	LogoURI  string `json:"logoUri,omitempty"`
	ERCType  string `json:"ercType"`
	Price    *Money `json:"price,omitempty"`
}

// Erc721TokenMetadata is an ERC-721 token's metadata (schema
// Erc721TokenMetadata); until NFT metadata is indexed only IndexStatus is
// set.
type Erc721TokenMetadata struct {
	// IndexStatus is one of the schema's NftTokenMetadataStatus.
	IndexStatus                  string `json:"indexStatus"`
	MetadataLastUpdatedTimestamp *int64 `json:"metadataLastUpdatedTimestamp,omitempty"`
	Name                         string `json:"name,omitempty"`
	Symbol                       string `json:"symbol,omitempty"`
	ImageURI                     string `json:"imageUri,omitempty"`
	Description                  string `json:"description,omitempty"`
	AnimationURI                 string `json:"animationUri,omitempty"`
	ExternalURL                  string `json:"externalUrl,omitempty"`
	Background                   string `json:"background,omitempty"`
	Attributes                   string `json:"attributes,omitempty"`
}

// Erc1155TokenMetadata is an ERC-1155 token's metadata (schema
// Erc1155TokenMetadata).
type Erc1155TokenMetadata struct {
	IndexStatus                  string `json:"indexStatus"`
	MetadataLastUpdatedTimestamp *int64 `json:"metadataLastUpdatedTimestamp,omitempty"`
	Name                         string `json:"name,omitempty"`
	Symbol                       string `json:"symbol,omitempty"`
	ImageURI                     string `json:"imageUri,omitempty"`
	Description                  string `json:"description,omitempty"`
	AnimationURI                 string `json:"animationUri,omitempty"`
	ExternalURL                  string `json:"externalUrl,omitempty"`
	Background                   string `json:"background,omitempty"`
	Decimals                     *int   `json:"decimals,omitempty"`
	Properties                   string `json:"properties,omitempty"`
}

// Erc721Token is one ERC-721 token (schema Erc721Token).
type Erc721Token struct {
	Address      string              `json:"address"`
	Name         string              `json:"name"`
	Symbol       string              `json:"symbol"`
	ERCType      string              `json:"ercType"`
	TokenID      string              `json:"tokenId"`
	TokenURI     string              `json:"tokenUri"`
	Metadata     Erc721TokenMetadata `json:"metadata"`
	OwnerAddress string              `json:"ownerAddress,omitempty"`
}

// Erc1155Token is one ERC-1155 token (schema Erc1155Token).
type Erc1155Token struct {
	Address  string               `json:"address"`
	ERCType  string               `json:"ercType"`
	TokenID  string               `json:"tokenId"`
	TokenURI string               `json:"tokenUri"`
	Metadata Erc1155TokenMetadata `json:"metadata"`
}

// TransferEnds are the fields every token transfer has.
type TransferEnds struct {
	From     RichAddress `json:"from"`
	To       RichAddress `json:"to"`
	LogIndex uint32      `json:"logIndex"`
}

// Erc20TransferDetails, Erc721TransferDetails and Erc1155TransferDetails
// are a tx's token transfers (schemas of the same names).
type Erc20TransferDetails struct {
	TransferEnds
	Value      string     `json:"value"`
	Erc20Token Erc20Token `json:"erc20Token"`
}

type Erc721TransferDetails struct {
	TransferEnds
	Erc721Token Erc721Token `json:"erc721Token"`
}

type Erc1155TransferDetails struct {
	TransferEnds
	Value        string       `json:"value"`
	Erc1155Token Erc1155Token `json:"erc1155Token"`
}

// NetworkTokenDetails is the chain's native token with its prices, absent
// while unknown (schema NetworkTokenDetails).
type NetworkTokenDetails struct {
	NetworkToken    NetworkToken `json:"networkToken"`
	CurrentPrice    *Money       `json:"currentPrice,omitempty"`
	HistoricalPrice *Money       `json:"historicalPrice,omitempty"`
}

// TeleporterMessageInfo tells which end of a Teleporter message a tx is
// (schema TeleporterMessageInfo).
type TeleporterMessageInfo struct {
	// TeleporterMessageID is the message id in hex, without 0x.
	TeleporterMessageID string `json:"teleporterMessageId"`
	// Direction is "SOURCE_TRANSACTION" or "DESTINATION_TRANSACTION".
	Direction string `json:"direction"`
	// SourceChainID (of a destination tx) and DestinationChainID (of a
	// source tx) are the other end's blockchain id in cb58.
	SourceChainID      string `json:"sourceChainId,omitempty"`
	DestinationChainID string `json:"destinationChainId,omitempty"`
}

// GetTransactionResponse is an EVM tx with everything it did (schema
// GetTransactionResponse).
type GetTransactionResponse struct {
	Erc20Transfers        []Erc20TransferDetails       `json:"erc20Transfers"`
	Erc721Transfers       []Erc721TransferDetails      `json:"erc721Transfers"`
	Erc1155Transfers      []Erc1155TransferDetails     `json:"erc1155Transfers"`
	InternalTransactions  []InternalTransactionDetails `json:"internalTransactions"`
	NetworkTokenDetails   NetworkTokenDetails          `json:"networkTokenDetails"`
	NativeTransaction     FullNativeTransactionDetails `json:"nativeTransaction"`
	TeleporterMessageInfo *TeleporterMessageInfo       `json:"teleporterMessageInfo,omitempty"`
}

// TransferBlock is where a listed token transfer happened.
type TransferBlock struct {
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp int64  `json:"blockTimestamp"`
	BlockHash      string `json:"blockHash"`
	TxHash         string `json:"txHash"`
}

// Erc20Transfer, Erc721Transfer and Erc1155Transfer are listed token
// transfers (schemas of the same names).
type Erc20Transfer struct {
	TransferBlock
	Erc20TransferDetails
}

type Erc721Transfer struct {
	TransferBlock
	Erc721TransferDetails
}

type Erc1155Transfer struct {
	TransferBlock
	Erc1155TransferDetails
}

// ListErc20TransactionsResponse is a page of an address's ERC-20
// transfers.
type ListErc20TransactionsResponse struct {
	NextPageToken string          `json:"nextPageToken,omitempty"`
	Transactions  []Erc20Transfer `json:"transactions"`
}

// ListErc721TransactionsResponse is a page of an address's ERC-721
// transfers.
type ListErc721TransactionsResponse struct {
	NextPageToken string           `json:"nextPageToken,omitempty"`
	Transactions  []Erc721Transfer `json:"transactions"`
}

// ListErc1155TransactionsResponse is a page of an address's ERC-1155
// transfers.
type ListErc1155TransactionsResponse struct {
	NextPageToken string            `json:"nextPageToken,omitempty"`
	Transactions  []Erc1155Transfer `json:"transactions"`
}

// ListTransfersResponse is a page of a token's transfers; each is an
// Erc20Transfer, Erc721Transfer or Erc1155Transfer after the token's type.
type ListTransfersResponse struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Transfers     []any  `json:"transfers"`
}

// ListNftTokens is the body of listTokens: Erc721Token and Erc1155Token
// items.
type ListNftTokens struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Tokens        []any  `json:"tokens"`
}

// Erc721TokenBalance is an ERC-721 token an address owns (schema
// Erc721TokenBalance).
type Erc721TokenBalance struct {
	Erc721Token
	ChainID string `json:"chainId"`
}

// Erc1155TokenBalance is an address's balance of an ERC-1155 token
// (schema Erc1155TokenBalance).
type Erc1155TokenBalance struct {
	Erc1155Token
	ChainID string `json:"chainId"`
	Balance string `json:"balance"`
}

// ListErc721BalancesResponse is the body of listErc721Balances.
type ListErc721BalancesResponse struct {
	NextPageToken       string               `json:"nextPageToken,omitempty"`
	NativeTokenBalance  NativeTokenBalance   `json:"nativeTokenBalance"`
	Erc721TokenBalances []Erc721TokenBalance `json:"erc721TokenBalances"`
}

// ListErc1155BalancesResponse is the body of listErc1155Balances.
// Erc20TokenBalance is an address's balance of an ERC-20 token (schema
// Erc20TokenBalance); TokenReputation is Malicious for a spam token (the
// spam rule's), else Benign: never null, which the schema's enum lacks.
type Erc20TokenBalance struct {
	Erc20Token
	ChainID         string `json:"chainId"`
	Balance         string `json:"balance"`
	BalanceValue    *Money `json:"balanceValue,omitempty"`
	TokenReputation string `json:"tokenReputation"`
}

// ListErc20BalancesResponse is the body of listErc20Balances.
type ListErc20BalancesResponse struct {
	NextPageToken      string              `json:"nextPageToken,omitempty"`
	NativeTokenBalance NativeTokenBalance  `json:"nativeTokenBalance"`
	Erc20TokenBalances []Erc20TokenBalance `json:"erc20TokenBalances"`
}

type ListErc1155BalancesResponse struct {
	NextPageToken        string                `json:"nextPageToken,omitempty"`
	NativeTokenBalance   NativeTokenBalance    `json:"nativeTokenBalance"`
	Erc1155TokenBalances []Erc1155TokenBalance `json:"erc1155TokenBalances"`
}

// ListCollectibleBalancesResponse is the body of listCollectibleBalances:
// Erc721TokenBalance and Erc1155TokenBalance items.
type ListCollectibleBalancesResponse struct {
	NextPageToken       string `json:"nextPageToken,omitempty"`
	CollectibleBalances []any  `json:"collectibleBalances"`
}

// ---- Health Check (health.go) ----

// HealthIndicator is one dependency's state (schema
// HealthIndicatorResultDto): "up" or "down".
type HealthIndicator struct {
	Status string `json:"status"`
}

// HealthCheckResult is the body of the health checks (schema
// HealthCheckResultDto): Status "ok", Info the dependencies up, Error
// those down, Details all of them.
type HealthCheckResult struct {
	Status  string                     `json:"status"`
	Info    map[string]HealthIndicator `json:"info"`
	Error   map[string]HealthIndicator `json:"error"`
	Details map[string]HealthIndicator `json:"details"`
}

// Subnet is a subnet with its blockchains (schema Subnet). The
// deprecated ownerAddresses, threshold and locktime repeat
// subnetOwnershipInfo.
type Subnet struct {
	CreateBlockTimestamp        int64                      `json:"createBlockTimestamp"`
	CreateBlockIndex            string                     `json:"createBlockIndex"`
	SubnetID                    string                     `json:"subnetId"`
	OwnerAddresses              []string                   `json:"ownerAddresses"`
	Threshold                   uint32                     `json:"threshold"`
	Locktime                    uint64                     `json:"locktime"`
	SubnetOwnershipInfo         SubnetOwnershipInfo        `json:"subnetOwnershipInfo"`
	IsL1                        bool                       `json:"isL1"`
	L1ConversionTransactionHash string                     `json:"l1ConversionTransactionHash,omitempty"`
	L1ValidatorManagerDetails   *L1ValidatorManagerDetails `json:"l1ValidatorManagerDetails,omitempty"`
	Blockchains                 []Blockchain               `json:"blockchains"`
}

// Blockchain is a blockchain of a subnet (schema Blockchain).
type Blockchain struct {
	CreateBlockTimestamp int64           `json:"createBlockTimestamp"`
	CreateBlockNumber    string          `json:"createBlockNumber"`
	BlockchainID         string          `json:"blockchainId"`
	VMID                 string          `json:"vmId"`
	SubnetID             string          `json:"subnetId"`
	BlockchainName       string          `json:"blockchainName"`
	EVMChainID           *uint64         `json:"evmChainId,omitempty"`
	GenesisData          json.RawMessage `json:"genesisData,omitempty"`
}

// ListSubnetsResponse is a page of subnets.
type ListSubnetsResponse struct {
	NextPageToken string   `json:"nextPageToken,omitempty"`
	Subnets       []Subnet `json:"subnets"`
}

// ListBlockchainsResponse is a page of blockchains.
type ListBlockchainsResponse struct {
	NextPageToken string       `json:"nextPageToken,omitempty"`
	Blockchains   []Blockchain `json:"blockchains"`
}

// GetNetworkDetailsResponse is the primary network's staking (schema
// GetNetworkDetailsResponse).
type GetNetworkDetailsResponse struct {
	ValidatorDetails ValidatorsDetails `json:"validatorDetails"`
	DelegatorDetails DelegatorsDetails `json:"delegatorDetails"`
}

// ValidatorsDetails is the current primary-network validators' staking
// (schema ValidatorsDetails).
type ValidatorsDetails struct {
	ValidatorCount               int                   `json:"validatorCount"`
	TotalAmountStaked            string                `json:"totalAmountStaked"`
	EstimatedAnnualStakingReward string                `json:"estimatedAnnualStakingReward"`
	StakingDistributionByVersion []StakingDistribution `json:"stakingDistributionByVersion"`
	StakingRatio                 string                `json:"stakingRatio"`
}

// StakingDistribution is the stake of the validators running one
// avalanchego version (schema StakingDistribution).
type StakingDistribution struct {
	Version        string `json:"version"`
	AmountStaked   string `json:"amountStaked"`
	ValidatorCount int    `json:"validatorCount"`
}

// DelegatorsDetails is the current primary-network delegators' staking
// (schema DelegatorsDetails).
type DelegatorsDetails struct {
	DelegatorCount    int    `json:"delegatorCount"`
	TotalAmountStaked string `json:"totalAmountStaked"`
}

// ChainAddressChainIdMapListResponse is the chains each address was used
// on (schema ChainAddressChainIdMapListResponse).
type ChainAddressChainIdMapListResponse struct {
	Addresses []ChainAddressChainIdMap `json:"addresses"`
}

// ChainAddressChainIdMap is one address and the primary-network chains it
// was used on (schema ChainAddressChainIdMap).
type ChainAddressChainIdMap struct {
	Address       string   `json:"address"`
	BlockchainIDs []string `json:"blockchainIds"`
}

// XChainVertex is a vertex of the X-chain's pre-Cortina DAG (schema
// XChainVertex).
type XChainVertex struct {
	VertexHash      string   `json:"vertexHash"`
	ParentHashes    []string `json:"parentHashes"`
	VertexHeight    uint64   `json:"vertexHeight"`
	VertexIndex     uint64   `json:"vertexIndex"`
	VertexTimestamp int64    `json:"vertexTimestamp"`
	TxCount         int      `json:"txCount"`
	Transactions    []string `json:"transactions"`
	VertexSizeBytes int      `json:"vertexSizeBytes"`
}

// ListXChainVerticesResponse is a page of vertices.
type ListXChainVerticesResponse struct {
	NextPageToken string         `json:"nextPageToken,omitempty"`
	Vertices      []XChainVertex `json:"vertices"`
	ChainInfo     ChainInfo      `json:"chainInfo"`
}

// AggregatedAssetAmount is the sum of an address set's UTXOs of one asset
// in one state (schema AggregatedAssetAmount).
type AggregatedAssetAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	Type         string `json:"type"`
	Amount       string `json:"amount"`
	UTXOCount    int    `json:"utxoCount"`
}

// SharedAssetBalance is an AggregatedAssetAmount in shared memory, with
// the chain that exported it (schemas PChainSharedAsset,
// XChainSharedAssetBalance, CChainSharedAssetBalance); Status is the
// P-chain's only.
type SharedAssetBalance struct {
	AggregatedAssetAmount
	SharedWithChainID string `json:"sharedWithChainId"`
	Status            string `json:"status,omitempty"`
}

// PChainBalance is an address set's P-chain balances (schema
// PChainBalance).
type PChainBalance struct {
	UnlockedUnstaked     []AggregatedAssetAmount `json:"unlockedUnstaked"`
	UnlockedStaked       []AggregatedAssetAmount `json:"unlockedStaked"`
	LockedPlatform       []AggregatedAssetAmount `json:"lockedPlatform"`
	LockedStakeable      []AggregatedAssetAmount `json:"lockedStakeable"`
	LockedStaked         []AggregatedAssetAmount `json:"lockedStaked"`
	PendingStaked        []AggregatedAssetAmount `json:"pendingStaked"`
	AtomicMemoryUnlocked []SharedAssetBalance    `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAssetBalance    `json:"atomicMemoryLocked"`
}

// XChainBalances is an address set's X-chain balances (schema
// XChainBalances).
type XChainBalances struct {
	Locked               []AggregatedAssetAmount `json:"locked"`
	Unlocked             []AggregatedAssetAmount `json:"unlocked"`
	AtomicMemoryUnlocked []SharedAssetBalance    `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAssetBalance    `json:"atomicMemoryLocked"`
}

// CChainAtomicBalances is an address set's atomic UTXOs in the C-chain's
// shared memory (schema CChainAtomicBalances).
type CChainAtomicBalances struct {
	AtomicMemoryUnlocked []SharedAssetBalance `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAssetBalance `json:"atomicMemoryLocked"`
}

// BalancesResponse is getBalancesByAddresses' body: Balances is a
// PChainBalance, XChainBalances or CChainAtomicBalances (schemas
// ListPChainBalancesResponse, ListXChainBalancesResponse,
// ListCChainAtomicBalancesResponse).
type BalancesResponse struct {
	Balances  any       `json:"balances"`
	ChainInfo ChainInfo `json:"chainInfo"`
}

// LastActivityTimestamp is an address set's latest UTXO creation or
// consumption on a chain (schema LastActivityTimestamp).
type LastActivityTimestamp struct {
	Timestamp   int64  `json:"timestamp"`
	BlockNumber string `json:"blockNumber"`
	TxHash      string `json:"txHash"`
	UtxoID      string `json:"utxoId"`
	IsConsumed  bool   `json:"isConsumed"`
	ChainName   string `json:"chainName"`
	// Network is "mainnet" or "fuji" (schema PrimaryNetworkType).
	Network string `json:"network"`
}

// PendingReward is the reward a current primary-network staker will get
// if it ends well (schema PendingReward).
type PendingReward struct {
	Addresses      []string `json:"addresses"`
	TxHash         string   `json:"txHash"`
	AmountStaked   string   `json:"amountStaked"`
	NodeID         string   `json:"nodeId"`
	StartTimestamp uint64   `json:"startTimestamp"`
	EndTimestamp   uint64   `json:"endTimestamp"`
	// RewardType is "VALIDATOR" or "DELEGATOR".
	RewardType string `json:"rewardType"`
	// Progress is the share of the staking period elapsed, in percent.
	Progress        float64     `json:"progress"`
	EstimatedReward AssetAmount `json:"estimatedReward"`
}

// ListPendingRewardsResponse is a page of pending rewards.
type ListPendingRewardsResponse struct {
	NextPageToken  string          `json:"nextPageToken,omitempty"`
	PendingRewards []PendingReward `json:"pendingRewards"`
}

// ListCChainAtomicTransactionsResponse is a page of C-chain atomic txs
// (schema ListCChainAtomicTransactionsResponse): each a
// CChainExportTransaction or a CChainImportTransaction.
type ListCChainAtomicTransactionsResponse struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	Transactions  []any     `json:"transactions"`
	ChainInfo     ChainInfo `json:"chainInfo"`
}

// AvaxSupplyResponse is GET /v1/avax/supply's answer: amounts in AVAX, as
// decimal strings.
type AvaxSupplyResponse struct {
	CirculatingSupply string `json:"circulatingSupply"`
	TotalSupply       string `json:"totalSupply"`
	TotalPBurned      string `json:"totalPBurned"`
	TotalCBurned      string `json:"totalCBurned"`
	TotalXBurned      string `json:"totalXBurned"`
	TotalStaked       string `json:"totalStaked"`
	TotalLocked       string `json:"totalLocked"`
	TotalRewards      string `json:"totalRewards"`
	LastUpdated       string `json:"lastUpdated"`
	GenesisUnlock     string `json:"genesisUnlock"`
	L1ValidatorFees   string `json:"l1ValidatorFees"`
}

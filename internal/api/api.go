// Package api serves the Data API from the store. Handlers return errors;
// one writer (WriteError) turns them into the Data API's error body.
//
// Handlers read through narrow interfaces, never the whole store:
// DataSource for the primary network, EVMSource for the EVM chains, with
// ChainRegistry and ContractCatalog, and PriceSource, the one price seam
// (prices.go). Parameters are read by internal/param (the Data API's own,
// addresses, networks, EVM ids, in params.go), page tokens signed by
// param.Tokens, and every list pages through listPage (list.go); wire types
// are in types.go, errors in errors.go, the middleware in middleware.go.
// There is one file per OpenAPI tag (blocks.go, transactions.go, utxos.go,
// rewards.go, signature_aggregator.go; for the EVM chains chains.go,
// contracts.go, balances.go, evmtransactions.go, nfts.go with the NFT
// balance lists, evmblocks.go; health.go for both), with helpers beside (txrender.go, evmrender.go,
// assets.go, genesisdata.go).
package api

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// DataSource is what the Data API reads from the store: exactly the reads
// its handlers make, and no writer, so that the API cannot change what the
// indexer owns. An endpoint that needs a new read adds it here; store.Store
// satisfies it.
type DataSource interface {
	// Generation counts the store's changes: an answer read from the
	// store may be kept while it stays the same (pagecache.go).
	Generation() uint64

	BlockSummaries(ctx context.Context, q store.BlockQuery, after *uint64, limit int) ([]*store.BlockSummary, error)
	BlockSummaryByID(ctx context.Context, q store.BlockQuery, id ids.ID) (*store.BlockSummary, error)
	BlockSummaryByHeight(ctx context.Context, q store.BlockQuery, height uint64) (*store.BlockSummary, error)

	PTx(ctx context.Context, id ids.ID) (*store.TxRecord, error)
	XTx(ctx context.Context, id ids.ID) (*store.TxRecord, error)
	CTx(ctx context.Context, id ids.ID) (*store.TxRecord, error)
	TxUTXOs(ctx context.Context, chain internal.Chain, txID ids.ID) (*store.TxUTXOs, error)
	TxsUTXOs(ctx context.Context, chain internal.Chain, txIDs []ids.ID) (map[ids.ID]*store.TxUTXOs, error)
	L1ValidatorEvents(ctx context.Context, txID ids.ID) (map[ids.ID][]pchain.L1Event, error)
	Staker(ctx context.Context, txID ids.ID) (*store.StakerRecord, error)
	XAssetTxs(ctx context.Context, q store.AssetTxQuery) ([]*store.TxRecord, error)
	// The primary-network tx lists and address histories.
	AddressTxs(ctx context.Context, q store.AddressTxQuery) ([]*store.AddressTx, error)
	// The blocks a node proposed (blocks.go).
	ProposedBlocks(ctx context.Context, index string, nodeID ids.NodeID, q store.ProposedQuery) ([]*store.ProposedBlock, error)
	// The vertices that carried X-chain DAG txs, for a page of them at once.
	TxVertices(ctx context.Context, txIDs []ids.ID) (map[ids.ID][]store.Vertex, error)
	ActiveStakers(ctx context.Context, q store.ActiveStakerQuery) ([]*store.StakerRecord, error)
	// The signature aggregator's: the L1 validators of L1 txs.
	L1Validator(ctx context.Context, validationID ids.ID) (*pchain.L1Validator, error)

	// UTXO lists and historical rewards (utxos.go, rewards.go).
	ListUTXOs(ctx context.Context, q store.UTXOQuery, after *store.UTXOKey, limit int) ([]*store.ListedUTXO, error)
	EachUTXO(ctx context.Context, q store.UTXOQuery, f func(*store.ListedUTXO) error) error
	SumUTXOs(ctx context.Context, q store.UTXOQuery, f func(store.UTXOSum) error) error
	HistoricalRewards(ctx context.Context, q store.RewardQuery, after *store.RewardKey, limit int) ([]*store.HistoricalReward, error)
	// The rewards' types, for the reward UTXOs a tx emits (txrender.go).
	RewardTypes(ctx context.Context, utxoIDs []ids.ID) (map[ids.ID]string, error)

	// The Primary Network tag's (primarynetwork.go): subnets and
	// blockchains, the primary network's current stakers and supply.
	SubnetPage(ctx context.Context, after *pchain.Pos, limit int, desc bool) ([]*pchain.Subnet, error)
	Subnet(ctx context.Context, id ids.ID) (*pchain.Subnet, error)
	BlockchainPage(ctx context.Context, after *pchain.Pos, limit int, desc bool) ([]*pchain.Blockchain, error)
	Blockchain(ctx context.Context, id ids.ID) (*pchain.Blockchain, error)
	SubnetBlockchains(ctx context.Context, subnets []ids.ID) (map[ids.ID][]*pchain.Blockchain, error)
	CurrentStakers(ctx context.Context, subnetID ids.ID) (*store.CurrentStakers, error)
	Supply(ctx context.Context, subnetID ids.ID) (*store.Supply, error)

	// The AVAX supply's running sums and locked UTXOs (supply.go).
	Burned(ctx context.Context, key string) (*big.Int, uint64, error)
	L1ValidatorFees(ctx context.Context) (*big.Int, error)
	LockedAVAX(ctx context.Context, avax ids.ID, at uint64) (p, x uint64, err error)

	// The X-chain's DAG vertices (vertices.go).
	XVertices(ctx context.Context, before *uint64, limit int) ([]store.Container, error)
	XVertexByID(ctx context.Context, id ids.ID) (*store.Container, error)
	XVerticesAtHeight(ctx context.Context, height uint64, after *uint64, limit int, desc bool) ([]store.Container, error)

	// The validator lists (validators.go).
	PChainTip(ctx context.Context) (height uint64, chainTime int64, ok bool, err error)
	StakersChangedSince(ctx context.Context, height uint64) (bool, error)
	StakerTable(ctx context.Context) (*store.StakerTable, error)
	StakersByTxID(ctx context.Context, txIDs []ids.ID) (map[ids.ID]*store.StakerRecord, error)
	L1ValidatorPage(ctx context.Context, q store.L1ValidatorQuery, after *store.L1ValidatorKey, limit int) ([]*pchain.L1Validator, error)
	L1Balances(ctx context.Context, vids []ids.ID) (map[ids.ID]uint64, error)
}

// EVMSource is what the EVM endpoints read from the store (the store's
// EVM reads); store.Store satisfies it.
type EVMSource interface {
	store.EVMReader
	store.NFTReader
	store.ICMStore
	store.ERC20Reader
}

// ChainRegistry is the set of EVM chains served (evmchains.Registry): the
// chain endpoints list it, and every EVM endpoint finds its {chainId} in
// it.
type ChainRegistry interface {
	// List returns the chains with their metadata and status.
	List() []evmchains.Chain
	ByChainID(id uint64) (evmchains.Chain, bool)
	ByBlockchainID(id ids.ID) (evmchains.Chain, bool)
	// NativeBalance asks the chain's RPC for addr's balance after block
	// number (nil: the latest), for chains whose balances are not
	// indexed; the RPC's refusal is a derrors.Unavailable for the client.
	NativeBalance(ctx context.Context, chainID uint64, addr common.Address, number *uint64) (*big.Int, error)
	// TokenBalance asks the chain's RPC for holder's balanceOf of an
	// ERC-20 token at block number (eth_call, cached), for the tokens
	// whose Transfer logs do not explain their balances.
	TokenBalance(ctx context.Context, chainID uint64, token, holder common.Address, number uint64) (*big.Int, error)
}

// SpamLists are the configured lists of spam tokens (config.SpamTokens):
// an allowed token is never spam, a denied one always is.
type SpamLists interface {
	Allowed(chainID uint64, token common.Address) bool
	Denied(chainID uint64, token common.Address) bool
}

// ContractCatalog is the curated contract metadata (evmchains.Catalog).
type ContractCatalog interface {
	Contract(chainID uint64, addr common.Address) (evmchains.ContractInfo, bool)
}

// Deps are what the Data API serves from.
type Deps struct {
	Store DataSource
	// EVM, Chains and Catalog serve the EVM endpoints; with a nil Chains
	// no EVM chain is served (every {chainId} is unknown).
	EVM     EVMSource
	Chains  ChainRegistry
	Catalog ContractCatalog
	Network *internal.Network
	// NetworkGenesis is the network's genesis bytes when avalanchego does
	// not build it in (--genesis-file): its X-chain's genesis assets.
	NetworkGenesis []byte
	// Aliases are extra {network} names for the indexed network.
	Aliases []string
	// TokenKey signs page tokens; at least param.MinTokenKeyLen bytes.
	TokenKey []byte
	// Aggregator serves the signature aggregator endpoints; they answer
	// 503 when it is nil.
	Aggregator SignatureAggregator
	// Prices tells prices; nil for NoPrices.
	Prices PriceSource
	// Spam are the spam token lists; nil for none (the heuristics alone).
	Spam SpamLists
	// Health is what the health check pings: the store; nil answers 503.
	Health Pinger
	// HistoricalPriceMinAge is how long ago a transaction or reward must
	// be for its historicalPrice: zero for the hosted API's 24 hours,
	// NoMinAge for none.
	HistoricalPriceMinAge time.Duration
	// Webhooks keeps the webhooks (webhooks.go); nil answers 503.
	Webhooks WebhookSource
	// WebhookLimits bounds a tier's keys' webhooks; nil for
	// DefaultWebhookLimits.
	WebhookLimits func(tier string) store.WebhookLimits
	// CheckWebhookURL refuses, with the reason, a webhook URL the
	// delivery's outbound rules would refuse (webhooks.CheckURL); nil
	// checks none.
	CheckWebhookURL func(ctx context.Context, u *url.URL) error
	// Uptimes tells the validators' uptimes (listValidators); nil reads
	// every uptime as 0 and every validator as not connected.
	Uptimes UptimeSource
	// Usage serves the usage operations (usage.go); they answer 503 when
	// it is nil.
	Usage UsageSource
	// Operations keeps the export operations (operations.go); nil
	// answers 503.
	Operations OperationSource
	// ExportLinkTTL is how long an export's download link is valid; zero
	// for DefaultExportLinkTTL.
	ExportLinkTTL time.Duration
}

// NoMinAge is the HistoricalPriceMinAge that gives every transaction and
// reward its historicalPrice.
const NoMinAge time.Duration = -1

// API is the Data API of one indexed network.
type API struct {
	store   DataSource
	usage   UsageSource
	network *internal.Network
	// networkGenesis is Deps.NetworkGenesis.
	networkGenesis []byte
	networks       *Networks
	tokens         *param.Tokens
	// assets and genesis cache what never changes once indexed.
	assets  assets
	genesis genesisValidators
	// signer serves the signature aggregator endpoints.
	signer SignatureAggregator
	prices PriceSource
	// priceMinAge is how old a tx or reward must be for its
	// historicalPrice.
	priceMinAge time.Duration
	evm         EVMSource
	health      Pinger
	chains      ChainRegistry
	catalog     ContractCatalog
	spam        SpamLists
	// idTexts keeps the cb58 text of ids rendered often.
	idTexts idTexts
	// pages keeps whole answers of the latest blocks (pagecache.go).
	pages *pageCache
	// chainIDs are the P-, X- and C-chain's ids in cb58, which every UTXO
	// names.
	chainIDs [3]string
	// webhooks and webhookLimitsOf are Deps.Webhooks and WebhookLimits.
	webhooks        WebhookSource
	webhookLimitsOf func(tier string) store.WebhookLimits
	checkWebhookURL func(ctx context.Context, u *url.URL) error
	// streams counts the open webhook event streams by key.
	streams streamCounts
	// uptimes and views serve the validator lists (validatorview.go).
	uptimes UptimeSource
	views   views
	// operations, linkKey and linkTTL serve the operations
	// (operations.go): linkKey signs the download links.
	operations OperationSource
	linkKey    []byte
	linkTTL    time.Duration
}

// Route is one http.ServeMux pattern and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
	// Write marks a write-class operation (one that makes avaindex act,
	// not only read): a read-only tier is refused it (403).
	Write bool
	// Signed marks a route its URL's signature authorizes (an export's
	// download link): served without an API key, also where one is
	// required, and limited as any call.
	Signed bool
}

// New returns the Data API for d.
func New(d Deps) (*API, error) {
	tokens, err := param.NewTokens(d.TokenKey)
	if err != nil {
		return nil, err
	}
	prices := d.Prices
	if prices == nil {
		prices = NoPrices{}
	}
	minAge := d.HistoricalPriceMinAge
	switch {
	case minAge == 0:
		minAge = defaultPriceMinAge
	case minAge < 0:
		minAge = 0
	}
	chains := d.Chains
	if chains == nil {
		chains = noChains{}
	} else if d.EVM == nil {
		return nil, errors.New("api.New: EVM chains without the store's EVM reads")
	}
	linkTTL := d.ExportLinkTTL
	if linkTTL <= 0 {
		linkTTL = DefaultExportLinkTTL
	}
	catalog := d.Catalog
	if catalog == nil {
		catalog = (*evmchains.Catalog)(nil)
	}
	return &API{
		pages:           newPageCache(pageCacheBytes),
		evm:             d.EVM,
		health:          d.Health,
		chains:          chains,
		catalog:         catalog,
		spam:            d.Spam,
		store:           d.Store,
		network:         d.Network,
		usage:           d.Usage,
		networkGenesis:  d.NetworkGenesis,
		networks:        NewNetworks(d.Network.Name, d.Aliases...),
		tokens:          tokens,
		signer:          d.Aggregator,
		prices:          prices,
		priceMinAge:     minAge,
		uptimes:         d.Uptimes,
		chainIDs:        [3]string{d.Network.PChainID.String(), d.Network.XChainID.String(), d.Network.CChainID.String()},
		webhooks:        d.Webhooks,
		webhookLimitsOf: d.WebhookLimits,
		operations:      d.Operations,
		linkKey:         linkKey(d.TokenKey),
		linkTTL:         linkTTL,
		checkWebhookURL: d.CheckWebhookURL,
	}, nil
}

// Routes returns the Data API's routes, each behind Middleware.
func (a *API) Routes() []Route {
	routes := []Route{
		{Pattern: "GET /v1/health-check", Handler: a.handle(a.healthCheck)},
		{Pattern: "GET /v1/apiUsageMetrics", Handler: a.handle(a.getAPIUsageMetrics)},
		{Pattern: "GET /v1/apiLogs", Handler: a.handle(a.getAPILogs)},
		{Pattern: "GET /v1/subnetRpcUsageMetrics", Handler: a.handle(a.rpcUsage)},
		{Pattern: "GET /v1/rpcUsageMetrics", Handler: a.handle(a.rpcUsage)},
		{Pattern: "GET /v1/primaryNetworkRpcUsageMetrics", Handler: a.handle(a.primaryNetworkRPCUsage)},
		{Pattern: "GET /v1/live-check", Handler: a.handle(a.liveCheck)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks", Handler: a.handle(a.listBlocks)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}", Handler: a.handle(a.getBlock)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks", Handler: a.handle(a.listBlocksByNode)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", Handler: a.handle(a.getTx)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking", Handler: a.handle(a.listStaking)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/transactions", Handler: a.handle(a.listHistory)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions", Handler: a.handle(a.listAssetTxs)},
		{Pattern: "POST /v1/signatureAggregator/{network}/aggregateSignatures", Handler: a.handle(a.aggregateSignatures), Write: true},
		{Pattern: "GET /v1/signatureAggregator/{network}/aggregateSignatures/{txHash}", Handler: a.handle(a.getAggregatedSignatures)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/utxos", Handler: a.handle(a.listUTXOs)},
		{Pattern: "POST /v1/networks/{network}/blockchains/{blockchainId}/utxos", Handler: a.handle(a.listUTXOsV2)},
		{Pattern: "GET /v1/networks/{network}/rewards", Handler: a.handle(a.listRewards)},
		{Pattern: "GET /v1/networks/{network}/rewards:listPending", Handler: a.handle(a.listPendingRewards)},
		{Pattern: "GET /v1/networks/{network}", Handler: a.handle(a.getNetworkDetails)},
		{Pattern: "GET /v1/avax/supply", Handler: a.handle(a.getAvaxSupply)},
		{Pattern: "GET /v1/networks/{network}/validators", Handler: a.handle(a.listValidators)},
		{Pattern: "GET /v1/networks/{network}/validators/{nodeId}", Handler: a.handle(a.getSingleValidatorDetails)},
		{Pattern: "GET /v1/networks/{network}/delegators", Handler: a.handle(a.listDelegators)},
		{Pattern: "GET /v1/networks/{network}/l1Validators", Handler: a.handle(a.listL1Validators)},
		{Pattern: "GET /v1/networks/{network}/subnets", Handler: a.handle(a.listSubnets)},
		{Pattern: "GET /v1/networks/{network}/subnets/{subnetId}", Handler: a.handle(a.getSubnet)},
		{Pattern: "GET /v1/networks/{network}/blockchains", Handler: a.handle(a.listBlockchains)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}", Handler: a.handle(a.getBlockchain)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}", Handler: a.handle(a.getAsset)},
		{Pattern: "GET /v1/networks/{network}/addresses:listChainIds", Handler: a.handle(a.getChainIDs)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses", Handler: a.handle(a.lastActivity)},
		{Pattern: "POST /v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses", Handler: a.handle(a.lastActivityV2)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/balances", Handler: a.handle(a.getBalances)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/vertices", Handler: a.handle(a.listVertices)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}", Handler: a.handle(a.getVertex)},
		{Pattern: "GET /v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight", Handler: a.handle(a.getVertexByHeight)},
		{Pattern: "GET /v1/icm/messages/{messageId}", Handler: a.handle(a.getIcmMessage)},
		{Pattern: "GET /v1/icm/messages", Handler: a.handle(a.listIcmMessages)},
		{Pattern: "GET /v1/icm/addresses/{address}/messages", Handler: a.handle(a.listIcmMessagesByAddress)},
		{Pattern: "GET /v1/teleporter/messages/{messageId}", Handler: a.handle(a.getTeleporterMessage)},
		{Pattern: "GET /v1/teleporter/messages", Handler: a.handle(a.listTeleporterMessages)},
		{Pattern: "GET /v1/teleporter/addresses/{address}/messages", Handler: a.handle(a.listTeleporterMessagesByAddress)},
		{Pattern: "GET /v1/chains", Handler: a.handle(a.listChains)},
		{Pattern: "GET /v1/chains/{chainId}", Handler: a.handle(a.getChain)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}", Handler: a.handle(a.getContractMetadata)},
		{Pattern: "GET /v1/chains/{chainId}/blocks", Handler: a.handle(a.getLatestBlocks)},
		{Pattern: "GET /v1/chains/{chainId}/blocks/{blockId}", Handler: a.handle(a.getEVMBlock)},
		{Pattern: "GET /v1/blocks", Handler: a.handle(a.listLatestBlocksAllChains)},
		{Pattern: "GET /v1/chains/allBlocks", Handler: a.handle(a.listLatestBlocksAllChains)},
		{Pattern: "GET /v1/chains/{chainId}/transactions/{txHash}", Handler: a.handle(a.getTransaction)},
		{Pattern: "GET /v1/chains/{chainId}/blocks/{blockId}/transactions", Handler: a.handle(a.getTransactionsForBlock)},
		{Pattern: "GET /v1/chains/{chainId}/transactions", Handler: a.handle(a.listLatestTransactions)},
		{Pattern: "GET /v1/transactions", Handler: a.handle(a.listLatestTransactionsAllChains)},
		{Pattern: "GET /v1/chains/allTransactions", Handler: a.handle(a.listLatestTransactionsAllChains)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/balances:getNative", Handler: a.handle(a.getNativeBalance)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc20", Handler: a.handle(a.listErc20Balances)},
		{Pattern: "GET /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment", Handler: a.handle(a.getDeployment)},
		{Pattern: "GET /v1/chains/{chainId}/contracts/{address}/deployments", Handler: a.handle(a.listDeployments)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions", Handler: a.handle(a.listAddressTxs)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions:listNative", Handler: a.handle(a.listNativeTxs)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions:listInternals", Handler: a.handle(a.listInternalTxs)},
		{Pattern: "GET /v1/address/{address}/chains", Handler: a.handle(a.listAddressChains)},
		// /v1/chains/address/{address}, which ServeMux cannot route beside
		// /v1/chains/{chainId}/blocks (apidoc.SplitPattern).
		{Pattern: "GET /v1/chains/{addressSegment}/{address}", Handler: a.handle(a.getAddressChains)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc20", Handler: a.handle(a.listErc20)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc721", Handler: a.handle(a.listErc721)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/transactions:listErc1155", Handler: a.handle(a.listErc1155)},
		{Pattern: "GET /v1/chains/{chainId}/tokens/{address}/transfers", Handler: a.handle(a.listTokenTransfers)},
		{Pattern: "GET /v1/chains/{chainId}/nfts/collections/{address}/tokens", Handler: a.handle(a.listTokens)},
		{Pattern: "GET /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}", Handler: a.handle(a.getTokenDetails)},
		// {tokenId}:reindex, which ServeMux cannot route (apidoc.SplitPattern).
		{Pattern: "POST /v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenIdReindex}", Handler: a.handle(a.reindexNft), Write: true},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc721", Handler: a.handle(a.listErc721Balances)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/balances:listErc1155", Handler: a.handle(a.listErc1155Balances)},
		{Pattern: "GET /v1/chains/{chainId}/addresses/{address}/balances:listCollectibles", Handler: a.handle(a.listCollectibleBalances)},
		// Webhooks (webhooks.go).
		{Pattern: "POST /v1/webhooks", Handler: a.handle(a.createWebhook), Write: true},
		{Pattern: "GET /v1/webhooks", Handler: a.handle(a.listWebhooks)},
		{Pattern: "GET /v1/webhooks/{id}", Handler: a.handle(a.getWebhook)},
		{Pattern: "PATCH /v1/webhooks/{id}", Handler: a.handle(a.updateWebhook), Write: true},
		{Pattern: "DELETE /v1/webhooks/{id}", Handler: a.handle(a.deactivateWebhook), Write: true},
		{Pattern: "POST /v1/webhooks:generateOrRotateSharedSecret", Handler: a.handle(a.generateOrRotateSharedSecret), Write: true},
		{Pattern: "GET /v1/webhooks:getSharedSecret", Handler: a.handle(a.getSharedSecret)},
		{Pattern: "PATCH /v1/webhooks/{id}/addresses", Handler: a.handle(a.changeWebhookAddresses(true)), Write: true},
		{Pattern: "DELETE /v1/webhooks/{id}/addresses", Handler: a.handle(a.changeWebhookAddresses(false)), Write: true},
		{Pattern: "GET /v1/webhooks/{id}/addresses", Handler: a.handle(a.getAddressesFromWebhook)},
		// Operations (operations.go); the download is avaindex's own.
		{Pattern: "POST /v1/operations/transactions:export", Handler: a.handle(a.postTransactionExportJob), Write: true},
		{Pattern: "GET /v1/operations/{operationId}", Handler: a.handle(a.getOperationResult)},
		{Pattern: "GET /v1/operations/{operationId}/download", Handler: a.handle(a.downloadOperationFile), Signed: true},
		// avaindex's extension: the events as server-sent events.
		{Pattern: "GET /v1/webhooks/{id}/events", Handler: a.handle(a.webhookEvents)},
	}
	for i := range routes {
		routes[i].Handler = Middleware(routes[i].Handler)
	}
	return routes
}

// Patterns are the patterns of the Data API's routes, in Routes' order:
// what the served OpenAPI document (internal/apidoc) is made for; a route
// the reference lacks is described in internal/apidoc/own.yaml. It needs
// no store: the route table is the same for every network.
func Patterns() []string {
	routes := (&API{}).Routes()
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.Pattern
	}
	return out
}

// handle adapts a handler that returns an error.
func (a *API) handle(f func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			WriteError(w, r, err)
		}
	})
}

// chainNames are the aliases of the primary-network chains in
// {blockchainId} and in chainInfo.chainName.
var chainNames = map[internal.Chain]string{
	internal.PChain: PChainName,
	internal.XChain: XChainName,
	internal.CChain: CChainName,
}

// blockchain parses the {blockchainId} path segment: a chain alias or the
// cb58 id of one of the indexed network's chains, restricted to allowed.
func (a *API) blockchain(r *http.Request, allowed ...internal.Chain) (internal.Chain, error) {
	v := r.PathValue("blockchainId")
	ids := map[internal.Chain]string{
		internal.PChain: a.network.PChainID.String(),
		internal.XChain: a.network.XChainID.String(),
		internal.CChain: a.network.CChainID.String(),
	}
	var accepted []string
	for _, c := range allowed {
		if v == chainNames[c] || v == ids[c] {
			return c, nil
		}
		accepted = append(accepted, chainNames[c], ids[c])
	}
	return "", derrors.Invalid("blockchainId must be one of %s, got %s", strings.Join(accepted, ", "), got(v))
}

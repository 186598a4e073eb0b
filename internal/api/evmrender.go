package api

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
)

// Renderers the EVM endpoints share: contracts with their curated
// metadata, tokens, transfers and txs in the Data API's shapes.

// contractView is what is known of an address: the contract indexed at it
// (nil when none was deployed on the indexed chain) and its curated
// metadata.
type contractView struct {
	addr    common.Address
	stored  *internal.EVMContract
	curated evmchains.ContractInfo
	// listed is whether the catalog knows the contract.
	listed bool
}

// name prefers the curated name (a list may fix a contract's own), as do
// symbol and logo; decimals and the token standard are the contract's
// own when indexed.
func (v *contractView) name() string {
	if v.curated.Name != "" || v.stored == nil {
		return v.curated.Name
	}
	return v.stored.Name
}

func (v *contractView) symbol() string {
	if v.curated.Symbol != "" || v.stored == nil {
		return v.curated.Symbol
	}
	return v.stored.Symbol
}

func (v *contractView) decimals() *int {
	var d *uint8
	switch {
	case v.stored != nil && v.stored.Decimals != nil:
		d = v.stored.Decimals
	case v.curated.Decimals != nil:
		d = v.curated.Decimals
	default:
		return nil
	}
	n := int(*d)
	return &n
}

// deployed is whether the contract's deployment is indexed (a contract
// seen emitting transfers, e.g. a genesis allocation, has none).
func (v *contractView) deployed() bool {
	return v.stored != nil && v.stored.TxHash != (common.Hash{})
}

func (v *contractView) ercType() internal.ERCType {
	if v.stored != nil && v.stored.Type != "" && v.stored.Type != internal.ERCUnknown {
		return v.stored.Type
	}
	if v.curated.ERCType != "" {
		return v.curated.ERCType
	}
	return internal.ERCUnknown
}

// contracts caches, for one request, what is known of the addresses a
// response names.
type contracts struct {
	a       *API
	chainID uint64
	m       map[common.Address]*contractView
	prices  map[common.Address]*Money
	// priced tells the response's prices.
	priced *boundedPrices
}

func (a *API) contracts(chainID uint64) *contracts {
	return &contracts{a: a, chainID: chainID, m: map[common.Address]*contractView{}, prices: map[common.Address]*Money{},
		priced: a.responsePrices()}
}

// get returns what is known of addr.
func (c *contracts) get(ctx context.Context, addr common.Address) (*contractView, error) {
	if v, ok := c.m[addr]; ok {
		return v, nil
	}
	v := &contractView{addr: addr}
	v.curated, v.listed = c.a.catalog.Contract(c.chainID, addr)
	stored, err := c.a.evm.EVMContract(ctx, c.chainID, addr)
	switch {
	case err == nil:
		v.stored = stored
	case !errors.Is(err, derrors.NotFound):
		return nil, err
	}
	c.m[addr] = v
	return v, nil
}

// prefetch reads what is known of addrs not known yet, in one store
// read: for a page that names many contracts.
func (c *contracts) prefetch(ctx context.Context, addrs []common.Address) error {
	var missing []common.Address
	for _, a := range addrs {
		if _, ok := c.m[a]; !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	stored, err := c.a.evm.EVMContracts(ctx, c.chainID, missing)
	if err != nil {
		return err
	}
	for _, a := range missing {
		v := &contractView{addr: a, stored: stored[a]}
		v.curated, v.listed = c.a.catalog.Contract(c.chainID, a)
		c.m[a] = v
	}
	return nil
}

// curatedAddress is addr with its curated metadata: what lists name for
// every from and to without a store read.
func (c *contracts) curatedAddress(addr common.Address) RichAddress {
	info, _ := c.a.catalog.Contract(c.chainID, addr)
	out := RichAddress{Address: addr.Hex(), Name: info.Name, Symbol: info.Symbol, LogoURI: info.LogoURI}
	if info.Decimals != nil {
		d := int(*info.Decimals)
		out.Decimals = &d
	}
	return out
}

// richAddress is addr with everything known of the contract at it.
func (c *contracts) richAddress(ctx context.Context, addr common.Address) (RichAddress, error) {
	v, err := c.get(ctx, addr)
	if err != nil {
		return RichAddress{}, err
	}
	return RichAddress{Address: addr.Hex(), Name: v.name(), Symbol: v.symbol(), Decimals: v.decimals(), LogoURI: v.curated.LogoURI}, nil
}

// price is the current price of token in currency, nil when unknown.
func (c *contracts) price(ctx context.Context, token common.Address, currency string) (*Money, error) {
	if p, ok := c.prices[token]; ok {
		return p, nil
	}
	v, ok, err := c.priced.TokenPrice(ctx, c.chainID, token, time.Time{}, currency)
	if err != nil {
		return nil, err
	}
	var p *Money
	if ok {
		p = &Money{CurrencyCode: currency, Value: v}
	}
	c.prices[token] = p
	return p, nil
}

func (c *contracts) erc20Token(ctx context.Context, token common.Address, currency string) (Erc20Token, error) {
	v, err := c.get(ctx, token)
	if err != nil {
		return Erc20Token{}, err
	}
	p, err := c.price(ctx, token, currency)
	if err != nil {
		return Erc20Token{}, err
	}
	out := Erc20Token{Address: token.Hex(), Name: v.name(), Symbol: v.symbol(), LogoURI: v.curated.LogoURI, ERCType: string(internal.ERC20), Price: p}
	if d := v.decimals(); d != nil {
		out.Decimals = *d
	}
	return out, nil
}

// unindexedNFT is the indexStatus of an NFT whose metadata avaindex has not
// fetched.
const unindexedNFT = "UNINDEXED"

// storedNFT is the stored token (its URI and metadata), nil when none
// is stored.
func (c *contracts) storedNFT(ctx context.Context, token common.Address, tokenID *big.Int) (*internal.NFTToken, error) {
	if tokenID == nil {
		return nil, nil
	}
	t, err := c.a.evm.NFTToken(ctx, c.chainID, token, tokenID)
	if errors.Is(err, derrors.NotFound) {
		return nil, nil
	}
	return t, err
}

// erc721Token is a transferred ERC-721 token, with its URI and metadata
// when stored (its owner is not a transfer's to tell).
func (c *contracts) erc721Token(ctx context.Context, token common.Address, tokenID *big.Int) (Erc721Token, error) {
	v, err := c.get(ctx, token)
	if err != nil {
		return Erc721Token{}, err
	}
	out := Erc721Token{Address: token.Hex(), Name: v.name(), Symbol: v.symbol(), ERCType: string(internal.ERC721),
		TokenID: decimal(tokenID), Metadata: Erc721TokenMetadata{IndexStatus: unindexedNFT}}
	t, err := c.storedNFT(ctx, token, tokenID)
	if err != nil || t == nil {
		return out, err
	}
	out.TokenURI, out.Metadata = t.URI, erc721Metadata(&t.Metadata)
	return out, nil
}

// erc1155Token is a transferred ERC-1155 token, with its URI and metadata
// when stored.
func (c *contracts) erc1155Token(ctx context.Context, token common.Address, tokenID *big.Int) (Erc1155Token, error) {
	out := Erc1155Token{Address: token.Hex(), ERCType: string(internal.ERC1155), TokenID: decimal(tokenID),
		Metadata: Erc1155TokenMetadata{IndexStatus: unindexedNFT}}
	t, err := c.storedNFT(ctx, token, tokenID)
	if err != nil || t == nil {
		return out, err
	}
	out.TokenURI, out.Metadata = t.URI, erc1155Metadata(&t.Metadata)
	return out, nil
}

// transferEnds are a transfer's from, to and log index.
func (c *contracts) transferEnds(t *internal.EVMTransfer) TransferEnds {
	return TransferEnds{From: c.curatedAddress(t.From), To: c.curatedAddress(t.To), LogIndex: t.LogIndex}
}

// transferDetails renders t as the details of its type: an
// Erc20TransferDetails, Erc721TransferDetails or Erc1155TransferDetails.
func (c *contracts) transferDetails(ctx context.Context, t *internal.EVMTransfer, currency string) (any, error) {
	ends := c.transferEnds(t)
	switch t.Type {
	case internal.ERC20:
		tok, err := c.erc20Token(ctx, t.Token, currency)
		if err != nil {
			return nil, err
		}
		return Erc20TransferDetails{TransferEnds: ends, Value: decimal(t.Value), Erc20Token: tok}, nil
	case internal.ERC721:
		tok, err := c.erc721Token(ctx, t.Token, t.TokenID)
		if err != nil {
			return nil, err
		}
		return Erc721TransferDetails{TransferEnds: ends, Erc721Token: tok}, nil
	case internal.ERC1155:
		tok, err := c.erc1155Token(ctx, t.Token, t.TokenID)
		if err != nil {
			return nil, err
		}
		return Erc1155TransferDetails{TransferEnds: ends, Value: decimal(t.Value), Erc1155Token: tok}, nil
	}
	return nil, errors.New("transfer of unknown token type " + string(t.Type))
}

// listedTransfer renders t as a list item: an Erc20Transfer,
// Erc721Transfer or Erc1155Transfer.
func (c *contracts) listedTransfer(ctx context.Context, t *internal.EVMTransfer, currency string) (any, error) {
	d, err := c.transferDetails(ctx, t, currency)
	if err != nil {
		return nil, err
	}
	at := TransferBlock{BlockNumber: strconv.FormatUint(t.BlockNumber, 10), BlockTimestamp: t.Timestamp.Unix(),
		BlockHash: t.BlockHash.Hex(), TxHash: t.TxHash.Hex()}
	switch d := d.(type) {
	case Erc20TransferDetails:
		return Erc20Transfer{TransferBlock: at, Erc20TransferDetails: d}, nil
	case Erc721TransferDetails:
		return Erc721Transfer{TransferBlock: at, Erc721TransferDetails: d}, nil
	default:
		return Erc1155Transfer{TransferBlock: at, Erc1155TransferDetails: d.(Erc1155TransferDetails)}, nil
	}
}

// contractMetadata renders what is known of a contract as the
// ContractMetadata variant of its type.
func contractMetadata(v *contractView) ContractMetadata {
	cur := v.curated
	typ := v.ercType()
	out := ContractMetadata{
		Name: v.name(), Description: cur.Description, OfficialSite: cur.OfficialSite, Email: cur.Email,
		Color: cur.Color, Tags: cur.Tags, Address: v.addr.Hex(), ERCType: string(typ),
	}
	if cur.LogoURI != "" {
		out.LogoAsset = &ImageAsset{ImageURI: cur.LogoURI}
	}
	if cur.BannerURI != "" {
		out.BannerAsset = &ImageAsset{ImageURI: cur.BannerURI}
	}
	for _, l := range cur.ResourceLinks {
		out.ResourceLinks = append(out.ResourceLinks, ResourceLink{Type: l.Type, URL: l.URL})
	}
	if s := v.stored; v.deployed() {
		out.DeploymentDetails = &ContractDeploymentDetails{TxHash: s.TxHash.Hex(), DeployerAddress: s.Deployer.Hex()}
		if s.DeployerContract != nil {
			out.DeploymentDetails.DeployerContractAddress = s.DeployerContract.Hex()
		}
	}
	if typ != internal.ERCUnknown {
		out.Symbol = v.symbol()
	}
	if typ == internal.ERC20 {
		out.Decimals = v.decimals()
		if out.Decimals == nil {
			zero := 0 // required: a token without decimals() counts in whole units
			out.Decimals = &zero
		}
	}
	if (typ == internal.ERC20 || typ == internal.ERC1155) && cur.CoingeckoID != "" {
		out.PricingProviders = &PricingProviders{CoingeckoCoinID: cur.CoingeckoID}
	}
	return out
}

// internalTxTypes are the tracer's frame types the schema's
// InternalTransactionOpCall names; any other is UNKNOWN.
var internalTxTypes = map[string]string{
	"CALL": "CALL", "CREATE": "CREATE", "CREATE2": "CREATE2", "CALLCODE": "CALLCODE",
	"DELEGATECALL": "DELEGATECALL", "STATICCALL": "STATICCALL",
}

func (c *contracts) internalTx(ctx context.Context, it *internal.EVMInternalTx) (InternalTransactionDetails, error) {
	from, err := c.richAddress(ctx, it.From)
	if err != nil {
		return InternalTransactionDetails{}, err
	}
	to, err := c.richAddress(ctx, it.To)
	if err != nil {
		return InternalTransactionDetails{}, err
	}
	typ, ok := internalTxTypes[it.CallType]
	if !ok {
		typ = "UNKNOWN"
	}
	return InternalTransactionDetails{From: from, To: to, InternalTxType: typ, Value: decimal(it.Value),
		IsReverted: it.Reverted, GasUsed: strconv.FormatUint(it.GasUsed, 10), GasLimit: strconv.FormatUint(it.Gas, 10)}, nil
}

// knownMethods names the selectors of the token standards' and the
// TeleporterMessenger's methods.
var knownMethods = func() map[string]string {
	m := map[string]string{}
	for _, sig := range []string{
		"transfer(address,uint256)", "approve(address,uint256)", "transferFrom(address,address,uint256)",
		"safeTransferFrom(address,address,uint256)", "safeTransferFrom(address,address,uint256,bytes)",
		"setApprovalForAll(address,bool)", "safeTransferFrom(address,address,uint256,uint256,bytes)",
		"safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
		"mint(address,uint256)", "burn(uint256)", "deposit()", "withdraw(uint256)",
		"sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
		"receiveCrossChainMessage(uint32,address)",
	} {
		m[hex.EncodeToString(crypto.Keccak256([]byte(sig))[:4])] = sig
	}
	return m
}()

// method tells what tx calls.
func method(tx *internal.EVMTx) *Method {
	switch {
	case tx.To == nil:
		return &Method{CallType: "CONTRACT_CREATION", MethodName: "Contract Created"}
	case len(tx.Input) == 0:
		return &Method{CallType: "NATIVE_TRANSFER", MethodName: "Native Transfer"}
	}
	m := &Method{CallType: "CONTRACT_CALL"}
	if len(tx.Input) >= 4 {
		sel := hex.EncodeToString(tx.Input[:4])
		m.MethodHash = "0x" + sel
		m.MethodName = knownMethods[sel]
	}
	return m
}

// nativeTx renders tx of the chain, in block (for its base fee), its ends
// with everything known of them.
func (c *contracts) nativeTx(ctx context.Context, tx *internal.EVMTx, block *internal.EVMBlock) (FullNativeTransactionDetails, error) {
	from, err := c.richAddress(ctx, tx.From)
	if err != nil {
		return FullNativeTransactionDetails{}, err
	}
	toAddr := RichAddress{Address: common.Address{}.Hex()}
	if to := callee(tx); to != nil {
		if toAddr, err = c.richAddress(ctx, *to); err != nil {
			return FullNativeTransactionDetails{}, err
		}
	}
	out := FullNativeTransactionDetails{NativeTransaction: c.nativeTransaction(tx, from, toAddr),
		Input: "0x" + hex.EncodeToString(tx.Input), BaseFeePerGas: "0"}
	if block != nil {
		out.BlockTimestampMilliseconds, out.BlockMinDelayExcess = block.TimeMilliseconds, block.MinDelayExcess
		if block.BaseFee != nil {
			out.BaseFeePerGas = block.BaseFee.String()
		}
	}
	if tx.MaxFeePerGas != nil {
		out.MaxFeePerGas = tx.MaxFeePerGas.String()
	}
	if tx.MaxPriorityFeePerGas != nil {
		out.MaxPriorityFeePerGas = tx.MaxPriorityFeePerGas.String()
	}
	return out, nil
}

// callee is the tx's to, or the contract a creation made; nil for a
// creation that made none.
func callee(tx *internal.EVMTx) *common.Address {
	if tx.To != nil {
		return tx.To
	}
	return tx.ContractAddress
}

// listedTx renders a listed tx, its ends with their curated metadata only
// (a list reads no contract per address).
func (c *contracts) listedTx(tx *internal.EVMTx) NativeTransaction {
	to := RichAddress{Address: common.Address{}.Hex()}
	if a := callee(tx); a != nil {
		to = c.curatedAddress(*a)
	}
	return c.nativeTransaction(tx, c.curatedAddress(tx.From), to)
}

// nativeTransaction renders tx of the chain with its ends as given.
func (c *contracts) nativeTransaction(tx *internal.EVMTx, from, to RichAddress) NativeTransaction {
	return NativeTransaction{
		BlockNumber:                strconv.FormatUint(tx.BlockNumber, 10),
		BlockTimestamp:             tx.Timestamp.Unix(),
		BlockTimestampMilliseconds: tx.BlockTimeMilliseconds,
		BlockMinDelayExcess:        tx.BlockMinDelayExcess,
		BlockHash:                  tx.BlockHash.Hex(),
		ChainID:                    strconv.FormatUint(c.chainID, 10),
		BlockIndex:                 tx.Index,
		TxHash:                     tx.Hash.Hex(),
		TxStatus:                   strconv.Itoa(int(tx.Status)),
		TxType:                     int(tx.Type),
		GasLimit:                   strconv.FormatUint(tx.GasLimit, 10),
		GasUsed:                    strconv.FormatUint(tx.GasUsed, 10),
		GasPrice:                   decimal(tx.GasPrice),
		Nonce:                      strconv.FormatUint(tx.Nonce, 10),
		From:                       from,
		To:                         to,
		Method:                     method(tx),
		Value:                      decimal(tx.Value),
	}
}

// decimal renders an amount; nil is 0.
func decimal(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

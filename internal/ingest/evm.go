package ingest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derive/evmstate"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evm"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
)

// evmFollower follows one EVM chain: accepted blocks with their receipts
// and, when the node has the tracers, their call and prestate traces;
// contracts described with eth_call as they are deployed or first seen
// emitting transfers.
type evmFollower struct {
	ix     *Indexer
	chain  internal.EVMChain
	client *node.EVMClient
	cfg    evm.Config
	key    store.CursorKey
	name   string

	// Learned from the node at the first step (probe).
	probed        bool
	perTxReceipts bool
	traced        atomic.Bool
	genesis       map[common.Address]*big.Int
	// icmBackfilled: the blocks stored before ICM events were have them
	// (backfillICM ran, or had nothing to do).
	icmBackfilled bool

	// types caches the ERC types of contracts the store holds, so that
	// blocks of token transfers do not each ask the store; only committed
	// rows enter it, so a batch that fails and is fetched again writes
	// the same contract rows.
	mu    sync.Mutex
	types map[common.Address]internal.ERCType

	// erc20Checks are the ERC-20 tokens checked against the node
	// (erc20check.go); apply alone touches it.
	erc20Checks map[common.Address]erc20Checked
}

// maxTypeCache bounds the contract types kept; past it the cache starts
// over.
const maxTypeCache = 100_000

func (ix *Indexer) newEVMFollower(c internal.EVMChain) *evmFollower {
	cfg := evm.Config{BlockchainID: c.BlockchainID, Teleporter: ix.opts.Teleporter, IsCChain: c.IsCChain}
	if c.IsCChain && ix.network != nil {
		cfg.NetworkID, cfg.AVAXAssetID = ix.network.ID, ix.network.AVAXAssetID
	}
	return &evmFollower{ix: ix, chain: c, client: node.NewEVM(c.RPCURL), cfg: cfg, key: store.EVMCursor(c.ChainID),
		name: "EVM chain " + strconv.FormatUint(c.ChainID, 10), types: map[common.Address]internal.ERCType{},
		erc20Checks: map[common.Address]erc20Checked{}}
}

// step indexes the chain up to the node's tip.
func (e *evmFollower) step(ctx context.Context) (bool, error) {
	if !e.probed {
		ready, err := e.probe(ctx)
		if err != nil || !ready {
			return true, err
		}
	}
	if !e.icmBackfilled {
		if err := e.backfillICM(ctx); err != nil {
			return true, err
		}
		e.icmBackfilled = true
	}
	return follow(ctx, e.ix, e.follower())
}

// probe learns what the node serves: that it is the chain configured,
// whether it traces blocks (without the tracers, internal txs and native
// balances are not indexed, and one log line says so) and has
// eth_getBlockReceipts, and the genesis allocation. It waits (ready
// false) until the chain has a block past the genesis to try them on.
func (e *evmFollower) probe(ctx context.Context) (ready bool, err error) {
	id, err := e.client.ChainID(ctx)
	if err != nil {
		return false, err
	}
	if id != e.chain.ChainID {
		return false, fmt.Errorf("%s: the node at %s serves EVM chain %d", e.name, e.client.URL(), id)
	}
	tip, err := e.client.BlockNumber(ctx)
	if err != nil {
		return false, err
	}
	if tip == 0 {
		return false, nil
	}
	// Try the block to index next: a node that prunes old state may trace
	// recent blocks and not the first ones.
	try := uint64(1)
	if cur, ok, err := e.ix.store.Cursor(ctx, e.key); err != nil {
		return false, err
	} else if ok {
		try = max(1, min(cur+1, tip))
	}
	if _, err := e.client.Block(ctx, try, nil, false); node.IsMethodNotFound(err) {
		e.perTxReceipts = true
	} else if err != nil {
		return false, err
	}
	r, err := e.client.Block(ctx, try, evm.TraceConfig, e.perTxReceipts)
	if err != nil {
		return false, err
	}
	traced := r.TraceErr == nil
	if !traced {
		e.ix.log.Warn("the node does not trace this EVM chain's blocks: internal transactions and native balances are not indexed (balances are the node's eth_getBalance)",
			"chain", e.name, "url", e.client.URL(), "err", r.TraceErr)
	} else if e.genesis, err = e.genesisAlloc(ctx); err != nil {
		return false, err
	}
	e.setTraced(traced)
	e.probed = true
	return true, nil
}

func (e *evmFollower) setTraced(on bool) {
	e.traced.Store(on)
	e.ix.setTracer(e.key, on)
}

// genesisAlloc returns the balances of the chain's genesis: from the
// network's genesis for the C-chain (and any chain it creates), from the
// CreateChainTx the P-chain indexed for an L1; nil when unknown (an EVM
// that is no Avalanche chain), and the chain's balances are then not
// indexed.
func (e *evmFollower) genesisAlloc(ctx context.Context) (map[common.Address]*big.Int, error) {
	if e.chain.BlockchainID == ids.Empty {
		e.ix.log.Warn("the genesis of this EVM chain is not known: its native balances are not indexed", "chain", e.name)
		return nil, nil
	}
	data, ok, err := evm.NetworkGenesisData(e.chain.BlockchainID, e.ix.opts.NetworkGenesis)
	if err != nil {
		return nil, err
	}
	if !ok {
		bc, err := e.ix.store.Blockchain(ctx, e.chain.BlockchainID)
		if errors.Is(err, derrors.NotFound) {
			// The P-chain has not indexed its creation yet.
			return nil, &idleError{wait: 5 * time.Second}
		}
		if err != nil {
			return nil, err
		}
		data = bc.Genesis
	}
	return evm.GenesisAlloc(data)
}

func (e *evmFollower) follower() follower[*evm.Block] {
	return follower[*evm.Block]{
		key:   e.key,
		name:  e.name,
		tip:   e.client.BlockNumber,
		fetch: e.fetch,
		link:  func(b *evm.Block) (ids.ID, ids.ID) { return ids.ID(b.Hash), ids.ID(b.ParentHash) },
		storedID: func(ctx context.Context, n uint64) (ids.ID, error) {
			h, err := e.ix.store.EVMBlockHash(ctx, e.chain.ChainID, n)
			return ids.ID(h), err
		},
		apply:   e.apply,
		records: evmRecords,
	}
}

// evmRecords is what an EVM block counts toward Options.BatchRecords.
func evmRecords(b *evm.Block) int { return len(b.Txs) + len(b.Logs) + len(b.InternalTxs) }

// fetch fetches block n and decodes it, with its contracts described and
// its transfers classified.
func (e *evmFollower) fetch(ctx context.Context, n uint64) (*evm.Block, error) {
	traced := e.traced.Load()
	var traceConfig any
	if traced {
		traceConfig = evm.TraceConfig
	}
	r, err := e.client.Block(ctx, n, traceConfig, e.perTxReceipts)
	if err != nil {
		return nil, err
	}
	if r.TraceErr != nil {
		if !node.IsMethodNotFound(r.TraceErr) && !node.IsStateUnavailable(r.TraceErr) {
			return nil, r.TraceErr
		}
		// The node stopped tracing (restarted without the debug API, or
		// pruned the state): balances stop being exact from here on.
		e.ix.log.Warn("the node no longer traces this EVM chain's blocks: internal transactions and native balances are not indexed from here on",
			"chain", e.name, "block", n, "err", r.TraceErr)
		e.setTraced(false)
		traced = false
	}
	in := evm.Input{Block: r.Block, Receipts: r.Receipts, Traces: r.Traces}
	if n == 0 && traced {
		in.Genesis = e.genesis
	}
	b, err := evm.Decode(&e.cfg, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", e.name, derrors.BadGateway, err)
	}
	if b.Number != n {
		return nil, fmt.Errorf("%s: asked block %d, got %d: %w", e.name, n, b.Number, derrors.BadGateway)
	}
	if len(b.Unresolved) > 0 {
		bal, err := e.client.Balances(ctx, b.Unresolved, n)
		if node.IsStateUnavailable(err) {
			b.Traced = false // the node cannot tell: balances are not exact
		} else if err != nil {
			return nil, err
		}
		b.Resolve(bal)
	}
	if err := e.describeAndClassify(ctx, b); err != nil {
		return nil, err
	}
	return b, nil
}

// describeAndClassify describes the contracts the block deployed, and
// those whose logs may be transfers that the store does not hold, then
// decodes its transfers.
func (e *evmFollower) describeAndClassify(ctx context.Context, b *evm.Block) error {
	types := map[common.Address]internal.ERCType{}
	for i := range b.Contracts {
		c := &b.Contracts[i]
		d, err := e.describe(ctx, c.Address, b.Number)
		if err != nil {
			return err
		}
		c.Type, c.Name, c.Symbol, c.Decimals = d.Type, d.Name, d.Symbol, d.Decimals
		types[c.Address] = d.Type
	}
	tokens := b.TokenAddresses()
	if len(tokens) == 0 {
		return nil
	}
	var unknown []common.Address
	e.mu.Lock()
	for _, a := range tokens {
		if _, ok := types[a]; ok {
			continue
		}
		if t, ok := e.types[a]; ok {
			types[a] = t
		} else {
			unknown = append(unknown, a)
		}
	}
	e.mu.Unlock()
	if len(unknown) > 0 {
		stored, err := e.ix.store.EVMContractTypes(ctx, e.chain.ChainID, unknown)
		if err != nil {
			return err
		}
		e.remember(stored)
		for _, a := range unknown {
			if t, ok := stored[a]; ok {
				types[a] = t
				continue
			}
			d, err := e.describe(ctx, a, b.Number)
			if err != nil {
				return err
			}
			types[a] = d.Type
			b.Seen = append(b.Seen, internal.EVMContract{Address: a, BlockNumber: b.Number, Timestamp: b.Timestamp,
				CreateType: "CREATE", Type: d.Type, Name: d.Name, Symbol: d.Symbol, Decimals: d.Decimals})
		}
	}
	b.Classify(types)
	return e.readNFTURIs(ctx, b, types)
}

// maxRefreshReads bounds the tokens of one BatchMetadataUpdate whose URIs
// are asked again; the metadata of all of them is fetched again anyway.
const maxRefreshReads = 10_000

// readNFTURIs asks the NFT contracts the URIs of the tokens the block
// minted or named in metadata events (a BatchMetadataUpdate's stored
// tokens and those the block minted), at the block, in one batch per
// contract.
func (e *evmFollower) readNFTURIs(ctx context.Context, b *evm.Block, types map[common.Address]internal.ERCType) error {
	reads := b.NFTChanges(types)
	for _, r := range b.NFTRefreshes {
		stored, err := e.ix.store.NFTTokenIDs(ctx, e.chain.ChainID, r.Token, r.From, r.To, maxRefreshReads)
		if err != nil {
			return err
		}
		for _, id := range append(stored, b.MintedIn(r.Token, r.From, r.To)...) {
			reads = append(reads, evm.NFTRead{Token: r.Token, TokenID: id, Type: types[r.Token]})
		}
	}
	byToken := map[common.Address][]evm.NFTRead{}
	var order []common.Address
	for _, r := range reads {
		if _, ok := byToken[r.Token]; !ok {
			order = append(order, r.Token)
		}
		byToken[r.Token] = append(byToken[r.Token], r)
	}
	const perBatch = 256
	for _, token := range order {
		rs := byToken[token]
		for start := 0; start < len(rs); start += perBatch {
			chunk := rs[start:min(len(rs), start+perBatch)]
			inputs := make([][]byte, len(chunk))
			for i, r := range chunk {
				inputs[i] = evm.TokenURICall(r.Type, r.TokenID)
			}
			n := b.Number
			answers, err := e.client.CallAll(ctx, token, inputs, &n)
			if node.IsStateUnavailable(err) {
				answers, err = e.client.CallAll(ctx, token, inputs, nil)
			}
			if err != nil {
				return fmt.Errorf("reading the token URIs of %s: %w", token, err)
			}
			for i, r := range chunk {
				b.NFTURIs = append(b.NFTURIs, internal.NFTURI{Token: token, TokenID: r.TokenID, Type: r.Type,
					URI: evm.TokenURI(r.Type, r.TokenID, answers[i])})
			}
		}
	}
	return nil
}

// describe asks a contract's view functions at block n, or at the latest
// block when the node no longer keeps block n's state.
func (e *evmFollower) describe(ctx context.Context, a common.Address, n uint64) (evm.Description, error) {
	answers, err := e.client.CallAll(ctx, a, evm.DescribeCalls, &n)
	if node.IsStateUnavailable(err) {
		answers, err = e.client.CallAll(ctx, a, evm.DescribeCalls, nil)
	}
	if err != nil {
		return evm.Description{}, fmt.Errorf("describing contract %s: %w", a, err)
	}
	return evm.Describe(answers), nil
}

func (e *evmFollower) remember(types map[common.Address]internal.ERCType) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.types)+len(types) > maxTypeCache {
		clear(e.types)
	}
	for a, t := range types {
		e.types[a] = t
	}
}

func (e *evmFollower) apply(ctx context.Context, blocks []*evm.Block) error {
	if err := e.ix.store.ApplyEVMBlocks(ctx, e.chain.ChainID, evm.Data(blocks), evmstate.Apply[*store.EVMTx]); err != nil {
		return err
	}
	committed := map[common.Address]internal.ERCType{}
	for _, b := range blocks {
		for _, c := range b.Seen {
			committed[c.Address] = c.Type
		}
		for _, c := range b.Contracts {
			committed[c.Address] = c.Type
		}
	}
	e.remember(committed)
	e.checkERC20(ctx, blocks)
	return nil
}

// setTracer records whether the node traces the EVM chain followed under
// key, for /readyz and the metrics.
func (ix *Indexer) setTracer(key store.CursorKey, on bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.status.Tracers[string(key)] = on
	instrument.SetEVMTracer(string(key), on)
}

// ReadTokenURI asks an NFT contract of a followed EVM chain a token's URI
// at the chain's latest block (tokenURI or uri, {id} substituted): nil
// when the contract does not answer. The metadata worker calls it for a
// reindexed token, whose contract may have changed its URI without an
// event.
func (ix *Indexer) ReadTokenURI(ctx context.Context, chainID uint64, token common.Address, id *big.Int, typ internal.ERCType) (*string, error) {
	for _, c := range ix.followedEVMChains() {
		if c.ChainID != chainID {
			continue
		}
		if ix.readsNode(c.RPCURL) {
			if err := ix.refusal(); err != nil {
				return nil, err // the node is on another network
			}
		}
		v, _ := ix.uriClients.LoadOrStore(chainID, node.NewEVM(c.RPCURL))
		answers, err := v.(*node.EVMClient).CallAll(ctx, token, [][]byte{evm.TokenURICall(typ, id)}, nil)
		if err != nil {
			return nil, fmt.Errorf("reading the URI of token %s of %s: %w", id, token, err)
		}
		return evm.TokenURI(typ, id, answers[0]), nil
	}
	return nil, fmt.Errorf("EVM chain %d is not followed", chainID)
}

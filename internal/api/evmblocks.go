package api

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/store"
)

// The "EVM Blocks" operations: a chain's latest blocks, a block by number
// or hash, and the latest blocks of every chain served (with the
// deprecated listAllLatestBlocks of "EVM Chains", the same list).

// evmBlockCursor is the keyset of a chain's blocks' page tokens: the last
// block listed.
type evmBlockCursor struct {
	N uint64 `json:"n"`
}

// getLatestBlocks serves getLatestBlocks: the chain's blocks, most recent
// first.
func (a *API) getLatestBlocks(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "getLatestBlocks", Filters: []string{strconv.FormatUint(chain.ChainID, 10)}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *evmBlockCursor, limit int) ([]internal.EVMBlock, error) {
			var before *uint64
			if after != nil {
				before = &after.N
			}
			return a.evm.EVMBlocks(ctx, chain.ChainID, before, limit)
		},
		func(b internal.EVMBlock) evmBlockCursor { return evmBlockCursor{N: b.Number} })
	if err != nil {
		return err
	}
	resp := ListEvmBlocksResponse{NextPageToken: next, Blocks: make([]EvmBlock, 0, len(items))}
	for i := range items {
		resp.Blocks = append(resp.Blocks, evmBlock(chain.ChainID, &items[i]))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// getEVMBlock serves getBlock: a block by number or hash.
func (a *API) getEVMBlock(w http.ResponseWriter, r *http.Request) error {
	chain, b, err := a.blockParam(r)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, evmBlock(chain.ChainID, b))
	return nil
}

// blockParam finds the chain and the indexed block {chainId} and
// {blockId} name; a block not indexed is a 404.
func (a *API) blockParam(r *http.Request) (evmchains.Chain, *internal.EVMBlock, error) {
	chain, err := a.evmChain(r)
	if err != nil {
		return chain, nil, err
	}
	id, err := EVMBlockIDParam(r, "blockId")
	if err != nil {
		return chain, nil, err
	}
	var b *internal.EVMBlock
	if id.IsHash {
		b, err = a.evm.EVMBlockByHash(r.Context(), chain.ChainID, id.Hash)
	} else {
		b, err = a.evm.EVMBlock(r.Context(), chain.ChainID, id.Number)
	}
	if derrors.ToStatus(err) == http.StatusNotFound {
		return chain, nil, derrors.Missing("block %s is not indexed on chain %d", r.PathValue("blockId"), chain.ChainID)
	}
	return chain, b, err
}

// timeCursor is the keyset of the lists of every chain: the last item's
// block timestamp, chain, block number and tx index.
type timeCursor struct {
	T int64  `json:"t"`
	C uint64 `json:"c"`
	N uint64 `json:"n"`
	I uint32 `json:"i,omitempty"`
}

func (c *timeCursor) key() *store.EVMTimeKey {
	if c == nil {
		return nil
	}
	return &store.EVMTimeKey{Timestamp: c.T, ChainID: c.C, Number: c.N, Index: c.I}
}

// listLatestBlocksAllChains serves listLatestBlocksAllChains and the
// deprecated listAllLatestBlocks: the blocks of every chain served (of
// network, when given), most recent first.
func (a *API) listLatestBlocksAllChains(w http.ResponseWriter, r *http.Request) error {
	chains, err := a.networkChains(r)
	if err != nil {
		return err
	}
	ids := chainIDs(chains)
	spec := listSpec{Op: "listLatestBlocksAllChains", Filters: []string{idList(ids)}}
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *timeCursor, limit int) ([]store.EVMChainBlock, error) {
			if len(ids) == 0 {
				return nil, nil
			}
			return a.evm.EVMLatestBlocks(ctx, ids, after.key(), limit)
		},
		func(b store.EVMChainBlock) timeCursor {
			return timeCursor{T: b.Timestamp.Unix(), C: b.ChainID, N: b.Number}
		})
	if err != nil {
		return err
	}
	resp := ListEvmBlocksResponse{NextPageToken: next, Blocks: make([]EvmBlock, 0, len(items))}
	for i := range items {
		resp.Blocks = append(resp.Blocks, evmBlock(items[i].ChainID, &items[i].EVMBlock))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// chainIDs are the chains' EVM chain ids, ascending.
func chainIDs(chains []evmchains.Chain) []uint64 {
	out := make([]uint64, 0, len(chains))
	for _, c := range chains {
		out = append(out, c.ChainID)
	}
	slices.Sort(out)
	return out
}

// idList is chain ids as one page-token filter.
func idList(ids []uint64) string {
	var b []byte
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, id, 10)
	}
	return string(b)
}

// evmBlock renders a block of the chain.
func evmBlock(chainID uint64, b *internal.EVMBlock) EvmBlock {
	out := EvmBlock{
		ChainID:                    strconv.FormatUint(chainID, 10),
		BlockNumber:                strconv.FormatUint(b.Number, 10),
		BlockTimestamp:             b.Timestamp.Unix(),
		BlockTimestampMilliseconds: b.TimeMilliseconds,
		BlockMinDelayExcess:        b.MinDelayExcess,
		BlockHash:                  b.Hash.Hex(),
		TxCount:                    b.TxCount,
		BaseFee:                    decimal(b.BaseFee),
		GasUsed:                    strconv.FormatUint(b.GasUsed, 10),
		GasLimit:                   strconv.FormatUint(b.GasLimit, 10),
		GasCost:                    decimal(b.BlockGasCost),
		ParentHash:                 b.ParentHash.Hex(),
		FeesSpent:                  decimal(b.FeesSpent),
		CumulativeTransactions:     "0",
	}
	if b.CumulativeTxs != nil {
		out.CumulativeTransactions = strconv.FormatUint(*b.CumulativeTxs, 10)
	}
	return out
}

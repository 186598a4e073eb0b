package api

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// blockCursor is the keyset of listBlocks' page tokens: the height of the
// last block of the previous page.
type blockCursor struct {
	Height uint64 `json:"h"`
}

// listBlocks serves listLatestPrimaryNetworkBlocks: the latest blocks
// first.
func (a *API) listBlocks(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	if err != nil {
		return err
	}
	start, end, err := timeRange(r)
	if err != nil {
		return err
	}
	q := a.blockQuery(chain)
	q.Start, q.End, q.Desc = start, end, true
	spec := listSpec{Op: "listLatestPrimaryNetworkBlocks", Filters: []string{string(chain), optString(start), optString(end)}}
	// A page of blocks is the store's content alone: kept until the store
	// changes (the latest page is an explorer's most asked).
	return a.pages.serve(w, r, a.store.Generation(), func() ([]byte, error) {
		blocks, next, err := listPage(a, r, spec,
			func(ctx context.Context, after *blockCursor, limit int) ([]*store.BlockSummary, error) {
				var h *uint64
				if after != nil {
					h = &after.Height
				}
				return a.store.BlockSummaries(ctx, q, h, limit)
			},
			func(b *store.BlockSummary) blockCursor { return blockCursor{Height: b.Height} })
		if err != nil {
			return nil, err
		}
		resp := ListPrimaryNetworkBlocksResponse{
			NextPageToken: next,
			ChainInfo:     ChainInfo{ChainName: chainNames[chain], Network: network},
		}
		for _, b := range blocks {
			resp.Blocks = append(resp.Blocks, a.wireBlock(chain, b))
		}
		// Encoded by its MarshalJSON: WriteJSON's json.Marshal would
		// validate and compact the same bytes again.
		body, err := resp.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding a page of blocks: %w", err)
		}
		return body, nil
	})
}

// getBlock serves getBlockById: {blockId} is a block id (cb58) or a height.
func (a *API) getBlock(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain, internal.CChain)
	if err != nil {
		return err
	}
	v := r.PathValue("blockId")
	var b *store.BlockSummary
	if h, ok := param.ParseInt(v); ok && h >= 0 {
		b, err = a.store.BlockSummaryByHeight(r.Context(), a.blockQuery(chain), uint64(h))
	} else {
		var id ids.ID
		if id, err = parseBlockID(chain, v); err != nil {
			return err
		}
		b, err = a.store.BlockSummaryByID(r.Context(), a.blockQuery(chain), id)
	}
	if err != nil {
		if derrors.ToStatus(err) == http.StatusNotFound {
			return derrors.Missing("block %s not found on the %s", v, chainNames[chain])
		}
		return err
	}
	WriteJSON(w, http.StatusOK, a.wireBlock(chain, b))
	return nil
}

// parseBlockID parses a block hash of chain: cb58 on the P- and X-chains,
// 0x-hex (the EVM's) on the C-chain.
func parseBlockID(chain internal.Chain, v string) (ids.ID, error) {
	if chain == internal.CChain {
		h, ok := strings.CutPrefix(v, "0x")
		b, err := hex.DecodeString(h)
		if !ok || err != nil || len(b) != len(ids.Empty) {
			return ids.Empty, derrors.Invalid("blockId must be a block number or a 0x-hex block hash, got %s", got(v))
		}
		return ids.ID(b), nil
	}
	id, err := ids.FromString(v)
	if err != nil {
		return ids.Empty, derrors.Invalid("blockId must be a block number or a cb58 block id, got %s", got(v))
	}
	return id, nil
}

// blockQuery selects chain's blocks: the C-chain's are the EVM blocks
// its follower stored under its EVM chain id (none when the registry does
// not serve it).
func (a *API) blockQuery(chain internal.Chain) store.BlockQuery {
	q := store.BlockQuery{Chain: chain}
	if chain == internal.CChain {
		if c, ok := a.chains.ByBlockchainID(a.network.CChainID); ok {
			q.EVMChainID = c.ChainID
		}
	}
	return q
}

// CChainBlockType is the blockType of C-chain blocks, which have no kind
// of their own: an EVM block, as the P- and X-chain's types name their
// VM's block.
const CChainBlockType = "EVMBlock"

// wireBlock renders a block summary of chain.
//
// A C-chain block is its EVM block (hashes 0x-hex, size the EVM's RLP
// size) with its atomic txs as transactions: the primary network's view of
// it.
func (a *API) wireBlock(chain internal.Chain, b *store.BlockSummary) PrimaryNetworkBlock {
	wb := PrimaryNetworkBlock{
		BlockNumber:    strconv.FormatUint(b.Height, 10),
		BlockType:      b.Type,
		TxCount:        len(b.TxIDs),
		BlockSizeBytes: b.Size,
	}
	if chain == internal.CChain {
		wb.BlockHash, wb.ParentHash, wb.BlockType = hex0x(b.ID[:]), hex0x(b.ParentID[:]), CChainBlockType
	} else {
		wb.BlockHash, wb.ParentHash = a.idTexts.text(b.ID), a.idTexts.text(b.ParentID)
	}
	if !b.Timestamp.IsZero() {
		wb.BlockTimestamp = b.Timestamp.Unix()
	}
	wb.Transactions = make([]string, len(b.TxIDs))
	for i, id := range b.TxIDs {
		wb.Transactions[i] = a.idTexts.text(id)
	}
	return wb
}

// proposerCursor is the keyset of listBlocksByNode's page tokens: the
// container index of the last block of the previous page.
type proposerCursor struct {
	Index uint64 `json:"i"`
}

// proposerIndexes are the container indexes that tell the proposers of
// each chain's blocks.
var proposerIndexes = map[internal.Chain]string{internal.PChain: "P/block", internal.XChain: "X/block"}

// listBlocksByNode serves listPrimaryNetworkBlocksByNodeId: the P- or
// X-chain blocks nodeId proposed, newest first, each with the proposervm
// wrapper's details, as the node's container index holds them (blocks no
// node signed have no proposer and are in no node's list).
func (a *API) listBlocksByNode(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	chain, err := a.blockchain(r, internal.PChain, internal.XChain)
	if err != nil {
		return err
	}
	v := r.PathValue("nodeId")
	nodeID, err := ids.NodeIDFromString(v)
	if err != nil {
		return derrors.Invalid("nodeId must be a NodeID-… node id, got %s", got(v))
	}
	start, end, err := timeRange(r)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "listPrimaryNetworkBlocksByNodeId",
		Filters: []string{string(chain), nodeID.String(), optString(start), optString(end)}}
	type proposed struct {
		p *store.ProposedBlock
		b *store.BlockSummary
	}
	q := a.blockQuery(chain)
	items, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *proposerCursor, limit int) ([]proposed, error) {
			pq := store.ProposedQuery{Start: start, End: end, Limit: limit}
			if after != nil {
				pq.Before = &after.Index
			}
			ps, err := a.store.ProposedBlocks(ctx, proposerIndexes[chain], nodeID, pq)
			if err != nil {
				return nil, err
			}
			out := make([]proposed, 0, len(ps))
			for _, p := range ps {
				b, err := a.store.BlockSummaryByID(ctx, q, p.BlockID)
				if derrors.ToStatus(err) == http.StatusNotFound {
					continue // mirrored, not indexed yet
				}
				if err != nil {
					return nil, err
				}
				out = append(out, proposed{p, b})
			}
			return out, nil
		},
		func(p proposed) proposerCursor { return proposerCursor{Index: p.p.Index} })
	if err != nil {
		return err
	}
	resp := ListPrimaryNetworkBlocksResponse{
		NextPageToken: next,
		ChainInfo:     ChainInfo{ChainName: chainNames[chain], Network: network},
	}
	for _, it := range items {
		wb := a.wireBlock(chain, it.b)
		wb.ProposerDetails = &ProposerDetails{
			ProposerID:           it.p.ProposerID.String(),
			ProposerParentID:     it.p.ParentID.String(),
			ProposerNodeID:       it.p.NodeID.String(),
			ProposerPChainHeight: ptr(it.p.PChainHeight),
			ProposerTimestamp:    ptr(it.p.Timestamp.Unix()),
		}
		resp.Blocks = append(resp.Blocks, wb)
	}
	body, err := resp.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding a page of blocks: %w", err)
	}
	writeRaw(w, http.StatusOK, body)
	return nil
}

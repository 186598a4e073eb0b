package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
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
	spec := listSpec{Op: "listLatestPrimaryNetworkBlocks", Filters: []string{string(chain)}}
	blocks, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *blockCursor, limit int) ([]*store.BlockSummary, error) {
			// Here rather than before listPage, so that a bad pageSize or
			// pageToken is answered first on every chain.
			if chain != internal.PChain {
				return nil, notIndexed("blocks", chain)
			}
			var h *uint64
			if after != nil {
				h = &after.Height
			}
			return a.store.PBlockSummaries(ctx, h, limit, true)
		},
		func(b *store.BlockSummary) blockCursor { return blockCursor{Height: b.Height} })
	if err != nil {
		return err
	}
	resp := ListPrimaryNetworkBlocksResponse{
		NextPageToken: next,
		ChainInfo:     ChainInfo{ChainName: chainNames[chain], Network: network},
	}
	for _, b := range blocks {
		resp.Blocks = append(resp.Blocks, wireBlock(b))
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
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
	id, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("blockId must be a cb58 block id, got %s", got(v))
	}
	if chain != internal.PChain {
		return notIndexed("blocks", chain)
	}
	b, err := a.store.PBlockSummaryByID(r.Context(), id)
	if err != nil {
		if derrors.ToStatus(err) == http.StatusNotFound {
			return derrors.Missing("block %s not found on the %s", id, chainNames[chain])
		}
		return err
	}
	WriteJSON(w, http.StatusOK, wireBlock(b))
	return nil
}

func wireBlock(b *store.BlockSummary) PrimaryNetworkBlock {
	wb := PrimaryNetworkBlock{
		BlockNumber:    strconv.FormatUint(b.Height, 10),
		BlockHash:      b.ID.String(),
		ParentHash:     b.ParentID.String(),
		BlockType:      b.Type,
		TxCount:        len(b.TxIDs),
		BlockSizeBytes: b.Size,
	}
	if !b.Timestamp.IsZero() {
		wb.BlockTimestamp = b.Timestamp.Unix()
	}
	for _, id := range b.TxIDs {
		wb.Transactions = append(wb.Transactions, id.String())
	}
	return wb
}

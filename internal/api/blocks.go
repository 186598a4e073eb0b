package api

import (
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
	pageSize, err := PageSize(r, 10, 100)
	if err != nil {
		return err
	}
	scope := Scope("listLatestPrimaryNetworkBlocks", string(chain))
	var cur blockCursor
	hasCursor, err := a.tokens.FromRequest(r, scope, &cur)
	if err != nil {
		return err
	}
	if chain != internal.PChain {
		return notIndexed("blocks", chain)
	}
	var after *uint64
	if hasCursor {
		after = &cur.Height
	}
	// One extra row tells whether another page exists.
	blocks, err := a.store.PBlockSummaries(r.Context(), after, pageSize+1, true)
	if err != nil {
		return err
	}
	resp := ListPrimaryNetworkBlocksResponse{ChainInfo: ChainInfo{ChainName: chainNames[chain], Network: network}}
	if len(blocks) > pageSize {
		blocks = blocks[:pageSize]
		tok, err := a.tokens.Encode(scope, blockCursor{Height: blocks[pageSize-1].Height})
		if err != nil {
			return err
		}
		resp.NextPageToken = tok
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

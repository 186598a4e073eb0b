package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/xchain"
)

// The Primary Network Vertices tag: the X-chain's pre-Cortina DAG, its
// vertices as the node's X/vtx index served them, decoded for display.

// vertexCursor is the keyset of the vertex lists' page tokens: the X/vtx
// index of the last vertex of the previous page.
type vertexCursor struct {
	Index uint64 `json:"i"`
}

// listVertices serves listLatestXChainVertices: the latest accepted first.
func (a *API) listVertices(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	if _, err := a.blockchain(r, internal.XChain); err != nil {
		return err
	}
	spec := listSpec{Op: "listLatestXChainVertices"}
	cs, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *vertexCursor, limit int) ([]store.Container, error) {
			var before *uint64
			if after != nil {
				before = &after.Index
			}
			return a.store.XVertices(ctx, before, limit)
		},
		func(c store.Container) vertexCursor { return vertexCursor{Index: c.Index} })
	if err != nil {
		return err
	}
	return a.writeVertices(w, network, cs, next)
}

// getVertexByHeight serves getVertexByHeight: the vertices of one DAG
// height, by acceptance.
func (a *API) getVertexByHeight(w http.ResponseWriter, r *http.Request) error {
	network, err := a.networks.Network(r)
	if err != nil {
		return err
	}
	if _, err := a.blockchain(r, internal.XChain); err != nil {
		return err
	}
	h, ok, err := param.OptionalUint(r, "vertexHeight")
	if err != nil {
		return err
	}
	if !ok {
		return derrors.Invalid("vertexHeight is required")
	}
	order, err := SortOrder(r, Desc)
	if err != nil {
		return err
	}
	spec := listSpec{Op: "getVertexByHeight", Filters: []string{fmt.Sprint(h), order}}
	cs, next, err := listPage(a, r, spec,
		func(ctx context.Context, after *vertexCursor, limit int) ([]store.Container, error) {
			var idx *uint64
			if after != nil {
				idx = &after.Index
			}
			return a.store.XVerticesAtHeight(ctx, uint64(h), idx, limit, order == Desc)
		},
		func(c store.Container) vertexCursor { return vertexCursor{Index: c.Index} })
	if err != nil {
		return err
	}
	return a.writeVertices(w, network, cs, next)
}

// getVertex serves getVertexByHash.
func (a *API) getVertex(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	if _, err := a.blockchain(r, internal.XChain); err != nil {
		return err
	}
	id, err := PathID(r, "vertexHash")
	if err != nil {
		return err
	}
	c, err := a.store.XVertexByID(r.Context(), id)
	if errors.Is(err, derrors.NotFound) {
		return derrors.Missing("vertex %s not found", id)
	}
	if err != nil {
		return err
	}
	v, err := wireVertex(*c)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, v)
	return nil
}

func (a *API) writeVertices(w http.ResponseWriter, network string, cs []store.Container, next string) error {
	resp := ListXChainVerticesResponse{NextPageToken: next, Vertices: make([]XChainVertex, 0, len(cs)),
		ChainInfo: ChainInfo{ChainName: XChainName, Network: network}}
	for _, c := range cs {
		v, err := wireVertex(c)
		if err != nil {
			return err
		}
		resp.Vertices = append(resp.Vertices, v)
	}
	WriteJSON(w, http.StatusOK, resp)
	return nil
}

// wireVertex decodes a stored X/vtx container for display: vertexIndex is
// its position in the node's X/vtx index, vertexTimestamp when the node
// accepted it, vertexSizeBytes the vertex's byte length.
func wireVertex(c store.Container) (XChainVertex, error) {
	v, err := xchain.DecodeVertex(c.Index, c.ID, c.Bytes, c.Timestamp)
	if err != nil {
		return XChainVertex{}, fmt.Errorf("stored vertex: %w", err)
	}
	out := XChainVertex{VertexHash: v.ID.String(), ParentHashes: make([]string, len(v.Parents)), VertexHeight: v.Height,
		VertexIndex: v.Index, VertexTimestamp: v.Timestamp.Unix(), TxCount: len(v.TxIDs),
		Transactions: make([]string, len(v.TxIDs)), VertexSizeBytes: len(c.Bytes)}
	for i, p := range v.Parents {
		out.ParentHashes[i] = p.String()
	}
	for i, id := range v.TxIDs {
		out.Transactions[i] = id.String()
	}
	return out, nil
}

package nodeapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/jsonrpc"
	"github.com/avaindex/avaindex/internal/store"
)

// The node's index errors, word for word (avalanchego indexer/index.go).
var (
	errNoneAccepted      = errors.New("no containers have been accepted")
	errNumToFetchInvalid = fmt.Errorf("numToFetch must be in [1,%d]", indexer.MaxFetchedByRange)
)

// ContainerSource is what the index service reads from the store.
type ContainerSource interface {
	IndexState(ctx context.Context, index string) (store.IndexState, error)
	ContainerRange(ctx context.Context, index string, first, last uint64) ([]store.Container, error)
	ContainerByID(ctx context.Context, index string, id ids.ID) (store.Container, error)
	PBlockContainerRange(ctx context.Context, first, last uint64) ([]store.Container, error)
	PBlockContainerByID(ctx context.Context, id ids.ID) (store.Container, error)
}

// NewIndexHandler returns the handler of /ext/index/<name> (name one of
// store.IndexNames). It serves the containers mirrored from the node's
// index. When the node has no such index, it answers HTTP 404 as the node
// does, except for store.PBlockIndex, which is then served from the stored
// P-chain blocks (container i is the block at height i+1).
//
// Answers that never change (a container by index or id, a full range)
// are kept in cache (nil: none) and sent again as bytes (serveKept).
func NewIndexHandler(src ContainerSource, name string, cache *ReplyCache) (http.Handler, error) {
	rpcServer, err := newServer(&Index{store: src, name: name}, "index")
	if err != nil {
		return nil, err
	}
	return &indexHandler{store: src, name: name, rpc: rpcServer, cache: cache}, nil
}

type indexHandler struct {
	store ContainerSource
	name  string
	rpc   http.Handler
	cache *ReplyCache
}

// indexCachedMethods answer what a container index never changes: the
// container at an index, by id, a container's index, and a range that
// holds as many containers as asked for (a shorter one grows).
var indexCachedMethods = []string{
	"index.getContainerByIndex", "index.getContainerByID", "index.getIndex", "index.getContainerRange",
}

type indexStateKey struct{}

// ServeHTTP reads the index's state once per request, so that every
// method answers from one consistent view of it.
func (h *indexHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st, err := h.store.IndexState(r.Context(), h.name)
	if err != nil {
		http.Error(w, "index unavailable", http.StatusServiceUnavailable)
		return
	}
	if st.Source == store.SourceNone && !st.HasLast && h.name != store.PBlockIndex {
		http.NotFound(w, r)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), indexStateKey{}, st))
	if h.cache == nil || r.Method != http.MethodPost {
		h.rpc.ServeHTTP(w, r)
		return
	}
	// Read up to one byte past the bound; the codec then reads the body
	// again, and answers one past the bound as it always does.
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > MaxRequestBytes {
		h.rpc.ServeHTTP(w, r)
		return
	}
	reqs, batch := jsonrpc.Parse(body)
	if batch || len(reqs) != 1 || !slices.Contains(indexCachedMethods, reqs[0].Method) {
		h.rpc.ServeHTTP(w, r)
		return
	}
	var params bytes.Buffer
	if json.Compact(&params, reqs[0].Params) != nil {
		h.rpc.ServeHTTP(w, r)
		return
	}
	// Where the index is served from is part of the key: a container's
	// timestamp read from p_blocks is not the mirrored one.
	key := "index\x00" + h.name + "\x00" + string(st.Source) + "\x00" + strconv.FormatBool(st.HasLast) + "\x00" +
		reqs[0].Method + "\x00" + params.String()
	var final func([]byte) bool
	if reqs[0].Method == "index.getContainerRange" {
		var args struct {
			NumToFetch avajson.Uint64 `json:"numToFetch"`
		}
		if json.Unmarshal(reqs[0].Params, &args) != nil {
			h.rpc.ServeHTTP(w, r)
			return
		}
		final = func(result []byte) bool {
			var reply struct {
				Containers []json.RawMessage `json:"containers"`
			}
			return json.Unmarshal(result, &reply) == nil && len(reply.Containers) > 0 &&
				uint64(len(reply.Containers)) == uint64(args.NumToFetch)
		}
	}
	h.cache.serveKept(w, r, key, reqs, h.rpc, final)
}

// Index implements the index.* methods of one index from the store.
type Index struct {
	store ContainerSource
	name  string
}

// view is the index as one request sees it.
type view struct {
	ix      *Index
	fromP   bool   // served from p_blocks
	last    uint64 // index of the last container, when ok
	hasLast bool
}

func (ix *Index) view(r *http.Request) view {
	st, _ := r.Context().Value(indexStateKey{}).(store.IndexState)
	v := view{ix: ix, last: st.Last, hasLast: st.HasLast}
	if !st.HasLast && st.Source == store.SourceNone && ix.name == store.PBlockIndex {
		// Container i is the P-chain block at height i+1.
		v.fromP = true
		v.last, v.hasLast = st.PHeight-1, st.HasPHeight && st.PHeight > 0
	}
	return v
}

func (v view) rangeOf(ctx context.Context, first, last uint64) ([]store.Container, error) {
	if v.fromP {
		return v.ix.store.PBlockContainerRange(ctx, first, last)
	}
	return v.ix.store.ContainerRange(ctx, v.ix.name, first, last)
}

func (v view) byID(ctx context.Context, id ids.ID) (store.Container, error) {
	if v.fromP {
		return v.ix.store.PBlockContainerByID(ctx, id)
	}
	return v.ix.store.ContainerByID(ctx, v.ix.name, id)
}

// at returns the container at index i, known to be <= v.last.
func (v view) at(ctx context.Context, i uint64) (store.Container, error) {
	cs, err := v.rangeOf(ctx, i, i)
	if err != nil {
		return store.Container{}, indexStoreError(err)
	}
	if len(cs) == 0 {
		return store.Container{}, errors.New("couldn't read from database: not found")
	}
	return cs[0], nil
}

// indexStoreError words a store failure for a client.
func indexStoreError(err error) error {
	switch {
	case errors.Is(err, derrors.NotFound):
		return database.ErrNotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return errors.New("couldn't read from database: internal error")
}

// format renders c as the node does (indexer.newFormattedContainer).
func format(c *store.Container, enc formatting.Encoding, fc *indexer.FormattedContainer) error {
	fc.Encoding = enc
	fc.ID = c.ID
	fc.Index = avajson.Uint64(c.Index)
	s, err := encodeHex(enc, c.Bytes)
	if err != nil {
		return err
	}
	fc.Bytes = s
	// The stored text is the node's RFC 3339 rendering; parsed back, it
	// renders to the same text.
	if fc.Timestamp, err = time.Parse(time.RFC3339Nano, c.Timestamp); err != nil {
		return fmt.Errorf("container %s: stored timestamp: internal error", c.ID)
	}
	return nil
}

// encodeHex is formatting.Encode without fmt: the same text for the hex
// encodings, formatting.Encode's own answer for the others.
func encodeHex(enc formatting.Encoding, b []byte) (string, error) {
	checksum := false
	switch enc {
	case formatting.Hex, formatting.HexC:
		checksum = true
	case formatting.HexNC:
	default:
		return formatting.Encode(enc, b)
	}
	n := len(b)
	if checksum {
		n += 4
	}
	out := make([]byte, 2+2*n)
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], b)
	if checksum {
		sum := sha256.Sum256(b)
		hex.Encode(out[2+2*len(b):], sum[len(sum)-4:])
	}
	return string(out), nil
}

// GetLastAccepted answers the last accepted container.
func (ix *Index) GetLastAccepted(r *http.Request, args *indexer.GetLastAcceptedArgs, reply *indexer.FormattedContainer) error {
	v := ix.view(r)
	if !v.hasLast {
		return errNoneAccepted
	}
	c, err := v.at(r.Context(), v.last)
	if err != nil {
		return err
	}
	return format(&c, args.Encoding, reply)
}

// GetContainerByIndex answers the container at args.Index.
func (ix *Index) GetContainerByIndex(r *http.Request, args *indexer.GetContainerByIndexArgs, reply *indexer.FormattedContainer) error {
	v := ix.view(r)
	i := uint64(args.Index)
	if !v.hasLast || i > v.last {
		return fmt.Errorf("no container at index %d", i)
	}
	c, err := v.at(r.Context(), i)
	if err != nil {
		return err
	}
	return format(&c, args.Encoding, reply)
}

// GetContainerRange answers the containers at startIndex, startIndex+1, ...,
// at most numToFetch of them, with the node's checks in the node's order.
//
// One deliberate difference: numToFetch 0 answers no containers
// ({"containers": null}) whatever the index holds, as the spec's rule says,
// where avalanchego v1.14.2 answers an error (see compatibility.md).
func (ix *Index) GetContainerRange(r *http.Request, args *indexer.GetContainerRangeArgs, reply *indexer.GetContainerRangeResponse) error {
	start, n := uint64(args.StartIndex), uint64(args.NumToFetch)
	if n == 0 {
		reply.Containers = nil
		return nil
	}
	if n > indexer.MaxFetchedByRange {
		return fmt.Errorf("%w but is %d", errNumToFetchInvalid, n)
	}
	v := ix.view(r)
	if !v.hasLast {
		return errNoneAccepted
	}
	if start > v.last {
		return fmt.Errorf("start index (%d) > last accepted index (%d)", start, v.last)
	}
	last := min(start+n-1, v.last)
	cs, err := v.rangeOf(r.Context(), start, last)
	if err != nil {
		return indexStoreError(err)
	}
	if uint64(len(cs)) != last-start+1 {
		return fmt.Errorf("couldn't get container at index %d: couldn't read from database: not found", start+uint64(len(cs)))
	}
	reply.Containers = make([]indexer.FormattedContainer, len(cs))
	for i := range cs {
		if err := format(&cs[i], args.Encoding, &reply.Containers[i]); err != nil {
			return err
		}
	}
	return nil
}

// GetIndex answers the index of the container with the given id.
func (ix *Index) GetIndex(r *http.Request, args *indexer.GetIndexArgs, reply *indexer.GetIndexResponse) error {
	c, err := ix.view(r).byID(r.Context(), args.ID)
	if err != nil {
		return indexStoreError(err)
	}
	reply.Index = avajson.Uint64(c.Index)
	return nil
}

// IsAccepted answers whether the container with the given id is in the
// index; an unknown id is not an error.
func (ix *Index) IsAccepted(r *http.Request, args *indexer.IsAcceptedArgs, reply *indexer.IsAcceptedResponse) error {
	_, err := ix.view(r).byID(r.Context(), args.ID)
	switch {
	case err == nil:
		reply.IsAccepted = true
		return nil
	case errors.Is(err, derrors.NotFound):
		reply.IsAccepted = false
		return nil
	}
	return indexStoreError(err)
}

// GetContainerByID answers the container with the given id.
func (ix *Index) GetContainerByID(r *http.Request, args *indexer.GetContainerByIDArgs, reply *indexer.FormattedContainer) error {
	c, err := ix.view(r).byID(r.Context(), args.ID)
	if err != nil {
		return indexStoreError(err)
	}
	return format(&c, args.Encoding, reply)
}

package node

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"

	"github.com/avaindex/avaindex/internal/derrors"
)

// HTTPError is a reply of the node with an HTTP status other than 200.
type HTTPError struct{ StatusCode int }

func (e *HTTPError) Error() string { return fmt.Sprintf("HTTP %d from node", e.StatusCode) }

// ErrNoIndex is returned by the index calls when the node does not serve
// the index (it answers HTTP 404: it runs without --index-enabled, or the
// chain has no such index).
var ErrNoIndex = errors.New("the node does not serve this index")

// MaxContainersPerCall is the most containers index.getContainerRange
// returns at once.
const MaxContainersPerCall = indexer.MaxFetchedByRange

// IndexedContainer is one container of a node index. Timestamp is the
// node's text, unchanged.
type IndexedContainer struct {
	Index     uint64
	ID        ids.ID
	Bytes     []byte
	Timestamp string
}

// wireContainer is indexer.FormattedContainer with the timestamp kept as
// the node wrote it.
type wireContainer struct {
	ID        ids.ID              `json:"id"`
	Bytes     string              `json:"bytes"`
	Timestamp string              `json:"timestamp"`
	Encoding  formatting.Encoding `json:"encoding"`
	Index     avajson.Uint64      `json:"index"`
}

func (w *wireContainer) decode() (IndexedContainer, error) {
	b, err := formatting.Decode(w.Encoding, w.Bytes)
	if err != nil {
		return IndexedContainer{}, fmt.Errorf("container %d (%s): %w: %w", w.Index, w.ID, derrors.BadGateway, err)
	}
	if w.Timestamp == "" {
		return IndexedContainer{}, fmt.Errorf("container %d (%s) has no timestamp: %w", w.Index, w.ID, derrors.BadGateway)
	}
	return IndexedContainer{Index: uint64(w.Index), ID: w.ID, Bytes: b, Timestamp: w.Timestamp}, nil
}

func indexEndpoint(name string) string { return "/ext/index/" + name }

func indexErr(err error) error {
	var he *HTTPError
	if errors.As(err, &he) && he.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%w: %w", ErrNoIndex, err)
	}
	return err
}

// isNoneAccepted reports whether err is the node's answer for an index
// with no container.
func isNoneAccepted(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Message == "no containers have been accepted"
}

// isPastEnd reports whether err is the node's answer for a range that
// starts after the index's last container.
func isPastEnd(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && strings.HasPrefix(re.Message, "start index (")
}

// isIndexAnswer reports whether err, from the index method, is one of the
// node's normal answers that the index calls take as "nothing there": an
// index with no container yet (every index of a new network), a range past
// the end, or an index the node does not serve. It is not an upstream
// failure, and is not counted as one.
func isIndexAnswer(method string, err error) bool {
	if err == nil || !strings.HasPrefix(method, "index.") {
		return false
	}
	var he *HTTPError
	return isNoneAccepted(err) || isPastEnd(err) || errors.As(err, &he) && he.StatusCode == http.StatusNotFound
}

// IndexLast returns the index of the last container of the node's index
// name (e.g. "P/block"); ok is false when the index is empty. A node
// without that index gives ErrNoIndex.
func (c *Client) IndexLast(ctx context.Context, name string) (last uint64, ok bool, err error) {
	var reply wireContainer
	err = c.call(ctx, indexEndpoint(name), "index.getLastAccepted", indexer.GetLastAcceptedArgs{Encoding: formatting.Hex}, &reply)
	switch {
	case isNoneAccepted(err):
		return 0, false, nil
	case err != nil:
		return 0, false, indexErr(err)
	}
	return uint64(reply.Index), true, nil
}

// IndexRange returns up to n (at most MaxContainersPerCall) containers of
// the node's index name from start on; none when start is past the last.
func (c *Client) IndexRange(ctx context.Context, name string, start uint64, n int) ([]IndexedContainer, error) {
	var reply struct {
		Containers []wireContainer `json:"containers"`
	}
	args := indexer.GetContainerRangeArgs{StartIndex: avajson.Uint64(start), NumToFetch: avajson.Uint64(n), Encoding: formatting.Hex}
	err := c.call(ctx, indexEndpoint(name), "index.getContainerRange", args, &reply)
	if err != nil {
		if isNoneAccepted(err) || isPastEnd(err) {
			return nil, nil
		}
		return nil, indexErr(err)
	}
	out := make([]IndexedContainer, len(reply.Containers))
	for i := range reply.Containers {
		w := &reply.Containers[i]
		if uint64(w.Index) != start+uint64(i) {
			return nil, fmt.Errorf("index.getContainerRange(%s, %d): container %d has index %d: %w", name, start, i, w.Index, derrors.BadGateway)
		}
		if out[i], err = w.decode(); err != nil {
			return nil, fmt.Errorf("index.getContainerRange(%s, %d): %w", name, start, err)
		}
	}
	return out, nil
}

// Package jsonrpc reads a JSON-RPC request's envelope once per request.
// The server's instrumentation reads the body to label and record the
// call by its method; it parses it with Parse and hands the result down
// in the request's context (WithBody), where the node API's handlers,
// which route and cache by the same envelope, find it (BodyOf) instead of
// reading and parsing the body again.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
)

// Request is what is read of a JSON-RPC request: its envelope, the params
// left raw for the method's codec.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Parse reads body as one request or a batch of them. A body that is
// neither yields no request (batch tells which was tried), and an element
// of a batch that is no request object a zero Request: the codec behind
// answers those as the node does.
func Parse(body []byte) (reqs []Request, batch bool) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var many []json.RawMessage
		if json.Unmarshal(trimmed, &many) != nil {
			return nil, true
		}
		reqs = make([]Request, len(many))
		for i, m := range many {
			_ = json.Unmarshal(m, &reqs[i]) // an element that is no object keeps no id
		}
		return reqs, true
	}
	var one Request
	if json.Unmarshal(trimmed, &one) != nil {
		return nil, false
	}
	return []Request{one}, false
}

// Body is a request's whole body, as sent, and what Parse read of it.
type Body struct {
	Raw   []byte
	Reqs  []Request
	Batch bool
}

type bodyKey struct{}

// WithBody returns ctx carrying b, which must be the whole body of the
// request ctx is the context of.
func WithBody(ctx context.Context, b *Body) context.Context {
	return context.WithValue(ctx, bodyKey{}, b)
}

// BodyOf returns the body WithBody put in ctx; nil when none was.
func BodyOf(ctx context.Context) *Body {
	b, _ := ctx.Value(bodyKey{}).(*Body)
	return b
}

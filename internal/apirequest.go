package internal

import "time"

// APIRequest is one request served by the Data API or the node API, as
// usage recording keeps it (internal/usage): who asked, what, and how it
// went. It holds no key, query string or body, only the key's ID and name.
type APIRequest struct {
	// ID is unique among the requests recorded; the recorder sets it.
	ID   string
	Time time.Time
	// KeyID and KeyName are the API key's (apikeys.Key); both "" for a
	// call without a key.
	KeyID, KeyName string
	// Type is RequestTypeData or RequestTypeRPC.
	Type string
	// Route is the route pattern served (e.g. "GET /v1/networks/{network}"),
	// never the raw path, so that its values stay bounded.
	Route  string
	Method string
	Status int
	// Duration is how long the handler took.
	Duration time.Duration
	// ChainID is the blockchain of the request, when its path names one:
	// {blockchainId} or {chainId} of a Data API route, the chain of an /ext
	// path.
	ChainID string
	// RPCMethod is a node API request's JSON-RPC method, "" when unknown.
	RPCMethod string
}

// The request types of the usage operations' requestType.
const (
	RequestTypeData = "data"
	RequestTypeRPC  = "rpc"
)

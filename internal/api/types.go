package api

import "encoding/json"

// Wire types shared by Data API endpoints. JSON names and types follow the
// reference OpenAPI document. A field the schema requires has no omitempty;
// an optional field is omitted when absent, never sent as null: optional
// strings use omitempty (absent == ""), optional numbers whose zero is a
// meaningful value are pointers with omitempty. Required arrays are sent as
// [] when empty, never null.

// ErrorBody is the body of every Data API error response (schemas
// BadRequest, Unauthorized, ..., ServiceUnavailable).
type ErrorBody struct {
	Message    string `json:"message"`
	StatusCode int    `json:"statusCode"`
	// Error is the reason phrase of StatusCode, e.g. "Bad Request".
	Error string `json:"error"`
}

// Primary-network chain names (schema PrimaryNetworkChainName).
const (
	PChainName = "p-chain"
	XChainName = "x-chain"
	CChainName = "c-chain"
)

// ChainInfo names the primary-network chain and network a list answers for
// (schema PrimaryNetworkChainInfo).
type ChainInfo struct {
	// ChainName is PChainName, XChainName or CChainName.
	ChainName string `json:"chainName"`
	// Network is what Networks.Parse reports for the requested network.
	Network string `json:"network"`
}

// ProposerDetails describes the proposervm wrapper of a primary-network
// block (schema ProposerDetails); every field is optional.
type ProposerDetails struct {
	ProposerID           string  `json:"proposerId,omitempty"`
	ProposerParentID     string  `json:"proposerParentId,omitempty"`
	ProposerNodeID       string  `json:"proposerNodeId,omitempty"`
	ProposerPChainHeight *uint64 `json:"proposerPChainHeight,omitempty"`
	ProposerTimestamp    *int64  `json:"proposerTimestamp,omitempty"`
}

// PrimaryNetworkBlock is one P- or X-chain block (schema
// PrimaryNetworkBlock).
type PrimaryNetworkBlock struct {
	// BlockNumber is the height as a decimal string.
	BlockNumber string `json:"blockNumber"`
	BlockHash   string `json:"blockHash"`
	ParentHash  string `json:"parentHash"`
	// BlockTimestamp is Unix seconds.
	BlockTimestamp int64  `json:"blockTimestamp"`
	BlockType      string `json:"blockType"`
	TxCount        int    `json:"txCount"`
	// Transactions are the ids of the block's transactions, in block order.
	Transactions   []string `json:"transactions"`
	BlockSizeBytes int      `json:"blockSizeBytes"`
	// L1ValidatorsAccruedFees, in nAVAX, and ActiveL1Validators are optional
	// (P-chain blocks after Etna).
	L1ValidatorsAccruedFees *uint64 `json:"l1ValidatorsAccruedFees,omitempty"`
	ActiveL1Validators      *uint64 `json:"activeL1Validators,omitempty"`
	// CurrentSupply is the P-chain's current supply in nAVAX, a decimal
	// string; optional.
	CurrentSupply   string           `json:"currentSupply,omitempty"`
	ProposerDetails *ProposerDetails `json:"proposerDetails,omitempty"`
}

// MarshalJSON sends a nil Transactions as [].
func (b PrimaryNetworkBlock) MarshalJSON() ([]byte, error) {
	type plain PrimaryNetworkBlock
	if b.Transactions == nil {
		b.Transactions = []string{}
	}
	return json.Marshal(plain(b))
}

// ListPrimaryNetworkBlocksResponse is a page of primary-network blocks
// (schema ListPrimaryNetworkBlocksResponse).
type ListPrimaryNetworkBlocksResponse struct {
	// NextPageToken is present only when more blocks exist.
	NextPageToken string                `json:"nextPageToken,omitempty"`
	Blocks        []PrimaryNetworkBlock `json:"blocks"`
	ChainInfo     ChainInfo             `json:"chainInfo"`
}

// MarshalJSON sends a nil Blocks as [].
func (r ListPrimaryNetworkBlocksResponse) MarshalJSON() ([]byte, error) {
	type plain ListPrimaryNetworkBlocksResponse
	if r.Blocks == nil {
		r.Blocks = []PrimaryNetworkBlock{}
	}
	return json.Marshal(plain(r))
}

package api

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// listBlocks is the operation whose documented responses the shared bodies
// are checked against.
const listBlocks = "listLatestPrimaryNetworkBlocks"

func listBlocksPath(t *testing.T, doc *openapitest.Doc) (string, string) {
	t.Helper()
	method, path, ok := doc.OperationPath(listBlocks)
	if !ok {
		t.Fatalf("the reference document has no operation %s", listBlocks)
	}
	return method, path
}

func TestErrorBodiesMatchDocument(t *testing.T) {
	captureLog(t)
	doc := openapitest.Default(t)
	method, path := listBlocksPath(t, doc)
	for _, tc := range kindErrors {
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest("GET", "/v1/networks/fuji/blockchains/p-chain/blocks", nil), tc.err)
		if rec.Code != tc.status {
			t.Errorf("%v: status %d, want %d", tc.err, rec.Code, tc.status)
		}
		doc.ValidateRecorder(t, method, path, rec)
	}
	// Every operation documents the eight codes; spot-check a POST and the
	// reindex operation, whose success has no body.
	rec := httptest.NewRecorder()
	WriteError(rec, nil, kindErrors[0].err)
	doc.ValidateRecorder(t, "POST", "/v1/networks/{network}/blockchains/{blockchainId}/utxos", rec)
	doc.ValidateRecorder(t, "POST", "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex", rec)

	rec = httptest.NewRecorder()
	NotFoundHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/networks/fuji/blockchains/p-chain/blocks/nope", nil))
	doc.ValidateRecorder(t, method, path, rec)
}

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }

func TestListPrimaryNetworkBlocksResponseMatchesDocument(t *testing.T) {
	doc := openapitest.Default(t)
	method, path := listBlocksPath(t, doc)
	full := ListPrimaryNetworkBlocksResponse{
		NextPageToken: "tok",
		Blocks: []PrimaryNetworkBlock{{
			BlockNumber:             "12",
			BlockHash:               "2Q7p1ZSjv6rUyK5MFz5s5sLPXAyEsrSYeGH8QHmpTfmPrTqvAH",
			ParentHash:              "2dFa9oS1NBfcKvPYgWyNZWHBYQydHXr7EhPPexUmBSrHg3dLh",
			BlockTimestamp:          1700000000,
			BlockType:               "BanffStandardBlock",
			TxCount:                 1,
			Transactions:            []string{"2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"},
			BlockSizeBytes:          321,
			L1ValidatorsAccruedFees: u64(0),
			ActiveL1Validators:      u64(0),
			CurrentSupply:           "720000000000000000",
			ProposerDetails: &ProposerDetails{
				ProposerID:           "x",
				ProposerParentID:     "y",
				ProposerNodeID:       "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg",
				ProposerPChainHeight: u64(11),
				ProposerTimestamp:    i64(1700000000),
			},
		}},
		ChainInfo: ChainInfo{ChainName: PChainName, Network: Fuji},
	}
	// A minimal page: nil slices and absent optional fields.
	minimal := ListPrimaryNetworkBlocksResponse{
		Blocks:    []PrimaryNetworkBlock{{BlockNumber: "0", BlockType: "ApricotProposalBlock"}},
		ChainInfo: ChainInfo{ChainName: XChainName, Network: Testnet},
	}
	empty := ListPrimaryNetworkBlocksResponse{ChainInfo: ChainInfo{ChainName: CChainName, Network: Mainnet}}

	for name, v := range map[string]ListPrimaryNetworkBlocksResponse{"full": full, "minimal": minimal, "empty": empty} {
		rec := httptest.NewRecorder()
		WriteJSON(rec, 200, v)
		body := rec.Body.Bytes()
		if strings.Contains(string(body), "null") {
			t.Errorf("%s: body contains null: %s", name, body)
		}
		doc.ValidateSchema(t, "ListPrimaryNetworkBlocksResponse", body)
		doc.ValidateRecorder(t, method, path, rec)
		doc.ValidateResponse(t, "GET", "/v1/networks/fuji/blockchains/p-chain/blocks", 200, body)
	}

	// The optional fields are omitted when absent, and zero values of the
	// pointer fields are kept.
	b, _ := json.Marshal(minimal)
	for _, absent := range []string{"nextPageToken", "l1ValidatorsAccruedFees", "activeL1Validators", "currentSupply", "proposerDetails"} {
		if strings.Contains(string(b), absent) {
			t.Errorf("minimal body has %s: %s", absent, b)
		}
	}
	b, _ = json.Marshal(full)
	if !strings.Contains(string(b), `"activeL1Validators":0`) {
		t.Errorf("zero activeL1Validators dropped: %s", b)
	}

	// A body a strict client would reject fails here too: a network outside
	// the schema's enum.
	bad := minimal
	bad.ChainInfo.Network = "local"
	b, _ = json.Marshal(bad)
	if err := doc.CheckSchema("ListPrimaryNetworkBlocksResponse", b); err == nil {
		t.Error(`chainInfo.network "local" passed validation`)
	}
}

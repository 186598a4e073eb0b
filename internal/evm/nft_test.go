package evm

import (
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
)

func TestTokenURI(t *testing.T) {
	id := big.NewInt(0x2a)
	if got := TokenURI(internal.ERC721, id, nil); got != nil {
		t.Errorf("no answer: %q, want nil", *got)
	}
	if got := TokenURI(internal.ERC721, id, abiString("ipfs://Qm/{id}.json")); got == nil || *got != "ipfs://Qm/{id}.json" {
		t.Errorf("ERC-721: %v", got)
	}
	want := "https://x/000000000000000000000000000000000000000000000000000000000000002a.json"
	if got := TokenURI(internal.ERC1155, id, abiString("https://x/{id}.json")); got == nil || *got != want {
		t.Errorf("ERC-1155: %v, want %s", got, want)
	}
	if got := TokenURI(internal.ERC721, id, hwWord(1)); got == nil || *got != "" {
		t.Errorf("not a string: %v", got)
	}
	if got := TokenURI(internal.ERC721, id, abiString("a\x00b")); got == nil || *got != "ab" {
		t.Errorf("NUL: %v", got)
	}
	if got := string(TokenURICall(internal.ERC721, id)[:4]); got != "\xc8\x7b\x56\xdd" {
		t.Errorf("tokenURI selector %x", got)
	}
	if got := string(TokenURICall(internal.ERC1155, id)[:4]); got != "\x0e\x89\x34\x1c" {
		t.Errorf("uri selector %x", got)
	}
}

func TestNFTChanges(t *testing.T) {
	nft, multi, other := common.Address{1}, common.Address{2}, common.Address{3}
	types := map[common.Address]internal.ERCType{nft: internal.ERC721, multi: internal.ERC1155, other: internal.ERC20}
	b := &Block{}
	b.Txs = []internal.EVMTx{{}}
	b.Logs = []Log{
		{Address: nft, Topics: []common.Hash{TopicMetadataUpdate}, Data: hwWord(7)},
		{Address: nft, Topics: []common.Hash{TopicBatchMetadataUpdate}, Data: append(hwWord(1), hwWord(5)...)},
		{Address: nft, Topics: []common.Hash{TopicBatchMetadataUpdate}, Data: append(hwWord(5), hwWord(1)...)}, // empty range
		{Address: multi, Topics: []common.Hash{TopicURI, common.BigToHash(big.NewInt(3))}, Data: abiString("u/{id}")},
		{Address: other, Topics: []common.Hash{TopicMetadataUpdate}, Data: hwWord(8)}, // not an NFT
		{Address: nft, Topics: []common.Hash{TopicMetadataUpdate}, Data: hwWord(7)},   // the same token again
	}
	for i := range b.Logs {
		if isNFTEvent(&b.Logs[i]) {
			b.nftEvents = append(b.nftEvents, i)
		}
	}
	b.Transfers = []internal.EVMTransfer{
		{Token: nft, Type: internal.ERC721, TokenID: big.NewInt(2)},                          // a mint
		{Token: nft, Type: internal.ERC721, TokenID: big.NewInt(9), From: common.Address{9}}, // not a mint
		{Token: multi, Type: internal.ERC1155, TokenID: big.NewInt(4)},
	}
	reads := b.NFTChanges(types)
	if len(reads) != 3 || reads[0].TokenID.Int64() != 2 || reads[1].Token != multi || reads[2].TokenID.Int64() != 7 ||
		reads[2].Type != internal.ERC721 {
		t.Errorf("reads = %+v", reads)
	}
	if len(b.NFTRefreshes) != 1 || b.NFTRefreshes[0].From.Int64() != 1 || b.NFTRefreshes[0].To.Int64() != 5 {
		t.Errorf("refreshes = %+v", b.NFTRefreshes)
	}
	want := "u/0000000000000000000000000000000000000000000000000000000000000003"
	if len(b.NFTURIs) != 1 || b.NFTURIs[0].URI == nil || *b.NFTURIs[0].URI != want || b.NFTURIs[0].TokenID.Int64() != 3 {
		t.Errorf("URIs = %+v", b.NFTURIs)
	}
	if got := b.MintedIn(nft, big.NewInt(0), big.NewInt(5)); len(got) != 1 || got[0].Int64() != 2 {
		t.Errorf("MintedIn = %v", got)
	}
}

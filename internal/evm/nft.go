package evm

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
)

// The NFT metadata events: ERC-4906's MetadataUpdate and
// BatchMetadataUpdate (the token ids in the data) and ERC-1155's URI (the
// new URI in the data, the token id indexed).
var (
	TopicMetadataUpdate      = crypto.Keccak256Hash([]byte("MetadataUpdate(uint256)"))
	TopicBatchMetadataUpdate = crypto.Keccak256Hash([]byte("BatchMetadataUpdate(uint256,uint256)"))
	TopicURI                 = crypto.Keccak256Hash([]byte("URI(string,uint256)"))
)

// NFTRead is a token whose URI the follower asks its contract.
type NFTRead struct {
	Token   common.Address
	TokenID *big.Int
	Type    internal.ERCType
}

// MaxURILength bounds the URIs kept: a data: URI may hold the whole
// document, but not more than this.
const MaxURILength = 1 << 20

// TokenURICall is the eth_call input that asks an NFT contract a token's
// URI: tokenURI(uint256) for ERC-721, uri(uint256) for ERC-1155.
func TokenURICall(typ internal.ERCType, id *big.Int) []byte {
	sig := "tokenURI(uint256)"
	if typ == internal.ERC1155 {
		sig = "uri(uint256)"
	}
	return append(selector(sig), common.BigToHash(id).Bytes()...)
}

// TokenURI decodes the answer to TokenURICall (nil when the call
// reverted): nil when there is no answer, the ABI string otherwise ("" for
// an answer that is no string), its ERC-1155 {id} substituted.
func TokenURI(typ internal.ERCType, id *big.Int, answer []byte) *string {
	if answer == nil {
		return nil
	}
	s, _ := decodeABIString(answer, 0)
	if typ == internal.ERC1155 {
		s = SubstituteID(s, id)
	}
	return &s
}

// SubstituteID replaces ERC-1155's {id} with the token id as 64 lower-case
// hex digits.
func SubstituteID(uri string, id *big.Int) string {
	if !strings.Contains(uri, "{id}") {
		return uri
	}
	return strings.ReplaceAll(uri, "{id}", fmt.Sprintf("%064x", id))
}

// abiString decodes the ABI string argument at head word arg of data;
// false when it is none, or not valid UTF-8, or longer than MaxURILength.
// NUL characters (which PostgreSQL's text refuses) are removed.
func decodeABIString(data []byte, arg int) (string, bool) {
	head := 32 * arg
	if len(data) < head+32 {
		return "", false
	}
	off, ok := u64Word(data[head : head+32])
	if !ok || off > uint64(len(data))-32 {
		return "", false
	}
	n, ok := u64Word(data[off : off+32])
	if !ok || n > uint64(len(data))-off-32 || n > MaxURILength {
		return "", false
	}
	s := data[off+32 : off+32+n]
	if !utf8.Valid(s) {
		return "", false
	}
	return string(bytes.ReplaceAll(s, []byte{0}, nil)), true
}

// isNFTEvent reports whether a log may be an NFT metadata event.
func isNFTEvent(l *Log) bool {
	if len(l.Topics) == 0 {
		return false
	}
	switch l.Topics[0] {
	case TopicMetadataUpdate, TopicBatchMetadataUpdate, TopicURI:
		return true
	}
	return false
}

// NFTChanges returns, once the block is classified (with the same types),
// the tokens whose URI the follower must ask their contracts (each minted
// token, and each token a MetadataUpdate names), and records in the block
// the URIs its ERC-1155 URI events set and the ranges its
// BatchMetadataUpdate events name (whose stored tokens the follower asks
// too). Only contracts of types ERC-721 and ERC-1155 count.
func (b *Block) NFTChanges(types map[common.Address]internal.ERCType) []NFTRead {
	b.NFTURIs, b.NFTRefreshes = b.NFTURIs[:0], b.NFTRefreshes[:0]
	var reads []NFTRead
	seen := map[string]bool{}
	add := func(token common.Address, id *big.Int, typ internal.ERCType) {
		k := string(token[:]) + string(id.Bytes())
		if !seen[k] {
			seen[k] = true
			reads = append(reads, NFTRead{Token: token, TokenID: id, Type: typ})
		}
	}
	for _, t := range b.Transfers {
		if (t.Type == internal.ERC721 || t.Type == internal.ERC1155) && t.From == (common.Address{}) {
			add(t.Token, t.TokenID, t.Type)
		}
	}
	for _, i := range b.nftEvents {
		l := &b.Logs[i]
		typ := types[l.Address]
		if typ != internal.ERC721 && typ != internal.ERC1155 {
			continue
		}
		switch l.Topics[0] {
		case TopicMetadataUpdate:
			if len(l.Data) == 32 {
				add(l.Address, new(big.Int).SetBytes(l.Data), typ)
			}
		case TopicBatchMetadataUpdate:
			if len(l.Data) == 64 {
				from, to := new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])
				if from.Cmp(to) <= 0 {
					b.NFTRefreshes = append(b.NFTRefreshes, internal.NFTRefresh{Token: l.Address, From: from, To: to})
				}
			}
		case TopicURI:
			if len(l.Topics) != 2 || typ != internal.ERC1155 {
				continue
			}
			id := new(big.Int).SetBytes(l.Topics[1][:])
			s, ok := decodeABIString(l.Data, 0)
			if !ok {
				s = ""
			}
			s = SubstituteID(s, id)
			b.NFTURIs = append(b.NFTURIs, internal.NFTURI{Token: l.Address, TokenID: id, Type: typ, URI: &s})
		}
	}
	return reads
}

// MintedIn returns the ids of token minted by the block's transfers within
// [from, to], ascending.
func (b *Block) MintedIn(token common.Address, from, to *big.Int) []*big.Int {
	var out []*big.Int
	for _, t := range b.Transfers {
		if t.Token == token && t.TokenID != nil && t.From == (common.Address{}) && t.TokenID.Cmp(from) >= 0 && t.TokenID.Cmp(to) <= 0 {
			out = append(out, t.TokenID)
		}
	}
	slices.SortFunc(out, func(x, y *big.Int) int { return x.Cmp(y) })
	return slices.CompactFunc(out, func(x, y *big.Int) bool { return x.Cmp(y) == 0 })
}

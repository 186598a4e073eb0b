package evm

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal"
)

// The token events: ERC-20 and ERC-721 share Transfer's signature (told
// apart by which arguments are indexed, and for non-standard layouts by
// the contract's ERC-165 answer); ERC-1155 has its own two.
var (
	TopicTransfer       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	TopicTransferSingle = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	TopicTransferBatch  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
)

// ERC-165 interface ids.
var (
	iface165     = [4]byte{0x01, 0xff, 0xc9, 0xa7}
	ifaceInvalid = [4]byte{0xff, 0xff, 0xff, 0xff}
	iface721     = [4]byte{0x80, 0xac, 0x58, 0xcd}
	iface1155    = [4]byte{0xd9, 0xb6, 0x7a, 0x26}
)

func selector(sig string) []byte { return crypto.Keccak256([]byte(sig))[:4] }

func supportsInterface(id [4]byte) []byte {
	in := make([]byte, 4+32)
	copy(in, selector("supportsInterface(bytes4)"))
	copy(in[4:], id[:])
	return in
}

// DescribeCalls are the eth_call inputs whose answers Describe reads, in
// its order: ERC-165's supportsInterface for itself, for 0xffffffff (which
// must be false), for ERC-721 and ERC-1155; name(), symbol(), decimals()
// and totalSupply().
var DescribeCalls = [][]byte{
	supportsInterface(iface165),
	supportsInterface(ifaceInvalid),
	supportsInterface(iface721),
	supportsInterface(iface1155),
	selector("name()"),
	selector("symbol()"),
	selector("decimals()"),
	selector("totalSupply()"),
}

// Description is what a contract's view functions tell of it.
type Description struct {
	Type     internal.ERCType
	Name     string
	Symbol   string
	Decimals *uint8
}

// Describe reads the answers to DescribeCalls (nil for a call that failed
// or reverted). A contract is ERC-721 or ERC-1155 when it says so through
// ERC-165, ERC-20 when it answers decimals() and totalSupply(), and
// otherwise UNKNOWN. Names and symbols may be ABI strings or, as some
// early tokens return them, bytes32.
func Describe(answers [][]byte) Description {
	at := func(i int) []byte {
		if i < len(answers) {
			return answers[i]
		}
		return nil
	}
	d := Description{Type: internal.ERCUnknown, Name: abiText(at(4)), Symbol: abiText(at(5))}
	if v, ok := word(at(6)); ok && v.IsUint64() && v.Uint64() <= 255 {
		dec := uint8(v.Uint64())
		d.Decimals = &dec
	}
	erc165 := abiBool(at(0)) && !abiBool(at(1)) && len(at(1)) >= 32
	switch {
	case erc165 && abiBool(at(3)):
		d.Type = internal.ERC1155
	case erc165 && abiBool(at(2)):
		d.Type = internal.ERC721
	case d.Decimals != nil && len(at(7)) >= 32:
		d.Type = internal.ERC20
	}
	if d.Type != internal.ERC20 {
		d.Decimals = nil
	}
	return d
}

// word is the first 32-byte word of an answer.
func word(b []byte) (*big.Int, bool) {
	if len(b) < 32 {
		return nil, false
	}
	return new(big.Int).SetBytes(b[:32]), true
}

func abiBool(b []byte) bool {
	v, ok := word(b)
	return ok && v.IsUint64() && v.Uint64() == 1
}

// abiText decodes a string answer: an ABI string, or a bytes32 padded
// with zeros. What is not valid text is dropped, and NUL characters (which
// PostgreSQL's text refuses) are removed.
func abiText(b []byte) string {
	if len(b) < 32 {
		return ""
	}
	var s []byte
	if off, ok := word(b); ok && len(b) >= 64 && off.IsUint64() && off.Uint64() == 32 {
		if n, ok := word(b[32:]); ok && n.IsUint64() && n.Uint64() <= uint64(len(b)-64) {
			s = b[64 : 64+n.Uint64()]
		}
	}
	if s == nil && len(b) == 32 {
		s = bytes.TrimRight(b, "\x00")
	}
	if !utf8.Valid(s) {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(s), "\x00", ""))
}

// TokenAddresses returns the distinct addresses of the block's logs that
// may be token transfers or NFT metadata events, sorted: the contracts Classify needs the types
// of, and whose rows the store needs.
func (b *Block) TokenAddresses() []common.Address {
	var out []common.Address
	for _, i := range b.candidates {
		out = append(out, b.Logs[i].Address)
	}
	for _, i := range b.nftEvents {
		out = append(out, b.Logs[i].Address)
	}
	slices.SortFunc(out, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	return slices.Compact(out)
}

// Classify decodes the block's token transfers, with types giving the
// type of each token contract known (described or stored). A Transfer
// log with four topics is ERC-721; with three topics and one data word, or
// one topic and three data words, it is ERC-20 unless its contract is
// ERC-721 (whose token id is then the last word). Logs of other shapes are
// not transfers.
func (b *Block) Classify(types map[common.Address]internal.ERCType) {
	b.Transfers = b.Transfers[:0]
	for _, i := range b.candidates {
		l := &b.Logs[i]
		t := internal.EVMTransfer{BlockNumber: b.Number, BlockHash: b.Hash, Timestamp: b.Timestamp,
			TxHash: b.Txs[l.TxIndex].Hash, LogIndex: l.Index, Token: l.Address}
		switch l.Topics[0] {
		case TopicTransfer:
			nft := types[l.Address] == internal.ERC721
			var from, to, amount []byte
			switch {
			case len(l.Topics) == 4 && len(l.Data) == 0:
				nft, from, to, amount = true, l.Topics[1][:], l.Topics[2][:], l.Topics[3][:]
			case len(l.Topics) == 3 && len(l.Data) == 32:
				from, to, amount = l.Topics[1][:], l.Topics[2][:], l.Data
			case len(l.Topics) == 1 && len(l.Data) == 96:
				from, to, amount = l.Data[:32], l.Data[32:64], l.Data[64:]
			default:
				continue
			}
			t.From, t.To = common.BytesToAddress(from), common.BytesToAddress(to)
			if nft {
				t.Type, t.Value, t.TokenID = internal.ERC721, big.NewInt(1), new(big.Int).SetBytes(amount)
			} else {
				t.Type, t.Value = internal.ERC20, new(big.Int).SetBytes(amount)
			}
			b.Transfers = append(b.Transfers, t)
		case TopicTransferSingle:
			if len(l.Topics) != 4 || len(l.Data) != 64 {
				continue
			}
			t.Type = internal.ERC1155
			t.Operator, t.From, t.To = common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])
			t.TokenID, t.Value = new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])
			b.Transfers = append(b.Transfers, t)
		case TopicTransferBatch:
			if len(l.Topics) != 4 {
				continue
			}
			idsList, okIDs := uintArray(l.Data, 0)
			values, okValues := uintArray(l.Data, 1)
			if !okIDs || !okValues || len(idsList) != len(values) {
				continue
			}
			t.Type = internal.ERC1155
			t.Operator, t.From, t.To = common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:]), common.BytesToAddress(l.Topics[3][:])
			for k := range idsList {
				tk := t
				tk.BatchIndex, tk.TokenID, tk.Value = uint32(k), idsList[k], values[k]
				b.Transfers = append(b.Transfers, tk)
			}
		}
	}
}

// uintArray decodes the uint256[] that is argument arg of ABI-encoded
// data whose head holds the arrays' offsets.
func uintArray(data []byte, arg int) ([]*big.Int, bool) {
	head := 32 * arg
	if len(data) < head+32 {
		return nil, false
	}
	off, ok := u64Word(data[head : head+32])
	if !ok || off > uint64(len(data)-32) {
		return nil, false
	}
	n, ok := u64Word(data[off : off+32])
	if !ok || n > (uint64(len(data))-off-32)/32 {
		return nil, false
	}
	out := make([]*big.Int, n)
	for i := range out {
		start := off + 32 + 32*uint64(i)
		out[i] = new(big.Int).SetBytes(data[start : start+32])
	}
	return out, true
}

// u64Word reads a 32-byte word that must fit in 64 bits.
func u64Word(w []byte) (uint64, bool) {
	for _, c := range w[:24] {
		if c != 0 {
			return 0, false
		}
	}
	return binary.BigEndian.Uint64(w[24:]), true
}

// isCandidate reports whether a log may be a token transfer.
func isCandidate(l *Log) bool {
	if len(l.Topics) == 0 {
		return false
	}
	switch l.Topics[0] {
	case TopicTransfer, TopicTransferSingle, TopicTransferBatch:
		return true
	}
	return false
}

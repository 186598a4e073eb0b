package evmcode

import (
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
)

// More opcodes, for Answerer.
const (
	opAdd    = 0x01
	opLt     = 0x10
	opSha3   = 0x20
	opMstore = 0x52
	opSload  = 0x54
	opSstore = 0x55
	opJump   = 0x56
	opPush4  = 0x63
	opPush32 = 0x7f
)

// The Answerer's own selectors (no standard function has them).
var (
	selectorSet = [4]byte{0xfe, 0xed, 0xf0, 0x0d}
	selectorLog = [4]byte{0xfe, 0xed, 0xf1, 0x1e}
)

// Answerer's runtime answers any call from a table kept in its storage:
// the answer to calldata q is stored at keccak256(q) (its length) and the
// slots after it (its words); a call without an answer reverts.
// SetAnswerCall sets an answer (the tx emits nothing), AnswererLogCall
// makes it emit a log of any shape, as Emitter does. With answers for
// supportsInterface, tokenURI or uri and name, it is an ERC-721 or
// ERC-1155 contract whose URIs and events a test controls.
var Answerer = func() []byte {
	a := newAsm()
	a.op(opCallDataSize).push1(0).push1(0).op(opCallDataCopy)
	a.push1(0).op(opMload).push1(224).op(opShr) // the selector
	a.op(opDup1, opPush4).op(selectorLog[:]...).op(opEq).pushLabel("log").op(opJumpI)
	a.op(opDup1, opPush4).op(selectorSet[:]...).op(opEq).pushLabel("set").op(opJumpI)
	a.op(opPop)

	// Lookup: [key] -> [len key] -> copy the words to memory -> return.
	a.op(opCallDataSize).push1(0).op(opSha3)
	a.op(opDup1, opSload)
	a.op(opDup1, opIsZero).pushLabel("revert").op(opJumpI)
	a.push1(0) // [i len key]
	a.label("loop")
	a.op(opDup2, opDup2, opLt, opIsZero).pushLabel("done").op(opJumpI)
	a.op(0x82).push1(1).op(opAdd).op(opDup2).push1(5).op(opShr).op(opAdd) // DUP3: key+1+i/32
	a.op(opSload, opDup2, opMstore)
	a.push1(32).op(opAdd).pushLabel("loop").op(opJump)
	a.label("done").op(opPop).push1(0).op(opReturn)
	a.label("revert").push1(0).op(opDup1, opRevert)

	// Set: selector ‖ key ‖ answer.
	a.label("set").op(opPop)
	a.push1(4).op(opMload)                // [key]
	a.push1(36).op(opCallDataSize, opSub) // [len key]
	a.op(opDup1, 0x82, opSstore)          // DUP3: sstore(key, len)
	a.push1(0)                            // [i len key]
	a.label("setloop")
	a.op(opDup2, opDup2, opLt, opIsZero).pushLabel("stop").op(opJumpI)
	a.op(opDup1).push1(36).op(opAdd, opMload)                           // [word i len key]
	a.op(0x83).push1(1).op(opAdd).op(0x82).push1(5).op(opShr).op(opAdd) // DUP4 key, DUP3 i: [slot word i len key]
	a.op(opSstore)
	a.push1(32).op(opAdd).pushLabel("setloop").op(opJump)
	a.label("stop").op(opStop)

	// Log: selector ‖ n ‖ n topics ‖ data.
	a.label("log").op(opPop)
	a.push1(4).op(opMload).push1(248).op(opShr) // n
	for n := 0; n <= 4; n++ {
		a.op(opDup1).push1(byte(n)).op(opEq).pushLabel(fmt.Sprint("alog", n)).op(opJumpI)
	}
	a.push1(0).op(opDup1, opRevert)
	for n := 0; n <= 4; n++ {
		off := uint16(5 + 32*n)
		a.label(fmt.Sprint("alog", n)).op(opPop)
		for k := n - 1; k >= 0; k-- {
			a.push2(uint16(5 + 32*k)).op(opMload)
		}
		a.push2(off).op(opCallDataSize, opSub)
		a.push2(off).op(opLog0+byte(n), opStop)
	}
	return a.bytes()
}()

const (
	opDup2 = 0x81
)

// answerSlots are the storage slots that hold answer to query.
func answerSlots(query, answer []byte) [][2]common.Hash {
	key := crypto.Keccak256Hash(query)
	out := [][2]common.Hash{{key, common.BigToHash(big.NewInt(int64(len(answer))))}}
	base := key.Big()
	for i := 0; i < len(answer); i += 32 {
		var w common.Hash
		copy(w[:], answer[i:])
		slot := new(big.Int).Add(base, big.NewInt(int64(1+i/32)))
		out = append(out, [2]common.Hash{common.BigToHash(slot), w})
	}
	return out
}

// AnswererInit returns creation code that deploys Answerer with answers
// (query -> answer) already stored, so that what the indexer asks at the
// deployment's block (supportsInterface, name) is answered.
func AnswererInit(answers map[string][]byte) []byte {
	var stores []byte
	for q, ans := range answers {
		for _, s := range answerSlots([]byte(q), ans) {
			stores = append(stores, opPush32)
			stores = append(stores, s[1][:]...)
			stores = append(stores, opPush32)
			stores = append(stores, s[0][:]...)
			stores = append(stores, opSstore)
		}
	}
	n := uint16(len(Answerer))
	prefix := uint16(len(stores) + 15)
	a := newAsm().op(stores...).push2(n).push2(prefix).push1(0).op(opCodeCopy).push2(n).push1(0).op(opReturn)
	if len(a.code) != int(prefix) {
		panic("evmcode: answerer init prefix length")
	}
	return append(a.bytes(), Answerer...)
}

// SetAnswerCall is the input that makes Answerer answer query with answer.
func SetAnswerCall(query, answer []byte) []byte {
	key := crypto.Keccak256Hash(query)
	return append(append(append([]byte{}, selectorSet[:]...), key[:]...), answer...)
}

// AnswererLogCall is the input that makes Answerer emit a log with topics
// and data.
func AnswererLogCall(topics []common.Hash, data []byte) []byte {
	return append(append([]byte{}, selectorLog[:]...), EmitCall(topics, data)...)
}

// ABIString is s ABI-encoded as a function's one string result.
func ABIString(s string) []byte {
	out := append(word(32), word(int64(len(s)))...)
	padded := make([]byte, (len(s)+31)/32*32)
	copy(padded, s)
	return append(out, padded...)
}

// ABIBool is b as a function's one bool result.
func ABIBool(b bool) []byte {
	if b {
		return word(1)
	}
	return word(0)
}

func call(sig string, args ...[]byte) []byte {
	out := crypto.Keccak256([]byte(sig))[:4]
	for _, a := range args {
		out = append(out, a...)
	}
	return out
}

// SupportsInterfaceCall is supportsInterface(id)'s input.
func SupportsInterfaceCall(id [4]byte) []byte {
	w := make([]byte, 32)
	copy(w, id[:])
	return call("supportsInterface(bytes4)", w)
}

// TokenURICall is tokenURI(id)'s input (ERC-721), or uri(id)'s (ERC-1155).
func TokenURICall(erc1155 bool, id *big.Int) []byte {
	if erc1155 {
		return call("uri(uint256)", common.BigToHash(id).Bytes())
	}
	return call("tokenURI(uint256)", common.BigToHash(id).Bytes())
}

// NFTAnswers are the answers an ERC-721 (or ERC-1155) Answerer needs at
// its deployment to be described as one: ERC-165's, and name and symbol.
func NFTAnswers(erc1155 bool, name, symbol string) map[string][]byte {
	iface := [4]byte{0x80, 0xac, 0x58, 0xcd}
	if erc1155 {
		iface = [4]byte{0xd9, 0xb6, 0x7a, 0x26}
	}
	return map[string][]byte{
		string(SupportsInterfaceCall([4]byte{0x01, 0xff, 0xc9, 0xa7})): ABIBool(true),
		string(SupportsInterfaceCall([4]byte{0xff, 0xff, 0xff, 0xff})): ABIBool(false),
		string(SupportsInterfaceCall(iface)):                           ABIBool(true),
		string(call("name()")):                                         ABIString(name),
		string(call("symbol()")):                                       ABIString(symbol),
	}
}

// NFT event topics (the indexer's own are not used).
var (
	TopicTransfer            = topicTransfer
	TopicTransferSingle      = topicTransferSingle
	TopicMetadataUpdate      = crypto.Keccak256Hash([]byte("MetadataUpdate(uint256)"))
	TopicBatchMetadataUpdate = crypto.Keccak256Hash([]byte("BatchMetadataUpdate(uint256,uint256)"))
	TopicURI                 = crypto.Keccak256Hash([]byte("URI(string,uint256)"))
)

// AddrTopic is an address as an indexed topic.
func AddrTopic(a common.Address) common.Hash { return addrTopic(a) }

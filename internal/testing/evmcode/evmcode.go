// Package evmcode holds small EVM contracts, assembled by hand, that make
// real chains produce what the EVM indexer reads: logs of any shape
// (token transfers, Teleporter events), internal calls with value,
// CREATE2 deployments (and failed ones), self-destructs. No Solidity
// compiler is needed to build them.
package evmcode

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
)

// Opcodes used below.
const (
	opStop         = 0x00
	opSub          = 0x03
	opEq           = 0x14
	opIsZero       = 0x15
	opShr          = 0x1c
	opAddress      = 0x30
	opCaller       = 0x33
	opCallValue    = 0x34
	opCallDataSize = 0x36
	opCallDataCopy = 0x37
	opCodeCopy     = 0x39
	opPop          = 0x50
	opMload        = 0x51
	opJumpI        = 0x57
	opGas          = 0x5a
	opJumpDest     = 0x5b
	opPush1        = 0x60
	opPush2        = 0x61
	opDup1         = 0x80
	opLog0         = 0xa0
	opCreate2      = 0xf5
	opCall         = 0xf1
	opReturn       = 0xf3
	opRevert       = 0xfd
	opSelfDestruct = 0xff
)

// asm assembles code with 2-byte jump labels.
type asm struct {
	code   []byte
	labels map[string]int
	refs   map[int]string
}

func newAsm() *asm { return &asm{labels: map[string]int{}, refs: map[int]string{}} }

func (a *asm) op(ops ...byte) *asm { a.code = append(a.code, ops...); return a }

func (a *asm) push1(v byte) *asm { return a.op(opPush1, v) }

func (a *asm) push2(v uint16) *asm {
	a.code = append(a.code, opPush2)
	a.code = binary.BigEndian.AppendUint16(a.code, v)
	return a
}

// pushLabel pushes the position of label, resolved by bytes.
func (a *asm) pushLabel(label string) *asm {
	a.refs[len(a.code)+1] = label
	return a.push2(0)
}

func (a *asm) label(name string) *asm {
	a.labels[name] = len(a.code)
	return a.op(opJumpDest)
}

func (a *asm) bytes() []byte {
	for at, name := range a.refs {
		pos, ok := a.labels[name]
		if !ok {
			panic(fmt.Sprintf("evmcode: no label %q", name))
		}
		binary.BigEndian.PutUint16(a.code[at:], uint16(pos))
	}
	return a.code
}

// Init returns creation code that deploys runtime.
func Init(runtime []byte) []byte {
	n := uint16(len(runtime))
	const prefix = 15
	a := newAsm().push2(n).push2(prefix).push1(0).op(opCodeCopy).push2(n).push1(0).op(opReturn)
	if len(a.code) != prefix {
		panic("evmcode: init prefix length")
	}
	return append(a.bytes(), runtime...)
}

// Emitter's runtime emits one log of the call's choosing (EmitCall) and
// accepts value; an empty call just takes the value.
var Emitter = func() []byte {
	a := newAsm()
	a.op(opCallDataSize, opIsZero).pushLabel("stop").op(opJumpI)
	a.op(opCallDataSize).push1(0).push1(0).op(opCallDataCopy)
	a.push1(0).op(opMload).push1(248).op(opShr) // n, the number of topics
	for n := 0; n <= 4; n++ {
		a.op(opDup1).push1(byte(n)).op(opEq).pushLabel(fmt.Sprint("log", n)).op(opJumpI)
	}
	a.push1(0).push1(0).op(opRevert) // more than four topics
	for n := 0; n <= 4; n++ {
		off := uint16(1 + 32*n)
		a.label(fmt.Sprint("log", n)).op(opPop)
		for k := n - 1; k >= 0; k-- {
			a.push2(uint16(1 + 32*k)).op(opMload)
		}
		a.push2(off).op(opCallDataSize, opSub) // size = calldatasize - off
		a.push2(off).op(opLog0+byte(n), opStop)
	}
	a.label("stop").op(opStop)
	return a.bytes()
}()

// EmitCall is the input that makes Emitter emit a log with topics and
// data.
func EmitCall(topics []common.Hash, data []byte) []byte {
	if len(topics) > 4 {
		panic("evmcode: more than four topics")
	}
	in := []byte{byte(len(topics))}
	for _, t := range topics {
		in = append(in, t[:]...)
	}
	return append(in, data...)
}

// Forwarder's runtime calls the address in the first 20 bytes of its
// input with the rest of the input and all the value it was sent, and
// ignores the outcome.
var Forwarder = func() []byte {
	a := newAsm()
	a.op(opCallDataSize).push1(0).push1(0).op(opCallDataCopy)
	a.push1(0).push1(0)                        // retSize, retOffset
	a.push1(20).op(opCallDataSize, opSub)      // argsSize
	a.push1(20)                                // argsOffset
	a.op(opCallValue)                          // value
	a.push1(0).op(opMload).push1(96).op(opShr) // address
	a.op(opGas, opCall, opPop, opStop)
	return a.bytes()
}()

// ForwardCall is the input that makes Forwarder call target with input.
func ForwardCall(target common.Address, input []byte) []byte {
	return append(append([]byte{}, target[:]...), input...)
}

// Factory's runtime deploys its input as creation code with CREATE2
// (salt 0) and the value it was sent: the same input twice fails the
// second time, the address being taken.
var Factory = func() []byte {
	a := newAsm()
	a.op(opCallDataSize).push1(0).push1(0).op(opCallDataCopy)
	a.push1(0).op(opCallDataSize).push1(0).op(opCallValue, opCreate2, opPop, opStop)
	return a.bytes()
}()

// Destructor's runtime self-destructs, sending its balance to its caller;
// DestructorToSelf's names itself the beneficiary.
var (
	Destructor       = newAsm().op(opCaller, opSelfDestruct).bytes()
	DestructorToSelf = newAsm().op(opAddress, opSelfDestruct).bytes()
)

// MintInit returns creation code that, as a token's constructor minting
// its supply, logs an ERC-20 Transfer of amount from the zero address to
// to, then deploys runtime: a deployment tx with a token transfer.
func MintInit(to common.Address, amount *big.Int, runtime []byte) []byte {
	const (
		opMstore = 0x52
		opPush20 = 0x73
		opPush32 = 0x7f
		opLog3   = 0xa3
	)
	transfer := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	build := func(prefix uint16) []byte {
		a := newAsm()
		a.op(opPush32).op(common.BigToHash(amount).Bytes()...).push1(0).op(opMstore) // mem[0:32] = amount
		a.op(opPush20).op(to[:]...)                                                  // topic 2: to
		a.push1(0)                                                                   // topic 1: from, zero
		a.op(opPush32).op(transfer[:]...)                                            // topic 0
		a.push1(32).push1(0).op(opLog3)
		n := uint16(len(runtime))
		a.push2(n).push2(prefix).push1(0).op(opCodeCopy).push2(n).push1(0).op(opReturn)
		return a.bytes()
	}
	prefix := uint16(len(build(0)))
	return append(build(prefix), runtime...)
}

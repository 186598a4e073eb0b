// Package contracts holds avaindex's test contracts: Solidity sources
// (src/), compiled by the pinned solcjs (package.json, compile.mjs) into
// build/ by `go generate`, and Go helpers that give their creation code
// and ABI-encode their calls.
//
// The contracts are standard-conforming and minimal: TestToken20
// (ERC-20), TestNFT721 (ERC-721 with the metadata extension, ERC-165 and
// ERC-4906's MetadataUpdate from setTokenURI), TestMulti1155 (ERC-1155
// whose uri is an {id} template unless setURI, which emits URI, set the
// token's own) and TestFactory, which deploys TestChild contracts with
// CREATE and CREATE2 and forwards value (internal value transfers). One
// is not standard on purpose: TestFeeToken20 takes an unlogged fee on
// transfer, the token whose logs do not explain its balances.
package contracts

//go:generate sh -c "npm ci --no-audit --no-fund && node compile.mjs"

import (
	"embed"
	"fmt"
	"math/big"
	"strings"

	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/crypto"
)

//go:embed build
var build embed.FS

// Contract is one compiled contract.
type Contract struct {
	Name string
	// Code is the creation bytecode, without constructor arguments.
	Code []byte
	ABI  abi.ABI
}

func load(name string) *Contract {
	bin, err := build.ReadFile("build/" + name + ".bin")
	if err != nil {
		panic(err)
	}
	code, err := hexutil.Decode("0x" + strings.TrimSpace(string(bin)))
	if err != nil {
		panic(fmt.Sprintf("%s.bin: %v", name, err))
	}
	j, err := build.ReadFile("build/" + name + ".abi.json")
	if err != nil {
		panic(err)
	}
	a, err := abi.JSON(strings.NewReader(string(j)))
	if err != nil {
		panic(fmt.Sprintf("%s.abi.json: %v", name, err))
	}
	return &Contract{Name: name, Code: code, ABI: a}
}

// The compiled contracts.
var (
	Token20   = load("TestToken20")
	NFT721    = load("TestNFT721")
	Multi1155 = load("TestMulti1155")
	Factory   = load("TestFactory")
	Child     = load("TestChild")
	// FeeToken20's Transfer logs do not explain its balances: a transfer
	// credits the recipient less a fee, which goes to the minter unlogged.
	FeeToken20 = load("TestFeeToken20")
)

// Deploy is the creation code with the constructor's arguments appended.
func (c *Contract) Deploy(args ...any) []byte {
	in, err := c.ABI.Pack("", args...)
	if err != nil {
		panic(fmt.Sprintf("%s constructor: %v", c.Name, err))
	}
	return append(append([]byte{}, c.Code...), in...)
}

// Call ABI-encodes a call of method; it panics on arguments that do not
// fit the ABI (a mistake in a test).
func (c *Contract) Call(method string, args ...any) []byte {
	in, err := c.ABI.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("%s.%s: %v", c.Name, method, err))
	}
	return in
}

// Unpack decodes the answer of an eth_call of method.
func (c *Contract) Unpack(method string, out []byte) ([]any, error) {
	return c.ABI.Unpack(method, out)
}

// Topic is the topic of the contract's event.
func (c *Contract) Topic(event string) common.Hash {
	e, ok := c.ABI.Events[event]
	if !ok {
		panic(fmt.Sprintf("%s has no event %s", c.Name, event))
	}
	return e.ID
}

// The calls, typed.

// MintERC20 mints value of a TestToken20 to `to` (the deployer only).
func MintERC20(to common.Address, value *big.Int) []byte { return Token20.Call("mint", to, value) }

// TransferERC20 transfers value of a TestToken20 to `to`.
func TransferERC20(to common.Address, value *big.Int) []byte {
	return Token20.Call("transfer", to, value)
}

// ApproveERC20 lets spender spend value of the caller's TestToken20.
func ApproveERC20(spender common.Address, value *big.Int) []byte {
	return Token20.Call("approve", spender, value)
}

// TransferFromERC20 transfers value from `from` to `to` (an allowance).
func TransferFromERC20(from, to common.Address, value *big.Int) []byte {
	return Token20.Call("transferFrom", from, to, value)
}

// MintERC721 mints token id with its URI to `to` (the deployer only).
func MintERC721(to common.Address, id int64, uri string) []byte {
	return NFT721.Call("mint", to, big.NewInt(id), uri)
}

// TransferFromERC721 moves token id from `from` to `to`.
func TransferFromERC721(from, to common.Address, id int64) []byte {
	return NFT721.Call("transferFrom", from, to, big.NewInt(id))
}

// SafeTransferFromERC721 moves token id from `from` to `to`, asking a
// contract recipient to accept it.
func SafeTransferFromERC721(from, to common.Address, id int64) []byte {
	return NFT721.Call("safeTransferFrom", from, to, big.NewInt(id))
}

// SetTokenURI changes token id's URI (emitting ERC-4906's MetadataUpdate).
func SetTokenURI(id int64, uri string) []byte { return NFT721.Call("setTokenURI", big.NewInt(id), uri) }

// RefreshMetadata emits ERC-4906's BatchMetadataUpdate for tokens
// from..to of a TestNFT721.
func RefreshMetadata(from, to int64) []byte {
	return NFT721.Call("refreshMetadata", big.NewInt(from), big.NewInt(to))
}

// MintERC1155 mints value of token id to `to` (the deployer only).
func MintERC1155(to common.Address, id, value int64) []byte {
	return Multi1155.Call("mint", to, big.NewInt(id), big.NewInt(value), []byte{})
}

// SafeTransferFromERC1155 moves value of token id from `from` to `to`.
func SafeTransferFromERC1155(from, to common.Address, id, value int64) []byte {
	return Multi1155.Call("safeTransferFrom", from, to, big.NewInt(id), big.NewInt(value), []byte{})
}

// SafeBatchTransferFromERC1155 moves values[i] of ids[i] from `from` to `to`.
func SafeBatchTransferFromERC1155(from, to common.Address, ids, values []int64) []byte {
	return Multi1155.Call("safeBatchTransferFrom", from, to, bigs(ids), bigs(values), []byte{})
}

// SetURI sets token id's own URI (emitting URI).
func SetURI(id int64, uri string) []byte { return Multi1155.Call("setURI", big.NewInt(id), uri) }

// FactoryCreate deploys a TestChild with CREATE, endowed with the value sent.
func FactoryCreate(tag int64) []byte { return Factory.Call("create", big.NewInt(tag)) }

// FactoryCreate2 deploys a TestChild with CREATE2, endowed with the value sent.
func FactoryCreate2(salt common.Hash, tag int64) []byte {
	return Factory.Call("create2", [32]byte(salt), big.NewInt(tag))
}

// FactoryForward sends the value sent on to each of `to`, in equal parts.
func FactoryForward(to ...common.Address) []byte { return Factory.Call("forward", to) }

// ChildPay has a TestChild pay value wei of its balance to `to`.
func ChildPay(to common.Address, value *big.Int) []byte { return Child.Call("pay", to, value) }

// ChildCreate2Address is where a TestFactory at factory deploys a
// TestChild with create2(salt, tag), computed here, not asked of the
// chain.
func ChildCreate2Address(factory common.Address, salt common.Hash, tag int64) common.Address {
	return crypto.CreateAddress2(factory, salt, crypto.Keccak256(Child.Deploy(big.NewInt(tag))))
}

func bigs(v []int64) []*big.Int {
	out := make([]*big.Int, len(v))
	for i, x := range v {
		out[i] = big.NewInt(x)
	}
	return out
}

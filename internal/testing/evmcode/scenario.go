package evmcode

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// Token event topics (the indexer's own constants are not used, so that
// a mistake there cannot hide in both).
var (
	topicTransfer       = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	topicTransferSingle = crypto.Keccak256Hash([]byte("TransferSingle(address,address,address,uint256,uint256)"))
	topicTransferBatch  = crypto.Keccak256Hash([]byte("TransferBatch(address,address,address,uint256[],uint256[])"))
	topicSendMessage    = crypto.Keccak256Hash([]byte("SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes),(address,uint256))"))
)

// Scenario is what Run issued on the C-chain.
type Scenario struct {
	// Recipient is an address that only receives: value, tokens.
	Recipient common.Address
	// Emitter, Forwarder and Factory are the contracts deployed from the
	// local key; Child is the Emitter the Factory deployed with CREATE2.
	Emitter, Forwarder, Factory, Child common.Address
	// Destructor and SelfDestructor self-destructed, to their caller and
	// to themselves.
	Destructor, SelfDestructor common.Address
	// Txs are the hashes of the txs, by step name.
	Txs map[string]common.Hash
	// MessageID is the Teleporter message id the Emitter logged.
	MessageID common.Hash
}

func word(v int64) []byte { return common.BigToHash(big.NewInt(v)).Bytes() }

func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

// Run issues, from the local key, one tx per step (each in a block of its
// own): a value transfer; deployments of Emitter, Forwarder and Factory;
// an ERC-20 and an ERC-721 Transfer, an ERC-1155 TransferSingle and
// TransferBatch, and a Teleporter SendCrossChainMessage, all logged by the
// Emitter; value forwarded to an address and a transfer logged through the
// Forwarder (internal calls); a CREATE2 deployment by the Factory and the
// same one again (a failed internal creation); a tx that reverts;
// contracts self-destructing to their caller and to themselves; and AVAX
// exported from the C-chain and imported into it (atomic txs).
func Run(ctx context.Context, n *testnet.Network) (*Scenario, error) {
	s := &Scenario{Recipient: common.BytesToAddress(crypto.Keccak256([]byte("evmcode recipient"))), Txs: map[string]common.Hash{},
		MessageID: crypto.Keccak256Hash([]byte("evmcode message"))}
	me := n.EthAddr
	eth := big.NewInt(1e18)
	send := func(step string, to *common.Address, value *big.Int, input []byte, gas uint64) (*types.Receipt, error) {
		r, err := n.SendEVMTx(ctx, to, value, input, gas)
		if err != nil {
			return r, fmt.Errorf("%s: %w", step, err)
		}
		s.Txs[step] = r.TxHash
		return r, nil
	}
	deploy := func(step string, runtime []byte, value *big.Int) (common.Address, error) {
		r, err := send(step, nil, value, Init(runtime), 300_000)
		if err != nil {
			return common.Address{}, err
		}
		return r.ContractAddress, nil
	}
	var err error
	if _, err = send("value", &s.Recipient, eth, nil, 21_000); err != nil {
		return nil, err
	}
	if s.Emitter, err = deploy("deploy emitter", Emitter, nil); err != nil {
		return nil, err
	}
	if s.Forwarder, err = deploy("deploy forwarder", Forwarder, nil); err != nil {
		return nil, err
	}
	if s.Factory, err = deploy("deploy factory", Factory, nil); err != nil {
		return nil, err
	}
	batch := append(append(word(64), word(160)...), append(append(word(2), word(1)...), word(2)...)...)
	batch = append(batch, append(append(word(2), word(3)...), word(4)...)...)
	logs := []struct {
		step   string
		topics []common.Hash
		data   []byte
	}{
		{"erc20", []common.Hash{topicTransfer, addrTopic(me), addrTopic(s.Recipient)}, word(1000)},
		{"erc721", []common.Hash{topicTransfer, addrTopic(me), addrTopic(s.Recipient), common.BigToHash(big.NewInt(7))}, nil},
		{"erc1155 single", []common.Hash{topicTransferSingle, addrTopic(me), addrTopic(me), addrTopic(s.Recipient)}, append(word(5), word(10)...)},
		{"erc1155 batch", []common.Hash{topicTransferBatch, addrTopic(me), addrTopic(me), addrTopic(s.Recipient)}, batch},
		{"teleporter", []common.Hash{topicSendMessage, s.MessageID, common.Hash(ids.ID{7})}, word(1)},
	}
	for _, l := range logs {
		if _, err := send(l.step, &s.Emitter, nil, EmitCall(l.topics, l.data), 100_000); err != nil {
			return nil, err
		}
	}
	if _, err := send("forward value", &s.Forwarder, new(big.Int).Div(eth, big.NewInt(2)), ForwardCall(s.Recipient, nil), 100_000); err != nil {
		return nil, err
	}
	if _, err := send("forward erc20", &s.Forwarder, nil, ForwardCall(s.Emitter,
		EmitCall([]common.Hash{topicTransfer, addrTopic(s.Forwarder), addrTopic(s.Recipient)}, word(5))), 100_000); err != nil {
		return nil, err
	}
	child := Init(Emitter)
	if _, err := send("create2", &s.Factory, nil, child, 300_000); err != nil {
		return nil, err
	}
	s.Child = crypto.CreateAddress2(s.Factory, common.Hash{}, crypto.Keccak256(child))
	if _, err := send("create2 again", &s.Factory, nil, child, 300_000); err != nil {
		return nil, err
	}
	// Five topics: the Emitter reverts.
	r, err := n.SendEVMTx(ctx, &s.Emitter, nil, append([]byte{5}, make([]byte, 160)...), 100_000)
	if r == nil {
		return nil, fmt.Errorf("revert: %w", err)
	}
	s.Txs["revert"] = r.TxHash
	for _, d := range []struct {
		name    string
		runtime []byte
		addr    *common.Address
	}{{"destructor", Destructor, &s.Destructor}, {"self-destructor", DestructorToSelf, &s.SelfDestructor}} {
		if *d.addr, err = deploy("deploy "+d.name, d.runtime, big.NewInt(1e15)); err != nil {
			return nil, err
		}
		if _, err := send("call "+d.name, d.addr, nil, nil, 100_000); err != nil {
			return nil, err
		}
	}
	if _, err := n.ExportC(ctx, n.PChainID, 2_000_000_000); err != nil {
		return nil, fmt.Errorf("export from C: %w", err)
	}
	if _, err := n.ExportP(ctx, n.CChainID, 1_000_000_000); err != nil {
		return nil, fmt.Errorf("export to C: %w", err)
	}
	if _, err := n.ImportC(ctx, n.PChainID); err != nil {
		return nil, fmt.Errorf("import into C: %w", err)
	}
	return s, nil
}

package contracts

import (
	"context"
	"embed"
	"fmt"
	"math/big"
	"strings"

	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// ICM v1.0.0 as icm-contracts releases it (icm/SOURCE.md): the keyless
// transaction that deploys the TeleporterMessenger at the same address on
// every chain, and the TeleporterRegistry's creation code. They are data,
// replayed as published, never rebuilt here.
//
//go:embed icm
var icmFiles embed.FS

// The TeleporterMessenger of ICM v1.0.0: its address on every chain and the
// keyless sender of its deployment.
var (
	ICMMessenger         = common.HexToAddress("0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf")
	ICMMessengerDeployer = common.HexToAddress(testnet.ICMMessengerDeployer)
)

// icmDeployerFunds is what the deployment costs: 4M gas at 2,500 gwei.
var icmDeployerFunds = new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))

func icmFile(name string) []byte {
	b, err := icmFiles.ReadFile("icm/" + name)
	if err != nil {
		panic(err)
	}
	out, err := hexutil.Decode("0x" + strings.TrimPrefix(strings.TrimSpace(string(b)), "0x"))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	return out
}

// MessengerDeploymentTx is ICM v1.0.0's keyless TeleporterMessenger
// deployment, a pre-EIP-155 transaction.
func MessengerDeploymentTx() *types.Transaction {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(icmFile("TeleporterMessenger_Deployment_Transaction_v1.0.0.txt")); err != nil {
		panic(fmt.Sprintf("the TeleporterMessenger deployment: %v", err))
	}
	return tx
}

// SendFunc sends a transaction from a funded key and waits for its receipt
// (testnet's Network.SendEVMTx and EVML1.SendEVMTx).
type SendFunc func(ctx context.Context, to *common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error)

// DeployMessenger replays ICM's keyless deployment on the chain at rpcURL,
// funding its sender with send first, unless the messenger is there
// already (the networks are shared by a test process).
func DeployMessenger(ctx context.Context, rpcURL string, send SendFunc) error {
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return err
	}
	defer ec.Close()
	code, err := ec.CodeAt(ctx, ICMMessenger, nil)
	if err != nil {
		return fmt.Errorf("eth_getCode: %w", err)
	}
	if len(code) > 0 {
		return nil
	}
	bal, err := ec.BalanceAt(ctx, ICMMessengerDeployer, nil)
	if err != nil {
		return fmt.Errorf("eth_getBalance: %w", err)
	}
	if bal.Cmp(icmDeployerFunds) < 0 {
		if _, err := send(ctx, &ICMMessengerDeployer, new(big.Int).Sub(icmDeployerFunds, bal), nil, 21_000); err != nil {
			return fmt.Errorf("funding the TeleporterMessenger's deployer: %w", err)
		}
	}
	r, err := testnet.SendRawEVMTx(ctx, rpcURL, MessengerDeploymentTx())
	if err != nil {
		return fmt.Errorf("the TeleporterMessenger's deployment: %w", err)
	}
	if r.ContractAddress != ICMMessenger {
		return fmt.Errorf("the TeleporterMessenger's deployment created %s, want %s", r.ContractAddress, ICMMessenger)
	}
	return nil
}

// DeployRegistry deploys ICM v1.0.0's TeleporterRegistry with the
// messenger as its version 1, and returns its address.
func DeployRegistry(ctx context.Context, send SendFunc) (common.Address, error) {
	entries, err := abi.NewType("tuple[]", "", []abi.ArgumentMarshaling{
		{Name: "version", Type: "uint256"}, {Name: "protocolAddress", Type: "address"}})
	if err != nil {
		return common.Address{}, err
	}
	args, err := abi.Arguments{{Type: entries}}.Pack([]struct {
		Version         *big.Int
		ProtocolAddress common.Address
	}{{big.NewInt(1), ICMMessenger}})
	if err != nil {
		return common.Address{}, err
	}
	r, err := send(ctx, nil, nil, append(icmFile("TeleporterRegistry_Bytecode_v1.0.0.txt"), args...), 0)
	if err != nil {
		return common.Address{}, fmt.Errorf("the TeleporterRegistry's deployment: %w", err)
	}
	return r.ContractAddress, nil
}

// ICMApp is TestICMApp, an ICM application of the tests.
var ICMApp = load("TestICMApp")

// messengerABI is the part of ICM v1's TeleporterMessenger ABI that the
// tests' relayer calls and reads.
var messengerABI = func() abi.ABI {
	const msg = `{"name":"message","type":"tuple","components":[
		{"name":"messageNonce","type":"uint256"},{"name":"originSenderAddress","type":"address"},
		{"name":"destinationBlockchainID","type":"bytes32"},{"name":"destinationAddress","type":"address"},
		{"name":"requiredGasLimit","type":"uint256"},{"name":"allowedRelayerAddresses","type":"address[]"},
		{"name":"receipts","type":"tuple[]","components":[{"name":"receivedMessageNonce","type":"uint256"},{"name":"relayerRewardAddress","type":"address"}]},
		{"name":"message","type":"bytes"}]}`
	const fee = `{"name":"feeInfo","type":"tuple","components":[{"name":"feeTokenAddress","type":"address"},{"name":"amount","type":"uint256"}]}`
	j := `[
	{"type":"function","name":"receiveCrossChainMessage","inputs":[{"name":"messageIndex","type":"uint32"},{"name":"relayerRewardAddress","type":"address"}],"outputs":[]},
	{"type":"function","name":"retryMessageExecution","inputs":[{"name":"sourceBlockchainID","type":"bytes32"},` + msg + `],"outputs":[]},
	{"type":"function","name":"checkRelayerRewardAmount","inputs":[{"name":"relayer","type":"address"},{"name":"feeAsset","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"event","name":"SendCrossChainMessage","inputs":[{"name":"messageID","type":"bytes32","indexed":true},{"name":"destinationBlockchainID","type":"bytes32","indexed":true},` + msg + `,` + fee + `]},
	{"type":"event","name":"MessageExecutionFailed","inputs":[{"name":"messageID","type":"bytes32","indexed":true},{"name":"sourceBlockchainID","type":"bytes32","indexed":true},` + msg + `]}
	]`
	a, err := abi.JSON(strings.NewReader(j))
	if err != nil {
		panic(err)
	}
	return a
}()

// ICMMessage is a TeleporterMessage as the messenger's events carry it.
type ICMMessage struct {
	MessageNonce            *big.Int
	OriginSenderAddress     common.Address
	DestinationBlockchainID [32]byte
	DestinationAddress      common.Address
	RequiredGasLimit        *big.Int
	AllowedRelayerAddresses []common.Address
	Receipts                []struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}
	Message []byte
}

// ReceiveCrossChainMessage is the messenger's call that delivers the warp
// message at index 0 of the tx's predicates.
func ReceiveCrossChainMessage(relayerReward common.Address) []byte {
	in, err := messengerABI.Pack("receiveCrossChainMessage", uint32(0), relayerReward)
	if err != nil {
		panic(err)
	}
	return in
}

// RetryMessageExecution is the messenger's call that executes again a
// message whose execution failed.
func RetryMessageExecution(source [32]byte, m ICMMessage) []byte {
	in, err := messengerABI.Pack("retryMessageExecution", source, m)
	if err != nil {
		panic(err)
	}
	return in
}

// CheckRelayerRewardAmount asks what relayer may redeem of feeAsset.
func CheckRelayerRewardAmount(relayer, feeAsset common.Address) []byte {
	in, err := messengerABI.Pack("checkRelayerRewardAmount", relayer, feeAsset)
	if err != nil {
		panic(err)
	}
	return in
}

// ICMLog is a SendCrossChainMessage or MessageExecutionFailed log of the
// messenger, decoded.
type ICMLog struct {
	Event     string
	MessageID common.Hash
	// Other is the other chain's blockchain id (topic 2).
	Other   [32]byte
	Message ICMMessage
	// LogData is the log's data (a SendCrossChainMessage's is not the warp
	// message: the warp precompile's log in the same tx is).
	LogData []byte
}

// ICMLogs decodes the messenger's SendCrossChainMessage and
// MessageExecutionFailed logs of a receipt.
func ICMLogs(r *types.Receipt) ([]ICMLog, error) {
	var out []ICMLog
	for _, l := range r.Logs {
		if l.Address != ICMMessenger || len(l.Topics) < 3 {
			continue
		}
		for _, name := range []string{"SendCrossChainMessage", "MessageExecutionFailed"} {
			ev := messengerABI.Events[name]
			if l.Topics[0] != ev.ID {
				continue
			}
			vals, err := ev.Inputs.NonIndexed().Unpack(l.Data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			m, ok := abi.ConvertType(vals[0], new(ICMMessage)).(*ICMMessage)
			if !ok {
				return nil, fmt.Errorf("%s's message: %T", name, vals[0])
			}
			out = append(out, ICMLog{Event: name, MessageID: l.Topics[1], Other: l.Topics[2], Message: *m, LogData: l.Data})
		}
	}
	return out, nil
}

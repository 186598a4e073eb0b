package contracts

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/evm/predicate"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// The ICM scenario: ICM v1.0.0's TeleporterMessenger, replayed from its
// keyless deployment, on an L1 network's C-chain and on the L1, with a
// TeleporterRegistry, a TestICMApp and a fee token on each; messages
// relayed by RunICM itself, the warp signatures aggregated by its caller's
// aggregator (avaindex's, in the tests and devnet).

// ICMEnd is one chain of the scenario.
type ICMEnd struct {
	Name       string
	RPC        string
	EVMChainID uint64
	Blockchain ids.ID
	Send       SendFunc
	App        common.Address
	Registry   common.Address
	// Token is the fee token, held by App.
	Token common.Address
}

// ICMDelivery is a message as the scenario sent and delivered it.
type ICMDelivery struct {
	ID              common.Hash
	From, To        *ICMEnd
	Text            string
	Fee             *big.Int
	Sent, Delivered *types.Receipt
	// Failed and Retried are a failed first execution and its retry.
	Failed, Retried  *types.Receipt
	Message          ICMMessage
	RelayerRewardTo  common.Address
	ReceiptsIncluded int
}

// ICMRun is what RunICM did.
type ICMRun struct {
	L       *testnet.EVML1
	C, L1   *ICMEnd
	Relayer common.Address
	// Msgs are "hello L1" (C->L1), "retried on the L1" (C->L1, failed
	// then retried), "hello C" (L1->C, carrying both receipts back) and
	// "never relayed" (C->L1, pending), in that order.
	Msgs []*ICMDelivery
}

// ICMFee is what each message pays its relayer, in the sender's fee token.
var ICMFee = big.NewInt(1_000_000)

// ICMAggregator aggregates the signatures of the warp message whose
// SendWarpMessage log data is logData, by signingSubnet's validators when
// not nil, and returns the signed message.
type ICMAggregator func(ctx context.Context, logData []byte, signingSubnet *ids.ID) ([]byte, error)

// WarpPrecompile is the warp precompile's address.
var WarpPrecompile = common.HexToAddress("0x0200000000000000000000000000000000000005")

var topicSendWarpMessage = crypto.Keccak256Hash([]byte("SendWarpMessage(address,bytes32,bytes)"))

// warpLogData is the data of the SendWarpMessage log of r's tx.
func warpLogData(r *types.Receipt) ([]byte, error) {
	for _, lg := range r.Logs {
		if lg.Address == WarpPrecompile && len(lg.Topics) == 3 && lg.Topics[0] == topicSendWarpMessage {
			return lg.Data, nil
		}
	}
	return nil, fmt.Errorf("no SendWarpMessage log in tx %s", r.TxHash)
}

// RunICM deploys ICM on l's C-chain and on the L1 and relays a message
// C->L1, one C->L1 whose execution fails (the app closed) and is retried,
// and a reply L1->C that carries the receipts of both back; a fourth
// message is left pending. The L1's network must have begun a P-chain
// epoch after the L1's conversion (warp verifies against it).
func RunICM(ctx context.Context, l *testnet.EVML1, aggregate ICMAggregator) (*ICMRun, error) {
	sc := &ICMRun{L: l, Relayer: common.HexToAddress("0x00000000000000000000000000000000000ce1a7")}
	sc.C = &ICMEnd{Name: "C-chain", RPC: l.Net.EthRPCURL(), EVMChainID: l.Net.EVMChainID, Blockchain: l.Net.CChainID, Send: l.Net.SendEVMTx}
	sc.L1 = &ICMEnd{Name: "L1", RPC: l.RPCURL(), EVMChainID: l.EVMChainID, Blockchain: l.BlockchainID, Send: l.SendEVMTx}
	for _, e := range []*ICMEnd{sc.C, sc.L1} {
		if err := DeployMessenger(ctx, e.RPC, e.Send); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		var err error
		if e.Registry, err = DeployRegistry(ctx, e.Send); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		// The app first on one chain, the token first on the other: the
		// key's nonces may be the same on both, the apps' addresses not.
		deploy := []func() error{
			func() error {
				r, err := e.Send(ctx, nil, nil, ICMApp.Deploy(ICMMessenger), 0)
				if err != nil {
					return fmt.Errorf("%s: deploying TestICMApp: %w", e.Name, err)
				}
				e.App = r.ContractAddress
				return nil
			},
			func() error {
				r, err := e.Send(ctx, nil, nil, Token20.Deploy("ICM fee "+e.Name, "FEE", uint8(6)), 0)
				if err != nil {
					return fmt.Errorf("%s: deploying the fee token: %w", e.Name, err)
				}
				e.Token = r.ContractAddress
				return nil
			},
		}
		if e == sc.L1 {
			deploy[0], deploy[1] = deploy[1], deploy[0]
		}
		for _, f := range deploy {
			if err := f(); err != nil {
				return nil, err
			}
		}
		if _, err := e.Send(ctx, &e.Token, nil, MintERC20(e.App, big.NewInt(1e12)), 0); err != nil {
			return nil, fmt.Errorf("%s: minting the fee token: %w", e.Name, err)
		}
	}

	send := func(from, to *ICMEnd, text string) (*ICMDelivery, error) {
		d := &ICMDelivery{From: from, To: to, Text: text, Fee: ICMFee, RelayerRewardTo: sc.Relayer}
		r, err := from.Send(ctx, &from.App, nil, ICMApp.Call("send", [32]byte(to.Blockchain), to.App, text, from.Token, ICMFee), 0)
		if err != nil {
			return nil, fmt.Errorf("sending %q from the %s: %w", text, from.Name, err)
		}
		logs, err := ICMLogs(r)
		if err != nil || len(logs) != 1 || logs[0].Event != "SendCrossChainMessage" {
			return nil, fmt.Errorf("sending %q: messenger logs %+v (%v)", text, logs, err)
		}
		d.Sent, d.ID, d.Message, d.ReceiptsIncluded = r, logs[0].MessageID, logs[0].Message, len(logs[0].Message.Receipts)
		sc.Msgs = append(sc.Msgs, d)
		return d, nil
	}
	relay := func(d *ICMDelivery) error {
		logData, err := warpLogData(d.Sent)
		if err != nil {
			return err
		}
		// An L1 verifies a primary network's message with its own
		// validators.
		var signing *ids.ID
		if d.To == sc.L1 {
			signing = &l.SubnetID
		}
		signed, err := aggregate(ctx, logData, signing)
		if err != nil {
			return fmt.Errorf("aggregating %q's signatures: %w", d.Text, err)
		}
		al := types.AccessList{{Address: WarpPrecompile, StorageKeys: predicate.New(signed)}}
		r, err := l.Net.SendEVMTxAccessList(ctx, d.To.RPC, d.To.EVMChainID, &ICMMessenger,
			ReceiveCrossChainMessage(d.RelayerRewardTo), 1_500_000, al)
		if err != nil {
			return fmt.Errorf("delivering %q on the %s: %w", d.Text, d.To.Name, err)
		}
		d.Delivered = r
		return nil
	}

	hello, err := send(sc.C, sc.L1, "hello L1")
	if err != nil {
		return nil, err
	}
	if err := relay(hello); err != nil {
		return nil, err
	}
	// A message whose first execution fails (the app is closed), retried.
	if _, err := sc.L1.Send(ctx, &sc.L1.App, nil, ICMApp.Call("setClosed", true), 0); err != nil {
		return nil, err
	}
	retry, err := send(sc.C, sc.L1, "retried on the L1")
	if err != nil {
		return nil, err
	}
	if err := relay(retry); err != nil {
		return nil, err
	}
	logs, err := ICMLogs(retry.Delivered)
	if err != nil || len(logs) != 1 || logs[0].Event != "MessageExecutionFailed" {
		return nil, fmt.Errorf("the closed app's delivery: messenger logs %+v (%v), want MessageExecutionFailed", logs, err)
	}
	retry.Failed = retry.Delivered
	if _, err := sc.L1.Send(ctx, &sc.L1.App, nil, ICMApp.Call("setClosed", false), 0); err != nil {
		return nil, err
	}
	if retry.Retried, err = sc.L1.Send(ctx, &ICMMessenger, nil,
		RetryMessageExecution([32]byte(sc.C.Blockchain), logs[0].Message), 1_000_000); err != nil {
		return nil, fmt.Errorf("retrying: %w", err)
	}
	// The reply carries the receipts of both back to the C-chain.
	reply, err := send(sc.L1, sc.C, "hello C")
	if err != nil {
		return nil, err
	}
	if reply.ReceiptsIncluded != 2 {
		return nil, fmt.Errorf("the reply carries %d receipts, want 2", reply.ReceiptsIncluded)
	}
	if err := relay(reply); err != nil {
		return nil, err
	}
	// One left pending: sent, never relayed.
	if _, err := send(sc.C, sc.L1, "never relayed"); err != nil {
		return nil, err
	}
	if sc.C.App == sc.L1.App {
		return nil, fmt.Errorf("both apps are at %s", sc.C.App)
	}
	return sc, nil
}

package tests

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/evm/predicate"
	"github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"

	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// The ICM scenario: ICM v1.0.0's TeleporterMessenger, replayed from its
// keyless deployment, on the custom network's C-chain and on the L1, with a
// TeleporterRegistry and a TestICMApp on each; messages relayed by the test
// itself, the warp signatures aggregated by avaindex.

// icmEnd is one chain of the scenario.
type icmEnd struct {
	name       string
	rpc        string
	evmChainID uint64
	blockchain ids.ID
	send       contracts.SendFunc
	app        common.Address
	registry   common.Address
	token      common.Address // the fee token, held by the app
}

// icmDelivery is a message as the scenario sent and delivered it.
type icmDelivery struct {
	id               common.Hash
	from, to         *icmEnd
	text             string
	fee              *big.Int
	sent, delivered  *types.Receipt
	failed, retried  *types.Receipt // a failed first execution and its retry
	message          contracts.ICMMessage
	relayerRewardTo  common.Address
	receiptsIncluded int // receipts the sent message carried
}

type icmScenario struct {
	l       *testnet.EVML1
	c, l1   *icmEnd
	relayer common.Address
	msgs    []*icmDelivery
}

var icmOnce struct {
	once sync.Once
	sc   *icmScenario
	err  error
}

// icmFee is what each message pays its relayer, in the sender's fee token.
var icmFee = big.NewInt(1_000_000)

// runICM deploys ICM on both chains and relays, through avaindex at base,
// a message C→L1, one C→L1 whose execution fails and is retried, and a
// reply L1→C that carries the receipts of both back; once per process.
func runICM(t *testing.T, base string) *icmScenario {
	t.Helper()
	o := &icmOnce
	o.once.Do(func() { o.sc, o.err = icmRun(base) })
	if o.err != nil {
		t.Fatalf("the ICM scenario: %v", o.err)
	}
	return o.sc
}

func icmRun(base string) (*icmScenario, error) {
	l := l1ForICM
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sc := &icmScenario{l: l, relayer: common.HexToAddress("0x00000000000000000000000000000000000ce1a7")}
	sc.c = &icmEnd{name: "C-chain", rpc: l.Net.EthRPCURL(), evmChainID: l.Net.EVMChainID, blockchain: l.Net.CChainID, send: l.Net.SendEVMTx}
	sc.l1 = &icmEnd{name: "L1", rpc: l.RPCURL(), evmChainID: l.EVMChainID, blockchain: l.BlockchainID, send: l.SendEVMTx}
	for _, e := range []*icmEnd{sc.c, sc.l1} {
		if err := contracts.DeployMessenger(ctx, e.rpc, e.send); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		var err error
		if e.registry, err = contracts.DeployRegistry(ctx, e.send); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		r, err := e.send(ctx, nil, nil, contracts.ICMApp.Deploy(contracts.ICMMessenger), 0)
		if err != nil {
			return nil, fmt.Errorf("%s: deploying TestICMApp: %w", e.name, err)
		}
		e.app = r.ContractAddress
		if r, err = e.send(ctx, nil, nil, contracts.Token20.Deploy("ICM fee "+e.name, "FEE", uint8(6)), 0); err != nil {
			return nil, fmt.Errorf("%s: deploying the fee token: %w", e.name, err)
		}
		e.token = r.ContractAddress
		if _, err := e.send(ctx, &e.token, nil, contracts.MintERC20(e.app, big.NewInt(1e12)), 0); err != nil {
			return nil, fmt.Errorf("%s: minting the fee token: %w", e.name, err)
		}
	}

	send := func(from, to *icmEnd, text string) (*icmDelivery, error) {
		d := &icmDelivery{from: from, to: to, text: text, fee: icmFee, relayerRewardTo: sc.relayer}
		r, err := from.send(ctx, &from.app, nil, contracts.ICMApp.Call("send", [32]byte(to.blockchain), to.app, text, from.token, icmFee), 0)
		if err != nil {
			return nil, fmt.Errorf("sending %q from the %s: %w", text, from.name, err)
		}
		logs, err := contracts.ICMLogs(r)
		if err != nil || len(logs) != 1 || logs[0].Event != "SendCrossChainMessage" {
			return nil, fmt.Errorf("sending %q: messenger logs %+v (%v)", text, logs, err)
		}
		d.sent, d.id, d.message, d.receiptsIncluded = r, logs[0].MessageID, logs[0].Message, len(logs[0].Message.Receipts)
		sc.msgs = append(sc.msgs, d)
		return d, nil
	}
	relay := func(d *icmDelivery) error {
		signed, err := aggregateLog(base, d.sent, d.to.blockchain == sc.l1.blockchain, l.SubnetID)
		if err != nil {
			return err
		}
		warp := common.HexToAddress("0x0200000000000000000000000000000000000005")
		al := types.AccessList{{Address: warp, StorageKeys: predicate.New(signed)}}
		r, err := l.Net.SendEVMTxAccessList(ctx, d.to.rpc, d.to.evmChainID, &contracts.ICMMessenger,
			contracts.ReceiveCrossChainMessage(d.relayerRewardTo), 1_500_000, al)
		if err != nil {
			return fmt.Errorf("delivering %q on the %s: %w", d.text, d.to.name, err)
		}
		d.delivered = r
		return nil
	}

	hello, err := send(sc.c, sc.l1, "hello L1")
	if err != nil {
		return nil, err
	}
	if err := relay(hello); err != nil {
		return nil, err
	}
	// A message whose first execution fails (the app is closed), retried.
	if _, err := sc.l1.send(ctx, &sc.l1.app, nil, contracts.ICMApp.Call("setClosed", true), 0); err != nil {
		return nil, err
	}
	retry, err := send(sc.c, sc.l1, "retried on the L1")
	if err != nil {
		return nil, err
	}
	if err := relay(retry); err != nil {
		return nil, err
	}
	logs, err := contracts.ICMLogs(retry.delivered)
	if err != nil || len(logs) != 1 || logs[0].Event != "MessageExecutionFailed" {
		return nil, fmt.Errorf("the closed app's delivery: messenger logs %+v (%v), want MessageExecutionFailed", logs, err)
	}
	retry.failed = retry.delivered
	if _, err := sc.l1.send(ctx, &sc.l1.app, nil, contracts.ICMApp.Call("setClosed", false), 0); err != nil {
		return nil, err
	}
	if retry.retried, err = sc.l1.send(ctx, &contracts.ICMMessenger, nil,
		contracts.RetryMessageExecution([32]byte(sc.c.blockchain), logs[0].Message), 1_000_000); err != nil {
		return nil, fmt.Errorf("retrying: %w", err)
	}
	// The reply carries the receipts of both back to the C-chain.
	reply, err := send(sc.l1, sc.c, "hello C")
	if err != nil {
		return nil, err
	}
	if reply.receiptsIncluded != 2 {
		return nil, fmt.Errorf("the reply carries %d receipts, want 2", reply.receiptsIncluded)
	}
	if err := relay(reply); err != nil {
		return nil, err
	}
	return sc, nil
}

// l1ForICM is the L1 that runICM uses (set by the test before it).
var l1ForICM *testnet.EVML1

// aggregateLog has avaindex aggregate the signatures of the warp message
// that r's tx sent, given as the log's data; toL1 asks for the L1's
// validators' signatures (an L1 verifies messages from the primary network
// with its own validator set).
func aggregateLog(base string, r *types.Receipt, toL1 bool, l1Subnet ids.ID) ([]byte, error) {
	event := warpABI.Events["SendWarpMessage"].ID
	var data []byte
	for _, lg := range r.Logs {
		if lg.Address == warpPrecompile && len(lg.Topics) == 3 && lg.Topics[0] == event {
			data = lg.Data
		}
	}
	if data == nil {
		return nil, fmt.Errorf("no SendWarpMessage log in tx %s", r.TxHash)
	}
	req := map[string]any{"message": hex.EncodeToString(data)}
	if toL1 {
		req["signingSubnetId"] = l1Subnet.String()
	}
	a, err := postAggregationErr(base, req)
	if err != nil {
		return nil, err
	}
	if a.status != http.StatusCreated {
		return nil, fmt.Errorf("aggregation: %s", a)
	}
	var body struct {
		SignedMessage string `json:"signedMessage"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil {
		return nil, err
	}
	return hex.DecodeString(body.SignedMessage)
}

// postAggregationErr is postAggregation for use outside a test's goroutine.
func postAggregationErr(base string, req map[string]any) (aggregation, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return aggregation{}, err
	}
	resp, err := http.Post(base+"/v1/signatureAggregator/testnet/aggregateSignatures", "application/json", bytes.NewReader(b))
	if err != nil {
		return aggregation{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return aggregation{}, err
	}
	return aggregation{resp.StatusCode, body, resp.Header}, nil
}

// icmCall eth_calls the contract at `to` on the chain at rpc.
func icmCall(t *testing.T, ctx context.Context, rpc string, to common.Address, data []byte) []byte {
	t.Helper()
	ec, err := ethclient.DialContext(ctx, rpc)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestICMRelay relays ICM messages between the C-chain and the L1 with
// avaindex's signature aggregation, and checks what the chains did: the
// L1's app got both messages (the second after its retry), the C-chain's
// app the reply, and the relayer's rewards on the C-chain are the fees of
// the two messages whose receipts the reply brought back.
func TestICMRelay(t *testing.T) {
	l := testnet.GetL1(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := l.Net.AdvanceEpoch(ctx, l.L1.ConvertedHeight); err != nil {
		t.Fatal(err)
	}
	tip, err := l.Net.PClient().GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l1ForICM = l
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, base, tip, time.Minute)
		sc := runICM(t, base)

		unpack := func(method string, out []byte) any {
			v, err := contracts.ICMApp.Unpack(method, out)
			if err != nil || len(v) != 1 {
				t.Fatalf("%s: %v %v", method, v, err)
			}
			return v[0]
		}
		app := func(e *icmEnd, method string) any {
			return unpack(method, icmCall(t, ctx, e.rpc, e.app, contracts.ICMApp.Call(method)))
		}
		if got := app(sc.l1, "received").(*big.Int); got.Int64() != 2 {
			t.Errorf("the L1's app received %d messages, want 2", got)
		}
		if got := app(sc.l1, "lastMessage").(string); got != "retried on the L1" {
			t.Errorf("the L1's app's last message %q", got)
		}
		if got := app(sc.c, "lastMessage").(string); got != "hello C" {
			t.Errorf("the C-chain's app's last message %q", got)
		}
		if got := app(sc.c, "lastSender").(common.Address); got != sc.l1.app {
			t.Errorf("the C-chain's app's last sender %s, want the L1's app %s", got, sc.l1.app)
		}
		reward := new(big.Int).SetBytes(icmCall(t, ctx, sc.c.rpc, contracts.ICMMessenger,
			contracts.CheckRelayerRewardAmount(sc.relayer, sc.c.token)))
		if want := new(big.Int).Mul(icmFee, big.NewInt(2)); reward.Cmp(want) != 0 {
			t.Errorf("the relayer may redeem %s of the C-chain's fee token, want %s", reward, want)
		}
	})
}

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
	"reflect"
	"strings"
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
	"github.com/avaindex/avaindex/internal/testing/openapitest"
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
		// The app first on one chain, the token first on the other: the
		// key's nonces may be the same on both, the apps' addresses not.
		deploy := []func() error{
			func() error {
				r, err := e.send(ctx, nil, nil, contracts.ICMApp.Deploy(contracts.ICMMessenger), 0)
				if err != nil {
					return fmt.Errorf("%s: deploying TestICMApp: %w", e.name, err)
				}
				e.app = r.ContractAddress
				return nil
			},
			func() error {
				r, err := e.send(ctx, nil, nil, contracts.Token20.Deploy("ICM fee "+e.name, "FEE", uint8(6)), 0)
				if err != nil {
					return fmt.Errorf("%s: deploying the fee token: %w", e.name, err)
				}
				e.token = r.ContractAddress
				return nil
			},
		}
		if e == sc.l1 {
			deploy[0], deploy[1] = deploy[1], deploy[0]
		}
		for _, f := range deploy {
			if err := f(); err != nil {
				return nil, err
			}
		}
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
	// One left pending: sent, never relayed.
	if _, err := send(sc.c, sc.l1, "never relayed"); err != nil {
		return nil, err
	}
	if sc.c.app == sc.l1.app {
		return nil, fmt.Errorf("both apps are at %s", sc.c.app)
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
	sdkRan := testing.Short()
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
		checkICMAPI(t, ctx, base, dsn, sc)
		checkICMMetrics(t, ctx, base, sc)
		if !sdkRan {
			sdkRan = true
			runICMSDK(t, ctx, base, sc)
		}

		reward := new(big.Int).SetBytes(icmCall(t, ctx, sc.c.rpc, contracts.ICMMessenger,
			contracts.CheckRelayerRewardAmount(sc.relayer, sc.c.token)))
		if want := new(big.Int).Mul(icmFee, big.NewInt(2)); reward.Cmp(want) != 0 {
			t.Errorf("the relayer may redeem %s of the C-chain's fee token, want %s", reward, want)
		}
	})
}

// icmWant is a message of the scenario as the Data API should show it,
// from the chains' receipts and the node's blocks.
func icmWant(t *testing.T, ctx context.Context, sc *icmScenario, d *icmDelivery, teleporter bool) map[string]any {
	t.Helper()
	blockTime := func(e *icmEnd, r *types.Receipt) float64 {
		ec, err := ethclient.DialContext(ctx, e.rpc)
		if err != nil {
			t.Fatal(err)
		}
		defer ec.Close()
		h, err := ec.HeaderByNumber(ctx, r.BlockNumber)
		if err != nil {
			t.Fatal(err)
		}
		return float64(h.Time)
	}
	receipts := []any{}
	for _, r := range d.message.Receipts {
		receipts = append(receipts, map[string]any{"receivedMessageNonce": r.ReceivedMessageNonce.String(),
			"relayerRewardAddress": r.RelayerRewardAddress.Hex()})
	}
	w := map[string]any{
		"messageId":               hex.EncodeToString(d.id[:]),
		"sourceBlockchainId":      d.from.blockchain.String(),
		"destinationBlockchainId": d.to.blockchain.String(),
		"sourceEvmChainId":        fmt.Sprint(d.from.evmChainID),
		"destinationEvmChainId":   fmt.Sprint(d.to.evmChainID),
		"messageNonce":            d.message.MessageNonce.String(),
		"from":                    d.from.app.Hex(),
		"to":                      d.to.app.Hex(),
		"data":                    "0x" + hex.EncodeToString([]byte(d.text)),
		"messageExecuted":         d.delivered != nil,
		"receipts":                receipts,
		// The reply brought both C->L1 receipts back; nothing returned
		// the reply's.
		"receiptDelivered": d.delivered != nil && d.from == sc.c,
		"rewardDetails": map[string]any{"address": d.from.token.Hex(), "name": "ICM fee " + d.from.name,
			"symbol": "FEE", "decimals": float64(6), "ercType": "ERC-20", "value": d.fee.String()},
		"sourceTransaction": map[string]any{"txHash": d.sent.TxHash.Hex(), "timestamp": blockTime(d.from, d.sent),
			"gasSpent": fmt.Sprint(d.sent.GasUsed)},
		"status": "pending",
	}
	if teleporter {
		w["teleporterContractAddress"] = contracts.ICMMessenger.Hex()
	} else {
		w["icmContractAddress"] = contracts.ICMMessenger.Hex()
	}
	if d.delivered != nil {
		w["status"] = "delivered"
		w["destinationTransaction"] = map[string]any{"txHash": d.delivered.TxHash.Hex(),
			"timestamp": blockTime(d.to, d.delivered), "gasSpent": fmt.Sprint(d.delivered.GasUsed),
			"rewardRedeemer": sc.relayer.Hex(), "delivererAddress": sc.l.Net.EthAddr.Hex()}
	}
	return w
}

// checkICMAPI checks the ICM and Teleporter operations against the
// scenario, each response validated against the reference schema.
func checkICMAPI(t *testing.T, ctx context.Context, base, dsn string, sc *icmScenario) {
	last := sc.msgs[len(sc.msgs)-1]
	waitEVMIndexed(t, dsn, sc.c.evmChainID, last.sent.BlockNumber.Uint64())
	waitEVMIndexed(t, dsn, sc.l1.evmChainID, sc.msgs[2].sent.BlockNumber.Uint64())
	byID := map[string]*icmDelivery{}
	for _, d := range sc.msgs {
		byID[hex.EncodeToString(d.id[:])] = d
	}
	getJSON := func(template, path string) (int, any) {
		status, body, _ := get(t, base+path)
		openapitest.ValidateResponse(t, "GET", template, status, body)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return status, v
	}
	for _, prefix := range []string{"icm", "teleporter"} {
		teleporter := prefix == "teleporter"
		for _, d := range sc.msgs {
			for _, id := range []string{hex.EncodeToString(d.id[:]), d.id.Hex()} {
				status, got := getJSON("/v1/"+prefix+"/messages/{messageId}", "/v1/"+prefix+"/messages/"+id)
				if want := icmWant(t, ctx, sc, d, teleporter); status != http.StatusOK || !reflect.DeepEqual(got, want) {
					t.Errorf("%s message %q (%s): %d\n got %v\nwant %v", prefix, d.text, id, status, got, want)
				}
			}
		}
		if status, _ := getJSON("/v1/"+prefix+"/messages/{messageId}", "/v1/"+prefix+"/messages/"+strings.Repeat("ab", 32)); status != http.StatusNotFound {
			t.Errorf("%s: an unknown message is %d, want 404", prefix, status)
		}
		if status, _ := getJSON("/v1/"+prefix+"/messages/{messageId}", "/v1/"+prefix+"/messages/xyz"); status != http.StatusBadRequest {
			t.Errorf("%s: a bad message id is %d, want 400", prefix, status)
		}

		// list returns the texts of the messages a list query selects,
		// following its pages of one.
		list := func(template, path string) []string {
			var texts []string
			token := ""
			for range 10 {
				u := path + "&pageSize=1"
				if token != "" {
					u += "&pageToken=" + token
				}
				status, v := getJSON(template, u)
				if status != http.StatusOK {
					t.Fatalf("%s: %d %v", u, status, v)
				}
				page := v.(map[string]any)
				for _, m := range page["messages"].([]any) {
					id := m.(map[string]any)["messageId"].(string)
					d, ok := byID[id]
					if !ok {
						continue // another test's message on the shared network
					}
					if want := icmWant(t, ctx, sc, d, teleporter); !reflect.DeepEqual(m, want) {
						t.Errorf("%s: %q\n got %v\nwant %v", u, d.text, m, want)
					}
					texts = append(texts, d.text)
				}
				next, _ := page["nextPageToken"].(string)
				if next == "" {
					return texts
				}
				token = next
			}
			t.Fatalf("%s: more pages than messages", path)
			return nil
		}
		all := []string{"hello L1", "retried on the L1", "hello C", "never relayed"}
		toL1 := []string{"hello L1", "retried on the L1", "never relayed"}
		msgs := "/v1/" + prefix + "/messages"
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"?network=testnet", all},
			{"?sourceBlockchainId=" + sc.c.blockchain.String(), toL1},
			{"?destinationBlockchainId=" + sc.c.blockchain.String(), []string{"hello C"}},
			{"?blockchainId=" + sc.l1.blockchain.String(), all},
			{"?sourceBlockchainId=0x" + hex.EncodeToString(sc.l1.blockchain[:]), []string{"hello C"}},
			{"?from=" + sc.l1.app.Hex(), []string{"hello C"}},
			{"?to=" + strings.ToLower(sc.l1.app.Hex()), toL1},
			{"?from=" + sc.c.app.Hex() + "&to=" + sc.c.app.Hex(), nil},
			{"?network=mainnet", nil},
		} {
			got := list(msgs, msgs+c.query)
			if !sameSet(got, c.want) {
				t.Errorf("%s%s: %q, want %q", msgs, c.query, got, c.want)
			}
		}
		byAddr := "/v1/" + prefix + "/addresses/{address}/messages"
		if got := list(byAddr, "/v1/"+prefix+"/addresses/"+sc.c.app.Hex()+"/messages?network=testnet"); !sameSet(got, all) {
			t.Errorf("%s by the C-chain's app: %q, want %q", prefix, got, all)
		}
		for _, q := range []string{msgs + "?from=0x12", msgs + "?blockchainId=nope", msgs + "?network=nowhere",
			"/v1/" + prefix + "/addresses/0x12/messages"} {
			tmpl := msgs
			if strings.Contains(q, "addresses") {
				tmpl = byAddr
			}
			if status, _ := getJSON(tmpl, q); status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", q, status)
			}
		}
	}
}

// sameSet is whether a and b hold the same strings, each once.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s] != 1 {
			return false
		}
		seen[s]--
	}
	return true
}

// runICMSDK runs tests/sdk/icm.test.mjs, the real SDK's calls of the ICM
// and Teleporter operations, against what the scenario did.
func runICMSDK(t *testing.T, ctx context.Context, base string, sc *icmScenario) {
	installSDK(t)
	type icmFacts struct {
		Messages []map[string]any `json:"messages"`
		CChain   string           `json:"cChain"`
		L1       string           `json:"l1"`
		CApp     string           `json:"cApp"`
		L1App    string           `json:"l1App"`
	}
	var facts struct {
		Network string   `json:"network"`
		ICM     icmFacts `json:"icm"`
	}
	facts.Network = "testnet"
	facts.ICM = icmFacts{CChain: sc.c.blockchain.String(), L1: sc.l1.blockchain.String(), CApp: sc.c.app.Hex(), L1App: sc.l1.app.Hex()}
	for _, d := range sc.msgs {
		facts.ICM.Messages = append(facts.ICM.Messages, icmWant(t, ctx, sc, d, false))
	}
	runSDK(t, ctx, base, writeFacts(t, facts), "icm.test.mjs")
}

// checkICMMetrics checks /v2/icm/timeseries and /v2/icm/summary against
// the scenario's sends: three C->L1 and one L1->C, at the blocks' times.
// Other tests' messages on the shared chains would count too, so the
// counts are of the scenario's pair of chains and at least its own.
func checkICMMetrics(t *testing.T, ctx context.Context, base string, sc *icmScenario) {
	doc := openapitest.Metrics(t)
	getM := func(path string) (int, map[string]any) {
		status, body, _ := get(t, base+path)
		doc.ValidateResponse(t, "GET", strings.SplitN(path, "?", 2)[0], status, body)
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return status, v
	}
	// The scenario's sends by hour, from the node's block times.
	want := map[string]float64{} // "src>dest@hour"
	var cToL1 float64
	for _, d := range sc.msgs {
		ec, err := ethclient.DialContext(ctx, d.from.rpc)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ec.HeaderByNumber(ctx, d.sent.BlockNumber)
		ec.Close()
		if err != nil {
			t.Fatal(err)
		}
		hour := int64(h.Time) / 3600 * 3600
		want[fmt.Sprintf("%s>%s@%d", d.from.blockchain, d.to.blockchain, hour)]++
		if d.from == sc.c {
			cToL1++
		}
	}
	c, l1 := sc.c.blockchain.String(), sc.l1.blockchain.String()
	status, v := getM("/v2/icm/timeseries?timeInterval=hour&groupBy=srcBlockchainId,destBlockchainId&srcBlockchainId=" + c + "&destBlockchainId=" + l1)
	if status != http.StatusOK {
		t.Fatalf("timeseries: %d %v", status, v)
	}
	var got float64
	for _, p := range v["results"].([]any) {
		m := p.(map[string]any)
		if m["srcBlockchainId"] != c || m["destBlockchainId"] != l1 {
			t.Errorf("timeseries point of another pair: %v", m)
		}
		key := fmt.Sprintf("%s>%s@%d", c, l1, int64(m["timestamp"].(float64)))
		if m["value"].(float64) < want[key] {
			t.Errorf("timeseries %s: %v, want at least %v", key, m["value"], want[key])
		}
		got += m["value"].(float64)
	}
	if got < cToL1 {
		t.Errorf("timeseries C->L1: %v messages in all, want at least %v", got, cToL1)
	}
	// The L1 sent only the scenario's reply (the L1 is this test's alone
	// for ICM): exactly one, on the day it was sent.
	status, v = getM("/v2/icm/timeseries?groupBy=destBlockchainId&srcBlockchainId=" + l1)
	if res := v["results"].([]any); status != http.StatusOK || len(res) != 1 ||
		res[0].(map[string]any)["value"].(float64) != 1 || res[0].(map[string]any)["destBlockchainId"] != c ||
		res[0].(map[string]any)["srcBlockchainId"] != l1 {
		t.Errorf("timeseries from the L1: %d %v", status, v)
	}
	status, v = getM("/v2/icm/summary?srcBlockchainId=" + l1)
	if r := v["result"].(map[string]any); status != http.StatusOK || r["allTime"].(float64) != 1 || r["lastDay"].(float64) != 1 ||
		r["lastYear"].(float64) != 1 || r["srcBlockchainId"] != l1 {
		t.Errorf("summary from the L1: %d %v", status, v)
	}
	status, v = getM("/v2/icm/summary?srcBlockchainId=" + c + "&destBlockchainId=" + l1)
	if r := v["result"].(map[string]any); status != http.StatusOK || r["allTime"].(float64) < cToL1 || r["lastWeek"].(float64) < cToL1 {
		t.Errorf("summary C->L1: %d %v", status, v)
	}
	if _, v = getM("/v2/icm/summary?network=mainnet"); v["result"].(map[string]any)["allTime"].(float64) != 0 {
		t.Errorf("summary of mainnet: %v", v)
	}
	// Pages of one walk the same points.
	var pages int
	tok := ""
	for {
		u := "/v2/icm/timeseries?timeInterval=hour&groupBy=srcBlockchainId&pageSize=1"
		if tok != "" {
			u += "&pageToken=" + tok
		}
		status, v := getM(u)
		if status != http.StatusOK || len(v["results"].([]any)) > 1 {
			t.Fatalf("%s: %d %v", u, status, v)
		}
		pages++
		next, _ := v["nextPageToken"].(string)
		if next == "" || pages > 1000 {
			break
		}
		tok = next
	}
	if pages < 2 {
		t.Errorf("hourly points by source in pages of one: %d pages, want at least 2 (two sources)", pages)
	}
	for _, q := range []string{"?srcBlockchainId=nope", "?groupBy=chain", "?timeInterval=year", "?startTimestamp=9&endTimestamp=3"} {
		if status, _ := getM("/v2/icm/timeseries" + q); status != http.StatusBadRequest {
			t.Errorf("timeseries%s: %d, want 400", q, status)
		}
	}
}

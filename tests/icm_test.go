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
	"github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// icmOnce runs the ICM scenario once per process (contracts.RunICM), its
// warp signatures aggregated by the avaindex that first asks.
var icmOnce struct {
	once sync.Once
	sc   *contracts.ICMRun
	err  error
}

func runICM(t *testing.T, l *testnet.EVML1, base string) *contracts.ICMRun {
	t.Helper()
	o := &icmOnce
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		o.sc, o.err = contracts.RunICM(ctx, l, func(ctx context.Context, logData []byte, signing *ids.ID) ([]byte, error) {
			return aggregateLogData(base, logData, signing)
		})
	})
	if o.err != nil {
		t.Fatalf("the ICM scenario: %v", o.err)
	}
	return o.sc
}

var l1ForICM *testnet.EVML1

// aggregateLogData has avaindex aggregate the signatures of the warp
// message given as its SendWarpMessage log's data, by signing's
// validators when not nil.
func aggregateLogData(base string, logData []byte, signing *ids.ID) ([]byte, error) {
	req := map[string]any{"message": hex.EncodeToString(logData)}
	if signing != nil {
		req["signingSubnetId"] = signing.String()
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
	sdkRan := testing.Short()
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base, stop := runService(t, 2*time.Minute, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, base, tip, time.Minute)
		sc := runICM(t, l, base)

		unpack := func(method string, out []byte) any {
			v, err := contracts.ICMApp.Unpack(method, out)
			if err != nil || len(v) != 1 {
				t.Fatalf("%s: %v %v", method, v, err)
			}
			return v[0]
		}
		app := func(e *contracts.ICMEnd, method string) any {
			return unpack(method, icmCall(t, ctx, e.RPC, e.App, contracts.ICMApp.Call(method)))
		}
		if got := app(sc.L1, "received").(*big.Int); got.Int64() != 2 {
			t.Errorf("the L1's app received %d messages, want 2", got)
		}
		if got := app(sc.L1, "lastMessage").(string); got != "retried on the L1" {
			t.Errorf("the L1's app's last message %q", got)
		}
		if got := app(sc.C, "lastMessage").(string); got != "hello C" {
			t.Errorf("the C-chain's app's last message %q", got)
		}
		if got := app(sc.C, "lastSender").(common.Address); got != sc.L1.App {
			t.Errorf("the C-chain's app's last sender %s, want the L1's app %s", got, sc.L1.App)
		}
		checkICMAPI(t, ctx, base, dsn, sc)
		checkICMMetrics(t, ctx, base, sc)
		if !sdkRan {
			sdkRan = true
			runICMSDK(t, ctx, base, sc)
		} else {
			// The other store plays one indexed before migration 0031:
			// no ICM rows, the backfill asked for; restarted, the
			// indexers decode the stored logs and the API answers the
			// same.
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			asBeforeICM(t, ctx, dsn)
			base, _ = runService(t, 2*time.Minute, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
			waitICMBackfilled(t, ctx, dsn)
			checkICMAPI(t, ctx, base, dsn, sc)
		}

		reward := new(big.Int).SetBytes(icmCall(t, ctx, sc.C.RPC, contracts.ICMMessenger,
			contracts.CheckRelayerRewardAmount(sc.Relayer, sc.C.Token)))
		if want := new(big.Int).Mul(contracts.ICMFee, big.NewInt(2)); reward.Cmp(want) != 0 {
			t.Errorf("the relayer may redeem %s of the C-chain's fee token, want %s", reward, want)
		}
	})
}

// icmWant is a message of the scenario as the Data API should show it,
// from the chains' receipts and the node's blocks.
func icmWant(t *testing.T, ctx context.Context, sc *contracts.ICMRun, d *contracts.ICMDelivery, teleporter bool) map[string]any {
	t.Helper()
	blockTime := func(e *contracts.ICMEnd, r *types.Receipt) float64 {
		ec, err := ethclient.DialContext(ctx, e.RPC)
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
	for _, r := range d.Message.Receipts {
		receipts = append(receipts, map[string]any{"receivedMessageNonce": r.ReceivedMessageNonce.String(),
			"relayerRewardAddress": r.RelayerRewardAddress.Hex()})
	}
	w := map[string]any{
		"messageId":               hex.EncodeToString(d.ID[:]),
		"sourceBlockchainId":      d.From.Blockchain.String(),
		"destinationBlockchainId": d.To.Blockchain.String(),
		"sourceEvmChainId":        fmt.Sprint(d.From.EVMChainID),
		"destinationEvmChainId":   fmt.Sprint(d.To.EVMChainID),
		"messageNonce":            d.Message.MessageNonce.String(),
		"from":                    d.From.App.Hex(),
		"to":                      d.To.App.Hex(),
		"data":                    "0x" + hex.EncodeToString([]byte(d.Text)),
		"messageExecuted":         d.Delivered != nil,
		"receipts":                receipts,
		// The reply brought both C->L1 receipts back; nothing returned
		// the reply's.
		"receiptDelivered": d.Delivered != nil && d.From == sc.C,
		"rewardDetails": map[string]any{"address": d.From.Token.Hex(), "name": "ICM fee " + d.From.Name,
			"symbol": "FEE", "decimals": float64(6), "ercType": "ERC-20", "value": d.Fee.String()},
		"sourceTransaction": map[string]any{"txHash": d.Sent.TxHash.Hex(), "timestamp": blockTime(d.From, d.Sent),
			"gasSpent": fmt.Sprint(d.Sent.GasUsed)},
		"status": "pending",
	}
	if teleporter {
		w["teleporterContractAddress"] = contracts.ICMMessenger.Hex()
	} else {
		w["icmContractAddress"] = contracts.ICMMessenger.Hex()
	}
	if d.Delivered != nil {
		w["status"] = "delivered"
		w["destinationTransaction"] = map[string]any{"txHash": d.Delivered.TxHash.Hex(),
			"timestamp": blockTime(d.To, d.Delivered), "gasSpent": fmt.Sprint(d.Delivered.GasUsed),
			"rewardRedeemer": sc.Relayer.Hex(), "delivererAddress": sc.L.Net.EthAddr.Hex()}
	}
	return w
}

// checkICMAPI checks the ICM and Teleporter operations against the
// scenario, each response validated against the reference schema.
func checkICMAPI(t *testing.T, ctx context.Context, base, dsn string, sc *contracts.ICMRun) {
	last := sc.Msgs[len(sc.Msgs)-1]
	waitEVMIndexed(t, dsn, sc.C.EVMChainID, last.Sent.BlockNumber.Uint64())
	waitEVMIndexed(t, dsn, sc.L1.EVMChainID, sc.Msgs[2].Sent.BlockNumber.Uint64())
	byID := map[string]*contracts.ICMDelivery{}
	for _, d := range sc.Msgs {
		byID[hex.EncodeToString(d.ID[:])] = d
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
	// getTransaction's teleporterMessageInfo, on both ends of each
	// direction.
	for _, d := range sc.Msgs {
		ends := []struct {
			e         *contracts.ICMEnd
			r         *types.Receipt
			direction string
			other     string
			otherID   ids.ID
		}{{d.From, d.Sent, "SOURCE_TRANSACTION", "destinationChainId", d.To.Blockchain}}
		if d.Delivered != nil {
			ends = append(ends, struct {
				e         *contracts.ICMEnd
				r         *types.Receipt
				direction string
				other     string
				otherID   ids.ID
			}{d.To, d.Delivered, "DESTINATION_TRANSACTION", "sourceChainId", d.From.Blockchain})
		}
		for _, end := range ends {
			path := fmt.Sprintf("/v1/chains/%d/transactions/%s", end.e.EVMChainID, end.r.TxHash.Hex())
			status, v := getJSON("/v1/chains/{chainId}/transactions/{txHash}", path)
			info, _ := v.(map[string]any)["teleporterMessageInfo"].(map[string]any)
			if status != http.StatusOK || info["teleporterMessageId"] != hex.EncodeToString(d.ID[:]) ||
				info["direction"] != end.direction || info[end.other] != end.otherID.String() {
				t.Errorf("%q on the %s: teleporterMessageInfo %v (%d)", d.Text, end.e.Name, info, status)
			}
		}
	}

	for _, prefix := range []string{"icm", "teleporter"} {
		teleporter := prefix == "teleporter"
		for _, d := range sc.Msgs {
			for _, id := range []string{hex.EncodeToString(d.ID[:]), d.ID.Hex()} {
				status, got := getJSON("/v1/"+prefix+"/messages/{messageId}", "/v1/"+prefix+"/messages/"+id)
				if want := icmWant(t, ctx, sc, d, teleporter); status != http.StatusOK || !reflect.DeepEqual(got, want) {
					t.Errorf("%s message %q (%s): %d\n got %v\nwant %v", prefix, d.Text, id, status, got, want)
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
						t.Errorf("%s: %q\n got %v\nwant %v", u, d.Text, m, want)
					}
					texts = append(texts, d.Text)
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
			{"?sourceBlockchainId=" + sc.C.Blockchain.String(), toL1},
			{"?destinationBlockchainId=" + sc.C.Blockchain.String(), []string{"hello C"}},
			{"?blockchainId=" + sc.L1.Blockchain.String(), all},
			{"?sourceBlockchainId=0x" + hex.EncodeToString(sc.L1.Blockchain[:]), []string{"hello C"}},
			{"?from=" + sc.L1.App.Hex(), []string{"hello C"}},
			{"?to=" + strings.ToLower(sc.L1.App.Hex()), toL1},
			{"?from=" + sc.C.App.Hex() + "&to=" + sc.C.App.Hex(), nil},
			{"?network=mainnet", nil},
		} {
			got := list(msgs, msgs+c.query)
			if !sameSet(got, c.want) {
				t.Errorf("%s%s: %q, want %q", msgs, c.query, got, c.want)
			}
		}
		byAddr := "/v1/" + prefix + "/addresses/{address}/messages"
		if got := list(byAddr, "/v1/"+prefix+"/addresses/"+sc.C.App.Hex()+"/messages?network=testnet"); !sameSet(got, all) {
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
func runICMSDK(t *testing.T, ctx context.Context, base string, sc *contracts.ICMRun) {
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
	facts.ICM = icmFacts{CChain: sc.C.Blockchain.String(), L1: sc.L1.Blockchain.String(), CApp: sc.C.App.Hex(), L1App: sc.L1.App.Hex()}
	for _, d := range sc.Msgs {
		facts.ICM.Messages = append(facts.ICM.Messages, icmWant(t, ctx, sc, d, false))
	}
	runSDK(t, ctx, base, writeFacts(t, facts), "icm.test.mjs")
}

// checkICMMetrics checks /v2/icm/timeseries and /v2/icm/summary against
// the scenario's sends: three C->L1 and one L1->C, at the blocks' times.
// Other tests' messages on the shared chains would count too, so the
// counts are of the scenario's pair of chains and at least its own.
func checkICMMetrics(t *testing.T, ctx context.Context, base string, sc *contracts.ICMRun) {
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
	for _, d := range sc.Msgs {
		ec, err := ethclient.DialContext(ctx, d.From.RPC)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ec.HeaderByNumber(ctx, d.Sent.BlockNumber)
		ec.Close()
		if err != nil {
			t.Fatal(err)
		}
		hour := int64(h.Time) / 3600 * 3600
		want[fmt.Sprintf("%s>%s@%d", d.From.Blockchain, d.To.Blockchain, hour)]++
		if d.From == sc.C {
			cToL1++
		}
	}
	c, l1 := sc.C.Blockchain.String(), sc.L1.Blockchain.String()
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

// asBeforeICM makes the store at dsn look indexed before migration 0031:
// its ICM rows gone and the backfill of every EVM chain's stored blocks
// asked for, as the migration asks.
func asBeforeICM(t *testing.T, ctx context.Context, dsn string) {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"DELETE FROM evm_icm_events",
		"INSERT INTO evm_icm_backfill (chain_id, up_to) SELECT chain_id, MAX(number) FROM evm_blocks GROUP BY chain_id"} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// waitICMBackfilled waits until no ICM backfill is left in the store.
func waitICMBackfilled(t *testing.T, ctx context.Context, dsn string) {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM evm_icm_backfill").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ICM backfills left after a minute", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

package nodeapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
)

// configRoutes returns network's P- and X-chain routes as the service
// builds them (the store is not read by the configuration calls), with a
// stand-in node behind them.
func configRoutes(t *testing.T, network *internal.Network) (p, x *forwardHandler, fake *recordingNode) {
	t.Helper()
	fake = &recordingNode{answer: func(string, []byte) string {
		return `{"jsonrpc":"2.0","result":{"from":"node"},"id":1}`
	}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	platform, err := NewPlatformHandler(nil, nil, network, nil)
	if err != nil {
		t.Fatal(err)
	}
	avm, err := NewAVMHandler(nil, network, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pass := node.NewForwarder(srv.URL)
	p = NewForwardHandler(pass, nil, Forward{Path: "/ext/bc/P", Local: platform, Service: "platform",
		Served: []string{"platform.getFeeConfig", "platform.getValidatorFeeConfig", "platform.getMinStake"},
		Also:   ConfigForwarded(network)}).(*forwardHandler)
	x = NewForwardHandler(pass, nil, Forward{Path: "/ext/bc/X", Local: avm, Service: "avm",
		Served: []string{"avm.getTxFee"}, Also: ConfigForwarded(network)}).(*forwardHandler)
	return p, x, fake
}

// TestConfigServedOnPublicNetworks: on mainnet and Fuji the fee and
// staking configuration is answered without the node, with the values
// Avalanche publishes for them (ACP-103 and ACP-77 fees, the staking
// minimums of the docs); a subnet's getMinStake still goes to the node.
func TestConfigServedOnPublicNetworks(t *testing.T) {
	const avax = 1_000_000_000
	for _, tc := range []struct {
		network        *internal.Network
		minVdr, minDel uint64
		createAssetFee uint64
		// The L1 validator fee doubles every day on mainnet, every hour on Fuji.
		validatorExcessConstant uint64
	}{
		{&internal.Network{ID: constants.MainnetID, Name: "mainnet"}, 2000 * avax, 25 * avax, 10 * avax / 1000, 1_246_488_515},
		{&internal.Network{ID: constants.FujiID, Name: "fuji"}, 1 * avax, 1 * avax, 10 * avax / 1000, 51_937_021},
	} {
		p, x, fake := configRoutes(t, tc.network)
		result := func(h *forwardHandler, method, params string, into any) {
			t.Helper()
			status, body := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`, nil)
			var env struct{ Result json.RawMessage }
			if err := json.Unmarshal([]byte(body), &env); status != 200 || err != nil || env.Result == nil {
				t.Fatalf("%s %s: HTTP %d %s", tc.network.Name, method, status, body)
			}
			if err := json.Unmarshal(env.Result, into); err != nil {
				t.Fatalf("%s %s: %v in %s", tc.network.Name, method, err, env.Result)
			}
		}
		var fees struct {
			Weights                                                                        [4]uint64
			MaxCapacity, MaxPerSecond, TargetPerSecond, MinPrice, ExcessConversionConstant uint64
		}
		result(p, "platform.getFeeConfig", `{}`, &fees)
		if fees.Weights != [4]uint64{1, 1000, 1000, 4} || fees.MaxCapacity != 1_000_000 || fees.MaxPerSecond != 100_000 ||
			fees.TargetPerSecond != 50_000 || fees.MinPrice != 1 || fees.ExcessConversionConstant != 2_164_043 {
			t.Errorf("%s getFeeConfig = %+v", tc.network.Name, fees)
		}
		var vfees struct{ Capacity, Target, MinPrice, ExcessConversionConstant uint64 }
		result(p, "platform.getValidatorFeeConfig", `{}`, &vfees)
		if vfees.Capacity != 20_000 || vfees.Target != 10_000 || vfees.MinPrice != 512 || vfees.ExcessConversionConstant != tc.validatorExcessConstant {
			t.Errorf("%s getValidatorFeeConfig = %+v", tc.network.Name, vfees)
		}
		var stake struct{ MinValidatorStake, MinDelegatorStake string }
		result(p, "platform.getMinStake", `{}`, &stake)
		want := struct{ MinValidatorStake, MinDelegatorStake string }{jsonU64(tc.minVdr), jsonU64(tc.minDel)}
		if stake != want {
			t.Errorf("%s getMinStake = %+v, want %+v", tc.network.Name, stake, want)
		}
		result(p, "platform.getMinStake", `{"subnetID":"11111111111111111111111111111111LpoYY"}`, &stake)
		if stake != want {
			t.Errorf("%s getMinStake(primary) = %+v, want %+v", tc.network.Name, stake, want)
		}
		var txFee struct{ TxFee, CreateAssetTxFee string }
		result(x, "avm.getTxFee", `{}`, &txFee)
		if txFee.TxFee != jsonU64(avax/1000) || txFee.CreateAssetTxFee != jsonU64(tc.createAssetFee) {
			t.Errorf("%s getTxFee = %+v", tc.network.Name, txFee)
		}
		if got := fake.calls(); len(got) != 0 {
			t.Fatalf("%s: the node was asked %q", tc.network.Name, got)
		}
		// An elastic subnet's minimums are in its TransformSubnetTx: the node's.
		subnet := ids.GenerateTestID()
		if _, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"platform.getMinStake","params":{"subnetID":"`+subnet.String()+`"}}`, nil); !strings.Contains(body, `"from":"node"`) {
			t.Errorf("%s getMinStake(subnet) = %s, want the node's answer", tc.network.Name, body)
		}
		// A bad subnet id is answered here, in the node's words.
		if _, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"platform.getMinStake","params":{"subnetID":"nope"}}`, nil); !strings.Contains(body, `"error"`) || strings.Contains(body, `"from":"node"`) {
			t.Errorf("%s getMinStake(bad id) = %s, want a local error", tc.network.Name, body)
		}
	}
}

// TestConfigForwardedElsewhere: on any other network the node's flags
// decide the configuration, so the calls go to the node; the store's
// service alone says they are the node's.
func TestConfigForwardedElsewhere(t *testing.T) {
	network := &internal.Network{ID: constants.LocalID, Name: "local"}
	p, x, fake := configRoutes(t, network)
	for _, c := range []struct {
		h      *forwardHandler
		method string
	}{{p, "platform.getFeeConfig"}, {p, "platform.getValidatorFeeConfig"}, {p, "platform.getMinStake"}, {x, "avm.getTxFee"}} {
		before := len(fake.calls())
		if _, body := post(t, c.h, `{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":{}}`, nil); !strings.Contains(body, `"from":"node"`) || len(fake.calls()) != before+1 {
			t.Errorf("%s = %s, want the node's answer", c.method, body)
		}
	}
	for _, c := range []struct {
		h      http.Handler
		method string
	}{{p.f.Local, "platform.getFeeConfig"}, {p.f.Local, "platform.getValidatorFeeConfig"}, {p.f.Local, "platform.getMinStake"}, {x.f.Local, "avm.getTxFee"}} {
		if _, res, msg := call(t, c.h, c.method, `{}`); res != "" || !strings.Contains(msg, "is the node's configuration") {
			t.Errorf("local %s = %s %q, want an error saying it is the node's", c.method, res, msg)
		}
	}
}

func jsonU64(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	pblock "github.com/ava-labs/avalanchego/vms/platformvm/block"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// l1Validation is what the node tells of an L1 validation at a P-chain
// height: from its blocks, what was deposited into its balance and whom
// it validates; from platform.getL1Validator, its balance (0 once
// removed); from its refund UTXOs (held by the owners or spent since), what
// was paid back. What it paid in fees is the rest.
type l1Validation struct {
	ID       ids.ID
	Subnet   ids.ID
	Node     ids.NodeID
	FirstDay int64 // the UTC day of its registration block
	Deposits uint64
	Refunds  uint64
	Balance  uint64
}

func (v *l1Validation) fees() uint64 { return v.Deposits - v.Refunds - v.Balance }

// l1NodeFacts is the node's L1 validations at P-chain height Height, whose
// block's UTC day is TipDay.
type l1NodeFacts struct {
	Height      uint64
	TipDay      int64
	Validations map[ids.ID]*l1Validation
}

// l1FactsFromNode reads the L1 validations off the node at its tip; false
// when the tip moved while they were read.
func l1FactsFromNode(t *testing.T, n *testnet.Network) (*l1NodeFacts, bool) {
	t.Helper()
	ctx := t.Context()
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := &l1NodeFacts{Height: tip, Validations: map[ids.ID]*l1Validation{}}
	refundOf := map[ids.ID]ids.ID{} // refunding tx -> validation
	refundOuts := map[ids.ID]uint32{}
	var owners []ids.ShortID
	add := func(id, subnet ids.ID, node []byte, day int64, balance uint64) {
		nid, err := ids.ToNodeID(node)
		if err != nil {
			t.Fatal(err)
		}
		f.Validations[id] = &l1Validation{ID: id, Subnet: subnet, Node: nid, FirstDay: day, Deposits: balance}
	}
	refund := func(tx *ptxs.Tx, vid ids.ID) {
		refundOf[tx.ID()], refundOuts[tx.ID()] = vid, uint32(len(tx.Unsigned.Outputs()))
	}
	for h := uint64(1); h <= tip; h++ {
		raw, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pblock.Parse(pblock.Codec, raw)
		if err != nil {
			t.Fatal(err)
		}
		var day int64
		if b, ok := blk.(pblock.BanffBlock); ok {
			day = b.Timestamp().UTC().Truncate(24 * time.Hour).Unix()
		}
		if h == tip {
			f.TipDay = day
		}
		for _, tx := range blk.Txs() {
			for _, in := range inputsOf(tx.Unsigned) {
				if vid, ok := refundOf[in.TxID]; ok && in.OutputIndex >= refundOuts[in.TxID] {
					f.Validations[vid].Refunds += in.In.Amount()
				}
			}
			switch u := tx.Unsigned.(type) {
			case *ptxs.ConvertSubnetToL1Tx:
				for i, v := range u.Validators {
					add(u.Subnet.Append(uint32(i)), u.Subnet, v.NodeID, day, v.Balance)
					owners = append(owners, v.RemainingBalanceOwner.Addresses...)
				}
			case *ptxs.RegisterL1ValidatorTx:
				reg := registeredValidation(t, u.Message)
				add(reg.ValidationID(), reg.SubnetID, reg.NodeID, day, u.Balance)
				owners = append(owners, reg.RemainingBalanceOwner.Addresses...)
			case *ptxs.IncreaseL1ValidatorBalanceTx:
				f.Validations[u.ValidationID].Deposits += u.Balance
			case *ptxs.DisableL1ValidatorTx:
				refund(tx, u.ValidationID)
			case *ptxs.SetL1ValidatorWeightTx:
				w := l1WeightMessage(t, u.Message)
				if w.Weight == 0 {
					refund(tx, w.ValidationID)
				}
			}
		}
	}
	for id, v := range f.Validations {
		nv, height, err := pc.GetL1Validator(ctx, id)
		if err != nil && strings.Contains(err.Error(), "not found") {
			continue // removed: it holds nothing
		}
		if err != nil {
			t.Fatal(err)
		}
		if height != tip {
			return nil, false
		}
		v.Balance = nv.Balance
	}
	if len(owners) > 0 && len(refundOf) > 0 {
		utxos, _, _, err := pc.GetUTXOs(ctx, owners, 1024, ids.ShortEmpty, ids.Empty)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range utxos {
			var u avax.UTXO
			if _, err := ptxs.Codec.Unmarshal(b, &u); err != nil {
				t.Fatal(err)
			}
			if vid, ok := refundOf[u.TxID]; ok && u.OutputIndex >= refundOuts[u.TxID] {
				f.Validations[vid].Refunds += u.Out.(avax.Amounter).Amount()
			}
		}
	}
	now, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return f, now == tip
}

// l1WeightMessage is the L1ValidatorWeight a SetL1ValidatorWeightTx's
// warp message carries.
func l1WeightMessage(t *testing.T, msg []byte) *message.L1ValidatorWeight {
	t.Helper()
	wm, err := warp.ParseMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	call, err := payload.ParseAddressedCall(wm.Payload)
	if err != nil {
		t.Fatal(err)
	}
	w, err := message.ParseL1ValidatorWeight(call.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type metricsSeries struct {
	NextPageToken string `json:"nextPageToken"`
	Results       []struct {
		Value     float64 `json:"value"`
		Timestamp int64   `json:"timestamp"`
	} `json:"results"`
}

// metricsV2 answers a Metrics API v2 path, validated against the
// reference schema, with status want.
func metricsV2(t *testing.T, doc *openapitest.Doc, base, path string, want int) ([]byte, metricsSeries) {
	t.Helper()
	status, body, _ := get(t, base+path)
	u, err := url.Parse(base + path)
	if err != nil {
		t.Fatal(err)
	}
	if status != want {
		t.Fatalf("GET %s: %d %s, want %d", path, status, body, want)
	}
	doc.ValidateResponse(t, "GET", u.Path, status, body)
	var s metricsSeries
	if status == http.StatusOK {
		if err := json.Unmarshal(body, &s); err != nil {
			t.Fatal(err)
		}
	}
	return body, s
}

// l1Answers are the index's answers for the L1 validator metrics.
type l1Answers struct {
	today     int64
	series    map[string]metricsSeries // by path
	readAfter time.Time
}

// TestL1ValidatorMetrics checks the four L1 validator metrics against the
// node on the shared L1 network, on both stores. It registers a validation
// whose balance it increases and one it disables (a refund), so that
// every kind of balance change is there, then, at a P-chain height where
// the node is quiet, compares what every validation paid (its deposits
// less its refunds and its balance, from the node) with the validation's
// cumulative fees, each node's and subnet's sums and the total; and, for
// validations registered today, today's fees and paying validators.
func TestL1ValidatorMetrics(t *testing.T) {
	l := testnet.GetL1(t)
	doc := openapitest.Metrics(t)
	ctx := t.Context()
	// An L1 of this test's own on the shared network: validators of
	// random node ids added to the subnet-evm L1 would join the validator
	// set its chain and warp tests rely on.
	own, err := l.Net.CreateL1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := l.Net.RegisterL1Validator(ctx, own, 1, units.MilliAvax)
	if err != nil {
		t.Fatal(err)
	}
	// The fee accrues with the chain time, which the blocks' times move:
	// a few seconds between the txs, so that each validation pays some
	// (1 nAVAX a second on the local network) before and after a change.
	accrue := func() { time.Sleep(3 * time.Second) }
	accrue()
	if _, err := l.Net.IncreaseL1ValidatorBalance(ctx, kept.ValidationID, 1000); err != nil {
		t.Fatal(err)
	}
	accrue()
	gone, err := l.Net.RegisterL1Validator(ctx, own, 1, units.MilliAvax)
	if err != nil {
		t.Fatal(err)
	}
	accrue()
	if _, err := l.Net.DisableL1Validator(ctx, gone.ValidationID); err != nil {
		t.Fatal(err)
	}
	first := true
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		var f *l1NodeFacts
		var got l1Answers
		for attempt := 0; ; attempt++ {
			var quiet bool
			if f, quiet = l1FactsFromNode(t, l.Net); quiet {
				waitIndexed(t, base, f.Height, 2*time.Minute)
				got = readL1Answers(t, doc, base, f)
				if h, err := platformvm.NewClient(l.URL).GetHeight(ctx); err != nil {
					t.Fatal(err)
				} else if h == f.Height {
					break
				}
			}
			if attempt == 30 {
				t.Fatal("the P-chain never stayed at a height while the metrics were read")
			}
		}
		checkL1Answers(t, f, got, kept.ValidationID, gone.ValidationID)
		checkL1BadRequests(t, doc, base, kept.ValidationID)
		if first {
			first = false
			runL1MetricsSDK(t, base, f, kept.ValidationID, got)
		}
	})
}

func l1Paths(f *l1NodeFacts) []string {
	paths := []string{"/v2/validators/metrics/totalCumulativeFeesDaily", "/v2/validators/metrics/totalValidatorFeesDaily",
		"/v2/validators/metrics/totalPayingValidatorsDaily"}
	nodes, subnets := map[ids.NodeID]bool{}, map[ids.ID]bool{}
	for id, v := range f.Validations {
		paths = append(paths, "/v2/validation/"+id.String()+"/metrics/validationCumulativeFeesDaily",
			"/v2/validation/"+id.String()+"/metrics/validationFeesDaily")
		nodes[v.Node], subnets[v.Subnet] = true, true
	}
	for n := range nodes {
		paths = append(paths, "/v2/validator/"+n.String()+"/metrics/perNodeCumulativeFeesPaid",
			"/v2/validator/"+n.String()+"/metrics/perNodeDailyFeesPaid")
	}
	for s := range subnets {
		for _, m := range []string{"perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"} {
			paths = append(paths, "/v2/subnet/"+s.String()+"/metrics/"+m)
		}
	}
	return paths
}

func readL1Answers(t *testing.T, doc *openapitest.Doc, base string, f *l1NodeFacts) l1Answers {
	t.Helper()
	a := l1Answers{series: map[string]metricsSeries{}, today: time.Now().UTC().Truncate(24 * time.Hour).Unix()}
	for _, p := range l1Paths(f) {
		_, a.series[p] = metricsV2(t, doc, base, p, http.StatusOK)
	}
	a.readAfter = time.Now()
	return a
}

// checkL1Answers compares the answers with the node's facts: each series
// is one point a day, newest first, from the first day of its
// validations to today; the cumulative value of today is what they paid,
// and it is the sum of the daily values; today's fees and paying count
// are the node's when every validation of the series is today's.
func checkL1Answers(t *testing.T, f *l1NodeFacts, a l1Answers, kept, gone ids.ID) {
	t.Helper()
	if a.readAfter.UTC().Truncate(24*time.Hour).Unix() != a.today {
		t.Skip("the answers were read across midnight UTC")
	}
	if v := f.Validations[gone]; v == nil || v.Refunds == 0 || v.Balance != 0 || v.fees() == 0 {
		t.Errorf("the disabled validation %s: %+v, want a refund, no balance and some fees", gone, v)
	}
	if v := f.Validations[kept]; v == nil || v.Deposits != units.MilliAvax+1000 || v.Balance == 0 || v.fees() == 0 {
		t.Errorf("the kept validation %s: %+v, want its deposits, a balance and some fees", kept, v)
	}
	check := func(path string, vs []*l1Validation, cumulative, daily, paying string) {
		var fees uint64
		firstDay := a.today
		allToday := f.TipDay == a.today
		nPaying := 0
		for _, v := range vs {
			fees += v.fees()
			firstDay = min(firstDay, v.FirstDay)
			allToday = allToday && v.FirstDay == a.today
			if v.fees() > 0 {
				nPaying++
			}
		}
		cum, day := a.series[path+cumulative], a.series[path+daily]
		for _, s := range []metricsSeries{cum, day} {
			if len(s.Results) == 0 || s.Results[0].Timestamp != a.today || s.Results[len(s.Results)-1].Timestamp != firstDay {
				t.Errorf("%s: %d days, want today %d back to %d: %+v", path, len(s.Results), a.today, firstDay, s.Results)
				return
			}
			for i := 1; i < len(s.Results); i++ {
				if s.Results[i].Timestamp != s.Results[i-1].Timestamp-86400 {
					t.Errorf("%s: days not consecutive, newest first: %+v", path, s.Results)
				}
			}
		}
		if got := cum.Results[0].Value; got != float64(fees) {
			t.Errorf("%s%s today = %v, the node's validations paid %d", path, cumulative, got, fees)
		}
		sum := 0.0
		for _, p := range day.Results {
			sum += p.Value
		}
		if sum != float64(fees) {
			t.Errorf("%s%s sum to %v, the node's validations paid %d", path, daily, sum, fees)
		}
		if allToday && day.Results[0].Value != float64(fees) {
			t.Errorf("%s%s today = %v, want %d (all today's)", path, daily, day.Results[0].Value, fees)
		}
		if paying != "" && allToday {
			if got := a.series[path+paying].Results[0].Value; got != float64(nPaying) {
				t.Errorf("%s%s today = %v, want %d", path, paying, got, nPaying)
			}
		}
	}
	var all []*l1Validation
	byNode, bySubnet := map[ids.NodeID][]*l1Validation{}, map[ids.ID][]*l1Validation{}
	for id, v := range f.Validations {
		all = append(all, v)
		byNode[v.Node] = append(byNode[v.Node], v)
		bySubnet[v.Subnet] = append(bySubnet[v.Subnet], v)
		check("/v2/validation/"+id.String()+"/metrics/", []*l1Validation{v}, "validationCumulativeFeesDaily", "validationFeesDaily", "")
	}
	for n, vs := range byNode {
		check("/v2/validator/"+n.String()+"/metrics/", vs, "perNodeCumulativeFeesPaid", "perNodeDailyFeesPaid", "")
	}
	for s, vs := range bySubnet {
		check("/v2/subnet/"+s.String()+"/metrics/", vs, "perSubnetCumulativeFeesPaid", "perSubnetDailyFeesPaid", "perSubnetPayingValidators")
	}
	check("/v2/validators/metrics/", all, "totalCumulativeFeesDaily", "totalValidatorFeesDaily", "totalPayingValidatorsDaily")
	t.Logf("%d L1 validations at P-chain height %d; the kept one paid %d nAVAX", len(all), f.Height, f.Validations[kept].fees())
}

// checkL1BadRequests checks the 400s (naming the parameter) and the 404
// of an unknown validation.
func checkL1BadRequests(t *testing.T, doc *openapitest.Doc, base string, vid ids.ID) {
	t.Helper()
	for _, c := range []struct{ path, names string }{
		{"/v2/validators/metrics/validationFeesDaily", "metric"},
		{"/v2/validation/" + vid.String() + "/metrics/totalValidatorFeesDaily", "metric"},
		{"/v2/validator/NodeID-111111111111111111116DBWJs/metrics/perSubnetDailyFeesPaid", "metric"},
		{"/v2/subnet/" + vid.String() + "/metrics/perNodeDailyFeesPaid", "metric"},
		{"/v2/validation/nope/metrics/validationFeesDaily", "l1ValidationId"},
		{"/v2/validator/nope/metrics/perNodeDailyFeesPaid", "nodeId"},
		{"/v2/subnet/nope/metrics/perSubnetDailyFeesPaid", "subnetId"},
		{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=-1", "startTimestamp"},
		{"/v2/validators/metrics/totalValidatorFeesDaily?endTimestamp=x", "endTimestamp"},
		{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=20&endTimestamp=10", "startTimestamp"},
		{"/v2/validators/metrics/totalValidatorFeesDaily?pageSize=10", "pageSize"},
	} {
		body, _ := metricsV2(t, doc, base, c.path, http.StatusBadRequest)
		if !strings.Contains(string(body), c.names) {
			t.Errorf("GET %s: %s does not name %s", c.path, body, c.names)
		}
	}
	body, _ := metricsV2(t, doc, base, "/v2/validation/"+ids.GenerateTestID().String()+"/metrics/validationFeesDaily", http.StatusNotFound)
	if !strings.Contains(string(body), "l1ValidationId") {
		t.Errorf("404 %s does not name l1ValidationId", body)
	}
}

// sdkL1MetricsFacts are what tests/sdk/l1metrics.test.mjs asserts.
type sdkL1MetricsFacts struct {
	Network string `json:"network"`
	L1Fees  struct {
		ValidationID string `json:"validationId"`
		NodeID       string `json:"nodeId"`
		SubnetID     string `json:"subnetId"`
		Today        int64  `json:"today"`
		FirstDay     int64  `json:"firstDay"`
		// Paid is what the validation had paid at Height (the node's);
		// Deposits bound what it can have paid later.
		Paid     uint64 `json:"paid"`
		Deposits uint64 `json:"deposits"`
		// SubnetPaid and TotalPaid are the subnet's and every
		// validation's fees at Height, as the index answered them.
		SubnetPaid float64 `json:"subnetPaid"`
		TotalPaid  float64 `json:"totalPaid"`
	} `json:"l1Fees"`
}

// runL1MetricsSDK calls the four operations through the SDK.
func runL1MetricsSDK(t *testing.T, base string, f *l1NodeFacts, kept ids.ID, a l1Answers) {
	t.Helper()
	installSDK(t)
	v := f.Validations[kept]
	var facts sdkL1MetricsFacts
	facts.Network = "testnet"
	facts.L1Fees.ValidationID, facts.L1Fees.NodeID, facts.L1Fees.SubnetID = kept.String(), v.Node.String(), v.Subnet.String()
	facts.L1Fees.Today, facts.L1Fees.FirstDay, facts.L1Fees.Paid, facts.L1Fees.Deposits = a.today, v.FirstDay, v.fees(), v.Deposits
	facts.L1Fees.SubnetPaid = a.series["/v2/subnet/"+v.Subnet.String()+"/metrics/perSubnetCumulativeFeesPaid"].Results[0].Value
	facts.L1Fees.TotalPaid = a.series["/v2/validators/metrics/totalCumulativeFeesDaily"].Results[0].Value
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runSDK(t, ctx, base, writeFacts(t, facts), "l1metrics.test.mjs")
}

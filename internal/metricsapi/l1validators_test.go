package metricsapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// TestL1ValidatorMetrics serves the four operations over a fee history
// written row by row: two validations of node A on subnet S (one topped
// up, then run out; one disabled) and one of node B on subnet T; the fee
// total moved 100 on March 1st, 0 on the 2nd (no block), 300 on the 3rd.
// The values are worked out by hand below.
func TestL1ValidatorMetrics(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := database.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx, store.Migrations()); err != nil {
			t.Fatal(err)
		}
		st := store.New(db)
		t.Cleanup(func() { st.Close() })
		d1, d3 := utc(1, 0, 0, 0).Unix(), utc(3, 0, 0, 0).Unix()
		v1, v2, v3 := ids.ID{1}, ids.ID{2}, ids.ID{3}
		nodeA, nodeB := ids.NodeID{0xa}, ids.NodeID{0xb}
		subS, subT := ids.ID{'S'}, ids.ID{'T'}
		for _, v := range []struct {
			id   ids.ID
			node ids.NodeID
			sub  ids.ID
		}{{v1, nodeA, subS}, {v2, nodeA, subS}, {v3, nodeB, subT}} {
			if _, err := db.Exec(ctx, `INSERT INTO p_l1_validators (validation_id, subnet_id, node_id, public_key, start_time, weight,
				min_nonce, deposited_balance, active, added_tx_id, added_height, updated_height) VALUES (?, ?, ?, ?, 0, 1, 0, 0, 1, ?, 1, 1)`,
				v.id[:], v.sub[:], v.node[:], []byte{1}, v.id[:]); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range [][3]int64{{d1, 1000, 1100}, {d3, 1100, 1400}} {
			if _, err := db.Exec(ctx, "INSERT INTO p_l1_fee_days (day, accrued_start, accrued_end, last_height) VALUES (?, ?, ?, 9)",
				d[0], d[1], d[2]); err != nil {
				t.Fatal(err)
			}
		}
		// v1: active 1000..1050 (end 1050), topped up at 1050 -> end 1150,
		// ran out at 1150: paid 50 + 50 on day 1... (1000..1100), and 50
		// on day 3 (1100..1150).
		// v2: registered at 1020 (day 1) end 2000, disabled at 1200 (day
		// 3): paid 80 on day 1, 100 on day 3.
		// v3: registered at 1300 (day 3) end 5000: paid 100 on day 3.
		for _, c := range []struct {
			id               ids.ID
			h, time          int64
			idx              int
			kind             string
			accrued, end, am int64
		}{
			{v1, 1, d1 + 10, 0, "register", 1000, 1050, 50},
			{v1, 2, d1 + 20, 0, "increase", 1050, 1150, 100},
			{v2, 2, d1 + 20, 1, "register", 1020, 2000, 980},
			{v1, 5, d3 + 5, -1, "deactivate", 1150, 0, 0},
			{v2, 6, d3 + 9, 0, "disable", 1200, 0, 800},
			{v3, 7, d3 + 20, 0, "register", 1300, 5000, 3700},
		} {
			if _, err := db.Exec(ctx, `INSERT INTO p_l1_balance_changes (validation_id, height, idx, time, kind, accrued, end_fee, amount)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.id[:], c.h, c.idx, c.time, c.kind, c.accrued, c.end, c.am); err != nil {
				t.Fatal(err)
			}
		}
		now := utc(3, 18, 0, 0)
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Metrics(t)
		get := func(path string, status int) (MetricsResponse, string) {
			t.Helper()
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code != status {
				t.Fatalf("%s: %d %s, want %d", path, rec.Code, rec.Body, status)
			}
			doc.ValidateResponse(t, "GET", strings.Split(path, "?")[0], rec.Code, rec.Body.Bytes())
			var res MetricsResponse
			if status == 200 {
				if err := jsonDecode(rec.Body.Bytes(), &res); err != nil {
					t.Fatal(err)
				}
			}
			return res, rec.Body.String()
		}
		d2 := d1 + 86400
		series := func(v3, v2, v1 float64) []MetricsValue { // newest first
			return []MetricsValue{{Value: v3, Timestamp: d3}, {Value: v2, Timestamp: d2}, {Value: v1, Timestamp: d1}}
		}
		for _, c := range []struct {
			path string
			want []MetricsValue
		}{
			{"/v2/validators/metrics/totalValidatorFeesDaily", series(250, 0, 180)},
			{"/v2/validators/metrics/totalCumulativeFeesDaily", series(430, 180, 180)},
			{"/v2/validators/metrics/totalPayingValidatorsDaily", series(3, 0, 2)},
			{"/v2/validation/" + v1.String() + "/metrics/validationFeesDaily", series(50, 0, 100)},
			{"/v2/validation/" + v1.String() + "/metrics/validationCumulativeFeesDaily", series(150, 100, 100)},
			{"/v2/validation/" + v3.String() + "/metrics/validationFeesDaily", series(100, 0, 0)[:1]},
			{"/v2/validator/" + nodeA.String() + "/metrics/perNodeDailyFeesPaid", series(150, 0, 180)},
			{"/v2/validator/" + nodeA.String() + "/metrics/perNodeCumulativeFeesPaid", series(330, 180, 180)},
			{"/v2/validator/" + nodeB.String() + "/metrics/perNodeCumulativeFeesPaid", series(100, 0, 0)[:1]},
			{"/v2/subnet/" + subS.String() + "/metrics/perSubnetDailyFeesPaid", series(150, 0, 180)},
			{"/v2/subnet/" + subS.String() + "/metrics/perSubnetCumulativeFeesPaid", series(330, 180, 180)},
			{"/v2/subnet/" + subS.String() + "/metrics/perSubnetPayingValidators", series(2, 0, 2)},
			{"/v2/subnet/" + subT.String() + "/metrics/perSubnetPayingValidators", series(1, 0, 0)[:1]},
			// The range: the days whose start is in it.
			{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=" + itoa(d1+1) + "&endTimestamp=" + itoa(d3), series(250, 0, 0)[:2]},
			{"/v2/validators/metrics/totalValidatorFeesDaily?endTimestamp=" + itoa(d3-1), series(0, 0, 180)[1:]},
			// No validations: no points.
			{"/v2/validator/" + ids.EmptyNodeID.String() + "/metrics/perNodeDailyFeesPaid", []MetricsValue{}},
			{"/v2/subnet/" + ids.Empty.String() + "/metrics/perSubnetDailyFeesPaid", []MetricsValue{}},
		} {
			got, _ := get(c.path, 200)
			if !reflect.DeepEqual(got.Results, c.want) {
				t.Errorf("%s = %+v, want %+v", c.path, got.Results, c.want)
			}
		}
		for _, c := range []struct{ path, name string }{
			{"/v2/validators/metrics/validationFeesDaily", "metric"},
			{"/v2/validation/" + v1.String() + "/metrics/perNodeDailyFeesPaid", "metric"},
			{"/v2/validator/" + nodeA.String() + "/metrics/totalValidatorFeesDaily", "metric"},
			{"/v2/subnet/" + subS.String() + "/metrics/validationFeesDaily", "metric"},
			{"/v2/validation/xyz/metrics/validationFeesDaily", "l1ValidationId"},
			{"/v2/validator/" + v1.String() + "/metrics/perNodeDailyFeesPaid", "nodeId"},
			{"/v2/subnet/NodeID-x/metrics/perSubnetDailyFeesPaid", "subnetId"},
			{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=a", "startTimestamp"},
			{"/v2/validators/metrics/totalValidatorFeesDaily?endTimestamp=-5", "endTimestamp"},
			{"/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=9&endTimestamp=1", "startTimestamp"},
			{"/v2/validators/metrics/totalValidatorFeesDaily?pageToken=x", "pageToken"},
		} {
			if _, body := get(c.path, 400); !strings.Contains(body, c.name) {
				t.Errorf("%s: %s does not name %s", c.path, body, c.name)
			}
		}
		if _, body := get("/v2/validation/"+ids.ID{9}.String()+"/metrics/validationFeesDaily", 404); !strings.Contains(body, "l1ValidationId") {
			t.Errorf("404 %s does not name l1ValidationId", body)
		}
	})
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

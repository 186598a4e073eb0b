package metricsapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// testStaker is a row of p_stakers for the staking metrics.
type testStaker struct {
	kind          string
	subnet        ids.ID
	weight        int64
	start, end    int64
	removedAt     int64 // a block's time that removed it; 0 for none
	removedHeight int64
}

// TestStakingMetrics: each day's value is the stakers of the subnet on
// its set at the day's end (today: now), counted from the rows one by one;
// pages follow; a permissioned validator removed early leaves at its
// removal's block; bad input is a 4xx naming it.
func TestStakingMetrics(t *testing.T) {
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
		subnet := ids.ID{'s'}
		base := utc(1, 0, 0, 0).Unix() // 2024-03-01
		now := utc(20, 15, 30, 0).Unix()
		var stakers []testStaker
		for i := range 40 {
			start := base + int64(i)*37_000
			stakers = append(stakers, testStaker{kind: "validator", subnet: constants.PrimaryNetworkID, weight: 2000 + int64(i),
				start: start, end: start + int64(3+i%9)*86400})
			stakers = append(stakers, testStaker{kind: "delegator", subnet: constants.PrimaryNetworkID, weight: 25 + int64(i),
				start: start + 3600, end: start + int64(2+i%5)*86400})
		}
		// A permissioned validator removed on the 5th at noon, before its end.
		stakers = append(stakers, testStaker{kind: "subnet_validator", subnet: subnet, weight: 7, start: base, end: base + 30*86400,
			removedAt: utc(5, 12, 0, 0).Unix(), removedHeight: 99})
		stakers = append(stakers, testStaker{kind: "subnet_validator", subnet: subnet, weight: 9, start: base + 86400, end: base + 40*86400})
		for i, s := range stakers {
			var removed any
			if s.removedAt > 0 {
				removed = s.removedHeight
				if _, err := db.Exec(ctx, "INSERT INTO p_blocks (height, id, parent_id, type, timestamp, bytes) VALUES (?, ?, ?, ?, ?, ?)",
					s.removedHeight, []byte(fmt.Sprintf("block-%d", i)), []byte("parent"), "standard", s.removedAt, []byte{0}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.Exec(ctx, `INSERT INTO p_stakers (tx_id, tx_type, kind, priority, subnet_id, node_id, weight, start_time,
				tx_start_time, end_time, delegation_shares, added_height, added_idx, removed_height) VALUES (?, ?, ?, 0, ?, ?, ?, ?, 0, ?, 0, 1, ?, ?)`,
				[]byte(fmt.Sprintf("tx-%d", i)), "AddValidatorTx", s.kind, s.subnet[:], []byte("node"), s.weight, s.start, s.end, i, removed); err != nil {
				t.Fatal(err)
			}
		}
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return time.Unix(now, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Metrics(t)
		get := func(path string, status int) MetricsResponse {
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
			return res
		}
		// expected counts the rows by hand: on the set at at when it
		// started at or before and ends (or was removed) after.
		expected := func(metric string, subnet ids.ID, at int64) float64 {
			var v float64
			for _, s := range stakers {
				end := s.end
				if s.removedAt > 0 {
					end = s.removedAt
				}
				deleg := s.kind == "delegator"
				if s.subnet != subnet || deleg != strings.HasPrefix(metric, "delegator") || s.start > at || end <= at {
					continue
				}
				if strings.HasSuffix(metric, "Count") {
					v++
				} else {
					v += float64(s.weight)
				}
			}
			return v
		}
		for _, metric := range []string{"validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"} {
			for _, sub := range []ids.ID{constants.PrimaryNetworkID, subnet} {
				var got []MetricsValue
				q := "?pageSize=7"
				if sub != constants.PrimaryNetworkID {
					q += "&subnetId=" + sub.String()
				}
				for pages := 0; pages < 10; pages++ {
					res := get("/v2/networks/testnet/metrics/"+metric+q, 200)
					got = append(got, res.Results...)
					if res.NextPageToken == "" {
						break
					}
					q = "?pageSize=7&pageToken=" + url.QueryEscape(res.NextPageToken)
					if sub != constants.PrimaryNetworkID {
						q += "&subnetId=" + sub.String()
					}
				}
				// The 20th (today) down to the 1st, the first staker's day.
				if len(got) != 20 {
					t.Fatalf("%s %s: %d days, want 20: %v", metric, sub, len(got), got)
				}
				nonZero := 0
				for i, p := range got {
					d := utc(20-i, 0, 0, 0).Unix()
					at := min(d+86399, now)
					if want := expected(metric, sub, at); p.Timestamp != d || p.Value != want {
						t.Errorf("%s %s: point %d = %+v, want {%d %v}", metric, sub, i, p, d, want)
					}
					if p.Value != 0 {
						nonZero++
					}
				}
				// The subnet has no delegators.
				if nonZero < 2 && (sub == constants.PrimaryNetworkID || !strings.HasPrefix(metric, "delegator")) {
					t.Errorf("%s %s: the fixture gives %d nonzero days", metric, sub, nonZero)
				}
			}
		}
		// The range bounds the days.
		res := get(fmt.Sprintf("/v2/networks/fuji/metrics/validatorCount?startTimestamp=%d&endTimestamp=%d", utc(3, 6, 0, 0).Unix(), utc(6, 0, 0, 0).Unix()), 200)
		if len(res.Results) != 3 || res.Results[0].Timestamp != utc(6, 0, 0, 0).Unix() || res.Results[2].Timestamp != utc(4, 0, 0, 0).Unix() {
			t.Errorf("a range: %+v, want the 6th down to the 4th", res.Results)
		}
		for path, status := range map[string]int{
			"/v2/networks/mainnet/metrics/validatorCount":             404,
			"/v2/networks/devnet/metrics/validatorCount":              400,
			"/v2/networks/testnet/metrics/stakeAmount":                400,
			"/v2/networks/testnet/metrics/validatorCount?subnetId=zz": 400,
			"/v2/networks/testnet/metrics/validatorCount?pageSize=0":  400,
			"/v2/networks/testnet/metrics/validatorCount?pageToken=x": 400,
			"/v2/networks/testnet/metrics/validatorCount?nope=1":      400,
		} {
			get(path, status)
		}
	})
}

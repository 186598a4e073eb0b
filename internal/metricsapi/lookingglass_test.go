package metricsapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// TestValidatorsByDateRange: the reward addresses of the validators (not
// the delegators, nor validators without a reward owner) whose period
// meets the range, by start, paged; bad input is a 4xx naming it.
func TestValidatorsByDateRange(t *testing.T) {
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
		type row struct {
			kind, role string
			start, end int64
			addrs      []ids.ShortID
		}
		var rows []row
		for i := range 12 {
			kind, role := "validator", "validation_reward"
			switch i % 4 {
			case 1:
				role = "reward" // a pre-Durango AddValidatorTx
			case 3:
				kind, role = "delegator", "delegation_reward"
			}
			rows = append(rows, row{kind, role, 1000 + int64(i)*100, 1000 + int64(i)*100 + 250,
				[]ids.ShortID{{byte(i), 1}, {byte(i), 2}}[:1+i%2]})
		}
		for i, r := range rows {
			if _, err := db.Exec(ctx, `INSERT INTO p_stakers (tx_id, tx_type, kind, priority, subnet_id, node_id, weight, start_time,
				tx_start_time, end_time, delegation_shares, added_height, added_idx) VALUES (?, 'AddValidatorTx', ?, 0, ?, ?, 1, ?, 0, ?, 0, 1, ?)`,
				[]byte(fmt.Sprintf("tx-%02d", i)), r.kind, constants.PrimaryNetworkID[:], []byte("node"), r.start, r.end, i); err != nil {
				t.Fatal(err)
			}
			var packed []byte
			for _, a := range r.addrs {
				packed = append(packed, a[:]...)
			}
			if _, err := db.Exec(ctx, "INSERT INTO p_staker_owners (tx_id, role, locktime, threshold, addresses) VALUES (?, ?, 0, 1, ?)",
				[]byte(fmt.Sprintf("tx-%02d", i)), r.role, packed); err != nil {
				t.Fatal(err)
			}
		}
		a, err := New(Deps{Store: st, Network: testNetwork, TokenKey: make([]byte, 32), Now: func() time.Time { return time.Unix(5000, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		doc := openapitest.Metrics(t)
		get := func(path string, status int) PChainLookingGlassResponse {
			t.Helper()
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code != status {
				t.Fatalf("%s: %d %s, want %d", path, rec.Code, rec.Body, status)
			}
			doc.ValidateResponse(t, "GET", strings.Split(path, "?")[0], rec.Code, rec.Body.Bytes())
			var res PChainLookingGlassResponse
			if status == 200 {
				if err := jsonDecode(rec.Body.Bytes(), &res); err != nil {
					t.Fatal(err)
				}
			}
			return res
		}
		const from, to = 1240, 1710
		var want []PChainAddressDetails
		for _, r := range rows {
			if r.kind != "validator" || r.start > to || r.end < from {
				continue
			}
			d := PChainAddressDetails{SortKey: strconv.FormatInt(r.start, 10)}
			for _, addr := range r.addrs {
				s, _ := address.FormatBech32("local", addr[:])
				d.Addresses = append(d.Addresses, s)
			}
			want = append(want, d)
		}
		if len(want) < 4 {
			t.Fatalf("the fixture gives %d validators", len(want))
		}
		path := "/v2/subnets/" + constants.PrimaryNetworkID.String() + "/validators:getAddresses"
		q := fmt.Sprintf("?startTimestamp=%d&endTimestamp=%d&network=testnet", from, to)
		var got []PChainAddressDetails
		next := q + "&pageSize=2"
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatal("paging does not end")
			}
			res := get(path+next, 200)
			got = append(got, res.Addresses...)
			if res.NextPageToken == "" {
				break
			}
			next = q + "&pageSize=2&pageToken=" + url.QueryEscape(res.NextPageToken)
		}
		if !slices.EqualFunc(got, want, func(x, y PChainAddressDetails) bool {
			return x.SortKey == y.SortKey && slices.Equal(x.Addresses, y.Addresses)
		}) {
			t.Errorf("validators:getAddresses = %v, want %v", got, want)
		}
		if one := get(path+q, 200); len(one.Addresses) != len(want) || one.NextPageToken != "" {
			t.Errorf("one page: %v", one)
		}
		for p, status := range map[string]int{
			"/v2/subnets/nope/validators:getAddresses": 400,
			path + "?network=mainnet":                  404,
			path + "?pageSize=5001":                    400,
			path + "?startTimestamp=9&endTimestamp=1":  400,
			path + "?pageToken=abc":                    400,
			path + "?sort=asc":                         400,
		} {
			get(p, status)
		}
	})
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/benchstore"
	"github.com/avaindex/avaindex/internal/testing/utxobench"
)

// benchStakers is the validator benchmark's size: 62,500 stakers, a
// fifth of them validators.
const (
	benchStakers    = 62_500
	benchStakersVer = 1
	benchNow        = 1_800_000_000
)

func benchID(parts ...any) ids.ID { return hashing.ComputeHash256Array([]byte(fmt.Sprint(parts...))) }

func benchBytes(parts ...any) []byte { id := benchID(parts...); return id[:] }

// buildStakers writes benchStakers stakers: 12,500 primary-network
// validators (a tenth completed, a twentieth pending, fees 2-50%) and
// 50,000 delegations to them, each within its validator's time.
func buildStakers(ctx context.Context, db *database.DB) error {
	cols := []string{"tx_id", "tx_type", "kind", "priority", "subnet_id", "node_id", "weight", "start_time",
		"tx_start_time", "end_time", "delegation_shares", "bls_public_key", "bls_pop", "added_height", "added_idx",
		"removed_tx_id", "removed_height", "reward_committed", "potential_reward", "delegatee_reward"}
	rng := rand.New(rand.NewPCG(benchStakersVer, benchStakers))
	var stakers, owners [][]any
	type vdr struct {
		node       ids.NodeID
		start, end int64
		removed    bool
	}
	nVdrs := benchStakers / 5
	vdrs := make([]vdr, nVdrs)
	for k := range vdrs {
		txID := benchID("validator", k)
		var node ids.NodeID
		copy(node[:], benchBytes("node", k))
		start := int64(benchNow - rng.IntN(300*24*3600))
		end := start + 14*24*3600 + int64(rng.IntN(300*24*3600))
		var removed, removedH, committed, potential any
		if k%10 == 0 {
			end = benchNow - int64(rng.IntN(3600*24))
			start = end - 14*24*3600 - int64(rng.IntN(300*24*3600))
			removed, removedH, committed, potential = benchBytes("reward", k), int64(nVdrs+k), int64(1), int64(rng.IntN(1e12))
		} else if k%20 == 1 {
			start = benchNow + 1 + int64(rng.IntN(24*3600))
			end = start + 30*24*3600
		} else {
			potential = int64(rng.IntN(1e12))
		}
		vdrs[k] = vdr{node: node, start: start, end: end, removed: removed != nil}
		stakers = append(stakers, []any{txID[:], "AddPermissionlessValidatorTx", "validator", int64(0), constants.PrimaryNetworkID[:],
			node[:], int64(2_000e9 + rng.IntN(1_000_000e9)), start, start, end, int64(20_000 + rng.IntN(480_000)), nil, nil,
			int64(k), int64(0), removed, removedH, committed, potential, int64(0)})
		owners = append(owners, []any{txID[:], "validation_reward", int64(0), int64(1), benchBytes("owner", k)[:20]})
	}
	for k := range benchStakers - nVdrs {
		v := vdrs[rng.IntN(nVdrs)]
		txID := benchID("delegator", k)
		start := v.start + int64(rng.IntN(int(v.end-v.start)/2+1))
		end := start + (v.end-start)/2
		var removed, removedH, committed, potential any
		if v.removed {
			removed, removedH, committed, potential = benchBytes("dreward", k), int64(2*nVdrs+k), int64(1), int64(rng.IntN(1e10))
		} else if start <= benchNow {
			potential = int64(rng.IntN(1e10))
		}
		stakers = append(stakers, []any{txID[:], "AddPermissionlessDelegatorTx", "delegator", int64(0), constants.PrimaryNetworkID[:],
			v.node[:], int64(25e9 + rng.IntN(10_000e9)), start, start, end, int64(0), nil, nil,
			int64(nVdrs + k), int64(0), removed, removedH, committed, potential, int64(0)})
		owners = append(owners, []any{txID[:], "reward", int64(0), int64(1), benchBytes("downer", k%5000)[:20]})
	}
	return db.Transact(ctx, func(tx *database.DB) error {
		if _, err := tx.BulkInsert(ctx, "p_stakers", cols, stakers, ""); err != nil {
			return err
		}
		if _, err := tx.BulkInsert(ctx, "p_staker_owners", []string{"tx_id", "role", "locktime", "threshold", "addresses"}, owners, ""); err != nil {
			return err
		}
		blockID, parentID := benchID("block"), benchID("parent")
		_, err := tx.BulkInsert(ctx, "p_blocks", []string{"height", "id", "parent_id", "type", "timestamp", "bytes"},
			[][]any{{int64(3 * benchStakers), blockID[:], parentID[:], "BanffStandardBlock", int64(benchNow), []byte{0}}}, "")
		return err
	})
}

// benchUptimes gives every node a fixed pseudo-random uptime.
type benchUptimes struct{}

func (benchUptimes) Uptimes(context.Context) (map[ids.NodeID]Uptime, error) {
	out := map[ids.NodeID]Uptime{}
	for k := range benchStakers / 5 {
		var node ids.NodeID
		copy(node[:], benchBytes("node", k))
		out[node] = Uptime{Percent: float64(k%1000) / 10, Connected: k%7 != 0}
	}
	return out, nil
}

// BenchmarkListValidators measures a 100-item page of listValidators,
// filtered and sorted, and of listDelegators, over 62,500 stakers, through
// the handler (JSON included), first and deep, as p50 and p99 in
// milliseconds with the CPU time per request (utxobench.Timer); and the
// rebuild of the view the lists read, which a block that adds or removes
// a staker causes.
func BenchmarkListValidators(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			dsn := benchstore.Open(b, backend, "validators", benchStakersVer, benchStakers, buildStakers)
			ctx := context.Background()
			st, err := store.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			network := &internal.Network{ID: constants.LocalID, Name: constants.LocalName, HRP: constants.LocalHRP,
				PChainID: constants.PlatformChainID, XChainID: benchID("x"), CChainID: benchID("c")}
			a, err := New(Deps{Store: st, Network: network, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{1}, 32),
				Uptimes: benchUptimes{}})
			if err != nil {
				b.Fatal(err)
			}
			mux := http.NewServeMux()
			for _, r := range a.Routes() {
				mux.Handle(r.Pattern, r.Handler)
			}
			do := func(path string, t *utxobench.Timer) (int, string) {
				req := httptest.NewRequest("GET", path, nil)
				rec := httptest.NewRecorder()
				if t != nil {
					t.Time(func() { mux.ServeHTTP(rec, req) })
				} else {
					mux.ServeHTTP(rec, req)
				}
				if rec.Code != 200 {
					b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
				}
				var page struct {
					NextPageToken string            `json:"nextPageToken"`
					Validators    []json.RawMessage `json:"validators"`
					Delegators    []json.RawMessage `json:"delegators"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
					b.Fatal(err)
				}
				return len(page.Validators) + len(page.Delegators), page.NextPageToken
			}
			const vl, dl = "/v1/networks/testnet/validators?pageSize=100&", "/v1/networks/testnet/delegators?pageSize=100&"
			for _, sc := range []struct {
				name, path string
				deep       int // pages to skip
			}{
				{"blockIndex", vl, 0},
				{"blockIndex/5000-deep", vl, 50},
				{"active/delegationCapacity/min", vl + "validationStatus=active&sortBy=delegationCapacity&minDelegationCapacity=1000000000000", 0},
				{"active/timeRemaining-asc/min-max", vl + "validationStatus=active&sortBy=timeRemaining&sortOrder=asc&minTimeRemaining=86400&maxTimeRemaining=20000000", 0},
				{"delegationFee/range", vl + "sortBy=delegationFee&minFeePercentage=10&maxFeePercentage=30", 0},
				{"uptimePerformance/min/1000-deep", vl + "sortBy=uptimePerformance&minUptimePerformance=80", 10},
				{"completed/subnet/nodeIds", vl + "validationStatus=completed&subnetId=" + constants.PrimaryNetworkID.String() + "&nodeIds=a,b,c", 0},
				{"delegators/active", dl + "delegationStatus=active", 0},
				{"delegators/5000-deep", dl, 50},
			} {
				b.Run(sc.name, func(b *testing.B) {
					path := sc.path
					for i := 0; i < sc.deep; i++ {
						_, next := do(path, nil)
						if next == "" {
							b.Fatalf("%s: the list ends after %d pages", sc.name, i+1)
						}
						path = sc.path + "&pageToken=" + next
					}
					t := &utxobench.Timer{}
					for b.Loop() {
						if n, _ := do(path, t); n != 100 {
							b.Fatalf("%s: %d items, want 100", sc.name, n)
						}
					}
					t.Report(b)
				})
			}
			// The rebuild, which a block that adds or removes a staker
			// causes: a fixed 20 times, it is slow.
			b.Run("view-rebuild", func(b *testing.B) {
				t := &utxobench.Timer{}
				for range 20 {
					a.views.mu.Lock()
					a.views.view = nil
					a.views.mu.Unlock()
					t.Time(func() {
						if _, err := a.validatorView(ctx); err != nil {
							b.Fatal(err)
						}
					})
				}
				t.Report(b)
			})
		})
	}
}

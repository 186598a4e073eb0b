package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestStakerAddressesScenario follows the staker lists of the UTXO
// scenario's stakers through the appliers: written when a staker is added,
// marked when it is rewarded, and written again the same by the backfill.
func TestStakerAddressesScenario(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		gv, d := sc.genVdr.ID(), sc.delegator.ID()
		mustApply(t, s, sc.blocks[:3])
		lines := []string{fmt.Sprintf("%s %s 0", gv, uAddrC), fmt.Sprintf("%s %s 0", d, uAddrB)}
		slices.Sort(lines)
		want := strings.Join(lines, "\n")
		if got := dumpStakerAddresses(t, s, gv, d); got != want {
			t.Errorf("current stakers' rows:\n%s\nwant\n%s", got, want)
		}
		// Applying the batch again changes nothing.
		mustApply(t, s, sc.blocks[:3])
		if got := dumpStakerAddresses(t, s, gv, d); got != want {
			t.Errorf("after re-applying:\n%s\nwant\n%s", got, want)
		}
		mustApply(t, s, sc.blocks[3:])
		want = strings.Replace(want, fmt.Sprintf("%s %s 0", d, uAddrB), fmt.Sprintf("%s %s 1", d, uAddrB), 1)
		if got := dumpStakerAddresses(t, s, gv, d); got != want {
			t.Errorf("after the reward:\n%s\nwant\n%s", got, want)
		}
		all := dumpStakerAddresses(t, s)
		if _, err := s.db.Exec(ctx, "DELETE FROM p_staker_addresses"); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSettingIfAbsent(ctx, "backfill:p_staker_addresses", nil); err != nil {
			t.Fatal(err)
		}
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got := dumpStakerAddresses(t, s); got != all {
			t.Errorf("the backfill wrote\n%s\nthe appliers\n%s", got, all)
		}
		if _, ok, err := s.Setting(ctx, "backfill:p_staker_addresses"); ok || err != nil {
			t.Errorf("the backfill is still asked for (%v)", err)
		}
	})
}

// dumpStakerAddresses returns the rows of the stakers only (all when
// none), one "staker address removed" a line, in that order.
func dumpStakerAddresses(t *testing.T, s *sqlStore, only ...ids.ID) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), "SELECT tx_id, address, removed FROM p_staker_addresses", func(r *sql.Rows) error {
		var (
			id, addr []byte
			removed  int64
		)
		if err := r.Scan(&id, &addr, &removed); err != nil {
			return err
		}
		txID, err := ids.ToID(id)
		if err != nil {
			return err
		}
		a, err := ids.ToShortID(addr)
		if err != nil {
			return err
		}
		if len(only) == 0 || slices.Contains(only, txID) {
			lines = append(lines, fmt.Sprintf("%s %s %d", txID, a, removed))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestActiveStakersOfAddresses compares ActiveStakers with addresses, over
// many stakers written straight into the staking tables (and listed by the
// backfill), with the same list computed here: every order, filter and
// page size, paged to the end with each page's last key.
func TestActiveStakersOfAddresses(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		rng := rand.New(rand.NewPCG(3, 4))
		const now, nAddrs, nStakers = 1_700_000_100, 40, 600
		addrs := make([]ids.ShortID, nAddrs)
		for i := range addrs {
			addrs[i] = ids.ShortID{'a', byte(i)}
		}
		type staker struct {
			id       ids.ID
			txType   string
			start    int64
			owners   []ids.ShortID
			current  bool
			poa, pnd bool // a PoA validator, a pending staker
		}
		types := []string{"AddValidatorTx", "AddDelegatorTx", "AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx"}
		var stakers []staker
		var stakerRows, ownerRows [][]any
		for i := range nStakers {
			st := staker{id: testID("staker", i), txType: types[rng.IntN(len(types))],
				// Few distinct times: many ties, broken by tx id.
				start: now - 20 + rng.Int64N(25), current: rng.IntN(4) != 0}
			st.pnd = st.start > now
			kind, removed := "delegator", any(nil)
			if !st.current {
				rid := testID("reward", i)
				removed = rid[:]
			}
			switch {
			case rng.IntN(20) == 0:
				// A PoA validator: no reward owner, never listed by address.
				kind, st.txType, st.poa = "subnet_validator", "AddSubnetValidatorTx", true
			case strings.Contains(st.txType, "Validator"):
				kind = "validator"
				a, b, c := addrs[rng.IntN(nAddrs)], addrs[rng.IntN(nAddrs)], addrs[rng.IntN(nAddrs)]
				ownerRows = append(ownerRows, []any{st.id[:], roleValidationReward, 0, 1, packAddrs([]ids.ShortID{a})},
					[]any{st.id[:], roleDelegationReward, 0, 1, packAddrs([]ids.ShortID{b, c})})
				st.owners = []ids.ShortID{a, b, c}
			default:
				a := addrs[rng.IntN(nAddrs)]
				ownerRows = append(ownerRows, []any{st.id[:], roleReward, 0, 1, packAddrs([]ids.ShortID{a})})
				st.owners = []ids.ShortID{a}
			}
			stakers = append(stakers, st)
			node := testID("node", i)
			stakerRows = append(stakerRows, []any{st.id[:], st.txType, kind, 0, constants.PrimaryNetworkID[:], node[:20], 1,
				st.start, st.start, st.start + 1000, 0, nil, nil, 1, i, removed})
		}
		cols := append(slices.Clone(pStakerColumns), "removed_tx_id")
		if _, err := s.db.BulkInsert(ctx, "p_stakers", cols, stakerRows, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.BulkInsert(ctx, "p_staker_owners", pStakerOwnerColumns, ownerRows, ""); err != nil {
			t.Fatal(err)
		}
		blockID := testID("block")
		if _, err := s.db.Exec(ctx, "INSERT INTO p_blocks (height, id, parent_id, type, timestamp, bytes) VALUES (1, ?, ?, 'b', ?, ?)",
			blockID[:], ids.Empty[:], now, []byte{0}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSettingIfAbsent(ctx, "backfill:p_staker_addresses", nil); err != nil {
			t.Fatal(err)
		}
		if err := runBackfills(ctx, s); err != nil {
			t.Fatal(err)
		}

		u := func(v uint64) *uint64 { return &v }
		for _, tc := range []struct {
			name  string
			addrs []ids.ShortID
			types []string
			start *uint64
			end   *uint64
			pages []int
		}{
			{"1 address", addrs[:1], nil, nil, nil, []int{1, 3, 100}},
			{"5 addresses", addrs[3:8], nil, nil, nil, []int{1, 7, 100}},
			{"every address", addrs, nil, nil, nil, []int{7, 100, 1000}},
			{"types", addrs[10:30], types[1:3], nil, nil, []int{1, 7, 100}},
			{"range", addrs, nil, u(now - 10), u(now - 5), []int{7, 100}},
			{"range and type", addrs[:20], types[:1], u(now - 15), nil, []int{7, 100}},
		} {
			for _, desc := range []bool{false, true} {
				in := map[ids.ShortID]bool{}
				for _, a := range tc.addrs {
					in[a] = true
				}
				var want []StakerKey
				for _, st := range stakers {
					owned := slices.ContainsFunc(st.owners, func(a ids.ShortID) bool { return in[a] })
					typed := len(tc.types) == 0 || slices.Contains(tc.types, st.txType)
					ranged := (tc.start == nil || st.start >= int64(*tc.start)) && (tc.end == nil || st.start <= int64(*tc.end))
					if owned && typed && ranged && st.current && !st.pnd {
						want = append(want, StakerKey{StartTime: uint64(st.start), TxID: st.id})
					}
				}
				slices.SortFunc(want, func(a, b StakerKey) int {
					c := cmpUint(a.StartTime, b.StartTime)
					if c == 0 {
						c = bytes.Compare(a.TxID[:], b.TxID[:])
					}
					if desc {
						return -c
					}
					return c
				})
				if len(want) < 3 {
					t.Fatalf("%s: only %d stakers to list", tc.name, len(want))
				}
				for _, n := range tc.pages {
					got := []StakerKey{}
					q := ActiveStakerQuery{Addresses: tc.addrs, TxTypes: tc.types, Start: tc.start, End: tc.end, Desc: desc, Limit: n}
					for pages := 0; ; pages++ {
						if pages > len(want)+1 {
							t.Fatalf("%s desc=%t page %d: no end", tc.name, desc, n)
						}
						rs, err := s.ActiveStakers(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						for _, r := range rs {
							got = append(got, StakerKey{StartTime: r.StartTime, TxID: r.TxID})
						}
						if len(rs) < n {
							break
						}
						last := got[len(got)-1]
						q.After = &last
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s desc=%t page %d: %d stakers, want %d", tc.name, desc, n, len(got), len(want))
					}
				}
			}
		}
	})
}

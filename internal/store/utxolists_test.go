package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// storeNetwork records a network whose X- and C-chains are the atomic
// scenario's, as the service does before it indexes.
func storeNetwork(t *testing.T, s Store) {
	t.Helper()
	nb, err := json.Marshal(internal.Network{ID: constants.LocalID, PChainID: aPChain, XChainID: aXChain, CChainID: aCChain})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettingIfAbsent(context.Background(), NetworkSetting, nb); err != nil {
		t.Fatal(err)
	}
}

// listAll pages through a list with pages of size n and returns every item.
func listAll(t *testing.T, s Store, q UTXOQuery, n int) []*ListedUTXO {
	t.Helper()
	var (
		out   []*ListedUTXO
		after *UTXOKey
	)
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("the list does not end")
		}
		page, err := s.ListUTXOs(context.Background(), q, after, n+1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) <= n {
			return append(out, page...)
		}
		page = page[:n]
		out = append(out, page...)
		k := page[n-1].Key(q.ByAmount)
		after = &k
	}
}

// checkOrder checks that us are in q's order: by key, ties by id, both in
// q's direction, each once.
func checkOrder(t *testing.T, what string, q UTXOQuery, us []*ListedUTXO) {
	t.Helper()
	for i := 1; i < len(us); i++ {
		a, b := us[i-1].Key(q.ByAmount), us[i].Key(q.ByAmount)
		c := cmpInt64(int64(a.Key^1<<63), int64(b.Key^1<<63))
		if c == 0 {
			c = bytes.Compare(a.ID[:], b.ID[:])
		}
		if (q.Desc && c <= 0) || (!q.Desc && c >= 0) {
			t.Errorf("%s: items %d and %d out of order: %v then %v", what, i-1, i, a, b)
		}
	}
}

// TestUTXOListsAtomic lists the atomic scenario's chains, applied in every
// order: each chain lists the UTXOs created on it and those exported to
// it, spent once consumed, in every order and page size, the same as the
// backfill writes them.
func TestUTXOListsAtomic(t *testing.T) {
	sc := newAtomicScenario(t)
	var (
		pToX, pToC, pFromX, pFromC = sc.p[1].Txs[0].ID, sc.p[1].Txs[1].ID, sc.p[2].Txs[0].ID, sc.p[3].Txs[0].ID
		xToP, xToC, xFromP, xFromC = sc.x[1].Txs[0].ID, sc.x[1].Txs[1].ID, sc.x[2].Txs[0].ID, sc.x[3].Txs[0].ID
		cToP, cToX                 = sc.c[1].AtomicTxs[0].ID, sc.c[1].AtomicTxs[1].ID
	)
	type item struct {
		tx     ids.ID
		idx    uint32
		amount uint64
		spent  bool
	}
	// What the scenario's txs create, per list and owner.
	want := map[internal.Chain]map[ids.ShortID][]item{
		internal.PChain: {
			uAddrA: {{pToX, 0, 50, false}, {pToX, 1, 40, true}, {pToC, 0, 50, false}, {pFromX, 0, 24, false},
				{pFromC, 0, 10, false}, {xToP, 0, 25, true}, {cToP, 0, 11, true}},
			uAddrB: {{pToC, 1, 30, true}, {pToC, 2, 20, true}},
		},
		internal.XChain: {
			uAddrA: {{xToP, 0, 25, true}, {xFromP, 0, 39, false}, {xFromC, 0, 11, false}, {pToX, 1, 40, true}},
			uAddrC: {{xToC, 0, 15, true}, {xToC, 1, 14, false}, {cToX, 0, 12, true}},
		},
		internal.CChain: {
			uAddrA: {{cToP, 0, 11, true}},
			uAddrB: {{pToC, 1, 30, true}, {pToC, 2, 20, true}},
			uAddrC: {{cToX, 0, 12, true}, {xToC, 0, 15, true}, {xToC, 1, 14, false}},
		},
	}
	dbtest.Run(t, func(t *testing.T, dsn string) {
		var first string
		for _, order := range []string{"PXC", "CXP", "XCP"} {
			s := openStore(t, dbtestFresh(t, dsn))
			storeNetwork(t, s)
			for _, chain := range order {
				sc.apply(t, s, byte(chain), false)
			}
			for chain, byAddr := range want {
				for addr, items := range byAddr {
					for _, spent := range []bool{false, true} {
						wantIDs := map[ids.ID]item{}
						for _, it := range items {
							if spent || !it.spent {
								wantIDs[utxoKey(it.tx, it.idx)] = it
							}
						}
						for _, byAmount := range []bool{false, true} {
							for _, desc := range []bool{false, true} {
								q := UTXOQuery{Chain: chain, Addresses: []ids.ShortID{addr}, IncludeSpent: spent, ByAmount: byAmount, Desc: desc}
								what := fmt.Sprintf("%s: %s list of %s, includeSpent %t, byAmount %t, desc %t", order, chain, addr, spent, byAmount, desc)
								for _, n := range []int{1, 2, 100} {
									got := listAll(t, s, q, n)
									checkOrder(t, what, q, got)
									if len(got) != len(wantIDs) {
										t.Errorf("%s, pages of %d: %d items, want %d", what, n, len(got), len(wantIDs))
									}
									for _, u := range got {
										it, ok := wantIDs[u.ID]
										switch {
										case !ok:
											t.Errorf("%s: unexpected UTXO %s:%d", what, u.TxID, u.OutputIndex)
										case u.TxID != it.tx || u.OutputIndex != it.idx || u.Amount != it.amount || u.Spent() != it.spent:
											t.Errorf("%s: got %s:%d amount %d spent %t, want %+v", what, u.TxID, u.OutputIndex, u.Amount, u.Spent(), it)
										case len(u.Owners) != 1 || u.Owners[0] != addr || u.Threshold != 1:
											t.Errorf("%s: UTXO %s owners %v threshold %d", what, u.ID, u.Owners, u.Threshold)
										}
									}
								}
							}
						}
					}
				}
			}
			// An export listed on its destination: as the source stored it.
			us := listAll(t, s, UTXOQuery{Chain: internal.XChain, Addresses: []ids.ShortID{uAddrA}, IncludeSpent: true}, 10)
			var exp *ListedUTXO
			for _, u := range us {
				if u.TxID == pToX {
					exp = u
				}
			}
			if exp == nil || exp.Origin != internal.PChain || !exp.Exported() || exp.PeerChain != aXChain ||
				exp.ConsumedTxID != xFromP || exp.ConsumedHeight != 2 || exp.CreatedHeight != 1 || exp.CreatedTxID != pToX {
				t.Errorf("%s: P→X export on the X-chain's list: %+v", order, exp)
			} else if p, err := pchain.ParseUTXO(exp.Bytes); err != nil || p.ID() != exp.ID {
				t.Errorf("%s: P→X export bytes do not decode to it: %v", order, err)
			}
			// A filter by minimum amount and by asset.
			q := UTXOQuery{Chain: internal.PChain, Addresses: []ids.ShortID{uAddrA}, IncludeSpent: true, MinAmount: 25}
			if got := listAll(t, s, q, 3); len(got) != 4 {
				t.Errorf("%s: P list of A of at least 25: %d items, want 4", order, len(got))
			}
			other := ids.ID{'o'}
			q.AssetID = &other
			if got := listAll(t, s, q, 3); len(got) != 0 {
				t.Errorf("%s: P list of A in another asset: %d items", order, len(got))
			}
			q.AssetID = &uAsset
			if got := listAll(t, s, q, 3); len(got) != 4 {
				t.Errorf("%s: P list of A in its asset: %d items, want 4", order, len(got))
			}

			// Every order stores the same rows, and so does the backfill.
			rows := dumpAddressUTXOs(t, s)
			if first == "" {
				first = rows
			} else if rows != first {
				t.Errorf("order %s stored other list rows:\n%s\nwant\n%s", order, rows, first)
			}
			// As a store of an earlier version is backfilled when opened.
			ctx := context.Background()
			if _, err := s.db.Exec(ctx, "DELETE FROM address_utxos"); err != nil {
				t.Fatal(err)
			}
			if err := s.PutSettingIfAbsent(ctx, "backfill:address_utxos", nil); err != nil {
				t.Fatal(err)
			}
			if err := runBackfills(ctx, s); err != nil {
				t.Fatal(err)
			}
			if got := dumpAddressUTXOs(t, s); got != rows {
				t.Errorf("the backfill wrote\n%s\nthe appliers\n%s", got, rows)
			}
			if _, ok, err := s.Setting(ctx, "backfill:address_utxos"); ok || err != nil {
				t.Errorf("the backfill is still asked for (%v)", err)
			}
			// Once done, it is not run again.
			if _, err := s.db.Exec(ctx, "DELETE FROM address_utxos"); err != nil {
				t.Fatal(err)
			}
			if err := runBackfills(ctx, s); err != nil {
				t.Fatal(err)
			}
			if got := dumpAddressUTXOs(t, s); got != "" {
				t.Errorf("a done backfill ran again: %s", got)
			}
		}
	})
}

func dumpAddressUTXOs(t *testing.T, s *sqlStore) string {
	t.Helper()
	var lines []string
	err := s.db.RunQuery(context.Background(), `SELECT utxo_id, chain, address, origin, created_time, amount_key, asset_id, threshold, spent
		FROM address_utxos`, func(r *sql.Rows) error {
		var (
			id, addr, asset      []byte
			chain, origin        string
			ct, ak, thr, spentAt int64
		)
		if err := r.Scan(&id, &chain, &addr, &origin, &ct, &ak, &asset, &thr, &spentAt); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%x %s %x %s %d %d %x %d %d", id, chain, addr, origin, ct, ak, asset, thr, spentAt))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestUTXOListsPChain lists a P-chain with stake, rewards, a stakeable
// lock and an export: without its staked and exported UTXOs, the P-chain
// list of an address is its UTXO set (PUTXOsOf, checked against the node
// elsewhere); stake outputs carry their staker's period while staked.
func TestUTXOListsPChain(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		sc := newUTXOScenario(t)
		s := openStore(t, dsn)
		for i := range sc.blocks {
			mustApply(t, s, sc.blocks[i:i+1])
			for _, addr := range []ids.ShortID{uAddrA, uAddrB, uAddrC} {
				set := map[heldUTXO]bool{}
				for _, h := range utxosOf(t, s, addr) {
					set[h] = true
				}
				q := UTXOQuery{Chain: internal.PChain, Addresses: []ids.ShortID{addr}, Desc: true}
				got := listAll(t, s, q, 2)
				checkOrder(t, "P list", q, got)
				for _, u := range got {
					h := heldUTXO{u.TxID, u.OutputIndex}
					switch {
					case u.Spent():
						t.Errorf("height %d: spent UTXO %v listed without includeSpent", i, h)
					case u.Staked || u.Exported():
						if set[h] {
							t.Errorf("height %d: staked or exported %v is in the UTXO set", i, h)
						}
					case !set[h]:
						t.Errorf("height %d: listed %v is not in %s's UTXO set", i, h, addr)
					default:
						delete(set, h)
					}
				}
				if len(set) != 0 {
					t.Errorf("height %d: %s's UTXOs %v not listed", i, addr, set)
				}
			}
		}
		// Re-applying changes no list row.
		before := dumpAddressUTXOs(t, s)
		mustApply(t, s, sc.blocks)
		mustApply(t, s, sc.blocks[2:5])
		if after := dumpAddressUTXOs(t, s); after != before || before == "" {
			t.Errorf("re-applying changed the list rows:\n%s\nwas\n%s", after, before)
		}
		// The genesis validator's stake (C's) is staked, with its period.
		us := listAll(t, s, UTXOQuery{Chain: internal.PChain, Addresses: []ids.ShortID{uAddrC}}, 10)
		var stake *ListedUTXO
		for _, u := range us {
			if u.TxID == sc.genVdr.ID() {
				stake = u
			}
		}
		if stake == nil || !stake.Staked || stake.Kind != pchain.KindStake || stake.StakeStart != 1_600_000_000 ||
			stake.StakeEnd != 4_000_000_000 || stake.OutputIndex != 0 || stake.Amount != 5 {
			t.Errorf("genesis stake: %+v", stake)
		}
		// The stakeable-locked genesis allocation, owned by A and B.
		us = listAll(t, s, UTXOQuery{Chain: internal.PChain, Addresses: []ids.ShortID{uAddrB, uAddrA}, IncludeSpent: true}, 10)
		var locked *ListedUTXO
		for _, u := range us {
			if u.TxID == ids.Empty && u.OutputIndex == 1 {
				locked = u
			}
		}
		if locked == nil || locked.StakeableLocktime != 4_000_000_000 || locked.Amount != 7 ||
			!slices.Equal(locked.Owners, []ids.ShortID{uAddrA, uAddrB}) {
			t.Errorf("stakeable-locked allocation: %+v", locked)
		}
		// The delegator's stake, back after the reward, then spent by the
		// export: listed as spent with the export's position.
		d := sc.delegator.ID()
		for _, u := range us {
			if u.TxID == d && u.OutputIndex == 2 {
				if u.Staked || u.Kind != pchain.KindStake || u.ConsumedTxID != sc.export.ID() || u.ConsumedHeight != 5 ||
					u.StakeStart == 0 || u.StakeEnd != 1_700_000_100 {
					t.Errorf("delegator's returned stake: %+v", u)
				}
			}
		}
	})
}

// TestUTXOListThreshold lists outputs of several owners: a UTXO is listed
// when the queried addresses meet its threshold, or, with AnyOwner, when
// one of them is among its owners.
func TestUTXOListThreshold(t *testing.T) {
	out := func(amount uint64, threshold uint32, addrs ...ids.ShortID) *avax.TransferableOutput {
		return &avax.TransferableOutput{Asset: avax.Asset{ID: uAsset}, Out: &secp256k1fx.TransferOutput{Amt: amount,
			OutputOwners: secp256k1fx.OutputOwners{Threshold: threshold, Addrs: addrs}}}
	}
	tx := uTx(t, &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, Outs: []*avax.TransferableOutput{
		out(1, 2, uAddrA, uAddrB), out(2, 1, uAddrA, uAddrB), out(3, 1, uAddrA), out(4, 1, uAddrB),
		out(5, 3, uAddrA, uAddrB, uAddrC), out(6, 2, uAddrB, uAddrC),
	}}})
	blocks := pChain(t, 0, testID("threshold"),
		pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_000, 0)},
		pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_001, 0), txs: []*txs.Tx{tx}})
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		mustApply(t, s, blocks)
		for _, tc := range []struct {
			addrs    []ids.ShortID
			want     []uint64 // amounts, descending
			anyOwner []uint64 // with AnyOwner
		}{
			{[]ids.ShortID{uAddrA}, []uint64{3, 2}, []uint64{5, 3, 2, 1}},
			{[]ids.ShortID{uAddrB}, []uint64{4, 2}, []uint64{6, 5, 4, 2, 1}},
			{[]ids.ShortID{uAddrA, uAddrB}, []uint64{4, 3, 2, 1}, []uint64{6, 5, 4, 3, 2, 1}},
			{[]ids.ShortID{uAddrB, uAddrC}, []uint64{6, 4, 2}, []uint64{6, 5, 4, 2, 1}},
			{[]ids.ShortID{uAddrA, uAddrC, uAddrB}, []uint64{6, 5, 4, 3, 2, 1}, []uint64{6, 5, 4, 3, 2, 1}},
			{[]ids.ShortID{uAddrC}, nil, []uint64{6, 5}},
		} {
			for _, anyOwner := range []bool{false, true} {
				want := tc.want
				if anyOwner {
					want = tc.anyOwner
				}
				for _, n := range []int{1, 2, 10} {
					got := listAll(t, s, UTXOQuery{Chain: internal.PChain, Addresses: tc.addrs, AnyOwner: anyOwner, ByAmount: true, Desc: true}, n)
					var amounts []uint64
					for _, u := range got {
						amounts = append(amounts, u.Amount)
					}
					if !slices.Equal(amounts, want) {
						t.Errorf("%v, anyOwner %v, pages of %d: amounts %v, want %v", tc.addrs, anyOwner, n, amounts, want)
					}
					// NoOwners: the same UTXOs, without their owners.
					bare := listAll(t, s, UTXOQuery{Chain: internal.PChain, Addresses: tc.addrs, AnyOwner: anyOwner, ByAmount: true, Desc: true, NoOwners: true}, n)
					for i, u := range bare {
						if i >= len(got) || u.ID != got[i].ID || u.Amount != got[i].Amount || len(u.Owners) != 0 || len(got[i].Owners) == 0 {
							t.Errorf("%v, NoOwners, pages of %d: item %d = %s with %d owners", tc.addrs, n, i, u.ID, len(u.Owners))
						}
					}
					if len(bare) != len(got) {
						t.Errorf("%v, NoOwners, pages of %d: %d items, want %d", tc.addrs, n, len(bare), len(got))
					}
				}
				// EachUTXO: AnyOwner's UTXOs, each once, in no order.
				if anyOwner {
					var each []uint64
					err := s.EachUTXO(context.Background(), UTXOQuery{Chain: internal.PChain, Addresses: tc.addrs, AnyOwner: true}, func(u *ListedUTXO) error {
						each = append(each, u.Amount)
						return nil
					})
					slices.Sort(each)
					slices.Reverse(each)
					if err != nil || !slices.Equal(each, want) {
						t.Errorf("%v, EachUTXO: amounts %v (%v), want %v", tc.addrs, each, err, want)
					}
				}
			}
		}
	})
}

// TestMergeScan pages through synthetic list rows with many ties, owners
// shared between addresses, thresholds and spent rows, over enough
// addresses to take several statements, and compares every page with the
// list computed from the rows.
func TestMergeScan(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		rng := rand.New(rand.NewPCG(1, 2))
		const nAddrs, nUTXOs = 300, 1500
		addrs := make([]ids.ShortID, nAddrs)
		for i := range addrs {
			addrs[i] = ids.ShortID{byte(i >> 8), byte(i)}
		}
		type row struct {
			id        ids.ID
			owners    []ids.ShortID
			time      int64
			amount    uint64
			threshold int
			spent     bool
		}
		rows := make([]row, nUTXOs)
		var dbRows [][]any
		for i := range rows {
			r := row{time: rng.Int64N(12), amount: uint64(rng.IntN(5)) << 62, spent: rng.IntN(3) == 0}
			r.id = testID("merge", i)
			for _, k := range rng.Perm(nAddrs)[:1+rng.IntN(3)] {
				r.owners = append(r.owners, addrs[k])
			}
			r.threshold = 1 + rng.IntN(len(r.owners))
			rows[i] = r
			spent := 0
			if r.spent {
				spent = 1
			}
			for _, a := range r.owners {
				dbRows = append(dbRows, []any{r.id[:], "P", a[:], "P", r.time, amountKey(r.amount), uAsset[:], r.threshold, spent, "regular", 0, 0, 0})
			}
		}
		if _, err := s.db.BulkInsert(ctx, "address_utxos", addressUTXOColumns, dbRows, ""); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			addrs []ids.ShortID
			pages []int
		}{
			{"5 addresses", addrs[:5], []int{1, 7, 100}},
			{"40 addresses", addrs[100:140], []int{1, 7, 100}},
			{"every address", addrs, []int{100, 5000}},
		} {
			for _, spent := range []bool{false, true} {
				for _, byAmount := range []bool{false, true} {
					for _, desc := range []bool{false, true} {
						q := UTXOQuery{Chain: internal.PChain, Addresses: tc.addrs, IncludeSpent: spent, ByAmount: byAmount, Desc: desc}
						in := map[ids.ShortID]bool{}
						for _, a := range tc.addrs {
							in[a] = true
						}
						type key struct {
							k  uint64
							id ids.ID
						}
						var want []key
						for _, r := range rows {
							n := 0
							for _, a := range r.owners {
								if in[a] {
									n++
								}
							}
							if n >= r.threshold && (spent || !r.spent) {
								k := key{uint64(r.time), r.id}
								if byAmount {
									k.k = r.amount
								}
								want = append(want, k)
							}
						}
						slices.SortFunc(want, func(a, b key) int {
							c := 0
							switch {
							case a.k < b.k:
								c = -1
							case a.k > b.k:
								c = 1
							default:
								c = bytes.Compare(a.id[:], b.id[:])
							}
							if desc {
								return -c
							}
							return c
						})
						for _, n := range tc.pages {
							var (
								got  []key
								from *mergeKey
							)
							scan := q.scan()
							for {
								page, err := scan.run(ctx, s.db, from, n, meetsThreshold)
								if err != nil {
									t.Fatal(err)
								}
								for _, p := range page {
									id, _ := ids.ToID(p.id)
									k := key{uint64(p.key), id}
									if byAmount {
										k.k = uint64(p.key) ^ 1<<63
									}
									got = append(got, k)
								}
								if len(page) < n {
									break
								}
								last := page[n-1].mergeKey
								from = &last
							}
							if !slices.Equal(got, want) {
								t.Errorf("%s, includeSpent %t, byAmount %t, desc %t, pages of %d: %d items, want %d (first difference at %d)",
									tc.name, spent, byAmount, desc, n, len(got), len(want), firstDiff(got, want))
							}
						}
					}
				}
			}
		}
	})
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestUTXOListOwners lists UTXOs of one to five owners each, owner sets
// that differ from one UTXO to the next, over several pages, by the rule
// of thresholds (some pages read in more than one round, as a threshold
// turns items away) and by AnyOwner's (one statement a page), and checks
// that each UTXO comes with its own owners: a page that attached owners to
// the wrong UTXO, or lost or repeated some, fails here. One address has
// zero bytes, which a concatenation of addresses must keep.
func TestUTXOListOwners(t *testing.T) {
	addrs := []ids.ShortID{uAddrA, uAddrB, uAddrC, {0, 0, 0, 7}, {0xff, 0, 0xfe}}
	const n = 40
	owners := make([][]ids.ShortID, n)
	var (
		outs []*avax.TransferableOutput
		ones int // UTXOs of threshold 1
	)
	for i := range n {
		// addrs[0] and a subset of the others, by the bits of i.
		set := []ids.ShortID{addrs[0]}
		for j := 1; j < len(addrs); j++ {
			if (i*7+3)>>(j-1)&1 == 1 {
				set = append(set, addrs[j])
			}
		}
		slices.SortFunc(set, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
		owners[i] = set
		threshold := uint32(1)
		if i%3 == 0 && len(set) > 1 {
			threshold = 2
		} else {
			ones++
		}
		outs = append(outs, &avax.TransferableOutput{Asset: avax.Asset{ID: uAsset}, Out: &secp256k1fx.TransferOutput{
			Amt: uint64(i + 1), OutputOwners: secp256k1fx.OutputOwners{Threshold: threshold, Addrs: set}}})
	}
	tx := uTx(t, &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: 12345, Outs: outs}})
	blocks := pChain(t, 0, testID("owners"),
		pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_000, 0)},
		pSpec{typ: "BanffStandardBlock", time: time.Unix(1_700_000_001, 0), txs: []*txs.Tx{tx}})
	dbtest.Run(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		mustApply(t, s, blocks)
		for _, tc := range []struct {
			name string
			q    UTXOQuery
			want int // items
		}{
			// addrs[0] alone meets the threshold of 1 only.
			{"one address", UTXOQuery{Addresses: addrs[:1]}, ones},
			{"one address, any owner", UTXOQuery{Addresses: addrs[:1], AnyOwner: true}, n},
			{"all addresses", UTXOQuery{Addresses: addrs}, n},
			{"all addresses by time", UTXOQuery{Addresses: addrs}, n},
		} {
			for _, size := range []int{1, 3, 7, 100} {
				q := tc.q
				q.Chain, q.ByAmount, q.Desc = internal.PChain, tc.name != "all addresses by time", size%2 == 1
				got := listAll(t, s, q, size)
				if len(got) != tc.want {
					t.Errorf("%s, pages of %d: %d items, want %d", tc.name, size, len(got), tc.want)
				}
				seen := map[uint32]bool{}
				for _, u := range got {
					i := u.OutputIndex
					if u.TxID != tx.ID() || int(i) >= n || seen[i] {
						t.Fatalf("%s, pages of %d: unexpected or repeated UTXO %s:%d", tc.name, size, u.TxID, i)
					}
					seen[i] = true
					if !slices.Equal(u.Owners, owners[i]) || u.Amount != uint64(i+1) {
						t.Errorf("%s, pages of %d: UTXO %d (amount %d) owned by %v, want %v", tc.name, size, i, u.Amount, u.Owners, owners[i])
					}
				}
			}
		}
	})
}

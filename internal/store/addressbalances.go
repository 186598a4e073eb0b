package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The per-address sums of unspent UTXOs a balance reads (address_balances,
// migration 0049): the list rows of a UTXO with one owner whose state the
// row holds are counted there (summed = 1), kept by the same writes that
// change the rows: listedOutputs.write adds the rows it inserts unspent,
// markListedSpent subtracts the rows it marks spent, a rederive counts
// them again from the rows it keeps (recountAddressBalances).

// balanceGroup is the key of an address_balances row.
type balanceGroup struct {
	chain, origin, kind string
	address             string // its bytes
	asset               ids.ID
	locktime, stakeable int64
}

// balanceDelta is a change to a group's sums: the amounts' low and high
// 32 bits, and the number of UTXOs.
type balanceDelta struct{ lo, hi, n int64 }

// balanceDeltas accumulates a batch's changes to address_balances, one
// row per group (PostgreSQL's upsert may touch a row once per statement).
type balanceDeltas map[balanceGroup]*balanceDelta

// add counts (sign 1) or uncounts (sign -1) a UTXO of amount in g.
func (d balanceDeltas) add(g balanceGroup, amount uint64, sign int64) {
	x := d[g]
	if x == nil {
		x = &balanceDelta{}
		d[g] = x
	}
	x.lo += sign * int64(amount&0xFFFFFFFF)
	x.hi += sign * int64(amount>>32)
	x.n += sign
}

// addRow adds a list row as stored: amountKey's amount, kind, locktime and
// stakeable locktime as address_utxos holds them.
func (d balanceDeltas) addRow(chain, address, origin, kind string, asset []byte, amountKey, locktime, stakeable int64, sign int64) error {
	a, err := ids.ToID(asset)
	if err != nil {
		return err
	}
	d.add(balanceGroup{chain: chain, address: address, origin: origin, kind: kind, asset: a, locktime: locktime, stakeable: stakeable},
		uint64(amountKey)^(1<<63), sign)
	return nil
}

// merge adds o to d.
func (d balanceDeltas) merge(o balanceDeltas) {
	for g, x := range o {
		y := d[g]
		if y == nil {
			y = &balanceDelta{}
			d[g] = y
		}
		y.lo, y.hi, y.n = y.lo+x.lo, y.hi+x.hi, y.n+x.n
	}
}

var addressBalanceColumns = []string{"chain", "address", "origin", "asset_id", "kind", "locktime", "stakeable_locktime",
	"amount_lo", "amount_hi", "utxos"}

const addToBalances = `ON CONFLICT (chain, address, origin, asset_id, kind, locktime, stakeable_locktime) DO UPDATE SET
	amount_lo = address_balances.amount_lo + excluded.amount_lo, amount_hi = address_balances.amount_hi + excluded.amount_hi,
	utxos = address_balances.utxos + excluded.utxos`

// write adds d to address_balances, in key order (the same order of row
// locks for every writer).
func (d balanceDeltas) write(ctx context.Context, tx *database.DB) error {
	gs := make([]balanceGroup, 0, len(d))
	for g, x := range d {
		if *x != (balanceDelta{}) {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return nil
	}
	slices.SortFunc(gs, func(a, b balanceGroup) int {
		return cmp.Or(strings.Compare(a.chain, b.chain), strings.Compare(a.address, b.address), strings.Compare(a.origin, b.origin),
			bytes.Compare(a.asset[:], b.asset[:]), strings.Compare(a.kind, b.kind), cmp.Compare(a.locktime, b.locktime),
			cmp.Compare(a.stakeable, b.stakeable))
	})
	rows := make([][]any, len(gs))
	for i, g := range gs {
		x := d[g]
		rows[i] = []any{g.chain, []byte(g.address), g.origin, g.asset[:], g.kind, g.locktime, g.stakeable, x.lo, x.hi, x.n}
	}
	if err := tx.Append(ctx, "address_balances", addressBalanceColumns, rows, addToBalances); err != nil {
		return err
	}
	// The groups a spend emptied go: the table is then a function of the
	// list rows alone, whatever the batches were.
	emptied := map[string][][]byte{}
	for _, g := range gs {
		if d[g].n < 0 {
			emptied[g.chain] = append(emptied[g.chain], []byte(g.address))
		}
	}
	for _, chain := range slices.Sorted(maps.Keys(emptied)) {
		addrs := slices.CompactFunc(emptied[chain], bytes.Equal) // gs is sorted by chain, then address
		for start := 0; start < len(addrs); start += maxInList {
			chunk := addrs[start:min(len(addrs), start+maxInList)]
			args := []any{chain}
			for _, a := range chunk {
				args = append(args, a)
			}
			if _, err := tx.Exec(ctx, "DELETE FROM address_balances WHERE chain = ? AND address IN (?"+strings.Repeat(", ?", len(chunk)-1)+
				") AND utxos = 0", args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// recountAddressBalances writes address_balances anew from the list
// rows (run on an empty table): a rederive's, which re-derives the spent
// flags of the rows it keeps too. An amount's low 32 bits are its key's;
// its high 32 its key's with the top bit flipped back (a sign-extending
// shift on both stores, then the bit added and the rest masked off).
const recountAddressBalances = `INSERT INTO address_balances (chain, address, origin, asset_id, kind, locktime, stakeable_locktime,
		amount_lo, amount_hi, utxos)
	SELECT chain, address, origin, asset_id, kind, locktime, stakeable_locktime, SUM(amount_key & 4294967295),
		SUM(((amount_key >> 32) + 2147483648) & 4294967295), COUNT(*)
	FROM address_utxos WHERE summed = 1 AND spent = 0
	GROUP BY chain, address, origin, asset_id, kind, locktime, stakeable_locktime`

// summable reports whether a list row of a UTXO of origin, of that kind
// and with that many owners, is counted in address_balances.
func summable(origin internal.Chain, kind string, owners int) bool {
	return owners == 1 && !(origin == internal.PChain && kind == internal.PKindStake) &&
		!(origin == internal.XChain && kind == xchainKindOther)
}

// summableSQL is summable over an address_utxos row (kind NULL: its
// columns not filled, read from the UTXO's table).
const summableSQL = `CASE WHEN kind IS NULL OR (origin = 'P' AND kind = 'stake') OR (origin = 'X' AND kind = 'other')
	OR EXISTS (SELECT 1 FROM address_utxos o WHERE o.utxo_id = address_utxos.utxo_id AND o.chain = address_utxos.chain
		AND o.address <> address_utxos.address) THEN 0 ELSE 1 END`

// returningBalanceRow are the columns of a list row balanceDeltas.addRow
// reads, after utxo_id, chain and address.
const returningBalanceRow = "origin, kind, asset_id, amount_key, locktime, stakeable_locktime, summed"

// balanceRow is a list row scanned through returningBalanceRow.
type balanceRow struct {
	id, address, asset          []byte
	chain, origin               string
	kind                        sql.NullString
	amountKey                   int64
	locktime, stakeable, summed sql.NullInt64
}

func (r *balanceRow) dest(extra ...any) []any {
	return append([]any{&r.id, &r.chain, &r.address, &r.origin, &r.kind, &r.asset, &r.amountKey, &r.locktime, &r.stakeable,
		&r.summed}, extra...)
}

// uncount subtracts the row from d when it is counted.
func (r *balanceRow) uncount(d balanceDeltas) error {
	if r.summed.Int64 != 1 {
		return nil
	}
	return d.addRow(r.chain, string(r.address), r.origin, r.kind.String, r.asset, r.amountKey, r.locktime.Int64, r.stakeable.Int64, -1)
}

// addressBalancesReady reports whether address_balances counts every list
// row it should: not while its backfill is pending.
func addressBalancesReady(ctx context.Context, db *database.DB) (bool, error) {
	return backfillDone(ctx, db, "address_balances")
}

// addressBalanceParts is the address_balances backfill, for what was
// stored before migration 0049: summed set on every list row and the rows
// counted added, a sixteenth of the UTXO ids (their first byte's high
// nibble) per chunk, so that a UTXO's owners are in one chunk.
func addressBalanceParts(context.Context, *database.DB) ([]BackfillPart, error) {
	return []BackfillPart{{Name: "the per-address UTXO sums", Lo: 0, Hi: 16, fill: fillAddressBalances}}, nil
}

func fillAddressBalances(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
	cond, args := prefixRange("utxo_id", lo, hi)
	d := balanceDeltas{}
	var (
		r     balanceRow
		spent int64
	)
	err := tx.RunQuery(ctx, "UPDATE address_utxos SET summed = "+summableSQL+" WHERE "+cond+" AND summed IS NULL RETURNING utxo_id, chain, address, "+
		returningBalanceRow+", spent", func(rows *sql.Rows) error {
		if err := rows.Scan(r.dest(&spent)...); err != nil {
			return err
		}
		if spent != 0 || r.summed.Int64 != 1 {
			return nil
		}
		return d.addRow(r.chain, string(r.address), r.origin, r.kind.String, r.asset, r.amountKey, r.locktime.Int64, r.stakeable.Int64, 1)
	}, args...)
	if err != nil {
		return 0, err
	}
	return hi, d.write(ctx, tx)
}

// UTXOSum is one UTXO of a balance or a group of alike ones. UTXO holds
// what a balance judges: Origin, Kind, AssetID, Locktime and
// StakeableLocktime, and for a single UTXO all that EachUTXO sets.
// Amount is their total, Count how many they are.
type UTXOSum struct {
	UTXO   *ListedUTXO
	Amount *big.Int
	Count  int
}

// SumUTXOs calls f with the unspent UTXOs of q's list that any of
// q.Addresses owns, as EachUTXO reads them (q as EachUTXO takes it, but
// for IncludeSpent), each counted once: groups of alike UTXOs from
// address_balances, and one by one the UTXOs it does not count (several
// owners, stake outputs, the X-chain's outputs of kind other), all read
// in one snapshot. While the sums' backfill is pending, every UTXO comes
// one by one.
func (s *sqlStore) SumUTXOs(ctx context.Context, q UTXOQuery, f func(UTXOSum) error) (err error) {
	defer derrors.Wrap(&err, "store.SumUTXOs(%s, %d addresses)", q.Chain, len(q.Addresses))
	if err := checkEachUTXO(q); err != nil {
		return err
	}
	if q.IncludeSpent {
		return derrors.Invalid("SumUTXOs sums the unspent UTXOs")
	}
	one := func(u *ListedUTXO) error {
		return f(UTXOSum{UTXO: u, Amount: new(big.Int).SetUint64(u.Amount), Count: 1})
	}
	return s.db.ReadTx(ctx, func(tx *database.DB) error {
		ready, err := addressBalancesReady(ctx, tx)
		if err != nil {
			return err
		}
		if !ready {
			return eachUTXO(ctx, tx, q, "spent = 0", one)
		}
		if err := sumGroups(ctx, tx, q, f); err != nil {
			return err
		}
		return eachUTXO(ctx, tx, q, "spent = 0 AND summed = 0", one)
	})
}

// sumGroups calls f with the sums of q's addresses, the groups alike for
// a balance added together.
func sumGroups(ctx context.Context, tx *database.DB, q UTXOQuery, f func(UTXOSum) error) error {
	type key struct {
		origin, kind        string
		asset               ids.ID
		locktime, stakeable int64
	}
	type sum struct {
		lo, hi big.Int
		n      int64
	}
	sums := map[key]*sum{}
	var keys []key
	addrs := sortedAddresses(q.Addresses)
	for start := 0; start < len(addrs); start += maxInList {
		chunk := addrs[start:min(len(addrs), start+maxInList)]
		in, inArgs := tx.InList(addressBytes(chunk))
		args := append([]any{string(q.Chain)}, inArgs...)
		var (
			k         key
			asset     []byte
			lo, hi, n int64
			x         big.Int
		)
		err := tx.RunPrepared(ctx, "SELECT origin, kind, asset_id, locktime, stakeable_locktime, amount_lo, amount_hi, utxos FROM address_balances "+
			"WHERE chain = ? AND address "+in+" AND utxos <> 0", func(r *sql.Rows) error {
			if err := r.Scan(&k.origin, &k.kind, &asset, &k.locktime, &k.stakeable, &lo, &hi, &n); err != nil {
				return err
			}
			var err error
			if k.asset, err = ids.ToID(asset); err != nil {
				return err
			}
			s := sums[k]
			if s == nil {
				s = &sum{}
				sums[k] = s
				keys = append(keys, k)
			}
			s.lo.Add(&s.lo, x.SetInt64(lo))
			s.hi.Add(&s.hi, x.SetInt64(hi))
			s.n += n
			return nil
		}, args...)
		if err != nil {
			return err
		}
	}
	for _, k := range keys {
		s := sums[k]
		if s.n < 0 || s.lo.Sign() < 0 || s.hi.Sign() < 0 {
			return fmt.Errorf("address_balances: a negative sum (%d UTXOs) of %s %s", s.n, k.origin, k.asset)
		}
		total := new(big.Int).Lsh(&s.hi, 32)
		total.Add(total, &s.lo)
		u := &ListedUTXO{Origin: internal.Chain(k.origin), Kind: k.kind, AssetID: k.asset, Locktime: uint64(k.locktime),
			StakeableLocktime: uint64(k.stakeable)}
		if err := f(UTXOSum{UTXO: u, Amount: total, Count: int(s.n)}); err != nil {
			return err
		}
	}
	return nil
}

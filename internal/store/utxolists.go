package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// UTXOListStore reads the per-address UTXO lists of the Data API (table
// address_utxos, migration 0012).
type UTXOListStore interface {
	// ListUTXOs returns up to limit UTXOs of q's list, in q's order,
	// starting after the UTXO whose key is after (nil: at the first). The
	// queries of one call see one snapshot.
	ListUTXOs(ctx context.Context, q UTXOQuery, after *UTXOKey, limit int) ([]*ListedUTXO, error)
	// EachUTXO calls f with each UTXO any of q.Addresses owns, in no
	// order (see sqlStore.EachUTXO).
	EachUTXO(ctx context.Context, q UTXOQuery, f func(*ListedUTXO) error) error
	// SumUTXOs calls f with the unspent UTXOs any of q.Addresses owns,
	// alike ones summed (see sqlStore.SumUTXOs).
	SumUTXOs(ctx context.Context, q UTXOQuery, f func(UTXOSum) error) error
}

// UTXOQuery selects and orders a UTXO list.
type UTXOQuery struct {
	// Chain is the list: the UTXOs created on the chain and the atomic
	// UTXOs exported to it.
	Chain internal.Chain
	// Addresses are the queried addresses, at least one. A UTXO is listed
	// when as many of them are among its owners as its threshold asks.
	Addresses []ids.ShortID
	// AnyOwner lists a UTXO when any of the addresses is among its owners,
	// whatever its threshold: the node's rule for balances
	// (platform.getBalance, avm.getAllBalances with includePartial).
	AnyOwner bool
	// AssetID, when not nil, keeps the UTXOs of that asset only.
	AssetID *ids.ID
	// MinAmount keeps the UTXOs of at least that amount.
	MinAmount uint64
	// IncludeSpent lists consumed UTXOs too; otherwise only the unspent
	// (staked ones included).
	IncludeSpent bool
	// ByAmount orders by amount, otherwise by creation time; ties by UTXO
	// id, in the same direction.
	ByAmount bool
	Desc     bool
	// NoOwners leaves ListedUTXO.Owners empty, sparing a read of each
	// UTXO's owner rows for a reader that does not show them (balances).
	NoOwners bool
}

// UTXOKey is a UTXO's position in a list: its creation time (unix
// seconds) or its amount, per UTXOQuery.ByAmount, and its id.
type UTXOKey struct {
	Key uint64
	ID  ids.ID
}

// ListedUTXO is one UTXO of a list, as the chain that created it stored
// it.
type ListedUTXO struct {
	ID          ids.ID
	TxID        ids.ID // UTXOID.TxID
	OutputIndex uint32
	// Origin is the chain that created it; Kind its kind there
	// (internal.PKind*, xchain.Kind*, cchain.KindExported).
	Origin internal.Chain
	Kind   string
	// PeerChain is an exported UTXO's destination chain.
	PeerChain         ids.ID
	AssetID           ids.ID
	Amount            uint64
	Locktime          uint64
	Threshold         uint32
	StakeableLocktime uint64 // a P-chain stakeable.LockOut's; 0 otherwise
	// Owners are its owners' addresses, in byte order.
	Owners []ids.ShortID
	// Bytes is the avax.UTXO in the origin chain's encoding.
	Bytes         []byte
	CreatedTxID   ids.ID
	CreatedHeight uint64 // on Origin
	CreatedTime   int64
	// Staked is true for a P-chain stake output while its staker is
	// active; StakeStart and StakeEnd are a stake output's staking period.
	Staked               bool
	StakeStart, StakeEnd uint64
	// ConsumedTxID is the tx that spent it (the import, on PeerChain, for
	// an exported UTXO), ids.Empty while unspent; ConsumedHeight and
	// ConsumedTime are that tx's block's on its chain.
	ConsumedTxID   ids.ID
	ConsumedHeight uint64
	ConsumedTime   int64
}

// Exported reports whether the UTXO went to another chain's shared memory.
func (u *ListedUTXO) Exported() bool { return u.Kind == exportedKind }

// Spent reports whether the UTXO was consumed.
func (u *ListedUTXO) Spent() bool { return u.ConsumedTxID != ids.Empty }

// Key returns the UTXO's position in a list ordered by amount or by time.
func (u *ListedUTXO) Key(byAmount bool) UTXOKey {
	if byAmount {
		return UTXOKey{Key: u.Amount, ID: u.ID}
	}
	return UTXOKey{Key: uint64(u.CreatedTime), ID: u.ID}
}

// exportedKind is the kind of exported UTXOs in every chain's table.
const exportedKind = internal.UTXOKindExported

// xchainKindOther is xchain.KindOther (the store imports no chain package): the kind
// of the X-chain outputs a balance decodes.
const xchainKindOther = "other"

// amountKey is the address_utxos.amount_key of an amount: its top bit
// flipped, so that BIGINT order is unsigned amount order.
func amountKey(a uint64) int64 { return int64(a ^ (1 << 63)) }

// amountKeySQL is amountKey in SQL over the stored int64 bits of an amount
// (SQLite has no XOR operator); no step overflows.
func amountKeySQL(col string) string {
	return "CASE WHEN " + col + " >= 0 THEN " + col + " - 9223372036854775807 - 1 ELSE " + col + " + 9223372036854775807 + 1 END"
}

var addressUTXOColumns = []string{"utxo_id", "chain", "address", "origin", "created_time", "amount_key",
	"asset_id", "threshold", "spent", "kind", "locktime", "stakeable_locktime", "summed"}

// listedKind is the address_utxos.kind of an output of origin: its kind
// in origin's table (the C-chain stores only exports, with no kind).
func listedKind(kind string, origin internal.Chain) string {
	if origin == internal.CChain {
		return exportedKind
	}
	return kind
}

// balanceColumnsSQL selects, from the table u of origin's UTXOs, the
// address_utxos columns of migration 0046: kind, locktime and stakeable
// locktime, as listedOutputs.write writes them.
func balanceColumnsSQL(origin internal.Chain) string {
	t := utxoTables[origin]
	return t.kind + ", u.locktime, COALESCE(" + t.stakeable + ", 0)"
}

// listedOutputs accumulates the outputs a batch adds to the lists.
type listedOutputs struct {
	outs []listedOutput
}

type listedOutput struct {
	o      *internal.UTXOOutput
	origin internal.Chain
	pos    position // of the tx that made it
	// spent: the batch spends it too (utxoRows.spendMade).
	spent bool
}

// add lists o, created on origin by the tx at pos.
func (l *listedOutputs) add(o *internal.UTXOOutput, origin internal.Chain, pos position) {
	l.outs = append(l.outs, listedOutput{o: o, origin: origin, pos: pos})
}

// listChains maps chain ids to the lists of the chains they name: the
// P-chain's always, the X- and C-chain's when the network is stored (in
// store tests it may not be; exports to them are then listed on their
// source chain only).
func listChains(ctx context.Context, tx *database.DB) (map[ids.ID]internal.Chain, error) {
	n, ok, err := storedNetwork(ctx, tx)
	if err != nil {
		return nil, err
	}
	return listChainsOf(n, ok), nil
}

// listChainsOf is listChains of the network n (ok false: none stored).
func listChainsOf(n *internal.Network, ok bool) map[ids.ID]internal.Chain {
	m := map[ids.ID]internal.Chain{constants.PlatformChainID: internal.PChain}
	if ok {
		m[n.XChainID] = internal.XChain
		m[n.CChainID] = internal.CChain
	}
	return m
}

// write inserts the list rows of the outputs: one per owner on the
// origin's list and, for an exported output, on its destination's, and
// adds those inserted unspent to the batch's sums. The owners of those
// the batch spends go to its spent owners, as markListedSpent's would.
// fresh tells that the outputs' UTXO rows were all new (the batch not
// applied before), and so are their list rows; otherwise the rows
// already stored are read first, not to be added twice.
func (l *listedOutputs) write(ctx context.Context, b *batchTx, fresh bool) error {
	tx := b.db
	if len(l.outs) == 0 {
		return nil
	}
	n, ok, err := b.network(ctx)
	if err != nil {
		return err
	}
	chains := listChainsOf(n, ok)
	stored := map[string]bool{}
	if !fresh {
		if stored, err = storedListRows(ctx, tx, l.outs); err != nil {
			return err
		}
	}
	so := b.spent
	var rows [][]any
	for _, lo := range l.outs {
		o := lo.o
		id := o.ID()
		lists := []internal.Chain{lo.origin}
		if o.Kind == exportedKind {
			if dest, ok := chains[o.PeerChain]; ok && dest != lo.origin {
				lists = append(lists, dest)
			}
		}
		spent := 0
		if lo.spent {
			spent = 1
		}
		kind := listedKind(o.Kind, lo.origin)
		summed := 0
		if summable(lo.origin, kind, len(o.Owners.Addrs)) {
			summed = 1
		}
		for _, c := range lists {
			for _, a := range o.Owners.Addrs {
				rows = append(rows, []any{id[:], string(c), a[:], string(lo.origin), lo.pos.time, amountKey(o.Amount),
					o.AssetID[:], int64(o.Owners.Threshold), spent, kind, int64(o.Owners.Locktime),
					int64(o.StakeableLocktime), summed})
				if lo.spent && so != nil {
					so.add(c, id, a[:])
				}
				if summed == 1 && !lo.spent && !stored[listRowKey(id[:], string(c), a[:])] {
					b.sums.add(balanceGroup{chain: string(c), address: string(a[:]), origin: string(lo.origin), kind: kind, asset: o.AssetID,
						locktime: int64(o.Owners.Locktime), stakeable: int64(o.StakeableLocktime)}, o.Amount, 1)
				}
			}
		}
	}
	return tx.Append(ctx, "address_utxos", addressUTXOColumns, rows, newRowsConflict(ctx))
}

// listRowKey is the key of a list row in storedListRows' set.
func listRowKey(id []byte, chain string, address []byte) string {
	return string(id) + chain + string(address)
}

// storedListRows returns the keys (listRowKey) of the list rows of outs
// already stored.
func storedListRows(ctx context.Context, tx *database.DB, outs []listedOutput) (map[string]bool, error) {
	all := make([]ids.ID, len(outs))
	for i, lo := range outs {
		all[i] = lo.o.ID()
	}
	stored := map[string]bool{}
	err := idChunks(all, func(args []any, in string) error {
		return tx.RunQuery(ctx, "SELECT utxo_id, chain, address FROM address_utxos WHERE utxo_id IN "+in, func(r *sql.Rows) error {
			var (
				id, addr []byte
				chain    string
			)
			if err := r.Scan(&id, &chain, &addr); err != nil {
				return err
			}
			stored[listRowKey(id, chain, addr)] = true
			return nil
		}, args...)
	})
	return stored, err
}

// markListedSpent marks the list rows of the UTXOs utxoIDs consumed, on
// every list, takes them out of the batch's sums and, when it keeps them,
// records their owners in its spent owners.
func markListedSpent(ctx context.Context, b *batchTx, utxoIDs []ids.ID) error {
	so := b.spent
	return idChunks(utxoIDs, func(args []any, in string) error {
		var r balanceRow
		return b.db.RunQuery(ctx, "UPDATE address_utxos SET spent = 1 WHERE spent = 0 AND utxo_id IN "+in+
			" RETURNING utxo_id, chain, address, "+returningBalanceRow, func(rows *sql.Rows) error {
			if err := rows.Scan(r.dest()...); err != nil {
				return err
			}
			if so != nil {
				uid, err := ids.ToID(r.id)
				if err != nil {
					return err
				}
				so.add(internal.Chain(r.chain), uid, r.address) // Scan gave a copy
			}
			return r.uncount(b.sums)
		}, args...)
	})
}

// spentOwners are the owners of the UTXOs a batch's steps marked spent,
// by list (chain) and UTXO (batchTx.spent).
type spentOwners map[internal.Chain]map[ids.ID][][]byte

func (so spentOwners) add(chain internal.Chain, id ids.ID, addr []byte) {
	m := so[chain]
	if m == nil {
		m = map[ids.ID][][]byte{}
		so[chain] = m
	}
	m[id] = append(m[id], addr)
}

// addressUTXOParts are the parts of the address_utxos backfill: for each
// table of UTXOs, every UTXO on its origin's list, then the exported ones
// on each destination's, by created height. Rows already there are kept.
// Their summed is NULL: the address_balances backfill, after this one,
// counts them.
func addressUTXOParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	chains, err := listChains(ctx, db)
	if err != nil {
		return nil, err
	}
	dests := make([]ids.ID, 0, len(chains))
	for id := range chains {
		dests = append(dests, id)
	}
	slices.SortFunc(dests, func(a, b ids.ID) int { return a.Compare(b) })
	cols := strings.Join(addressUTXOColumns, ", ")
	var parts []BackfillPart
	for _, t := range exportTables {
		sel := func(list string) string {
			return `INSERT INTO address_utxos (` + cols + `)
				SELECT u.id, ` + list + `, a.address, '` + string(t.chain) + `', u.created_time, ` + amountKeySQL("u.amount") + `,
					u.asset_id, u.threshold, CASE WHEN u.consumed_tx_id IS NULL THEN 0 ELSE 1 END, ` + balanceColumnsSQL(t.chain) + `, NULL
				FROM ` + t.table + ` u JOIN ` + t.address + ` a ON a.utxo_id = u.id
				WHERE u.created_height >= ? AND u.created_height < ?`
		}
		bounds := "SELECT MIN(created_height), MAX(created_height) FROM " + t.table
		// Every UTXO on its origin's list (the WHERE keeps SQLite's parser
		// from reading ON CONFLICT as a join's ON).
		p, err := rangePart(ctx, db, fmt.Sprintf("the %s-chain's list", t.chain), bounds, nil,
			func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
				_, err := tx.Exec(ctx, sel("'"+string(t.chain)+"'")+" "+onConflictDoNothing, lo, hi)
				return hi, err
			})
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		for _, id := range dests {
			dest := chains[id]
			if dest == t.chain {
				continue
			}
			p, err := rangePart(ctx, db, fmt.Sprintf("the %s-chain's exports to the %s-chain", t.chain, dest), bounds, nil,
				func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
					_, err := tx.Exec(ctx, sel("CAST(? AS TEXT)")+" AND "+t.where+" AND u.peer_chain_id = ? "+onConflictDoNothing,
						string(dest), lo, hi, id[:])
					return hi, err
				})
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// balanceColumnParts are the parts of the address_utxo_balances backfill
// (migration 0046): the kind and locktimes of the list rows of each table
// of UTXOs, by created height, and the X-chain's DAG UTXOs (all at height
// 0) by their DAG tx's index, so that no chunk holds the whole DAG
// history. Positions are heights, and created_idx + 1 at X height 0.
func balanceColumnParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	fill := func(origin internal.Chain, cond string, shift int64) func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
		t := utxoTables[origin]
		// Correlated subqueries rather than UPDATE ... FROM: SQLite and
		// PostgreSQL both walk the range's UTXOs then their rows by the
		// primary key (utxo_id first).
		q := `UPDATE address_utxos SET (kind, locktime, stakeable_locktime) =
				(SELECT ` + balanceColumnsSQL(origin) + ` FROM ` + t.table + ` u WHERE u.id = address_utxos.utxo_id)
			WHERE origin = '` + string(origin) + `' AND utxo_id IN (SELECT u.id FROM ` + t.table + ` u WHERE ` + cond + `)`
		return func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
			_, err := tx.Exec(ctx, q, lo-shift, hi-shift)
			return hi, err
		}
	}
	const byHeight = "u.created_height >= ? AND u.created_height < ?"
	var parts []BackfillPart
	for _, p := range []struct {
		name, bounds string
		origin       internal.Chain
		cond         string
		shift        int64
	}{
		{"the P-chain's UTXOs", "SELECT MIN(created_height), MAX(created_height) FROM p_utxos", internal.PChain, byHeight, 0},
		{"the X-chain's UTXOs of height 0", "SELECT MIN(created_idx) + 1, MAX(created_idx) + 1 FROM x_utxos WHERE created_height = 0",
			internal.XChain, "u.created_height = 0 AND u.created_idx >= ? AND u.created_idx < ?", 1},
		{"the X-chain's UTXOs above height 0", "SELECT MIN(created_height), MAX(created_height) FROM x_utxos WHERE created_height > 0",
			internal.XChain, "u.created_height > 0 AND " + byHeight, 0},
		{"the C-chain's exports", "SELECT MIN(created_height), MAX(created_height) FROM c_atomic_utxos", internal.CChain, byHeight, 0},
	} {
		part, err := rangePart(ctx, db, p.name, p.bounds, nil, fill(p.origin, p.cond, p.shift))
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// listedSelect selects, from the table u of origin's UTXOs, the columns
// scanListedUTXO reads.
func listedSelect(origin internal.Chain) string {
	return "SELECT " + strings.Join(listedExprs(origin, "u"), ", ") + " FROM " + utxoTables[origin].table + " u"
}

// listedExprs are the columns scanListedUTXO reads, from the row alias of
// origin's UTXO table.
func listedExprs(origin internal.Chain, alias string) []string {
	t := utxoTables[origin]
	col := func(c string) string {
		// The chains' columns that are constants (NULL, FALSE, a kind)
		// are no column of the row.
		if strings.Trim(c, "abcdefghijklmnopqrstuvwxyz_") != "" {
			return c
		}
		return alias + "." + c
	}
	cols := []string{"id", "tx_id", "output_index", t.kind, "peer_chain_id", "asset_id", "amount", "locktime",
		"threshold", t.stakeable, "bytes", "created_tx_id", "created_height", "created_time", t.staked,
		"consumed_tx_id", "consumed_height", "consumed_time"}
	for i, c := range cols {
		cols[i] = col(c)
	}
	return cols
}

func (s *sqlStore) ListUTXOs(ctx context.Context, q UTXOQuery, after *UTXOKey, limit int) (_ []*ListedUTXO, err error) {
	defer derrors.Wrap(&err, "store.ListUTXOs(%s, %d addresses)", q.Chain, len(q.Addresses))
	if _, ok := utxoTables[q.Chain]; !ok {
		return nil, derrors.Invalid("no UTXO list of chain %q", q.Chain)
	}
	if len(q.Addresses) == 0 || limit <= 0 {
		return nil, derrors.Invalid("a UTXO list needs addresses and a positive limit")
	}
	scan := q.scan()
	from, err := q.from(after)
	if err != nil {
		return nil, err
	}
	// The usual page is one statement of the merged scan with each UTXO's
	// row, owners and staking period folded in: one round trip, and one
	// snapshot on either engine. A page that needs more (several rounds,
	// when thresholds turn items away, or arms beyond one statement's)
	// is read again below in a read transaction.
	if len(scan.arms) <= s.db.MaxMergeArms() {
		folded := *scan
		folded.fold = q.fold(s.db.Dialect())
		r, err := folded.round(ctx, s.db, from, nil, limit, q.accept())
		if err != nil {
			return nil, err
		}
		if r.statements == 1 && (r.done || len(r.out) == limit) {
			out := make([]*ListedUTXO, len(r.out))
			for i, row := range r.out {
				out[i] = row.item.(*ListedUTXO)
			}
			return out, nil
		}
	}
	var out []*ListedUTXO
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		keys, err := scan.run(ctx, tx, from, limit, q.accept())
		if err != nil || len(keys) == 0 {
			return err
		}
		out, err = listedUTXOs(ctx, tx, q.Chain, keys, !q.NoOwners)
		return err
	})
	return out, err
}

// listOrigins are the chains whose UTXO tables a list's items come from.
var listOrigins = []internal.Chain{internal.PChain, internal.XChain, internal.CChain}

// fold reads each item of q's merged scan whole in the scan's statement,
// as listedUTXOs does: its row from its origin's table (one lookup by id,
// in the table the list row's origin names), its owners on q's list and,
// for a P-chain stake output, its staker's staking period.
//
// The owners come as one value, their addresses concatenated, since
// neither engine's driver here reads an array of BYTEA. PostgreSQL reads
// each table by a LATERAL subquery, which OFFSET 0 keeps from being
// flattened into a join it might hash over the whole table (as in
// latestTxsQuery); SQLite's nested loop looks each row up by id anyway.
func (q UTXOQuery) fold(d database.Dialect) *mergeFold {
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	var b strings.Builder
	b.WriteString("SELECT m.k, m.i, m.x, m.o")
	cols := len(listedExprs(internal.PChain, "u"))
	exprs := make([][]string, len(listOrigins))
	for j, o := range listOrigins {
		exprs[j] = listedExprs(o, "o"+strings.ToLower(string(o)))
	}
	for c := 0; c < cols; c++ {
		b.WriteString(", CASE m.o")
		for j, o := range listOrigins {
			fmt.Fprintf(&b, " WHEN '%s' THEN %s", o, exprs[j][c])
		}
		b.WriteString(" END")
	}
	for _, col := range []string{"start_time", "end_time"} {
		b.WriteString(", CASE WHEN m.o = 'P' AND op.kind = '" + internal.PKindStake + "' THEN (SELECT s." + col +
			" FROM p_stakers s WHERE s.tx_id = op.tx_id) END")
	}
	switch {
	case q.NoOwners:
		b.WriteString(", NULL")
	case d == database.Postgres:
		b.WriteString(", (SELECT string_agg(a.address, ''::bytea) FROM address_utxos a WHERE a.utxo_id = m.i AND a.chain = '" +
			string(q.Chain) + "')")
	default:
		b.WriteString(", (SELECT group_concat(a.address, '') FROM address_utxos a WHERE a.utxo_id = m.i AND a.chain = '" +
			string(q.Chain) + "')")
	}
	head := b.String()
	b.Reset()
	for _, o := range listOrigins {
		alias, table := "o"+strings.ToLower(string(o)), utxoTables[o].table
		if d == database.Postgres {
			fmt.Fprintf(&b, " LEFT JOIN LATERAL (SELECT * FROM %s WHERE id = m.i AND m.o = '%s' OFFSET 0) %s ON TRUE", table, o, alias)
		} else {
			fmt.Fprintf(&b, " LEFT JOIN %s %s ON %s.id = m.i AND m.o = '%s'", table, alias, alias, o)
		}
	}
	joins := b.String()
	return &mergeFold{
		carry: ", origin AS o",
		wrap: func(merge string) string {
			return head + " FROM (" + merge + ") m" + joins + " ORDER BY m.k " + dir + ", m.i " + dir
		},
		scan: func(r *sql.Rows, row *mergedRow) error {
			var (
				ls         listedScan
				origin     string
				start, end sql.NullInt64
				owners     []byte
			)
			dest := append([]any{&row.key, &row.id, &row.extra, &origin}, ls.dest()...)
			if err := r.Scan(append(dest, &start, &end, &owners)...); err != nil {
				return err
			}
			if ls.id == nil {
				return fmt.Errorf("listed UTXO %x (origin %q) is in no UTXO table", row.id, origin)
			}
			u, err := ls.utxo()
			if err != nil {
				return err
			}
			u.Origin = internal.Chain(origin)
			u.StakeStart, u.StakeEnd = uint64(start.Int64), uint64(end.Int64)
			if len(owners)%ids.ShortIDLen != 0 {
				return fmt.Errorf("UTXO %s: owners of %d bytes", u.ID, len(owners))
			}
			for k := 0; k < len(owners); k += ids.ShortIDLen {
				u.Owners = append(u.Owners, ids.ShortID(owners[k:k+ids.ShortIDLen]))
			}
			slices.SortFunc(u.Owners, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
			row.item = u
			return nil
		},
	}
}

// meetsThreshold accepts a UTXO that as many of the queried addresses own
// (one row each) as its threshold (extra) asks.
func meetsThreshold(r mergedRow) bool { return int64(r.count) >= r.extra }

// acceptAll accepts every item of a merged scan: with AnyOwner, every UTXO
// one of the queried addresses owns.
func acceptAll(mergedRow) bool { return true }

// accept is the rule of q's list: AnyOwner's or the threshold's.
func (q UTXOQuery) accept() func(mergedRow) bool {
	if q.AnyOwner {
		return acceptAll
	}
	return meetsThreshold
}

// scan is q's merged scan: one arm per address (and spent state) over the
// index of q's order.
func (q UTXOQuery) scan() *mergeScan {
	addrs := sortedAddresses(q.Addresses)
	scan := &mergeScan{table: "address_utxos", key: "created_time", id: "utxo_id", extra: "threshold", desc: q.Desc}
	// The unary plus keeps SQLite from picking, for a filter, an index
	// that does not give the order; PostgreSQL reads it as the identity.
	amountCond := "+amount_key >= ?"
	if q.ByAmount {
		scan.key = "amount_key"
		amountCond = "amount_key >= ?"
	}
	scan.filter = []string{"chain = ?"}
	scan.filterArgs = []any{string(q.Chain)}
	if !q.AnyOwner {
		// No UTXO needs more signers than were asked for: cheap to skip here.
		scan.filter = append(scan.filter, "+threshold <= ?")
		scan.filterArgs = append(scan.filterArgs, len(addrs))
	}
	if q.MinAmount > 0 {
		scan.filter = append(scan.filter, amountCond)
		scan.filterArgs = append(scan.filterArgs, amountKey(q.MinAmount))
	}
	if q.AssetID != nil {
		scan.filter = append(scan.filter, "asset_id = ?")
		scan.filterArgs = append(scan.filterArgs, q.AssetID[:])
	}
	states := []int64{0}
	if q.IncludeSpent {
		states = []int64{0, 1}
	}
	scan.armCols, scan.armTypes = []string{"address", "spent"}, []string{"BYTEA", "INTEGER"}
	for _, a := range addrs {
		for _, spent := range states {
			scan.arms = append(scan.arms, []any{a[:], spent})
		}
	}
	return scan
}

// from is the scan position of after, nil for nil.
func (q UTXOQuery) from(after *UTXOKey) (*mergeKey, error) {
	if after == nil {
		return nil, nil
	}
	k := mergeKey{id: after.ID[:]}
	switch {
	case q.ByAmount:
		k.key = amountKey(after.Key)
	case after.Key > math.MaxInt64:
		return nil, derrors.Invalid("UTXO list key %d out of range", after.Key)
	default:
		k.key = int64(after.Key)
	}
	return &k, nil
}

// sortedAddresses returns addrs in byte order, without repeats.
func sortedAddresses(addrs []ids.ShortID) []ids.ShortID {
	out := slices.Clone(addrs)
	slices.SortFunc(out, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out)
}

// addressBytes is addrs as the values of an InList.
func addressBytes(addrs []ids.ShortID) [][]byte {
	out := make([][]byte, len(addrs))
	for i := range addrs {
		out[i] = addrs[i][:]
	}
	return out
}

// listedUTXOs reads the UTXOs of keys, on list chain, in keys' order,
// with their owners when owners is set.
func listedUTXOs(ctx context.Context, tx *database.DB, chain internal.Chain, keys []mergedRow, owners bool) ([]*ListedUTXO, error) {
	byID := make(map[ids.ID]*ListedUTXO, len(keys))
	want := make([]ids.ID, len(keys))
	for i, k := range keys {
		id, err := ids.ToID(k.id)
		if err != nil {
			return nil, err
		}
		want[i] = id
	}
	// Most of a list was created on its own chain: look there first.
	origins := []internal.Chain{chain}
	for _, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if c != chain {
			origins = append(origins, c)
		}
	}
	missing := want
	for _, origin := range origins {
		if len(missing) == 0 {
			break
		}
		q := listedSelect(origin)
		err := idChunksOf(missing, readInList, func(args []any, in string) error {
			return tx.RunPrepared(ctx, q+" WHERE u.id IN "+in, func(r *sql.Rows) error {
				u, err := scanListedUTXO(r)
				if err != nil {
					return err
				}
				u.Origin = origin
				byID[u.ID] = u
				return nil
			}, args...)
		})
		if err != nil {
			return nil, err
		}
		var still []ids.ID
		for _, id := range missing {
			if byID[id] == nil {
				still = append(still, id)
			}
		}
		missing = still
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("listed UTXO %s is in no UTXO table", missing[0])
	}
	if err := stakePeriods(ctx, tx, byID); err != nil {
		return nil, err
	}
	if owners {
		err := listedOwners(ctx, tx, chain, want, func(id ids.ID, a ids.ShortID) {
			if u := byID[id]; u != nil {
				u.Owners = append(u.Owners, a)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]*ListedUTXO, len(want))
	for i, id := range want {
		u := byID[id]
		slices.SortFunc(u.Owners, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
		out[i] = u
	}
	return out, nil
}

// listedOwners calls f with each owner of the UTXOs utxoIDs on chain's
// UTXO lists (address_utxos), in no particular order.
func listedOwners(ctx context.Context, tx *database.DB, chain internal.Chain, utxoIDs []ids.ID, f func(utxoID ids.ID, owner ids.ShortID)) error {
	return idChunksOf(utxoIDs, readInList, func(args []any, in string) error {
		return tx.RunPrepared(ctx, "SELECT utxo_id, address FROM address_utxos WHERE utxo_id IN "+in+" AND chain = ?",
			func(r *sql.Rows) error {
				var id, addr []byte
				if err := r.Scan(&id, &addr); err != nil {
					return err
				}
				uid, err := ids.ToID(id)
				if err != nil {
					return err
				}
				a, err := ids.ToShortID(addr)
				if err != nil {
					return err
				}
				f(uid, a)
				return nil
			}, append(args, string(chain))...)
	})
}

// stakePeriods sets the staking period of the P-chain stake outputs among
// us, from their stakers. A join would do, but PostgreSQL may hash it over
// every staker.
func stakePeriods(ctx context.Context, tx *database.DB, us map[ids.ID]*ListedUTXO) error {
	byStaker := map[ids.ID][]*ListedUTXO{}
	var stakers []ids.ID
	for _, u := range us {
		if u.Origin == internal.PChain && u.Kind == internal.PKindStake {
			if byStaker[u.TxID] == nil {
				stakers = append(stakers, u.TxID)
			}
			byStaker[u.TxID] = append(byStaker[u.TxID], u)
		}
	}
	return idChunksOf(stakers, readInList, func(args []any, in string) error {
		return tx.RunPrepared(ctx, "SELECT tx_id, start_time, end_time FROM p_stakers WHERE tx_id IN "+in, func(r *sql.Rows) error {
			var (
				id         []byte
				start, end int64
			)
			if err := r.Scan(&id, &start, &end); err != nil {
				return err
			}
			txID, err := ids.ToID(id)
			for _, u := range byStaker[txID] {
				u.StakeStart, u.StakeEnd = uint64(start), uint64(end)
			}
			return err
		}, args...)
	})
}

func scanListedUTXO(r *sql.Rows) (*ListedUTXO, error) {
	var ls listedScan
	if err := r.Scan(ls.dest()...); err != nil {
		return nil, err
	}
	return ls.utxo()
}

// listedScan holds the columns of listedExprs as scanned.
type listedScan struct {
	id, txID, peer, asset, created, consumed           []byte
	oi, amount, locktime, threshold, height, createdAt int64
	stakeable, consumedHeight, consumedTime            sql.NullInt64
	u                                                  ListedUTXO
}

// dest is the scan destinations of listedExprs' columns, in order.
func (s *listedScan) dest() []any {
	return []any{&s.id, &s.txID, &s.oi, &s.u.Kind, &s.peer, &s.asset, &s.amount, &s.locktime, &s.threshold, &s.stakeable,
		&s.u.Bytes, &s.created, &s.height, &s.createdAt, &s.u.Staked, &s.consumed, &s.consumedHeight, &s.consumedTime}
}

// utxo is the UTXO scanned, but for its origin, staking period and owners.
func (s *listedScan) utxo() (*ListedUTXO, error) {
	u := s.u
	var err error
	for _, f := range []struct {
		dst *ids.ID
		src []byte
	}{{&u.ID, s.id}, {&u.TxID, s.txID}, {&u.AssetID, s.asset}, {&u.CreatedTxID, s.created}} {
		if *f.dst, err = ids.ToID(f.src); err != nil {
			return nil, err
		}
	}
	if s.peer != nil {
		if u.PeerChain, err = ids.ToID(s.peer); err != nil {
			return nil, err
		}
	}
	if s.consumed != nil {
		if u.ConsumedTxID, err = ids.ToID(s.consumed); err != nil {
			return nil, err
		}
		u.ConsumedHeight, u.ConsumedTime = uint64(s.consumedHeight.Int64), s.consumedTime.Int64
	}
	u.OutputIndex, u.Amount, u.Locktime, u.Threshold = uint32(s.oi), uint64(s.amount), uint64(s.locktime), uint32(s.threshold)
	u.StakeableLocktime = uint64(s.stakeable.Int64)
	u.CreatedHeight, u.CreatedTime = uint64(s.height), s.createdAt
	u.Bytes = nonNil(u.Bytes)
	return &u, nil
}

// EachUTXO calls f with every UTXO of q's list that any of q.Addresses
// owns (AnyOwner's rule, which it requires; AssetID and MinAmount are not
// supported), each once, in no order, all read in one snapshot. A sum
// (a balance) needs no order: one statement per maxInList addresses
// reads their ranges of address_utxos_amount, with no merge, and no more
// for most UTXOs: an unspent one's row carries what a balance reads
// (migration 0046), and f gets a ListedUTXO with ID, Origin, Kind,
// AssetID, Amount, Locktime, StakeableLocktime, Threshold and CreatedTime
// set. The others (P-chain stake outputs, whose staking period is their
// staker's, the X-chain's outputs of kind other, to decode, consumed
// ones, and rows not backfilled yet) are read by id, readInList at a
// time, whole.
func (s *sqlStore) EachUTXO(ctx context.Context, q UTXOQuery, f func(*ListedUTXO) error) (err error) {
	defer derrors.Wrap(&err, "store.EachUTXO(%s, %d addresses)", q.Chain, len(q.Addresses))
	if err := checkEachUTXO(q); err != nil {
		return err
	}
	spent := "spent = 0"
	if q.IncludeSpent {
		spent = "spent IN (0, 1)"
	}
	return s.db.ReadTx(ctx, func(tx *database.DB) error { return eachUTXO(ctx, tx, q, spent, f) })
}

// checkEachUTXO checks q is one EachUTXO and SumUTXOs take.
func checkEachUTXO(q UTXOQuery) error {
	if _, ok := utxoTables[q.Chain]; !ok {
		return derrors.Invalid("no UTXO list of chain %q", q.Chain)
	}
	if len(q.Addresses) == 0 || !q.AnyOwner || q.AssetID != nil || q.MinAmount != 0 {
		return derrors.Invalid("EachUTXO reads the UTXOs any of some addresses owns, unfiltered")
	}
	return nil
}

// eachUTXO is EachUTXO in tx over the list rows that cond (on spent and
// summed) selects.
func eachUTXO(ctx context.Context, tx *database.DB, q UTXOQuery, cond string, f func(*ListedUTXO) error) error {
	addrs := sortedAddresses(q.Addresses)
	seen := map[string]bool{}
	var keys []mergedRow
	for start := 0; start < len(addrs); start += maxInList {
		chunk := addrs[start:min(len(addrs), start+maxInList)]
		in, inArgs := tx.InList(addressBytes(chunk))
		args := append([]any{string(q.Chain)}, inArgs...)
		err := tx.RunPrepared(ctx, "SELECT utxo_id, origin, kind, asset_id, amount_key, locktime, stakeable_locktime, "+
			"threshold, created_time, spent FROM address_utxos WHERE chain = ? AND address "+in+" AND "+cond, func(r *sql.Rows) error {
			var (
				id, asset                      []byte
				origin                         string
				kind                           sql.NullString
				amount, threshold, created, sp int64
				lt, st                         sql.NullInt64 // NULL only with kind
			)
			if err := r.Scan(&id, &origin, &kind, &asset, &amount, &lt, &st, &threshold, &created, &sp); err != nil {
				return err
			}
			if seen[string(id)] {
				return nil
			}
			seen[string(id)] = true
			o := internal.Chain(origin)
			if sp != 0 || !kind.Valid || (o == internal.PChain && kind.String == internal.PKindStake) ||
				(o == internal.XChain && kind.String == xchainKindOther) {
				keys = append(keys, mergedRow{mergeKey: mergeKey{id: id}})
				return nil
			}
			u := &ListedUTXO{Origin: o, Kind: kind.String, Amount: uint64(amount) ^ (1 << 63), Locktime: uint64(lt.Int64),
				StakeableLocktime: uint64(st.Int64), Threshold: uint32(threshold), CreatedTime: created}
			var err error
			if u.ID, err = ids.ToID(id); err != nil {
				return err
			}
			if u.AssetID, err = ids.ToID(asset); err != nil {
				return err
			}
			return f(u)
		}, args...)
		if err != nil {
			return err
		}
	}
	for start := 0; start < len(keys); start += readInList {
		us, err := listedUTXOs(ctx, tx, q.Chain, keys[start:min(len(keys), start+readInList)], !q.NoOwners)
		if err != nil {
			return err
		}
		for _, u := range us {
			if err := f(u); err != nil {
				return err
			}
		}
	}
	return nil
}

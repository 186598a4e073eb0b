package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The per-address transaction history (table address_txs, migration
// 0029): one row per (list, address, tx), derived from the UTXO tables
// after a batch's other derivation steps ran (on the P-chain, from what a
// batch of new blocks wrote of them: batchHistory), read by AddressTxs as
// one merged keyset scan (keyset.go) in (block time, position) order.

// AddressTxStore reads the Data API's primary-network tx lists
// (listLatestPrimaryNetworkTransactions).
type AddressTxStore interface {
	// AddressTxs returns up to q.Limit txs of q.Chain, in q's order (by
	// block time, then position in the chain), starting after q.After.
	AddressTxs(ctx context.Context, q AddressTxQuery) ([]*AddressTx, error)
}

// AddressTxQuery selects and orders a tx list.
type AddressTxQuery struct {
	// Chain is the list: the P-chain's txs, the X-chain's (DAG txs
	// included) or the C-chain's atomic txs.
	Chain internal.Chain
	// Addresses keeps the txs of any of them (their history); all the
	// chain's txs when empty. On the C-chain an address may be an EVM
	// address's 20 bytes.
	Addresses []ids.ShortID
	// L1ValidationID, on the P-chain, keeps the txs that changed that L1
	// validator.
	L1ValidationID *ids.ID
	// TxTypes keeps only txs of these types; all when empty.
	TxTypes []string
	// Start and End keep only txs whose block time (unix seconds) is
	// within [*Start, *End]; nil leaves that side open.
	Start, End *int64
	Desc       bool
	// After is the key of the previous page's last tx; nil starts at the
	// first.
	After *AddressTxKey
	Limit int
}

// AddressTxKey is a tx's place in a list: its block time and its tx_key
// (position, then id; see addressTxKey).
type AddressTxKey struct {
	Time int64
	Key  []byte
}

// AddressTx is one tx of a list.
type AddressTx struct {
	TxRecord
	Key AddressTxKey
}

// addressTxKey is the tx_key of a tx: its position, 8 bytes big-endian
// (height << 32 | index), then its id, so that byte order is chain order.
func addressTxKey(height uint64, idx int64, id ids.ID) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, height<<32|uint64(uint32(idx)))
	return append(k, id[:]...)
}

// splitAddressTxKey returns the position and id of a tx_key.
func splitAddressTxKey(k []byte) (height uint64, idx int64, id ids.ID, err error) {
	if len(k) != 8+len(id) {
		return 0, 0, id, fmt.Errorf("tx key of %d bytes: %w", len(k), derrors.InvalidArgument)
	}
	p := binary.BigEndian.Uint64(k)
	id, err = ids.ToID(k[8:])
	return p >> 32, int64(uint32(p)), id, err
}

var addressTxColumns = []string{"chain", "address", "tx_time", "tx_key", "tx_type"}

// atxChain is what a chain's history is derived from: the UTXOs it
// creates (utxos, with their owners in addrs; exportedCond keeps the
// exported ones, spends those it spends itself, "" when it spends none of
// its own) and those it imports (imported). createdBy and spentBy join a
// UTXO to the tx T that created or spent it.
type atxChain struct {
	chain                  internal.Chain
	utxos, addrs, imported string
	exportedCond, spends   string
	createdBy, spentBy     string
}

// The joins of a UTXO to its txs: by their ids, or, on the P-chain, whose
// UTXOs have no index by those ids (migration 0053), by their positions.
const (
	createdByID  = "u.created_tx_id = T.id"
	spentByID    = "u.consumed_tx_id = T.id"
	createdByPos = "u.created_height = T.h AND u.created_idx = T.i"
	spentByPos   = "u.consumed_height = T.h AND u.consumed_idx = T.i"
)

var atxChains = map[internal.Chain]atxChain{
	internal.PChain: {internal.PChain, "p_utxos", "p_utxo_addresses", "p_imported_utxos", "u.kind = 'exported'", "u.kind <> 'exported'",
		createdByPos, spentByPos},
	internal.XChain: {internal.XChain, "x_utxos", "x_utxo_addresses", "x_imported_utxos", "u.kind = 'exported'", "u.kind <> 'exported'",
		createdByID, spentByID},
	// The C-chain's UTXOs are all exported; it spends none of its own.
	internal.CChain: {internal.CChain, "c_atomic_utxos", "c_atomic_utxo_addresses", "c_imported_utxos", "1 = 1", "",
		createdByID, ""},
}

// The tx selections of a range, per chain: id, h, i, type, ts.
const (
	pTxRange   = "SELECT t.id, t.block_height AS h, t.idx AS i, t.type, b.timestamp AS ts FROM p_txs t JOIN p_blocks b ON b.height = t.block_height WHERE t.block_height BETWEEN ? AND ?"
	xTxRange   = "SELECT t.id, t.block_height AS h, t.idx AS i, t.type, b.timestamp AS ts FROM x_txs t JOIN x_blocks b ON b.height = t.block_height WHERE t.block_height BETWEEN ? AND ?"
	xDAGRange  = "SELECT id, 0 AS h, idx AS i, type, timestamp AS ts FROM x_dag_txs WHERE idx BETWEEN ? AND ?"
	cAtomRange = "SELECT id, block_height AS h, idx AS i, type, timestamp AS ts FROM c_atomic_txs WHERE block_height BETWEEN ? AND ?"
)

// txRanges are the chains' tx selections of a range of heights.
var txRanges = map[internal.Chain]string{internal.PChain: pTxRange, internal.XChain: xTxRange, internal.CChain: cAtomRange}

// deriveAddressTxs writes the history rows of the txs txSel selects (with
// lo and hi) on chain c: every owner of a UTXO they created or spent or
// imported, and, for the UTXOs they exported that another chain already
// imported, the importing tx's row on that chain's list (the import's
// own derivation writes it when the export is indexed first). Idempotent.
// has says which of the import and export parts the range can need.
func deriveAddressTxs(ctx context.Context, tx *database.DB, c internal.Chain, txSel string, lo, hi int64, has internal.AddressTxParts) error {
	s := atxChains[c]
	// The range's txs are materialized once, and each part reads from
	// them: T CROSS JOIN ... keeps that order on SQLite, whose planner
	// (3.54, without statistics) otherwise scanned a whole address table
	// per part and batch, which made a sync from empty quadratic.
	// PostgreSQL plans a CROSS JOIN with a WHERE as an inner join.
	sel := "SELECT T.id, T.h, T.i, T.type, T.ts, a.address FROM T CROSS JOIN "
	parts := []string{
		sel + s.utxos + " u CROSS JOIN " + s.addrs + " a WHERE " + s.createdBy + " AND a.utxo_id = u.id",
	}
	if s.spends != "" {
		parts = append(parts, sel+s.utxos+" u CROSS JOIN "+s.addrs+" a WHERE "+s.spentBy+" AND "+s.spends+" AND a.utxo_id = u.id")
	}
	for _, from := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if from != c && has.Imports {
			parts = append(parts, sel+s.imported+" i CROSS JOIN "+atxChains[from].addrs+" a WHERE i.consumed_tx_id = T.id AND a.utxo_id = i.id")
		}
	}
	if c == internal.PChain {
		parts = append(parts, sel+"p_staker_addresses a WHERE a.tx_id = T.id")
	}
	with := "WITH T AS MATERIALIZED (" + txSel + ") "
	var rows [][]any
	if err := tx.RunQuery(ctx, with+strings.Join(parts, " UNION "), addressTxRows(c, &rows), lo, hi); err != nil {
		return fmt.Errorf("deriving the %s-chain's address txs: %w", c, err)
	}
	if err := tx.Append(ctx, "address_txs", addressTxColumns, rows, onConflictDoNothing); err != nil {
		return err
	}
	if !has.Exports {
		return nil
	}
	return deriveExportAddressTxs(ctx, tx, c, txSel, lo, hi)
}

// deriveExportAddressTxs writes the rows deriveAddressTxs writes for the
// UTXOs the txs txSel selects exported: the importing tx's, on the
// importing chain's list, for those already imported.
func deriveExportAddressTxs(ctx context.Context, tx *database.DB, c internal.Chain, txSel string, lo, hi int64) error {
	s := atxChains[c]
	var rows [][]any
	for _, to := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if to == c {
			continue
		}
		q := "WITH T AS MATERIALIZED (" + txSel + ") " +
			"SELECT i.consumed_tx_id, i.consumed_height, i.consumed_idx, 'ImportTx', i.consumed_time, a.address " +
			"FROM T CROSS JOIN " + s.utxos + " u CROSS JOIN " + atxChains[to].imported + " i CROSS JOIN " + s.addrs + " a " +
			"WHERE " + s.createdBy + " AND " + s.exportedCond + " AND i.id = u.id AND a.utxo_id = u.id"
		if err := tx.RunQuery(ctx, q, addressTxRows(to, &rows), lo, hi); err != nil {
			return fmt.Errorf("deriving the address txs of the %s-chain's exports to the %s-chain: %w", c, to, err)
		}
	}
	return tx.Append(ctx, "address_txs", addressTxColumns, rows, onConflictDoNothing)
}

// addressTxRows scans the rows of a derivation query (tx id, height,
// index, type, time, address) into history rows on list.
func addressTxRows(list internal.Chain, rows *[][]any) func(*sql.Rows) error {
	return func(r *sql.Rows) error {
		var (
			id, addr []byte
			h, i, ts int64
			typ      string
		)
		if err := r.Scan(&id, &h, &i, &typ, &ts, &addr); err != nil {
			return err
		}
		txID, err := ids.ToID(id)
		if err != nil {
			return fmt.Errorf("stored tx id: %w", err)
		}
		*rows = append(*rows, []any{string(list), addr, ts, addressTxKey(uint64(h), i, txID), typ})
		return nil
	}
}

// writeAddressTxRange writes the history rows of chain's txs at heights
// first..last (deriveAddressTxs).
func writeAddressTxRange(ctx context.Context, tx *database.DB, c internal.Chain, first, last uint64, parts internal.AddressTxParts) error {
	return deriveAddressTxs(ctx, tx, c, txRanges[c], u64(first), u64(last), parts)
}

// WriteAddressTxRange writes the history rows of the P-chain's txs at
// heights first..last, from their stored UTXOs and stakers: in a batch of
// new blocks, from what the batch wrote of them (batchHistory), else (or
// when that lacks a spent UTXO's owners) by reading them back.
func (t *PTx) WriteAddressTxRange(ctx context.Context, first, last uint64, parts internal.AddressTxParts) error {
	if t.history != nil {
		if rows, ok := t.history.rows(t.spent); ok {
			if err := t.db.Append(ctx, "address_txs", addressTxColumns, rows, onConflictDoNothing); err != nil {
				return err
			}
			if !parts.Exports {
				return nil
			}
			return deriveExportAddressTxs(ctx, t.db, internal.PChain, pTxRange, u64(first), u64(last))
		}
	}
	return writeAddressTxRange(ctx, t.db, internal.PChain, first, last, parts)
}

// batchHistory is what a P-chain batch of new blocks wrote that its
// address history derives from, so that the history need not read it
// back: the query that did was a fifth of BenchmarkIngestP's time on
// both stores, and it waited for the batch's queued writes (2026-12-06).
// Its rows are deriveAddressTxs' but those of exports (which read the
// other chains' imports).
type batchHistory struct {
	blocks []*internal.PBlockData
	// made are the UTXOs the batch wrote (their list outputs); spent the own
	// UTXOs its txs consumed and the other chains' they imported, whose
	// owners are the batch's spent owners (batchTx.spent); stakers the
	// stakers its txs added (p_staker_addresses).
	made    []listedOutput
	spent   []consumption
	stakers []internal.Staker
}

// rows returns the history rows of the batch's txs: the owners of the
// UTXOs made at each tx's position, of those it consumed or imported, and
// of its stakers' reward owners, once per tx and address. ok is false
// when a UTXO the batch spent has no owners in spent (a UTXO without
// owners, or imported before its export was indexed): the rows are then
// read from the stored UTXOs as before.
func (h *batchHistory) rows(spent spentOwners) (_ [][]any, ok bool) {
	// txRef is a tx of the batch: its type, its block's time and its
	// tx_key.
	type txRef struct {
		typ  string
		time int64
		key  []byte
	}
	type at struct {
		height uint64
		idx    int
	}
	byPos := map[at]*txRef{}
	byID := map[ids.ID]*txRef{}
	for _, b := range h.blocks {
		for i, t := range b.Txs {
			r := &txRef{typ: t.Type, time: unixSeconds(b.Timestamp), key: addressTxKey(b.Height, int64(i), t.ID)}
			byPos[at{b.Height, i}] = r
			byID[t.ID] = r
		}
	}
	var rows [][]any
	seen := map[string]bool{}
	add := func(t *txRef, addr []byte) {
		if k := string(addr) + string(t.key); !seen[k] {
			seen[k] = true
			rows = append(rows, []any{string(internal.PChain), addr, t.time, t.key, t.typ})
		}
	}
	for _, m := range h.made {
		if t := byPos[at{m.pos.height, m.pos.idx}]; t != nil {
			for _, a := range m.o.Owners.Addrs {
				add(t, a[:])
			}
		}
	}
	for _, c := range h.spent {
		t := byPos[at{c.pos.height, c.pos.idx}]
		if t == nil {
			continue
		}
		for _, id := range c.ids {
			// An imported UTXO's owners are on its origin's list.
			owners, found := spent[internal.PChain][id]
			for _, origin := range []internal.Chain{internal.XChain, internal.CChain} {
				if found {
					break
				}
				owners, found = spent[origin][id]
			}
			if !found {
				return nil, false
			}
			for _, a := range owners {
				add(t, a)
			}
		}
	}
	for i := range h.stakers {
		s := &h.stakers[i]
		if t := byID[s.TxID]; t != nil {
			for _, o := range stakerOwners(s) {
				for _, a := range o.Addresses {
					add(t, a[:])
				}
			}
		}
	}
	return rows, true
}

// WriteAddressTxRange writes the history rows of the X-chain's txs at
// heights first..last, from their stored UTXOs.
func (t *XTx) WriteAddressTxRange(ctx context.Context, first, last uint64, parts internal.AddressTxParts) error {
	return writeAddressTxRange(ctx, t.db, internal.XChain, first, last, parts)
}

// WriteAddressTxRange writes the history rows of the C-chain's atomic
// txs at heights first..last, from their stored UTXOs.
func (t *CTx) WriteAddressTxRange(ctx context.Context, first, last uint64, parts internal.AddressTxParts) error {
	return writeAddressTxRange(ctx, t.db, internal.CChain, first, last, parts)
}

// WriteAddressTxRows writes history rows that no UTXO names.
func (t *CTx) WriteAddressTxRows(ctx context.Context, rows []internal.AddressTxRow) error {
	ins := make([][]any, len(rows))
	for i, r := range rows {
		ins[i] = []any{string(r.Chain), r.Address, unixSeconds(r.Pos.Time), addressTxKey(r.Pos.Height, int64(r.Pos.Index), r.Pos.TxID), r.Type}
	}
	return t.db.Append(ctx, "address_txs", addressTxColumns, ins, onConflictDoNothing)
}

// addressTxParts are the parts of the address_txs backfill: the history
// rows of every stored tx from the stored UTXOs, chain by chain, and last
// a rederive of the C-chain (cheap: only its atomic txs are stored) asked
// for, for the EVM addresses of its atomic txs.
func addressTxParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	ranges := []struct {
		name   string
		chain  internal.Chain
		sel    string
		bounds string
	}{
		{"the P-chain's txs", internal.PChain, pTxRange, "SELECT MIN(block_height), MAX(block_height) FROM p_txs"},
		{"the X-chain's DAG txs", internal.XChain, xDAGRange, "SELECT MIN(idx), MAX(idx) FROM x_dag_txs"},
		{"the X-chain's txs", internal.XChain, xTxRange, "SELECT MIN(block_height), MAX(block_height) FROM x_txs"},
		{"the C-chain's atomic txs", internal.CChain, cAtomRange, "SELECT MIN(block_height), MAX(block_height) FROM c_atomic_txs"},
	}
	var parts []BackfillPart
	for _, r := range ranges {
		p, err := rangePart(ctx, db, r.name, r.bounds, nil, inclusive(func(ctx context.Context, tx *database.DB, lo, hi int64) error {
			return deriveAddressTxs(ctx, tx, r.chain, r.sel, lo, hi, internal.AllAddressTxParts)
		}))
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return append(parts, stepPart("the C-chain's rederive", func(ctx context.Context, tx *database.DB) error {
		var n int64
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM c_atomic_txs LIMIT 1) AS t").Scan(&n); err != nil || n == 0 {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
			RederiveKey(internal.CChain), []byte(rederiveRequested))
		return err
	})), nil
}

func (s *sqlStore) AddressTxs(ctx context.Context, q AddressTxQuery) (_ []*AddressTx, err error) {
	defer derrors.Wrap(&err, "store.AddressTxs(%s, %d addresses)", q.Chain, len(q.Addresses))
	if _, ok := atxChains[q.Chain]; !ok {
		return nil, derrors.Invalid("no tx list of chain %q", q.Chain)
	}
	if q.Limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", q.Limit)
	}
	if q.L1ValidationID != nil && q.Chain != internal.PChain {
		return nil, derrors.Invalid("only the P-chain's txs change L1 validators")
	}
	var out []*AddressTx
	err = s.db.ReadTx(ctx, func(tx *database.DB) error {
		var (
			keys []AddressTxKey
			err  error
		)
		switch {
		case q.L1ValidationID != nil:
			keys, err = l1TxKeys(ctx, tx, q)
		case len(q.Addresses) > 0:
			keys, err = addressTxKeys(ctx, tx, q)
		default:
			keys, err = chainTxKeys(ctx, tx, q)
		}
		if err != nil || len(keys) == 0 {
			return err
		}
		out, err = addressTxRecords(ctx, tx, q.Chain, keys)
		return err
	})
	return out, err
}

// addressTxKeys is a page of the addresses' history: one merged scan arm
// per address, a tx that several own kept once.
func addressTxKeys(ctx context.Context, tx *database.DB, q AddressTxQuery) ([]AddressTxKey, error) {
	scan := &mergeScan{table: "address_txs", key: "tx_time", id: "tx_key", extra: "0", desc: q.Desc,
		filter: []string{"chain = ?"}, filterArgs: []any{string(q.Chain)},
		armCols: []string{"address"}, armTypes: []string{"BYTEA"}}
	for _, a := range sortedAddresses(q.Addresses) {
		scan.arms = append(scan.arms, []any{a[:]})
	}
	if len(q.TxTypes) > 0 {
		scan.filter = append(scan.filter, "tx_type IN (?"+strings.Repeat(", ?", len(q.TxTypes)-1)+")")
		for _, t := range q.TxTypes {
			scan.filterArgs = append(scan.filterArgs, t)
		}
	}
	if q.Start != nil {
		scan.filter = append(scan.filter, "tx_time >= ?")
		scan.filterArgs = append(scan.filterArgs, *q.Start)
	}
	if q.End != nil {
		scan.filter = append(scan.filter, "tx_time <= ?")
		scan.filterArgs = append(scan.filterArgs, *q.End)
	}
	var from *mergeKey
	if q.After != nil {
		from = &mergeKey{key: q.After.Time, id: q.After.Key}
	}
	rows, err := scan.run(ctx, tx, from, q.Limit, acceptAll)
	if err != nil {
		return nil, err
	}
	out := make([]AddressTxKey, len(rows))
	for i, r := range rows {
		out[i] = AddressTxKey{Time: r.key, Key: r.id}
	}
	return out, nil
}

// chainTxKeys is a page of all the chain's txs, in position order (the
// order of block times too).
func chainTxKeys(ctx context.Context, tx *database.DB, q AddressTxQuery) ([]AddressTxKey, error) {
	var sel string
	switch q.Chain {
	case internal.PChain:
		sel = "SELECT t.id, t.block_height AS h, t.idx AS i, t.type, b.timestamp AS ts FROM p_txs t JOIN p_blocks b ON b.height = t.block_height"
	case internal.XChain:
		sel = "SELECT t.id, t.block_height AS h, t.idx AS i, t.type, b.timestamp AS ts FROM x_txs t JOIN x_blocks b ON b.height = t.block_height" +
			" UNION ALL SELECT id, 0, idx, type, timestamp FROM x_dag_txs"
	default:
		sel = "SELECT id, block_height AS h, idx AS i, type, timestamp AS ts FROM c_atomic_txs"
	}
	query := "SELECT id, h, i, ts FROM (" + sel + ") T WHERE 1 = 1"
	var args []any
	if len(q.TxTypes) > 0 {
		query += " AND type IN (?" + strings.Repeat(", ?", len(q.TxTypes)-1) + ")"
		for _, t := range q.TxTypes {
			args = append(args, t)
		}
	}
	if q.Start != nil {
		query += " AND ts >= ?"
		args = append(args, *q.Start)
	}
	if q.End != nil {
		query += " AND ts <= ?"
		args = append(args, *q.End)
	}
	cmp, dir := ">", "ASC"
	if q.Desc {
		cmp, dir = "<", "DESC"
	}
	if q.After != nil {
		h, i, _, err := splitAddressTxKey(q.After.Key)
		if err != nil {
			return nil, err
		}
		query += " AND (h " + cmp + " ? OR (h = ? AND i " + cmp + " ?))"
		args = append(args, u64(h), u64(h), i)
	}
	query += " ORDER BY h " + dir + ", i " + dir + " LIMIT ?"
	args = append(args, q.Limit)
	var out []AddressTxKey
	err := tx.RunQuery(ctx, query, func(r *sql.Rows) error {
		var (
			id       []byte
			h, i, ts int64
		)
		if err := r.Scan(&id, &h, &i, &ts); err != nil {
			return err
		}
		txID, err := ids.ToID(id)
		if err != nil {
			return err
		}
		out = append(out, AddressTxKey{Time: ts, Key: addressTxKey(uint64(h), i, txID)})
		return nil
	}, args...)
	return out, err
}

// l1TxKeys is a page of the txs that changed an L1 validator (few: it is
// read whole and paged here), of the addresses when any are given.
func l1TxKeys(ctx context.Context, tx *database.DB, q AddressTxQuery) ([]AddressTxKey, error) {
	var all []AddressTxKey
	err := tx.RunQuery(ctx, `SELECT DISTINCT e.tx_id, t.block_height, t.idx, t.type, b.timestamp FROM p_l1_validator_events e
		JOIN p_txs t ON t.id = e.tx_id JOIN p_blocks b ON b.height = t.block_height WHERE e.validation_id = ?`,
		func(r *sql.Rows) error {
			var (
				id       []byte
				h, i, ts int64
				typ      string
			)
			if err := r.Scan(&id, &h, &i, &typ, &ts); err != nil {
				return err
			}
			if len(q.TxTypes) > 0 && !slices.Contains(q.TxTypes, typ) {
				return nil
			}
			if (q.Start != nil && ts < *q.Start) || (q.End != nil && ts > *q.End) {
				return nil
			}
			txID, err := ids.ToID(id)
			if err != nil {
				return err
			}
			all = append(all, AddressTxKey{Time: ts, Key: addressTxKey(uint64(h), i, txID)})
			return nil
		}, q.L1ValidationID[:])
	if err != nil {
		return nil, err
	}
	if len(q.Addresses) > 0 && len(all) > 0 {
		owned := map[string]bool{}
		for _, a := range sortedAddresses(q.Addresses) {
			err := tx.RunQuery(ctx, "SELECT tx_key FROM address_txs WHERE chain = 'P' AND address = ?", func(r *sql.Rows) error {
				var k []byte
				if err := r.Scan(&k); err != nil {
					return err
				}
				owned[string(k)] = true
				return nil
			}, a[:])
			if err != nil {
				return nil, err
			}
		}
		all = slices.DeleteFunc(all, func(k AddressTxKey) bool { return !owned[string(k.Key)] })
	}
	cmp := func(a, b AddressTxKey) int {
		if c := cmpInt64(a.Time, b.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Key), string(b.Key))
	}
	slices.SortFunc(all, cmp)
	if q.Desc {
		slices.Reverse(all)
	}
	var out []AddressTxKey
	for _, k := range all {
		if q.After != nil {
			c := cmp(k, *q.After)
			if (q.Desc && c >= 0) || (!q.Desc && c <= 0) {
				continue
			}
		}
		out = append(out, k)
		if len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

// addressTxRecords reads the txs of keys on chain, in keys' order.
func addressTxRecords(ctx context.Context, tx *database.DB, chain internal.Chain, keys []AddressTxKey) ([]*AddressTx, error) {
	want := make([]ids.ID, len(keys))
	for i, k := range keys {
		_, _, id, err := splitAddressTxKey(k.Key)
		if err != nil {
			return nil, err
		}
		want[i] = id
	}
	var sels []string
	switch chain {
	case internal.PChain:
		sels = []string{"SELECT t.id, t.type, t.bytes, t.block_height, t.idx, b.id, b.timestamp, 0 FROM p_txs t JOIN p_blocks b ON b.height = t.block_height WHERE t.id IN "}
	case internal.XChain:
		sels = []string{
			"SELECT t.id, t.type, t.bytes, t.block_height, t.idx, b.id, b.timestamp, 0 FROM x_txs t JOIN x_blocks b ON b.height = t.block_height WHERE t.id IN ",
			"SELECT d.id, d.type, c.bytes, 0, d.idx, NULL, d.timestamp, 1 FROM x_dag_txs d JOIN containers c ON c.index_name = '" + XTxIndex + "' AND c.idx = d.idx WHERE d.id IN ",
		}
	default:
		sels = []string{"SELECT id, type, bytes, block_height, idx, block_hash, timestamp, 0 FROM c_atomic_txs WHERE id IN "}
	}
	byID := make(map[ids.ID]*TxRecord, len(keys))
	for _, sel := range sels {
		err := idChunksOf(want, readInList, func(args []any, in string) error {
			return tx.RunPrepared(ctx, sel+in, func(r *sql.Rows) error {
				var (
					id, block   []byte
					h, i, ts, d int64
					rec         TxRecord
				)
				if err := r.Scan(&id, &rec.Type, &rec.Bytes, &h, &i, &block, &ts, &d); err != nil {
					return err
				}
				rec.Height, rec.Index, rec.Timestamp, rec.Bytes, rec.DAG = uint64(h), int(i), fromUnixSeconds(ts), nonNil(rec.Bytes), d == 1
				if err := toIDs(map[*ids.ID][]byte{&rec.ID: id, &rec.BlockID: block}); err != nil {
					return err
				}
				byID[rec.ID] = &rec
				return nil
			}, args...)
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]*AddressTx, 0, len(keys))
	for i, k := range keys {
		rec := byID[want[i]]
		if rec == nil {
			return nil, fmt.Errorf("listed %s-chain tx %s is not stored", chain, want[i])
		}
		out = append(out, &AddressTx{TxRecord: *rec, Key: k})
	}
	return out, nil
}

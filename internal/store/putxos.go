package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
)

// PUTXOStore keeps the P-chain UTXO set and its history.
type PUTXOStore interface {
	// PUTXOsOf returns the UTXOs of the P-chain's current UTXO set (unspent,
	// not staked, not exported) that have any of addrs among their owners,
	// in the order the node's platform.getBalance lists them: addresses in
	// byte order, each address's UTXOs newest first (by the height that put
	// them in the set), each UTXO once.
	PUTXOsOf(ctx context.Context, addrs []ids.ShortID) ([]*PUTXO, error)

	// PRewardUTXOs returns the reward UTXOs (avax.UTXO bytes) of the staker
	// tx stakerTxID, in output index order; none for any other id.
	PRewardUTXOs(ctx context.Context, stakerTxID ids.ID) ([][]byte, error)
}

// PUTXO is one stored P-chain UTXO.
type PUTXO struct {
	ID          ids.ID
	TxID        ids.ID
	OutputIndex uint32
	Kind        string
	// Bytes is the avax.UTXO in the node's encoding.
	Bytes []byte
	// SpendableHeight is the height whose commit put it in the UTXO set.
	SpendableHeight uint64
}

var (
	pUTXOColumns = []string{"id", "tx_id", "output_index", "kind", "peer_chain_id", "asset_id", "amount",
		"locktime", "threshold", "stakeable_locktime", "bytes", "created_tx_id", "created_height",
		"created_idx", "created_time", "staked", "released_tx_id", "spendable_height",
		"consumed_tx_id", "consumed_height", "consumed_idx", "consumed_time"}
	pUTXOTables = chainUTXOTables{utxos: "p_utxos", addresses: "p_utxo_addresses",
		imported: "p_imported_utxos", columns: pUTXOColumns}
)

// chainUTXOTables name a chain's UTXO tables (P or X) and the UTXO table's
// columns, consumedColumns last.
type chainUTXOTables struct {
	utxos, addresses, imported string
	columns                    []string
}

// utxoRows accumulates the rows of a batch's UTXOs, on the P- or X-chain:
// the UTXOs produced, their owners, their list rows, and what the batch's
// txs spend and import.
type utxoRows struct {
	utxoRows, addrRows [][]any
	listed             listedOutputs
	spends
	// made locates the rows of each output produced in the batch but the
	// exported ones, which no tx of the chain spends: one the batch also
	// spends is inserted spent (writeRows).
	made map[ids.ID]madeRows
}

// madeRows locate an output's rows in utxoRows: its UTXO row, its owner
// rows addrRows[addrs:addrs+len(owners)] and its list output.
type madeRows struct {
	row, addrs, listed int
}

// output adds the row of output p (row, in the chain's UTXO columns with
// the consumed ones last, NULL), its owners with its page key (pageKey;
// nil when it is not in the UTXO set) and its list rows, made by the tx at
// pos.
func (u *utxoRows) output(chain internal.Chain, p *internal.UTXOOutput, row []any, key []byte, pos position) {
	id := p.ID()
	if p.Kind != exportedKind {
		if u.made == nil {
			u.made = map[ids.ID]madeRows{}
		}
		u.made[id] = madeRows{row: len(u.utxoRows), addrs: len(u.addrRows), listed: len(u.listed.outs)}
	}
	u.utxoRows = append(u.utxoRows, row)
	for _, a := range p.Owners.Addrs {
		u.addrRows = append(u.addrRows, []any{a[:], id[:], keyOrNil(key)})
	}
	u.listed.add(p, chain, pos)
}

// spendMade writes into the UTXO rows of the outputs the batch produced
// the spends of those it also spends (consumed_*), and returns their rows
// with what the batch spends besides.
func (u *utxoRows) spendMade() (made []madeRows, others []consumption) {
	if len(u.made) == 0 {
		return nil, u.consumed
	}
	for _, c := range u.consumed {
		var left []ids.ID
		for _, id := range c.ids {
			m, ok := u.made[id]
			if !ok {
				left = append(left, id)
				continue
			}
			delete(u.made, id) // a second spend goes the stored way
			row := u.utxoRows[m.row]
			copy(row[len(row)-len(consumedColumns):], []any{c.pos.txID[:], int64(c.pos.height), int64(c.pos.idx), c.pos.time})
			made = append(made, m)
		}
		if len(left) > 0 {
			others = append(others, consumption{pos: c.pos, ids: left})
		}
	}
	return made, others
}

// ownerColumns are the columns of p_ and x_utxo_addresses.
var ownerColumns = []string{"address", "utxo_id", "page_key"}

// writeRows writes the UTXOs, owners, list rows and imports accumulated
// into the chain's tables t. Rows already stored are skipped.
//
// An output the batch both produces and spends is written spent:
// consumed_* set, no page key, its list rows spent, its owners in the
// batch's spent owners, and it leaves u.consumed, which markConsumed would
// otherwise update just after. That holds only when every UTXO row is
// new: a batch applied again over rows stored unspent by an earlier
// batch that ended between an output and its spend would skip them, so
// then every spend stays in u.consumed, updated as the others (the new
// rows to the values they hold).
func (u *utxoRows) writeRows(ctx context.Context, b *batchTx, t chainUTXOTables) error {
	tx := b.db
	if h := b.history; h != nil {
		h.made = append(h.made, u.listed.outs...)
		h.spent = append(append(h.spent, u.consumed...), u.imported...)
	}
	made, others := u.spendMade()
	// Without a conflict clause (new blocks) every row is new, or the
	// transaction fails.
	allNew := true
	if conflict := newRowsConflict(ctx); conflict == "" {
		if err := tx.Append(ctx, t.utxos, t.columns, u.utxoRows, ""); err != nil {
			return err
		}
	} else {
		n, err := tx.BulkInsert(ctx, t.utxos, t.columns, u.utxoRows, conflict)
		if err != nil {
			return err
		}
		allNew = n == int64(len(u.utxoRows))
	}
	if len(made) > 0 && allNew {
		for _, m := range made {
			lo := &u.listed.outs[m.listed]
			for i := range lo.o.Owners.Addrs {
				u.addrRows[m.addrs+i][2] = nil
			}
			lo.spent = true
		}
		u.consumed = others
	}
	// A row already stored keeps its key: a re-applied batch must not put
	// back in the set a UTXO a later batch spent.
	if err := tx.Append(ctx, t.addresses, ownerColumns, u.addrRows, newRowsConflict(ctx)); err != nil {
		return err
	}
	if err := u.listed.write(ctx, b, allNew); err != nil {
		return err
	}
	return tx.Append(ctx, t.imported, importedUTXOColumns, u.importRows, onConflictDoNothing)
}

// position is where a tx sits: its block and index, and the block's time.
type position struct {
	txID   ids.ID
	height uint64
	idx    int
	time   int64
}

// utxoBatch accumulates the UTXO changes of a batch of blocks.
type utxoBatch struct {
	utxoRows
	// released are stake outputs that leave the staked state.
	released []release
}

// spends accumulates what a batch's txs spend, on the P- or X-chain.
type spends struct {
	// consumed lists, per consuming tx, the ids of the UTXOs it spends.
	consumed []consumption
	// importRows are the rows of the chain's imported-UTXO table, and
	// imported the ids of those UTXOs by importing tx.
	importRows [][]any
	imported   []consumption
}

// add records the UTXOs the tx at pos consumes and imports.
func (s *spends) add(pos position, consumed, imported []internal.UTXOInput) {
	if len(consumed) > 0 {
		c := consumption{pos: pos}
		for _, in := range consumed {
			c.ids = append(c.ids, in.ID)
		}
		s.consumed = append(s.consumed, c)
	}
	if len(imported) > 0 {
		c := consumption{pos: pos}
		for _, in := range imported {
			c.ids = append(c.ids, in.ID)
		}
		s.imported = append(s.imported, c)
	}
	for _, in := range imported {
		s.importRows = append(s.importRows, []any{
			in.ID[:], in.SourceChain[:], in.UTXOID.TxID[:], int64(in.UTXOID.OutputIndex), in.AssetID[:],
			int64(in.Amount), pos.txID[:], int64(pos.height), pos.idx, pos.time,
		})
	}
}

type consumption struct {
	pos position
	ids []ids.ID
}

type release struct {
	stakerTxID ids.ID
	by         ids.ID // the tx that released them
	height     uint64
}

func (u *utxoBatch) produce(p *internal.UTXOOutput, pos position, staked bool, spendable *uint64) {
	var peer, stakeable, spend, released any
	if p.Kind == internal.PKindExported {
		peer = p.PeerChain[:]
	}
	if p.StakeableLocktime != 0 {
		stakeable = int64(p.StakeableLocktime)
	}
	var key []byte
	if spendable != nil {
		spend = int64(*spendable)
		if !staked && p.Kind != internal.PKindExported {
			key = pageKey(*spendable, int64(pos.idx), p.UTXO.TxID, p.UTXO.OutputIndex)
		}
	}
	id := p.ID()
	u.output(internal.PChain, p, []any{
		id[:], p.UTXO.TxID[:], int64(p.UTXO.OutputIndex), p.Kind, peer, p.AssetID[:], int64(p.Amount),
		int64(p.Owners.Locktime), int64(p.Owners.Threshold), stakeable, p.Bytes, pos.txID[:], int64(pos.height),
		pos.idx, pos.time, staked, released, spend, nil, nil, nil, nil,
	}, key, pos)
}

// WriteUTXOChanges writes the UTXO changes of a batch of P-chain blocks
// (derive/utxoset): what each tx consumes and produces, its reward UTXOs,
// and the stakes released. Every write is an insert that skips existing
// rows or an update to the same values, so re-applying a batch changes
// nothing.
func (t *PTx) WriteUTXOChanges(ctx context.Context, txs []internal.PUTXOTx, released []internal.StakeRelease) error {
	var u utxoBatch
	for _, x := range txs {
		pos := txPosition(x.Pos)
		u.effects(x.Effects, pos)
		h := pos.height
		for _, p := range x.Rewards {
			u.produce(p, pos, false, &h)
		}
	}
	for _, r := range released {
		u.released = append(u.released, release{stakerTxID: r.Staker, by: r.By, height: r.Height})
	}
	return u.write(ctx, t.batchTx)
}

// effects adds what a tx at pos does to the UTXO set: stake outputs
// staked, exported ones kept as such, the others spendable from its
// height.
func (u *utxoBatch) effects(eff *internal.PTxUTXOs, pos position) {
	h := pos.height
	for _, p := range eff.Produced {
		switch p.Kind {
		case internal.PKindStake:
			u.produce(p, pos, true, nil)
		case internal.PKindExported:
			u.produce(p, pos, false, nil)
		default:
			u.produce(p, pos, false, &h)
		}
	}
	u.add(pos, eff.Consumed, eff.Imported)
}

// markConsumed records in the chain's UTXO table (pg: p_utxos or x_utxos)
// where each consumed UTXO was spent, takes it out of its owners' pages
// (page_key) and marks its list rows spent (address_utxos); cond restricts
// the rows (e.g. "kind <> 'exported'"), or is empty.
func markConsumed(ctx context.Context, b *batchTx, pg utxoPage, cond string, consumed []consumption) (marked int64, err error) {
	var (
		rows [][]any
		all  []ids.ID
	)
	for _, c := range consumed {
		for _, id := range c.ids {
			rows = append(rows, []any{id[:], c.pos.txID[:], int64(c.pos.height), int64(c.pos.idx), c.pos.time})
			all = append(all, id)
		}
	}
	if err := markListedSpent(ctx, b, all); err != nil {
		return 0, err
	}
	if err := clearPageKeys(ctx, b.db, pg, all); err != nil {
		return 0, err
	}
	return b.db.BulkUpdate(ctx, pg.utxos, "id", consumedColumns, cond, rows)
}

// consumedColumns record where a UTXO was spent.
var consumedColumns = []string{"consumed_tx_id", "consumed_height", "consumed_idx", "consumed_time"}

// maxInList bounds the ids of one IN (...) list.
const maxInList = 500

func (u *utxoBatch) write(ctx context.Context, b *batchTx) error {
	tx := b.db
	if err := u.writeRows(ctx, b, pUTXOTables); err != nil {
		return err
	}
	for _, r := range u.released {
		if _, err := tx.Exec(ctx, `UPDATE p_utxos SET staked = FALSE, released_tx_id = ?, spendable_height = ?
			WHERE tx_id = ? AND kind = 'stake'`, r.by[:], int64(r.height), r.stakerTxID[:]); err != nil {
			return err
		}
		// Back in the set, unless a later batch (re-applied before this
		// one) spent it; the spends of this batch clear it below.
		if err := setPageKeys(ctx, tx, pUTXOPage, "u.tx_id = ? AND u.kind = 'stake'", r.stakerTxID[:]); err != nil {
			return err
		}
	}
	_, err := markConsumed(ctx, b, pUTXOPage, "", u.consumed)
	return err
}

func (s *sqlStore) PUTXOsOf(ctx context.Context, addrs []ids.ShortID) (_ []*PUTXO, err error) {
	defer derrors.Wrap(&err, "store.PUTXOsOf(%d addresses)", len(addrs))
	sorted := slices.Clone(addrs)
	slices.SortFunc(sorted, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	sorted = slices.Compact(sorted)

	type row struct {
		addr ids.ShortID
		u    *PUTXO
		idx  int64
	}
	var rows []row
	for start := 0; start < len(sorted); start += maxInList {
		chunk := sorted[start:min(len(sorted), start+maxInList)]
		args := make([]any, len(chunk))
		for i, a := range chunk {
			args[i] = a[:]
		}
		q := `SELECT a.address, u.id, u.tx_id, u.output_index, u.kind, u.bytes, u.spendable_height, u.created_idx
			FROM p_utxo_addresses a JOIN p_utxos u ON u.id = a.utxo_id
			WHERE a.address IN (?` + strings.Repeat(", ?", len(chunk)-1) + `)
			AND u.consumed_height IS NULL AND u.staked = FALSE AND u.kind <> 'exported'`
		err := s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
			var (
				addr, id, txID []byte
				oi, sh, idx    int64
				p              PUTXO
			)
			if err := r.Scan(&addr, &id, &txID, &oi, &p.Kind, &p.Bytes, &sh, &idx); err != nil {
				return err
			}
			a, err := ids.ToShortID(addr)
			if err != nil {
				return err
			}
			if p.ID, err = ids.ToID(id); err != nil {
				return err
			}
			if p.TxID, err = ids.ToID(txID); err != nil {
				return err
			}
			p.OutputIndex = uint32(oi)
			p.SpendableHeight = uint64(sh)
			rows = append(rows, row{addr: a, u: &p, idx: idx})
			return nil
		}, args...)
		if err != nil {
			return nil, err
		}
	}
	// The node lists each address's UTXOs most recently added first; within
	// one block its order is that of a Go map, so any fixed order is as
	// good: later txs and outputs first.
	slices.SortFunc(rows, func(a, b row) int {
		if c := bytes.Compare(a.addr[:], b.addr[:]); c != 0 {
			return c
		}
		switch {
		case a.u.SpendableHeight != b.u.SpendableHeight:
			return cmpDesc(a.u.SpendableHeight, b.u.SpendableHeight)
		case a.idx != b.idx:
			return cmpDesc(uint64(a.idx+1), uint64(b.idx+1))
		case a.u.TxID != b.u.TxID:
			return bytes.Compare(b.u.TxID[:], a.u.TxID[:])
		}
		return cmpDesc(uint64(a.u.OutputIndex), uint64(b.u.OutputIndex))
	})
	seen := make(map[ids.ID]bool, len(rows))
	out := make([]*PUTXO, 0, len(rows))
	for _, r := range rows {
		if seen[r.u.ID] {
			continue
		}
		seen[r.u.ID] = true
		out = append(out, r.u)
	}
	return out, nil
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func (s *sqlStore) PRewardUTXOs(ctx context.Context, stakerTxID ids.ID) (_ [][]byte, err error) {
	defer derrors.Wrap(&err, "store.PRewardUTXOs(%s)", stakerTxID)
	var out [][]byte
	err = s.db.RunQuery(ctx, `SELECT bytes FROM p_utxos WHERE tx_id = ? AND kind = 'reward' ORDER BY output_index`,
		func(r *sql.Rows) error {
			var b []byte
			if err := r.Scan(&b); err != nil {
				return err
			}
			out = append(out, b)
			return nil
		}, stakerTxID[:])
	return out, err
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The X-chain's UTXO set and its history are read by the Data API's UTXO
// lists (UTXOListStore). XUTXOsOf and XUTXO are on no interface of the
// store: only tests read through them.

var xUTXOTables = chainUTXOTables{utxos: "x_utxos", addresses: "x_utxo_addresses",
	imported: "x_imported_utxos", columns: []string{"id", "tx_id", "output_index", "kind", "peer_chain_id", "asset_id",
		"amount", "locktime", "threshold", "bytes", "created_tx_id", "created_height", "created_idx", "created_time",
		"consumed_tx_id", "consumed_height", "consumed_idx", "consumed_time"}}

// xUTXOBatch accumulates the X-chain UTXO changes of a batch of blocks or
// of DAG txs.
type xUTXOBatch struct {
	utxoRows
	imports  []atomicImport
	exported []ids.ID
	// produced are the ids of the outputs put in the UTXO set, which
	// earlier-stored spends may consume (see matchXSpends).
	produced []ids.ID
}

func (u *xUTXOBatch) produce(p *internal.UTXOOutput, pos position) {
	var (
		peer any
		key  []byte
	)
	id := p.ID()
	if p.Kind == exportedKind {
		peer = p.PeerChain[:]
		u.exported = append(u.exported, id)
	} else {
		u.produced = append(u.produced, id)
		// In the set; a spend stored before it (matchXSpends) clears it.
		key = pageKey(pos.height, int64(pos.idx), p.UTXO.TxID, p.UTXO.OutputIndex)
	}
	u.output(internal.XChain, p, []any{
		id[:], p.UTXO.TxID[:], int64(p.UTXO.OutputIndex), p.Kind, peer, p.AssetID[:], int64(p.Amount),
		int64(p.Owners.Locktime), int64(p.Owners.Threshold), p.Bytes, pos.txID[:], int64(pos.height), pos.idx, pos.time,
		nil, nil, nil, nil,
	}, key, pos)
}

// tx records what the tx at pos consumes, imports and produces.
func (u *xUTXOBatch) tx(eff *internal.UTXOEffects, pos position) {
	for _, p := range eff.Produced {
		u.produce(p, pos)
	}
	u.add(pos, eff.Consumed, eff.Imported)
	for _, in := range eff.Imported {
		u.imports = append(u.imports, atomicImport{id: in.ID, pos: pos})
	}
}

// WriteUTXOChanges writes the X-chain's UTXO changes of a batch's txs
// (derive/utxoset): outputs, initial states and operation outputs
// produced, inputs and operation inputs consumed, exported outputs stored
// as 'exported', imported inputs recorded and matched with the exporting
// chain's rows (see atomic.go). Re-applying a batch changes nothing.
func (t *XTx) WriteUTXOChanges(ctx context.Context, txs []internal.UTXOTx) error {
	return writeXUTXOChanges(ctx, t.batchTx, txs)
}

func writeXUTXOChanges(ctx context.Context, b *batchTx, txs []internal.UTXOTx) error {
	var u xUTXOBatch
	for _, x := range txs {
		u.tx(x.Effects, txPosition(x.Pos))
	}
	return u.write(ctx, b)
}

func (u *xUTXOBatch) write(ctx context.Context, b *batchTx) error {
	if err := u.writeRows(ctx, b, xUTXOTables); err != nil {
		return err
	}
	// The X lock before the atomic one, always, so they cannot deadlock.
	if err := matchXSpends(ctx, b, u.consumed, u.produced); err != nil {
		return err
	}
	return matchAtomic(ctx, b, u.imports, u.exported)
}

// xSpendLockKey names the lock (database.LockTx) that
// serializes the matching of X-chain spends with the UTXOs they spend
// between the concurrent transactions of the X-chain's blocks and of its
// DAG txs (see matchXSpends).
const xSpendLockKey = 0x61766169_78737064

// matchXSpends marks consumed the X-chain UTXOs the batch spends, and the
// UTXOs it produced that earlier-stored txs spend.
//
// Post-Cortina blocks spend UTXOs created by pre-Cortina DAG txs, and the
// two are applied by concurrent loops in any order, so a spend may be
// stored before its UTXO. Rather than hold the blocks back until the DAG
// history is applied (which a node without --index-enabled never serves,
// and whose length only the live node knows), the derivation is
// order-independent, as atomic matching is: a spend whose UTXO is not
// stored is kept in x_early_spends, and marks the UTXO when a later batch
// stores it. Each side has written its own rows before it matches under
// the lock, so whichever commits second sees the other. Re-applying a
// batch changes nothing.
func matchXSpends(ctx context.Context, b *batchTx, consumed []consumption, produced []ids.ID) error {
	if len(consumed) == 0 && len(produced) == 0 {
		return nil
	}
	if err := b.db.LockTx(ctx, xSpendLockKey); err != nil {
		return err
	}
	marked, err := markConsumed(ctx, b, xUTXOPage, "kind <> 'exported'", consumed)
	if err != nil {
		return err
	}
	spent := 0
	for _, c := range consumed {
		spent += len(c.ids)
	}
	// The usual case, every spent UTXO stored, needs no look for the others.
	if marked < int64(spent) {
		if err := keepEarlySpends(ctx, b.db, consumed); err != nil {
			return err
		}
	}
	return matchEarlySpends(ctx, b, produced)
}

var earlySpendColumns = []string{"utxo_id", "consumed_tx_id", "consumed_height", "consumed_idx", "consumed_time"}

// keepEarlySpends stores the spends among consumed whose UTXO is not in
// x_utxos.
func keepEarlySpends(ctx context.Context, tx *database.DB, consumed []consumption) error {
	var all []ids.ID
	for _, c := range consumed {
		all = append(all, c.ids...)
	}
	stored := make(map[ids.ID]bool, len(all))
	err := idChunks(all, func(args []any, in string) error {
		return tx.RunQuery(ctx, "SELECT id FROM x_utxos WHERE kind <> 'exported' AND id IN "+in, func(r *sql.Rows) error {
			var b []byte
			if err := r.Scan(&b); err != nil {
				return err
			}
			id, err := ids.ToID(b)
			stored[id] = true
			return err
		}, args...)
	})
	if err != nil {
		return err
	}
	var rows [][]any
	for _, c := range consumed {
		for _, id := range c.ids {
			if !stored[id] {
				rows = append(rows, []any{id[:], c.pos.txID[:], int64(c.pos.height), c.pos.idx, c.pos.time})
			}
		}
	}
	return tx.Append(ctx, "x_early_spends", earlySpendColumns, rows, onConflictDoNothing)
}

// matchEarlySpends marks consumed the UTXOs among produced that stored
// early spends consume, and forgets those spends.
func matchEarlySpends(ctx context.Context, b *batchTx, produced []ids.ID) error {
	if len(produced) == 0 {
		return nil
	}
	tx := b.db
	var waiting int
	err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM x_early_spends LIMIT 1) e").Scan(&waiting)
	if err != nil || waiting == 0 {
		return err // the usual case: no spend waits
	}
	var found []consumption
	err = idChunks(produced, func(args []any, in string) error {
		return tx.RunQuery(ctx, "SELECT utxo_id, consumed_tx_id, consumed_height, consumed_idx, consumed_time FROM x_early_spends WHERE utxo_id IN "+in,
			func(r *sql.Rows) error {
				var (
					id, txID []byte
					h        int64
					c        consumption
				)
				if err := r.Scan(&id, &txID, &h, &c.pos.idx, &c.pos.time); err != nil {
					return err
				}
				u, err := ids.ToID(id)
				if err != nil {
					return err
				}
				if c.pos.txID, err = ids.ToID(txID); err != nil {
					return err
				}
				c.pos.height = uint64(h)
				c.ids = []ids.ID{u}
				found = append(found, c)
				return nil
			}, args...)
	})
	if err != nil || len(found) == 0 {
		return err
	}
	if _, err := markConsumed(ctx, b, xUTXOPage, "kind <> 'exported'", found); err != nil {
		return err
	}
	matched := make([]ids.ID, len(found))
	for i, c := range found {
		matched[i] = c.ids[0]
	}
	return idChunks(matched, func(args []any, in string) error {
		_, err := tx.Exec(ctx, "DELETE FROM x_early_spends WHERE utxo_id IN "+in, args...)
		return err
	})
}

// idChunks calls f for each chunk of up to maxInList ids, with the ids as
// arguments and the matching "(?, ...)" list.
func idChunks(all []ids.ID, f func(args []any, in string) error) error {
	return idChunksOf(all, maxInList, f)
}

// readInList bounds the ids of one IN (...) list of the Data API's reads:
// a page of 1024 items (and the one more that tells whether another page
// exists) in one statement, one round trip.
const readInList = 1025

// idChunksOf is idChunks with chunks of up to n ids.
func idChunksOf(all []ids.ID, n int, f func(args []any, in string) error) error {
	for start := 0; start < len(all); start += n {
		chunk := all[start:min(len(all), start+n)]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id[:]
		}
		if err := f(args, "(?"+strings.Repeat(", ?", len(chunk)-1)+")"); err != nil {
			return err
		}
	}
	return nil
}

// XUTXOsOf returns the UTXOs of the X-chain's current UTXO set (unspent
// and not exported, of every kind) that have any of addrs among their
// owners, each once, ordered by id.
func (s *sqlStore) XUTXOsOf(ctx context.Context, addrs []ids.ShortID) (_ []*ListedUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXOsOf(%d addresses)", len(addrs))
	sorted := slices.Clone(addrs)
	slices.SortFunc(sorted, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	sorted = slices.Compact(sorted)
	seen := map[ids.ID]bool{}
	var out []*ListedUTXO
	for start := 0; start < len(sorted); start += maxInList {
		chunk := sorted[start:min(len(sorted), start+maxInList)]
		args := make([]any, len(chunk))
		for i, a := range chunk {
			args[i] = a[:]
		}
		q := listedSelect(internal.XChain) + ` WHERE u.consumed_tx_id IS NULL AND u.kind <> 'exported'
			AND EXISTS (SELECT 1 FROM x_utxo_addresses a WHERE a.utxo_id = u.id AND a.address IN (?` + strings.Repeat(", ?", len(chunk)-1) + `))`
		err := s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
			u, err := scanListedUTXO(r)
			if err != nil {
				return err
			}
			u.Origin = internal.XChain
			if !seen[u.ID] {
				seen[u.ID] = true
				out = append(out, u)
			}
			return nil
		}, args...)
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b *ListedUTXO) int { return a.ID.Compare(b.ID) })
	return out, nil
}

// XUTXO returns a stored X-chain UTXO, spent or not, exported or not.
func (s *sqlStore) XUTXO(ctx context.Context, id ids.ID) (_ *ListedUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXO(%s)", id)
	var got *ListedUTXO
	err = s.db.RunQuery(ctx, listedSelect(internal.XChain)+" WHERE u.id = ?", func(r *sql.Rows) error {
		var err error
		if got, err = scanListedUTXO(r); err == nil {
			got.Origin = internal.XChain
		}
		return err
	}, id[:])
	if err != nil {
		return nil, err
	}
	if got == nil {
		return nil, derrors.NotFound
	}
	return got, nil
}

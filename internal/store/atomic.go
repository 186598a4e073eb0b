package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// Atomic UTXOs move between the P-, X- and C-chains through shared
// memory.
//
// An export (a P or X ExportTx's exported outputs, a C ExportTx's outputs)
// is stored with the exporting chain's UTXOs; the import that takes it out
// of the destination chain's shared memory marks it consumed. The chains
// are indexed concurrently, so either may be applied first: an import is
// also kept with the importing chain (p_, x_, c_imported_utxos), and an
// export that arrives after its import is marked when it is stored.
//
// AtomicUTXOs and ExportedUTXO are on no interface of the store: only
// tests read through them (with an interface of their own).

// exportTables are the tables that hold exported UTXOs, with the condition
// that selects the exported ones and their owners' table.
var exportTables = []struct {
	chain   internal.Chain
	table   string
	where   string
	address string
}{
	{internal.PChain, "p_utxos", "kind = 'exported'", "p_utxo_addresses"},
	{internal.XChain, "x_utxos", "kind = 'exported'", "x_utxo_addresses"},
	{internal.CChain, "c_atomic_utxos", "1 = 1", "c_atomic_utxo_addresses"},
}

// importTables are the tables that record imports, one per importing chain.
var importTables = []string{"p_imported_utxos", "x_imported_utxos", "c_imported_utxos"}

// position is where an import sits on its chain.

type atomicImport struct {
	id  ids.ID
	pos position
}

// atomicLockKey names the lock (database.LockTx) that serializes the
// matching of exports and imports between the chains' concurrent
// transactions.
// Each side writes its own rows first and matches under the lock, so
// whichever of an export and its import commits second sees the other.
const atomicLockKey = 0x61766169_61746f6d

func lockAtomic(ctx context.Context, tx *database.DB) error {
	return tx.LockTx(ctx, atomicLockKey)
}

// matchAtomic marks consumed the exports that imports consume, and the
// exports exported whose imports are already stored. Both are idempotent.
func matchAtomic(ctx context.Context, b *batchTx, imports []atomicImport, exported []ids.ID) error {
	if len(imports) == 0 && len(exported) == 0 {
		return nil
	}
	if err := lockAtomic(ctx, b.db); err != nil {
		return err
	}
	found, err := storedImports(ctx, b.db, exported)
	if err != nil {
		return err
	}
	return markImported(ctx, b, append(imports, found...))
}

// markImported sets the consumed_* columns of the exports that imps
// consume, wherever they are stored, and marks their list rows spent.
func markImported(ctx context.Context, b *batchTx, imps []atomicImport) error {
	spent := make([]ids.ID, len(imps))
	for i, im := range imps {
		spent[i] = im.id
	}
	if err := markListedSpent(ctx, b, spent); err != nil {
		return err
	}
	for _, im := range imps {
		for _, t := range exportTables {
			if _, err := b.db.Exec(ctx, `UPDATE `+t.table+` SET consumed_tx_id = ?, consumed_height = ?, consumed_idx = ?, consumed_time = ?
				WHERE id = ? AND `+t.where,
				im.pos.txID[:], int64(im.pos.height), im.pos.idx, im.pos.time, im.id[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedImports returns the stored imports of any chain that consume the
// UTXOs ids.
func storedImports(ctx context.Context, tx *database.DB, utxoIDs []ids.ID) ([]atomicImport, error) {
	var out []atomicImport
	err := idChunks(utxoIDs, func(args []any, in string) error {
		for _, table := range importTables {
			err := tx.RunQuery(ctx, "SELECT id, consumed_tx_id, consumed_height, consumed_idx, consumed_time FROM "+table+" WHERE id IN "+in,
				func(r *sql.Rows) error {
					var (
						id, txID []byte
						h        int64
						im       atomicImport
					)
					if err := r.Scan(&id, &txID, &h, &im.pos.idx, &im.pos.time); err != nil {
						return err
					}
					var err error
					if im.id, err = ids.ToID(id); err != nil {
						return err
					}
					if im.pos.txID, err = ids.ToID(txID); err != nil {
						return err
					}
					im.pos.height = uint64(h)
					out = append(out, im)
					return nil
				}, args...)
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// atomicImports converts the derivation's imports.
func atomicImports(in []internal.AtomicImport) []atomicImport {
	out := make([]atomicImport, len(in))
	for i, im := range in {
		out[i] = atomicImport{id: im.UTXO.ID, pos: txPosition(im.Pos)}
	}
	return out
}

// txPosition is p as the UTXO tables store it.
func txPosition(p internal.TxPosition) position {
	return position{txID: p.TxID, height: p.Height, idx: p.Index, time: unixSeconds(p.Time)}
}

// MatchAtomic marks consumed the exports that imports consume, and those
// of exported whose imports are stored already.
func (t *PTx) MatchAtomic(ctx context.Context, imports []internal.AtomicImport, exported []ids.ID) error {
	return matchAtomic(ctx, t.batchTx, atomicImports(imports), exported)
}

// MatchAtomic is PTx.MatchAtomic for the C-chain's atomic txs.
func (t *CTx) MatchAtomic(ctx context.Context, imports []internal.AtomicImport, exported []ids.ID) error {
	return matchAtomic(ctx, t.batchTx, atomicImports(imports), exported)
}

var (
	cAtomicUTXOColumns = []string{"id", "tx_id", "output_index", "peer_chain_id", "asset_id", "amount", "locktime",
		"threshold", "bytes", "created_tx_id", "created_height", "created_idx", "created_time"}
	importedUTXOColumns = []string{"id", "source_chain_id", "tx_id", "output_index", "asset_id", "amount",
		"consumed_tx_id", "consumed_height", "consumed_idx", "consumed_time"}
)

// WriteAtomicUTXOs writes the UTXOs the C-chain's ExportTxs put into
// shared memory (c_atomic_utxos, their owners, their list rows) and
// those its ImportTxs consume (c_imported_utxos).
func (t *CTx) WriteAtomicUTXOs(ctx context.Context, exports []internal.AtomicExport, imports []internal.AtomicImport) error {
	tx := t.db
	var (
		utxoRows, addrRows [][]any
		listed             listedOutputs
		sp                 spends
	)
	for _, x := range exports {
		e, pos := x.Output, txPosition(x.Pos)
		id := e.ID()
		utxoRows = append(utxoRows, []any{id[:], e.UTXO.TxID[:], int64(e.UTXO.OutputIndex), e.PeerChain[:], e.AssetID[:],
			int64(e.Amount), int64(e.Owners.Locktime), int64(e.Owners.Threshold), e.Bytes, pos.txID[:], int64(pos.height), pos.idx, pos.time})
		for _, a := range e.Owners.Addrs {
			addrRows = append(addrRows, []any{a[:], id[:]})
		}
		listed.add(e, internal.CChain, pos)
	}
	for _, im := range imports {
		sp.add(txPosition(im.Pos), nil, []internal.UTXOInput{im.UTXO})
	}
	n, err := tx.BulkInsert(ctx, "c_atomic_utxos", cAtomicUTXOColumns, utxoRows, onConflictDoNothing)
	if err != nil {
		return err
	}
	if err := tx.Append(ctx, "c_atomic_utxo_addresses", addressColumns, addrRows, onConflictDoNothing); err != nil {
		return err
	}
	if err := listed.write(ctx, t.batchTx, n == int64(len(utxoRows))); err != nil {
		return err
	}
	return tx.Append(ctx, "c_imported_utxos", importedUTXOColumns, sp.importRows, onConflictDoNothing)
}

// addressColumns are the columns of every *_addresses table.
var addressColumns = []string{"address", "utxo_id"}

// AtomicUTXOs returns the exported UTXOs still in the shared memory of
// destination (exported to it and not imported yet, as far as indexed)
// that have any of addrs among their owners, each once, ordered by id.
func (s *sqlStore) AtomicUTXOs(ctx context.Context, destination ids.ID, addrs []ids.ShortID) (_ []*ListedUTXO, err error) {
	defer derrors.Wrap(&err, "store.AtomicUTXOs(%s, %d addresses)", destination, len(addrs))
	seen := map[ids.ID]bool{}
	var out []*ListedUTXO
	for start := 0; start < len(addrs); start += maxInList {
		chunk := addrs[start:min(len(addrs), start+maxInList)]
		args := []any{destination[:]}
		for _, a := range chunk {
			args = append(args, a[:])
		}
		in := "(?" + strings.Repeat(", ?", len(chunk)-1) + ")"
		for _, t := range exportTables {
			q := listedSelect(t.chain) + " WHERE " + t.where + ` AND peer_chain_id = ? AND consumed_tx_id IS NULL
				AND EXISTS (SELECT 1 FROM ` + t.address + ` a WHERE a.utxo_id = u.id AND a.address IN ` + in + `)`
			err := s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
				u, err := scanListedUTXO(r)
				if err != nil {
					return err
				}
				u.Origin = t.chain
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
	}
	slices.SortFunc(out, func(a, b *ListedUTXO) int { return a.ID.Compare(b.ID) })
	return out, nil
}

// ExportedUTXO returns the exported UTXO with id, from whichever chain
// exported it; derrors.NotFound when none is stored.
func (s *sqlStore) ExportedUTXO(ctx context.Context, id ids.ID) (_ *ListedUTXO, err error) {
	defer derrors.Wrap(&err, "store.ExportedUTXO(%s)", id)
	for _, t := range exportTables {
		var got *ListedUTXO
		err := s.db.RunQuery(ctx, listedSelect(t.chain)+" WHERE id = ? AND "+t.where, func(r *sql.Rows) error {
			var err error
			if got, err = scanListedUTXO(r); err == nil {
				got.Origin = t.chain
			}
			return err
		}, id[:])
		if err != nil {
			return nil, err
		}
		if got != nil {
			return got, nil
		}
	}
	return nil, derrors.NotFound
}

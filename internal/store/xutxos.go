package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/hashing"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/xchain"
)

// XUTXOStore keeps the X-chain's UTXO set and its history.
type XUTXOStore interface {
	// XUTXOsOf returns the UTXOs of the X-chain's current UTXO set (unspent
	// and not exported, of every kind) that have any of addrs among their
	// owners, each once, ordered by id.
	XUTXOsOf(ctx context.Context, addrs []ids.ShortID) ([]*XUTXO, error)
	// XUTXO returns a stored X-chain UTXO, spent or not, exported or not.
	XUTXO(ctx context.Context, id ids.ID) (*XUTXO, error)
}

// XUTXO is one stored X-chain UTXO.
type XUTXO struct {
	ID          ids.ID
	TxID        ids.ID
	OutputIndex uint32
	// Kind is xchain.KindRegular, KindOther or KindExported.
	Kind string
	// PeerChain is an exported UTXO's destination chain.
	PeerChain ids.ID
	AssetID   ids.ID
	Amount    uint64
	// Bytes is the avax.UTXO as the avm encodes it (avm.getUTXOs).
	Bytes         []byte
	CreatedTxID   ids.ID
	CreatedHeight uint64
	// ConsumedTxID is the tx that spent it (the importing chain's ImportTx
	// for an exported UTXO), ids.Empty while unspent; ConsumedHeight is
	// that tx's height on its chain.
	ConsumedTxID   ids.ID
	ConsumedHeight uint64
}

var xUTXOColumns = []string{"id", "tx_id", "output_index", "kind", "peer_chain_id", "asset_id", "amount",
	"locktime", "threshold", "bytes", "created_tx_id", "created_height", "created_idx", "created_time"}

// xUTXOBatch accumulates the X-chain UTXO changes of a batch of blocks.
type xUTXOBatch struct {
	utxoRows, addrRows [][]any
	spends
	imports  []atomicImport
	exported []ids.ID
}

func (u *xUTXOBatch) produce(p *xchain.UTXO, pos position) {
	var peer any
	if p.Kind == xchain.KindExported {
		peer = p.PeerChain[:]
		u.exported = append(u.exported, p.ID())
	}
	id := p.ID()
	u.utxoRows = append(u.utxoRows, []any{
		id[:], p.UTXO.TxID[:], int64(p.UTXO.OutputIndex), p.Kind, peer, p.AssetID[:], int64(p.Amount),
		int64(p.Owners.Locktime), int64(p.Owners.Threshold), p.Bytes, pos.txID[:], int64(pos.height), pos.idx, pos.time,
	})
	for _, a := range p.Owners.Addrs {
		u.addrRows = append(u.addrRows, []any{a[:], id[:]})
	}
}

// applyXUTXOs derives the X-chain's UTXO changes from a batch of blocks,
// as the avm's executor makes them (see xchain.UTXOsOfTx): inputs and
// operation inputs consumed, outputs, initial states and operation outputs
// produced, exported outputs stored as 'exported', imported inputs
// recorded and matched with the exporting chain's rows (see AtomicStore).
// At height 0 it adds the genesis assets' UTXOs when xchain.GenesisFor
// knows the X-chain (one linear from genesis). Re-applying a batch changes
// nothing.
func applyXUTXOs(ctx context.Context, tx *database.DB, blocks []*internal.XBlock) error {
	var u xUTXOBatch
	for _, b := range blocks {
		ts := unixSeconds(b.Timestamp)
		if b.Height == 0 {
			if err := u.genesis(ctx, tx, ts); err != nil {
				return err
			}
		}
		for j, t := range b.Txs {
			if hashing.ComputeHash256Array(t.Bytes) != t.ID {
				continue // not an avm tx's bytes (synthetic test blocks)
			}
			xtx, err := xchain.ParseTx(t.Bytes)
			if err != nil {
				return fmt.Errorf("X-chain block %d tx %s: %w", b.Height, t.ID, err)
			}
			eff, err := xchain.UTXOsOfTx(xtx)
			if err != nil {
				return fmt.Errorf("X-chain block %d tx %s: %w", b.Height, t.ID, err)
			}
			pos := position{txID: t.ID, height: b.Height, idx: j, time: ts}
			for _, p := range eff.Produced {
				u.produce(p, pos)
			}
			u.add(pos, eff.Consumed, eff.Imported)
			for _, in := range eff.Imported {
				u.imports = append(u.imports, atomicImport{id: in.ID, pos: pos})
			}
		}
	}
	return u.write(ctx, tx)
}

// NetworkSetting is the setting under which the service keeps the indexed
// network (internal.Network as JSON); appliers that need the network's ids
// read it with storedNetwork.
const NetworkSetting = "network"

// storedNetwork returns the network the service stored; ok is false in a
// store without one (e.g. in store tests).
func storedNetwork(ctx context.Context, tx *database.DB) (_ *internal.Network, ok bool, _ error) {
	var v []byte
	err := tx.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", NetworkSetting).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var n internal.Network
	if err := json.Unmarshal(v, &n); err != nil {
		return nil, false, fmt.Errorf("decoding the stored network: %w", err)
	}
	return &n, true, nil
}

// genesis adds the X-chain's genesis UTXOs, created by the genesis
// CreateAssetTxs at height 0 (idx -1) at the time of block 0. The X-chain
// is identified by the network the service stored; a store without one,
// or another network's X-chain, starts empty.
func (u *xUTXOBatch) genesis(ctx context.Context, tx *database.DB, ts int64) error {
	n, ok, err := storedNetwork(ctx, tx)
	if err != nil || !ok {
		return err
	}
	g, ok, err := xchain.GenesisFor(n.XChainID)
	if err != nil || !ok {
		return err
	}
	for _, p := range g.UTXOs {
		u.produce(p, position{txID: p.UTXO.TxID, height: 0, idx: -1, time: ts})
	}
	return nil
}

func (u *xUTXOBatch) write(ctx context.Context, tx *database.DB) error {
	if _, err := tx.BulkInsert(ctx, "x_utxos", xUTXOColumns, u.utxoRows, onConflictDoNothing); err != nil {
		return err
	}
	if _, err := tx.BulkInsert(ctx, "x_utxo_addresses", addressColumns, u.addrRows, onConflictDoNothing); err != nil {
		return err
	}
	if _, err := tx.BulkInsert(ctx, "x_imported_utxos", importedUTXOColumns, u.importRows, onConflictDoNothing); err != nil {
		return err
	}
	if err := markConsumed(ctx, tx, "x_utxos", "kind <> 'exported'", u.consumed); err != nil {
		return err
	}
	return matchAtomic(ctx, tx, u.imports, u.exported)
}

const xUTXOSelect = `SELECT u.id, u.tx_id, u.output_index, u.kind, u.peer_chain_id, u.asset_id, u.amount, u.bytes,
	u.created_tx_id, u.created_height, u.consumed_tx_id, u.consumed_height FROM x_utxos u`

func scanXUTXO(r *sql.Rows) (*XUTXO, error) {
	var (
		id, txID, peer, asset, created, consumed []byte
		oi, amount, createdHeight                int64
		consumedHeight                           sql.NullInt64
		u                                        XUTXO
	)
	if err := r.Scan(&id, &txID, &oi, &u.Kind, &peer, &asset, &amount, &u.Bytes, &created, &createdHeight, &consumed, &consumedHeight); err != nil {
		return nil, err
	}
	var err error
	for _, f := range []struct {
		dst *ids.ID
		src []byte
	}{{&u.ID, id}, {&u.TxID, txID}, {&u.AssetID, asset}, {&u.CreatedTxID, created}} {
		if *f.dst, err = ids.ToID(f.src); err != nil {
			return nil, err
		}
	}
	if peer != nil {
		if u.PeerChain, err = ids.ToID(peer); err != nil {
			return nil, err
		}
	}
	if consumed != nil {
		if u.ConsumedTxID, err = ids.ToID(consumed); err != nil {
			return nil, err
		}
		u.ConsumedHeight = uint64(consumedHeight.Int64)
	}
	u.OutputIndex = uint32(oi)
	u.Amount = uint64(amount)
	u.CreatedHeight = uint64(createdHeight)
	u.Bytes = nonNil(u.Bytes)
	return &u, nil
}

func (s *sqlStore) XUTXOsOf(ctx context.Context, addrs []ids.ShortID) (_ []*XUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXOsOf(%d addresses)", len(addrs))
	sorted := slices.Clone(addrs)
	slices.SortFunc(sorted, func(a, b ids.ShortID) int { return bytes.Compare(a[:], b[:]) })
	sorted = slices.Compact(sorted)
	seen := map[ids.ID]bool{}
	var out []*XUTXO
	for start := 0; start < len(sorted); start += maxInList {
		chunk := sorted[start:min(len(sorted), start+maxInList)]
		args := make([]any, len(chunk))
		for i, a := range chunk {
			args[i] = a[:]
		}
		q := xUTXOSelect + ` WHERE u.consumed_tx_id IS NULL AND u.kind <> 'exported'
			AND EXISTS (SELECT 1 FROM x_utxo_addresses a WHERE a.utxo_id = u.id AND a.address IN (?` + strings.Repeat(", ?", len(chunk)-1) + `))`
		err := s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
			u, err := scanXUTXO(r)
			if err != nil {
				return err
			}
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
	slices.SortFunc(out, func(a, b *XUTXO) int { return a.ID.Compare(b.ID) })
	return out, nil
}

func (s *sqlStore) XUTXO(ctx context.Context, id ids.ID) (_ *XUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXO(%s)", id)
	var got *XUTXO
	err = s.db.RunQuery(ctx, xUTXOSelect+" WHERE u.id = ?", func(r *sql.Rows) error {
		var err error
		got, err = scanXUTXO(r)
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

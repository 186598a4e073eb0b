package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// UTXOPageStore pages through one address's P- or X-chain UTXOs as the
// node's platform.getUTXOs and avm.getUTXOs do.
type UTXOPageStore interface {
	// PUTXOPageOf returns at most limit UTXOs of addr's current P-chain
	// UTXO set (as PUTXOsOf), in PUTXOsOf's order (newest first), those
	// after the UTXO after; when after is not one of them, from the
	// first, as the node's index (a linked list) starts over from its
	// head for a start it does not hold.
	PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*PagedUTXO, error)
	// XUTXOPageOf is PUTXOPageOf for the X-chain's UTXO set (as
	// XUTXOsOf), newest first by the height that created them.
	XUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*PagedUTXO, error)
}

// PagedUTXO is a UTXO of a page: its id and bytes in the node's encoding.
type PagedUTXO struct {
	ID    ids.ID
	Bytes []byte
}

// utxoPage names a chain's UTXO set: the UTXO table (u), its owners'
// table (with page_key, migration 0041), the condition on u of the UTXOs
// in the set, and the column of the height that put one there.
type utxoPage struct {
	utxos, addresses string
	live             string
	height           string
}

var (
	pUTXOPage = utxoPage{utxos: "p_utxos", addresses: "p_utxo_addresses",
		live:   "u.consumed_height IS NULL AND u.staked = FALSE AND u.kind <> 'exported'",
		height: "u.spendable_height"}
	xUTXOPage = utxoPage{utxos: "x_utxos", addresses: "x_utxo_addresses",
		live: "u.consumed_tx_id IS NULL AND u.kind <> 'exported'", height: "u.created_height"}
)

// pageKeyLen is the length of a page_key.
const pageKeyLen = 8 + 4 + 32 + 4

// pageKey is the page_key (migration 0041) of a UTXO in the set: the
// height that put it there, its tx's index in the block (-1 for genesis),
// its UTXOID, big-endian, so that byte order is the node's order (newest
// first) reversed. Heights and indices are never negative but for the -1.
func pageKey(height uint64, idx int64, txID ids.ID, outputIndex uint32) []byte {
	k := make([]byte, 0, pageKeyLen)
	k = binary.BigEndian.AppendUint64(k, height)
	k = binary.BigEndian.AppendUint32(k, uint32(idx+1))
	k = append(k, txID[:]...)
	return binary.BigEndian.AppendUint32(k, outputIndex)
}

// keyOrNil is key as a column value: NULL when nil.
func keyOrNil(key []byte) any {
	if key == nil {
		return nil
	}
	return key
}

func (s *sqlStore) PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) (_ []*PagedUTXO, err error) {
	defer derrors.Wrap(&err, "store.PUTXOPageOf(%s, %s, %d)", addr, after, limit)
	return s.utxoPageOf(ctx, pUTXOPage, addr, after, limit)
}

func (s *sqlStore) XUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) (_ []*PagedUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXOPageOf(%s, %s, %d)", addr, after, limit)
	return s.utxoPageOf(ctx, xUTXOPage, addr, after, limit)
}

// utxoPageOf walks the address's range of the page index (address,
// page_key) down from the cursor's key: a page reads its own rows only.
func (s *sqlStore) utxoPageOf(ctx context.Context, pg utxoPage, addr ids.ShortID, after ids.ID, limit int) ([]*PagedUTXO, error) {
	if limit <= 0 {
		return nil, nil
	}
	var key []byte
	if after != ids.Empty {
		err := s.db.QueryRow(ctx, `SELECT page_key FROM `+pg.addresses+` WHERE address = ? AND utxo_id = ?`,
			addr[:], after[:]).Scan(&key)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		// A cursor out of the address's set (no key) starts from the first.
	}
	q, args := pg.pageQuery(addr, key, limit)
	var out []*PagedUTXO
	err := s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
		var (
			id []byte
			u  PagedUTXO
		)
		if err := r.Scan(&id, &u.Bytes); err != nil {
			return err
		}
		var err error
		u.ID, err = ids.ToID(id)
		out = append(out, &u)
		return err
	}, args...)
	return out, err
}

// abovePageKeys is above every page key: the bound of a first page.
var abovePageKeys = bytes.Repeat([]byte{0xff}, pageKeyLen+1)

// pageQuery is the query of a page of addr's UTXOs, below the page key
// after (nil: from the first), and its arguments.
//
// Both engines walk the index for it. A first page is bounded too: with
// the range on page_key, PostgreSQL's generic plan of the prepared
// statement walks the index rather than sorting the address's rows, which
// it would estimate at the average address's few. The bytes come by a
// subquery, which looks each UTXO up by id: PostgreSQL would rather hash
// the whole UTXO table for a join (or scan it for a list of 1,024 ids)
// unless it holds many times more UTXOs than the page.
func (pg utxoPage) pageQuery(addr ids.ShortID, after []byte, limit int) (string, []any) {
	if after == nil {
		after = abovePageKeys
	}
	return `SELECT a.utxo_id, (SELECT u.bytes FROM ` + pg.utxos + ` u WHERE u.id = a.utxo_id) FROM ` + pg.addresses + ` a
		WHERE a.address = ? AND a.page_key IS NOT NULL AND a.page_key < ? ORDER BY a.page_key DESC LIMIT ?`,
		[]any{addr[:], after, limit}
}

// setPageKeys sets the page_key of the owner rows of the UTXOs of pg's
// set that where (over u) selects, from their UTXO rows. UTXOs out of the
// set are left alone: their rows keep a NULL key.
func setPageKeys(ctx context.Context, tx *database.DB, pg utxoPage, where string, args ...any) error {
	var rows [][]any
	err := tx.RunQuery(ctx, `SELECT u.id, `+pg.height+`, u.created_idx, u.tx_id, u.output_index FROM `+pg.utxos+` u
		WHERE `+where+` AND `+pg.live, func(r *sql.Rows) error {
		var (
			id, txID   []byte
			h, idx, oi int64
		)
		if err := r.Scan(&id, &h, &idx, &txID, &oi); err != nil {
			return err
		}
		t, err := ids.ToID(txID)
		if err != nil {
			return err
		}
		rows = append(rows, []any{id, pageKey(uint64(h), idx, t, uint32(oi))})
		return nil
	}, args...)
	if err != nil {
		return fmt.Errorf("%s page keys: %w", pg.utxos, err)
	}
	_, err = tx.BulkUpdate(ctx, pg.addresses, "utxo_id", []string{"page_key"}, "", rows)
	return err
}

// clearPageKeys clears the page_key of the owner rows of the UTXOs
// utxoIDs, which left pg's set.
func clearPageKeys(ctx context.Context, tx *database.DB, pg utxoPage, utxoIDs []ids.ID) error {
	return idChunks(utxoIDs, func(args []any, in string) error {
		// No "page_key IS NOT NULL": PostgreSQL would scan the page index
		// for it rather than look the ids up.
		_, err := tx.Exec(ctx, "UPDATE "+pg.addresses+" SET page_key = NULL WHERE utxo_id IN "+in, args...)
		return err
	})
}

// utxoPageKeyParts are the parts of the utxo_page_keys backfill: the keys
// of the UTXOs in the P- and X-chain's sets, by the height that created
// them, and the X-chain's DAG UTXOs (all at height 0) by their DAG tx's
// index, so that no chunk holds the whole DAG history. Positions are
// heights, and created_idx + 1 at X height 0.
func utxoPageKeyParts(ctx context.Context, db *database.DB) ([]BackfillPart, error) {
	byHeight := func(pg utxoPage) func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
		return func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
			return hi, setPageKeys(ctx, tx, pg, "u.created_height >= ? AND u.created_height < ?", lo, hi)
		}
	}
	p, err := rangePart(ctx, db, "the P-chain's UTXOs", "SELECT MIN(created_height), MAX(created_height) FROM p_utxos", nil,
		byHeight(pUTXOPage))
	if err != nil {
		return nil, err
	}
	dag, err := rangePart(ctx, db, "the X-chain's UTXOs of height 0",
		"SELECT MIN(created_idx) + 1, MAX(created_idx) + 1 FROM x_utxos WHERE created_height = 0", nil,
		func(ctx context.Context, tx *database.DB, lo, hi int64) (int64, error) {
			return hi, setPageKeys(ctx, tx, xUTXOPage, "u.created_height = 0 AND u.created_idx >= ? AND u.created_idx < ?", lo-1, hi-1)
		})
	if err != nil {
		return nil, err
	}
	x, err := rangePart(ctx, db, "the X-chain's UTXOs above height 0",
		"SELECT MIN(created_height), MAX(created_height) FROM x_utxos WHERE created_height > 0", nil, byHeight(xUTXOPage))
	if err != nil {
		return nil, err
	}
	return []BackfillPart{p, dag, x}, nil
}

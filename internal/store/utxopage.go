package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ava-labs/avalanchego/ids"

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

// utxoPage says where a chain's UTXO set is: an address's UTXOs (a)
// joined to the current set (u), and the column whose height orders it.
type utxoPage struct {
	from   string
	height string
}

var (
	pUTXOPage = utxoPage{
		from: ` FROM p_utxo_addresses a JOIN p_utxos u ON u.id = a.utxo_id
	WHERE a.address = ? AND u.consumed_height IS NULL AND u.staked = FALSE AND u.kind <> 'exported'`,
		height: "u.spendable_height",
	}
	xUTXOPage = utxoPage{
		from: ` FROM x_utxo_addresses a JOIN x_utxos u ON u.id = a.utxo_id
	WHERE a.address = ? AND u.consumed_tx_id IS NULL AND u.kind <> 'exported'`,
		height: "u.created_height",
	}
)

func (s *sqlStore) PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) (_ []*PagedUTXO, err error) {
	defer derrors.Wrap(&err, "store.PUTXOPageOf(%s, %s, %d)", addr, after, limit)
	return s.utxoPageOf(ctx, pUTXOPage, addr, after, limit)
}

func (s *sqlStore) XUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) (_ []*PagedUTXO, err error) {
	defer derrors.Wrap(&err, "store.XUTXOPageOf(%s, %s, %d)", addr, after, limit)
	return s.utxoPageOf(ctx, xUTXOPage, addr, after, limit)
}

func (s *sqlStore) utxoPageOf(ctx context.Context, pg utxoPage, addr ids.ShortID, after ids.ID, limit int) ([]*PagedUTXO, error) {
	if limit <= 0 {
		return nil, nil
	}
	q := `SELECT u.id, u.bytes` + pg.from
	args := []any{addr[:]}
	if after != ids.Empty {
		var (
			h, idx, oi int64
			txID       []byte
		)
		err := s.db.QueryRow(ctx, `SELECT `+pg.height+`, u.created_idx, u.tx_id, u.output_index`+pg.from+` AND a.utxo_id = ?`,
			addr[:], after[:]).Scan(&h, &idx, &txID, &oi)
		switch {
		case err == nil:
			// Descending on every key: the rows after the cursor are
			// those below it.
			q += ` AND (` + pg.height + ` < ? OR ` + pg.height + ` = ? AND (u.created_idx < ? OR u.created_idx = ? AND
				(u.tx_id < ? OR u.tx_id = ? AND u.output_index < ?)))`
			args = append(args, h, h, idx, idx, txID, txID, oi)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	q += ` ORDER BY ` + pg.height + ` DESC, u.created_idx DESC, u.tx_id DESC, u.output_index DESC LIMIT ?`
	args = append(args, limit)
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
		if u.ID, err = ids.ToID(id); err != nil {
			return err
		}
		out = append(out, &u)
		return nil
	}, args...)
	return out, err
}

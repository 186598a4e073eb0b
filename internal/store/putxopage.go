package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// PUTXOPageStore pages through one address's P-chain UTXOs as the node's
// platform.getUTXOs does.
type PUTXOPageStore interface {
	// PUTXOPageOf returns at most limit UTXOs of addr's current UTXO set
	// (as PUTXOsOf), in PUTXOsOf's order (newest first), those after the
	// UTXO after; when after is not one of them, from the first, as the
	// node's index (a linked list) starts over from its head for a start
	// it does not hold.
	PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) ([]*PUTXO, error)
}

// unspentPUTXOs joins an address's UTXOs (a) to the current UTXO set (u).
const unspentPUTXOs = ` FROM p_utxo_addresses a JOIN p_utxos u ON u.id = a.utxo_id
	WHERE a.address = ? AND u.consumed_height IS NULL AND u.staked = FALSE AND u.kind <> 'exported'`

func (s *sqlStore) PUTXOPageOf(ctx context.Context, addr ids.ShortID, after ids.ID, limit int) (_ []*PUTXO, err error) {
	defer derrors.Wrap(&err, "store.PUTXOPageOf(%s, %s, %d)", addr, after, limit)
	if limit <= 0 {
		return nil, nil
	}
	q := `SELECT u.id, u.tx_id, u.output_index, u.kind, u.bytes, u.spendable_height` + unspentPUTXOs
	args := []any{addr[:]}
	if after != ids.Empty {
		var (
			sh, idx, oi int64
			txID        []byte
		)
		err := s.db.QueryRow(ctx, `SELECT u.spendable_height, u.created_idx, u.tx_id, u.output_index`+unspentPUTXOs+` AND a.utxo_id = ?`,
			addr[:], after[:]).Scan(&sh, &idx, &txID, &oi)
		switch {
		case err == nil:
			// PUTXOsOf's order, descending on every key: the rows after
			// the cursor are those below it.
			q += ` AND (u.spendable_height < ? OR u.spendable_height = ? AND (u.created_idx < ? OR u.created_idx = ? AND
				(u.tx_id < ? OR u.tx_id = ? AND u.output_index < ?)))`
			args = append(args, sh, sh, idx, idx, txID, txID, oi)
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	q += ` ORDER BY u.spendable_height DESC, u.created_idx DESC, u.tx_id DESC, u.output_index DESC LIMIT ?`
	args = append(args, limit)
	var out []*PUTXO
	err = s.db.RunQuery(ctx, q, func(r *sql.Rows) error {
		var (
			id, txID []byte
			oi, sh   int64
			p        PUTXO
		)
		if err := r.Scan(&id, &txID, &oi, &p.Kind, &p.Bytes, &sh); err != nil {
			return err
		}
		var err error
		if p.ID, err = ids.ToID(id); err != nil {
			return err
		}
		if p.TxID, err = ids.ToID(txID); err != nil {
			return err
		}
		p.OutputIndex, p.SpendableHeight = uint32(oi), uint64(sh)
		out = append(out, &p)
		return nil
	}, args...)
	return out, err
}

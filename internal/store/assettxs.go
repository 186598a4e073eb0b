package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// AssetTxStore lists the X-chain transactions that moved an asset.
type AssetTxStore interface {
	// XAssetTxs returns up to q.Limit X-chain txs that created the asset
	// q.AssetID or consumed or emitted a UTXO of it (imports included),
	// newest first by position (block height, then index in the block;
	// DAG txs, at height 0, by X/tx index), each once.
	XAssetTxs(ctx context.Context, q AssetTxQuery) ([]*TxRecord, error)
}

// AssetTxQuery selects the txs of XAssetTxs.
type AssetTxQuery struct {
	AssetID ids.ID
	// TxTypes keeps only txs of these avm types; all when empty.
	TxTypes []string
	// Start and End keep only txs whose time (unix seconds) is within
	// [*Start, *End]; nil leaves that side open.
	Start, End *int64
	// After keeps only txs positioned strictly before it (the keyset of
	// the previous page's last tx); nil starts at the newest.
	After *TxPosition
	Limit int
}

// TxPosition is where an X-chain tx sits: its TxRecord's Height and Index.
type TxPosition struct {
	Height uint64
	Index  int64
}

func (s *sqlStore) XAssetTxs(ctx context.Context, q AssetTxQuery) (_ []*TxRecord, err error) {
	defer derrors.Wrap(&err, "store.XAssetTxs(%s)", q.AssetID)
	if q.Limit <= 0 {
		return nil, derrors.Invalid("limit must be positive, not %d", q.Limit)
	}
	a := q.AssetID[:]
	// Every tx that moved the asset, at its position: the UTXOs of the
	// asset it created (the genesis's, at index -1, belong to no stored
	// tx) or spent on the X-chain (exported ones are spent elsewhere), the
	// ones it imported, and the CreateAssetTx itself.
	moves := `SELECT created_tx_id AS tx_id, created_height AS h, created_idx AS i FROM x_utxos
			WHERE asset_id = ? AND created_idx >= 0
		UNION SELECT consumed_tx_id, consumed_height, consumed_idx FROM x_utxos
			WHERE asset_id = ? AND consumed_tx_id IS NOT NULL AND kind <> 'exported'
		UNION SELECT consumed_tx_id, consumed_height, consumed_idx FROM x_imported_utxos WHERE asset_id = ?
		UNION SELECT id, block_height, idx FROM x_txs WHERE id = ?
		UNION SELECT id, 0, idx FROM x_dag_txs WHERE id = ?`
	args := []any{a, a, a, a, a}
	query := `SELECT m.tx_id, m.h, m.i, COALESCE(t.type, d.type), COALESCE(t.bytes, c.bytes), b.id,
			COALESCE(b.timestamp, d.timestamp), d.id
		FROM (` + moves + `) m
		LEFT JOIN x_txs t ON t.id = m.tx_id
		LEFT JOIN x_blocks b ON b.height = t.block_height
		LEFT JOIN x_dag_txs d ON d.id = m.tx_id AND t.id IS NULL
		LEFT JOIN containers c ON c.index_name = ? AND c.idx = d.idx
		WHERE (t.id IS NOT NULL OR d.id IS NOT NULL)`
	args = append(args, XTxIndex)
	if len(q.TxTypes) > 0 {
		query += " AND COALESCE(t.type, d.type) IN (?" + strings.Repeat(", ?", len(q.TxTypes)-1) + ")"
		for _, t := range q.TxTypes {
			args = append(args, t)
		}
	}
	if q.Start != nil {
		query += " AND COALESCE(b.timestamp, d.timestamp) >= ?"
		args = append(args, *q.Start)
	}
	if q.End != nil {
		query += " AND COALESCE(b.timestamp, d.timestamp) <= ?"
		args = append(args, *q.End)
	}
	if q.After != nil {
		query += " AND (m.h < ? OR (m.h = ? AND m.i < ?))"
		args = append(args, u64(q.After.Height), u64(q.After.Height), q.After.Index)
	}
	query += " ORDER BY m.h DESC, m.i DESC LIMIT ?"
	args = append(args, q.Limit)
	var out []*TxRecord
	err = s.db.RunQuery(ctx, query, func(rows *sql.Rows) error {
		var (
			id, block, dag []byte
			h, i, ts       int64
			r              TxRecord
		)
		if err := rows.Scan(&id, &h, &i, &r.Type, &r.Bytes, &block, &ts, &dag); err != nil {
			return err
		}
		r.Height, r.Index, r.Timestamp, r.Bytes, r.DAG = uint64(h), int(i), fromUnixSeconds(ts), nonNil(r.Bytes), dag != nil
		if err := toIDs(map[*ids.ID][]byte{&r.ID: id, &r.BlockID: block}); err != nil {
			return fmt.Errorf("stored X-chain tx: %w", err)
		}
		out = append(out, &r)
		return nil
	}, args...)
	return out, err
}

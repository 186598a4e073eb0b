package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// XAssetStore finds what created an X-chain asset.
type XAssetStore interface {
	// XAssetCreation returns the signed bytes of the CreateAssetTx whose id
	// is assetID, from the X-chain's blocks or its DAG txs;
	// derrors.NotFound when no such tx is stored (the genesis assets are
	// in no tx: see xchain.Genesis).
	XAssetCreation(ctx context.Context, assetID ids.ID) ([]byte, error)
}

func (s *sqlStore) XAssetCreation(ctx context.Context, assetID ids.ID) (_ []byte, err error) {
	defer derrors.Wrap(&err, "store.XAssetCreation(%s)", assetID)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"SELECT bytes FROM x_txs WHERE id = ? AND type = 'CreateAssetTx'", []any{assetID[:]}},
		{`SELECT c.bytes FROM x_dag_txs d JOIN containers c ON c.index_name = ? AND c.idx = d.idx
			WHERE d.id = ? AND d.type = 'CreateAssetTx'`, []any{XTxIndex, assetID[:]}},
	} {
		var b []byte
		err := s.db.QueryRow(ctx, q.sql, q.args...).Scan(&b)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return nil, err
		}
		return nonNil(b), nil
	}
	return nil, derrors.NotFound
}

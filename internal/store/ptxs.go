package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
)

// PTxStore reads P-chain transactions by id.
type PTxStore interface {
	// PTxByID returns the stored P-chain transaction id.
	PTxByID(ctx context.Context, id ids.ID) (*internal.PTx, error)
}

func (s *sqlStore) PTxByID(ctx context.Context, id ids.ID) (_ *internal.PTx, err error) {
	defer derrors.Wrap(&err, "store.PTxByID(%s)", id)
	var (
		raw []byte
		tx  = internal.PTx{ID: id}
	)
	err = s.db.QueryRow(ctx, "SELECT type, bytes FROM p_txs WHERE id = ?", id[:]).Scan(&tx.Type, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no P-chain tx %s: %w", id, derrors.NotFound)
	}
	if err != nil {
		return nil, err
	}
	tx.Bytes = nonNil(raw)
	return &tx, nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// SettingStore keeps small service state, such as the page-token key, that
// must survive restarts and be shared by every avaindex process using the
// same database.
type SettingStore interface {
	Setting(ctx context.Context, key string) (value []byte, ok bool, err error)
	PutSettingIfAbsent(ctx context.Context, key string, value []byte) error
}

// NetworkSetting is the setting under which the service keeps the indexed
// network (internal.Network as JSON); the L1 fee and reward replays, which
// need the network's id, AVAX and reward configuration, read it with
// storedNetwork.
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

func (s *sqlStore) Setting(ctx context.Context, key string) (_ []byte, _ bool, err error) {
	defer derrors.Wrap(&err, "store.Setting(%q)", key)
	var v []byte
	err = s.db.QueryRow(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return nonNil(v), true, nil
}

func (s *sqlStore) PutSettingIfAbsent(ctx context.Context, key string, value []byte) (err error) {
	defer derrors.Wrap(&err, "store.PutSettingIfAbsent(%q)", key)
	_, err = s.db.Exec(ctx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, nonNil(value))
	return err
}

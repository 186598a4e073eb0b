package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

var teleporterColumns = []string{"chain_id", "tx_hash", "log_index", "block_number", "direction", "message_id",
	"source_id", "destination_id"}

func applyTeleporter(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var rows [][]any
	for _, b := range blocks {
		for _, m := range b.Teleporter {
			rows = append(rows, []any{cid, m.TxHash[:], int64(m.LogIndex), int64(b.Number), string(m.Direction),
				m.MessageID[:], m.SourceBlockchainID[:], m.DestinationBlockchainID[:]})
		}
	}
	return tx.Append(ctx, "evm_teleporter_messages", teleporterColumns, rows, onConflictDoNothing)
}

// txTeleporter returns the tx's first Teleporter message, nil for none.
func txTeleporter(ctx context.Context, db *database.DB, cid int64, hash common.Hash) (*internal.TeleporterMessage, error) {
	var (
		m                   = internal.TeleporterMessage{TxHash: hash}
		logIndex, number    int64
		direction           string
		msgID, source, dest []byte
	)
	err := db.QueryRow(ctx, `SELECT log_index, block_number, direction, message_id, source_id, destination_id
		FROM evm_teleporter_messages WHERE chain_id = ? AND tx_hash = ? ORDER BY log_index LIMIT 1`, cid, hash[:]).Scan(
		&logIndex, &number, &direction, &msgID, &source, &dest)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.LogIndex, m.BlockNumber, m.Direction, m.MessageID = uint32(logIndex), uint64(number), internal.TeleporterDirection(direction), common.BytesToHash(msgID)
	if m.SourceBlockchainID, err = ids.ToID(source); err != nil {
		return nil, err
	}
	if m.DestinationBlockchainID, err = ids.ToID(dest); err != nil {
		return nil, err
	}
	return &m, nil
}

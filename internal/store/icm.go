package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
)

// ICMStore reads ICM messages joined across their two chains.
type ICMStore interface {
	// ICMMessage is the message id, nil when neither its send nor a
	// delivery is indexed.
	ICMMessage(ctx context.Context, id common.Hash) (*internal.ICMMessage, error)
	// ICMMessages is a page of the messages f selects, newest first.
	ICMMessages(ctx context.Context, f internal.ICMFilter, after *internal.ICMCursor, limit int) ([]*internal.ICMMessage, error)
	// ICMHourlySends counts the sends by hour (the ICM metrics).
	ICMHourlySends(ctx context.Context, src, dest *ids.ID, from, to int64) ([]ICMHourCount, error)
}

// ICMBackfillStore is what the EVM indexer calls to give the blocks
// stored before migration 0031 their ICM events.
type ICMBackfillStore interface {
	ICMBackfill(ctx context.Context, chainID uint64) (upTo uint64, ok bool, err error)
	EVMStoredLogs(ctx context.Context, chainID uint64, address common.Address, from, to uint64) ([]StoredLog, error)
	ApplyICMBackfill(ctx context.Context, chainID uint64, events []internal.ICMEvent, done bool) error
}

var icmColumns = []string{"chain_id", "block_number", "log_index", "block_time", "tx_hash", "kind", "messenger", "message_id",
	"source_id", "destination_id", "nonce", "sender", "recipient", "required_gas", "data", "receipts",
	"fee_token", "fee_amount", "deliverer", "reward_redeemer"}

// applyICM writes the batch's TeleporterMessenger events.
func applyICM(ctx context.Context, tx *database.DB, cid int64, blocks []*internal.EVMBlockData) error {
	var events []internal.ICMEvent
	for _, b := range blocks {
		for _, e := range b.ICM {
			e.BlockTime = uint64(b.Timestamp.Unix())
			events = append(events, e)
		}
	}
	return insertICM(ctx, tx, cid, events)
}

// insertICM writes events (each names its block), keeping rows already
// there.
func insertICM(ctx context.Context, tx *database.DB, cid int64, events []internal.ICMEvent) error {
	var rows [][]any
	for i := range events {
		e := &events[i]
		var (
			nonce, sender, recipient, gas, data, receipts any
			feeToken, feeAmount, deliverer, redeemer      any
		)
		switch e.Kind {
		case internal.ICMSend, internal.ICMReceive, internal.ICMExecutionFailed:
			nonce, sender, recipient, gas, data = bigBytes(e.Nonce), e.From[:], e.To[:], bigBytes(e.RequiredGasLimit), nonNil(e.Data)
			r := e.Receipts
			if r == nil {
				r = []internal.ICMReceiptInfo{}
			}
			j, err := json.Marshal(r)
			if err != nil {
				return err
			}
			receipts = string(j)
		}
		switch e.Kind {
		case internal.ICMSend, internal.ICMReceipt, internal.ICMAddFee:
			feeToken, feeAmount = e.FeeToken[:], bigBytes(e.FeeAmount)
		}
		switch e.Kind {
		case internal.ICMReceive:
			deliverer, redeemer = e.Deliverer[:], e.RewardRedeemer[:]
		case internal.ICMReceipt:
			redeemer = e.RelayerRewardAddress[:]
		}
		rows = append(rows, []any{cid, int64(e.BlockNumber), int64(e.LogIndex), clampInt64(e.BlockTime), e.TxHash[:], string(e.Kind), e.Messenger[:],
			e.MessageID[:], e.SourceBlockchainID[:], e.DestinationBlockchainID[:], nonce, sender, recipient, gas, data,
			receipts, feeToken, feeAmount, deliverer, redeemer})
	}
	return tx.Append(ctx, "evm_icm_events", icmColumns, rows, onConflictDoNothing)
}

// ICMMessage returns the message id as its indexed events show it, nil
// when no send or delivery of it is indexed.
func (s *sqlStore) ICMMessage(ctx context.Context, id common.Hash) (*internal.ICMMessage, error) {
	rows, err := s.db.Query(ctx, `SELECT e.chain_id, e.tx_hash, e.kind, e.messenger, e.source_id, e.destination_id,
			e.nonce, e.sender, e.recipient, e.required_gas, e.data, e.receipts, e.fee_token, e.fee_amount,
			e.deliverer, e.reward_redeemer, b.timestamp, t.gas_used
		FROM evm_icm_events e
		JOIN evm_blocks b ON b.chain_id = e.chain_id AND b.number = e.block_number
		JOIN evm_txs t ON t.chain_id = e.chain_id AND t.hash = e.tx_hash
		WHERE e.message_id = ? ORDER BY e.chain_id, e.block_number, e.log_index`, id[:])
	if err != nil {
		return nil, fmt.Errorf("store: ICM message %s: %w", id, err)
	}
	defer rows.Close()
	m := &internal.ICMMessage{MessageID: id}
	var haveMessage, found bool
	addFee := new(big.Int)
	for rows.Next() {
		var (
			chainID, ts, gasUsed                          int64
			txHash, messenger, source, dest               []byte
			kind                                          string
			nonce, sender, recipient, gas, data, feeToken []byte
			feeAmount, deliverer, redeemer                []byte
			receipts                                      sql.NullString
		)
		if err := rows.Scan(&chainID, &txHash, &kind, &messenger, &source, &dest, &nonce, &sender, &recipient, &gas, &data,
			&receipts, &feeToken, &feeAmount, &deliverer, &redeemer, &ts, &gasUsed); err != nil {
			return nil, err
		}
		end := &internal.ICMTxEnd{ChainID: uint64(chainID), TxHash: common.BytesToHash(txHash), Timestamp: uint64(ts), GasUsed: uint64(gasUsed)}
		setMessage := func() error {
			if haveMessage {
				return nil
			}
			haveMessage = true
			m.Messenger = common.BytesToAddress(messenger)
			copy(m.SourceBlockchainID[:], source)
			copy(m.DestinationBlockchainID[:], dest)
			m.Nonce, m.From, m.To, m.RequiredGasLimit, m.Data = bigFrom(nonce), common.BytesToAddress(sender),
				common.BytesToAddress(recipient), bigFrom(gas), data
			if receipts.Valid {
				if err := json.Unmarshal([]byte(receipts.String), &m.Receipts); err != nil {
					return fmt.Errorf("store: ICM message %s's receipts: %w", id, err)
				}
			}
			return nil
		}
		switch internal.ICMEventKind(kind) {
		case internal.ICMSend:
			found = true
			haveMessage = false // the send's copy of the message wins
			if err := setMessage(); err != nil {
				return nil, err
			}
			m.Source = end
			m.FeeToken, m.FeeAmount = common.BytesToAddress(feeToken), bigFrom(feeAmount)
		case internal.ICMReceive:
			found = true
			if err := setMessage(); err != nil {
				return nil, err
			}
			end.Deliverer, end.RewardRedeemer = common.BytesToAddress(deliverer), common.BytesToAddress(redeemer)
			m.Destination = end
		case internal.ICMExecuted:
			m.Executed = true
		case internal.ICMReceipt:
			m.ReceiptDelivered = true
		case internal.ICMAddFee:
			addFee.Add(addFee, bigFrom(feeAmount))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	if m.Source != nil {
		m.FeeAmount.Add(m.FeeAmount, addFee)
	}
	if m.Receipts == nil {
		m.Receipts = []internal.ICMReceiptInfo{}
	}
	return m, nil
}

// ICMMessages returns up to limit messages that f selects, newest first
// (by the block time of their first indexed send or delivery), after the
// message at cursor.
func (s *sqlStore) ICMMessages(ctx context.Context, f internal.ICMFilter, cursor *internal.ICMCursor, limit int) (msgs []*internal.ICMMessage, err error) {
	var (
		where = []string{"e.kind IN ('send', 'receive')"}
		args  []any
	)
	if f.SourceBlockchainID != nil {
		where, args = append(where, "e.source_id = ?"), append(args, f.SourceBlockchainID[:])
	}
	if f.DestinationBlockchainID != nil {
		where, args = append(where, "e.destination_id = ?"), append(args, f.DestinationBlockchainID[:])
	}
	if f.BlockchainID != nil {
		where, args = append(where, "(e.source_id = ? OR e.destination_id = ?)"), append(args, f.BlockchainID[:], f.BlockchainID[:])
	}
	if f.From != nil {
		where, args = append(where, "e.sender = ?"), append(args, f.From[:])
	}
	if f.To != nil {
		where, args = append(where, "e.recipient = ?"), append(args, f.To[:])
	}
	if f.Address != nil {
		where, args = append(where, "(e.sender = ? OR e.recipient = ?)"), append(args, f.Address[:], f.Address[:])
	}
	if cursor != nil {
		where = append(where, "(e.block_time < ? OR (e.block_time = ? AND e.message_id < ?))")
		args = append(args, clampInt64(cursor.Time), clampInt64(cursor.Time), cursor.ID[:])
	}
	args = append(args, limit)
	// A message is listed at its first indexed send or delivery: the event
	// with no earlier one of the same message (the filters select on what
	// both carry). Walking the events from the newest finds a page without
	// grouping every message.
	rows, err := s.db.Query(ctx, `SELECT e.message_id, e.block_time FROM evm_icm_events e
		WHERE `+strings.Join(where, " AND ")+`
		AND NOT EXISTS (SELECT 1 FROM evm_icm_events o WHERE o.message_id = e.message_id AND o.kind IN ('send', 'receive')
			AND (o.block_time < e.block_time OR (o.block_time = e.block_time AND (o.chain_id < e.chain_id
				OR (o.chain_id = e.chain_id AND (o.block_number < e.block_number
					OR (o.block_number = e.block_number AND o.log_index < e.log_index)))))))
		ORDER BY e.block_time DESC, e.message_id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: ICM messages: %w", err)
	}
	var page []internal.ICMCursor
	for rows.Next() {
		var (
			id []byte
			t  int64
		)
		if err := rows.Scan(&id, &t); err != nil {
			rows.Close()
			return nil, err
		}
		page = append(page, internal.ICMCursor{Time: uint64(t), ID: common.BytesToHash(id)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range page {
		m, err := s.ICMMessage(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		if m == nil {
			return nil, errors.New("store: an ICM message vanished between two reads")
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// ICMHourCount is how many messages were sent from Source to Destination
// in the hour starting at Hour (unix seconds), by the sends' block times.
type ICMHourCount struct {
	Hour                int64
	Source, Destination ids.ID
	Count               int64
}

// ICMHourlySends counts the indexed sends by hour over [from, to], of the
// source and destination chains given (nil: any).
func (s *sqlStore) ICMHourlySends(ctx context.Context, src, dest *ids.ID, from, to int64) ([]ICMHourCount, error) {
	where, args := "e.kind = 'send' AND b.timestamp >= ? AND b.timestamp <= ?", []any{from, to}
	if src != nil {
		where, args = where+" AND e.source_id = ?", append(args, src[:])
	}
	if dest != nil {
		where, args = where+" AND e.destination_id = ?", append(args, dest[:])
	}
	rows, err := s.db.Query(ctx, `SELECT (b.timestamp / 3600) * 3600 AS h, e.source_id, e.destination_id, COUNT(*)
		FROM evm_icm_events e JOIN evm_blocks b ON b.chain_id = e.chain_id AND b.number = e.block_number
		WHERE `+where+` GROUP BY h, e.source_id, e.destination_id ORDER BY h`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: ICM sends by hour: %w", err)
	}
	defer rows.Close()
	var out []ICMHourCount
	for rows.Next() {
		var (
			c         ICMHourCount
			src, dest []byte
		)
		if err := rows.Scan(&c.Hour, &src, &dest, &c.Count); err != nil {
			return nil, err
		}
		copy(c.Source[:], src)
		copy(c.Destination[:], dest)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ICMBackfill returns the last block of the chain whose messenger logs
// were stored before migration 0031 and are not decoded into ICM events
// yet; ok is false when there are none.
func (s *sqlStore) ICMBackfill(ctx context.Context, chainID uint64) (upTo uint64, ok bool, err error) {
	var v int64
	err = s.db.QueryRow(ctx, "SELECT up_to FROM evm_icm_backfill WHERE chain_id = ?", clampInt64(chainID)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: ICM backfill of chain %d: %w", chainID, err)
	}
	return uint64(v), true, nil
}

// StoredLog is a stored EVM log with its block and tx.
type StoredLog struct {
	BlockNumber uint64
	BlockTime   uint64
	TxHash      common.Hash
	Log         internal.EVMLog
}

// EVMStoredLogs returns the stored logs of address on the chain in blocks
// from..to, in block and log order.
func (s *sqlStore) EVMStoredLogs(ctx context.Context, chainID uint64, address common.Address, from, to uint64) ([]StoredLog, error) {
	rows, err := s.db.Query(ctx, `SELECT l.block_number, b.timestamp, l.log_index, l.tx_index, l.topics, l.data, t.hash
		FROM evm_logs l JOIN evm_txs t ON t.chain_id = l.chain_id AND t.block_number = l.block_number AND t.idx = l.tx_index
		JOIN evm_blocks b ON b.chain_id = l.chain_id AND b.number = l.block_number
		WHERE l.chain_id = ? AND l.address = ? AND l.block_number >= ? AND l.block_number <= ?
		ORDER BY l.block_number, l.log_index`, clampInt64(chainID), address[:], clampInt64(from), clampInt64(to))
	if err != nil {
		return nil, fmt.Errorf("store: stored logs of %s on chain %d: %w", address, chainID, err)
	}
	defer rows.Close()
	var out []StoredLog
	for rows.Next() {
		var (
			number, ts, index, txIndex int64
			topics, data, hash         []byte
		)
		if err := rows.Scan(&number, &ts, &index, &txIndex, &topics, &data, &hash); err != nil {
			return nil, err
		}
		l := StoredLog{BlockNumber: uint64(number), BlockTime: uint64(ts), TxHash: common.BytesToHash(hash),
			Log: internal.EVMLog{TxIndex: uint32(txIndex), Index: uint32(index), Address: address, Data: data}}
		for i := 0; i+32 <= len(topics); i += 32 {
			l.Log.Topics = append(l.Log.Topics, common.BytesToHash(topics[i:i+32]))
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ApplyICMBackfill writes ICM events decoded from stored logs and, when
// done, ends the chain's backfill, in one transaction.
func (s *sqlStore) ApplyICMBackfill(ctx context.Context, chainID uint64, events []internal.ICMEvent, done bool) error {
	return s.db.Transact(ctx, func(tx *database.DB) error {
		if err := insertICM(ctx, tx, clampInt64(chainID), events); err != nil {
			return fmt.Errorf("store: ICM backfill of chain %d: %w", chainID, err)
		}
		if done {
			if _, err := tx.Exec(ctx, "DELETE FROM evm_icm_backfill WHERE chain_id = ?", clampInt64(chainID)); err != nil {
				return fmt.Errorf("store: ending the ICM backfill of chain %d: %w", chainID, err)
			}
		}
		return nil
	})
}

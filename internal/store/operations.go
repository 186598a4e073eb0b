package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/database"
	"github.com/avaindex/avaindex/internal/derrors"
)

// The operations (migration 0040): transaction exports run by
// internal/exports, their position and their CSV file in chunks.

// Operation types (the reference's OperationType).
const (
	OpExportEVM                   = "TRANSACTION_EXPORT_EVM"
	OpExportPrimaryNetwork        = "TRANSACTION_EXPORT_PRIMARY_NETWORK"
	OpExportPrimaryNetworkStaking = "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"
	OpExportPrimaryNetworkSimple  = "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE"
)

// Operation statuses (the reference's OperationStatus).
const (
	OpRunning              = "RUNNING"
	OpCompleted            = "COMPLETED"
	OpCompletedWithWarning = "COMPLETED_WITH_WARNING"
	OpFailed               = "FAILED"
)

// ExportJob is a validated transaction export request: what the worker
// exports.
type ExportJob struct {
	// First and Last are the range's days (UTC), inclusive.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// EVMChains and EVMAddresses, for TRANSACTION_EXPORT_EVM.
	EVMChains    []uint64 `json:"evmChains,omitempty"`
	EVMAddresses []string `json:"evmAddresses,omitempty"` // lowercase 0x hex
	// Chains and Addresses, for the primary-network exports: on the
	// C-chain, Addresses are the atomic txs' owners, with the
	// cChainEvmAddresses' 20 bytes among them.
	Chains    []internal.Chain `json:"chains,omitempty"`
	Addresses []ids.ShortID    `json:"addresses,omitempty"`
	// TxTypes keeps only those types (the staking export); all when empty.
	TxTypes []string `json:"txTypes,omitempty"`
}

// Operation is an operation as the store keeps it.
type Operation struct {
	ID, Owner, Type, Status string
	Job                     ExportJob
	// Code, Message and NextDate are the result's (OperationStatusCode,
	// the message, the next firstDate of a truncated export).
	Code, Message, NextDate string
	// Cursor is the worker's position, opaque to the store; nil at the
	// start.
	Cursor []byte
	// Rows and Bytes are what the CSV holds so far, in Chunks chunks.
	Rows, Bytes      int64
	Chunks           int
	Created, Updated time.Time
	// Claim is the lease's token when the worker claimed it.
	Claim string
}

// OperationChunk is one chunk of an export's file and the position after
// it.
type OperationChunk struct {
	Data   []byte
	Cursor []byte
	// Rows is how many rows Data holds.
	Rows int64
}

// ErrOperationClaimLost is returned by a job's writes when its claim
// lapsed and another worker may run it.
var ErrOperationClaimLost = errors.New("the operation's claim lapsed")

// OperationStore keeps the operations and their files.
type OperationStore interface {
	// CreateOperation adds op, RUNNING.
	CreateOperation(ctx context.Context, op Operation) error
	// Operation returns the operation id of owner, or of any owner when
	// owner is ""; NotFound else.
	Operation(ctx context.Context, owner, id string) (*Operation, error)
	// ClaimOperation leases for lease the oldest RUNNING operation no one
	// holds; ok false when there is none.
	ClaimOperation(ctx context.Context, now time.Time, lease time.Duration, claim string) (_ *Operation, ok bool, err error)
	// RenewOperationClaim extends the lease; ErrOperationClaimLost when
	// it lapsed.
	RenewOperationClaim(ctx context.Context, id, claim string, until time.Time) error
	// AppendOperationChunk adds the next chunk of the file and moves the
	// position, in one transaction; ErrOperationClaimLost when the claim
	// lapsed.
	AppendOperationChunk(ctx context.Context, id, claim string, c OperationChunk) error
	// FinishOperation sets the final status and releases the claim.
	FinishOperation(ctx context.Context, id, claim, status, code, message, nextDate string) error
	// ReleaseOperationClaim ends the lease of a job left RUNNING.
	ReleaseOperationClaim(ctx context.Context, id, claim string) error
	// OperationFile calls fn with each chunk of the file, in order.
	OperationFile(ctx context.Context, id string, fn func(data []byte) error) error
	// RunningOperations is how many operations are RUNNING.
	RunningOperations(ctx context.Context) (int64, error)
	// DeleteOperations deletes the finished operations last updated
	// before t, with their files, and returns how many.
	DeleteOperations(ctx context.Context, before time.Time) (int64, error)
}

const operationColumns = `id, owner, op_type, status, job, code, message, next_date, cursor,
	rows_written, bytes_written, chunks, created_at, updated_at, claim`

func scanOperation(sc scanner) (*Operation, error) {
	var (
		o                Operation
		job, cursor      string
		created, updated int64
	)
	if err := sc.Scan(&o.ID, &o.Owner, &o.Type, &o.Status, &job, &o.Code, &o.Message, &o.NextDate, &cursor,
		&o.Rows, &o.Bytes, &o.Chunks, &created, &updated, &o.Claim); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(job), &o.Job); err != nil {
		return nil, err
	}
	if cursor != "" {
		o.Cursor = []byte(cursor)
	}
	o.Created, o.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return &o, nil
}

func (s *sqlStore) CreateOperation(ctx context.Context, op Operation) (err error) {
	defer derrors.Wrap(&err, "store.CreateOperation")
	job, err := json.Marshal(op.Job)
	if err != nil {
		return err
	}
	ms := op.Created.UnixMilli()
	_, err = s.db.Exec(ctx, `INSERT INTO operations (id, owner, op_type, status, job, code, message, next_date, cursor,
		rows_written, bytes_written, chunks, created_at, updated_at, claim, claimed_until)
		VALUES (?, ?, ?, ?, ?, '', '', '', '', 0, 0, 0, ?, ?, '', 0)`,
		op.ID, op.Owner, op.Type, OpRunning, string(job), ms, ms)
	return err
}

func (s *sqlStore) Operation(ctx context.Context, owner, id string) (_ *Operation, err error) {
	defer derrors.Wrap(&err, "store.Operation(%q)", id)
	q, args := "SELECT "+operationColumns+" FROM operations WHERE id = ?", []any{id}
	if owner != "" {
		q, args = q+" AND owner = ?", append(args, owner)
	}
	o, err := scanOperation(s.db.QueryRow(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, derrors.Missing("operation %s not found", derrors.Echo(id))
	}
	return o, err
}

func (s *sqlStore) ClaimOperation(ctx context.Context, now time.Time, lease time.Duration, claim string) (_ *Operation, ok bool, err error) {
	defer derrors.Wrap(&err, "store.ClaimOperation")
	ms := now.UnixMilli()
	// The WHERE is checked again on the row the UPDATE locks (PostgreSQL's
	// READ COMMITTED), so two instances never both claim one job.
	var id string
	err = s.db.QueryRow(ctx, `UPDATE operations SET claim = ?, claimed_until = ?
		WHERE status = 'RUNNING' AND claimed_until <= ? AND id = (
			SELECT o.id FROM operations o WHERE o.status = 'RUNNING' AND o.claimed_until <= ?
			ORDER BY o.created_at, o.id LIMIT 1)
		RETURNING id`, claim, ms+lease.Milliseconds(), ms, ms).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	o, err := scanOperation(s.db.QueryRow(ctx, "SELECT "+operationColumns+" FROM operations WHERE id = ?", id))
	if err != nil {
		return nil, false, err
	}
	return o, true, nil
}

func (s *sqlStore) RenewOperationClaim(ctx context.Context, id, claim string, until time.Time) (err error) {
	defer derrors.Wrap(&err, "store.RenewOperationClaim(%q)", id)
	n, err := s.db.Exec(ctx, "UPDATE operations SET claimed_until = ? WHERE id = ? AND claim = ? AND claimed_until > ? AND status = 'RUNNING'",
		until.UnixMilli(), id, claim, time.Now().UnixMilli())
	if err == nil && n == 0 {
		err = ErrOperationClaimLost
	}
	return err
}

func (s *sqlStore) AppendOperationChunk(ctx context.Context, id, claim string, c OperationChunk) (err error) {
	defer derrors.Wrap(&err, "store.AppendOperationChunk(%q)", id)
	return s.db.Transact(ctx, func(tx *database.DB) error {
		var seq int
		err := tx.QueryRow(ctx, "SELECT chunks FROM operations WHERE id = ? AND claim = ? AND status = 'RUNNING'", id, claim).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrOperationClaimLost
		}
		if err != nil {
			return err
		}
		if len(c.Data) > 0 {
			if _, err := tx.Exec(ctx, "INSERT INTO operation_chunks (operation_id, seq, data) VALUES (?, ?, ?)", id, seq, string(c.Data)); err != nil {
				return err
			}
			seq++
		}
		n, err := tx.Exec(ctx, `UPDATE operations SET cursor = ?, rows_written = rows_written + ?, bytes_written = bytes_written + ?,
			chunks = ?, updated_at = ? WHERE id = ? AND claim = ?`,
			string(c.Cursor), c.Rows, int64(len(c.Data)), seq, time.Now().UnixMilli(), id, claim)
		if err == nil && n == 0 {
			err = ErrOperationClaimLost
		}
		return err
	})
}

func (s *sqlStore) FinishOperation(ctx context.Context, id, claim, status, code, message, nextDate string) (err error) {
	defer derrors.Wrap(&err, "store.FinishOperation(%q, %s)", id, status)
	n, err := s.db.Exec(ctx, `UPDATE operations SET status = ?, code = ?, message = ?, next_date = ?, updated_at = ?,
		claim = '', claimed_until = 0 WHERE id = ? AND claim = ? AND status = 'RUNNING'`,
		status, code, message, nextDate, time.Now().UnixMilli(), id, claim)
	if err == nil && n == 0 {
		err = ErrOperationClaimLost
	}
	return err
}

func (s *sqlStore) ReleaseOperationClaim(ctx context.Context, id, claim string) (err error) {
	defer derrors.Wrap(&err, "store.ReleaseOperationClaim(%q)", id)
	_, err = s.db.Exec(ctx, "UPDATE operations SET claim = '', claimed_until = 0 WHERE id = ? AND claim = ?", id, claim)
	return err
}

func (s *sqlStore) OperationFile(ctx context.Context, id string, fn func(data []byte) error) (err error) {
	defer derrors.Wrap(&err, "store.OperationFile(%q)", id)
	// Chunk by chunk, so that a large file is never held whole.
	for seq := 0; ; seq++ {
		var data string
		err := s.db.QueryRow(ctx, "SELECT data FROM operation_chunks WHERE operation_id = ? AND seq = ?", id, seq).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn([]byte(data)); err != nil {
			return err
		}
	}
}

func (s *sqlStore) RunningOperations(ctx context.Context) (n int64, err error) {
	defer derrors.Wrap(&err, "store.RunningOperations")
	err = s.db.QueryRow(ctx, "SELECT COUNT(*) FROM operations WHERE status = 'RUNNING'").Scan(&n)
	return n, err
}

func (s *sqlStore) DeleteOperations(ctx context.Context, before time.Time) (n int64, err error) {
	defer derrors.Wrap(&err, "store.DeleteOperations")
	err = s.db.Transact(ctx, func(tx *database.DB) error {
		ms := before.UnixMilli()
		if _, err := tx.Exec(ctx, `DELETE FROM operation_chunks WHERE operation_id IN (
			SELECT id FROM operations WHERE status <> 'RUNNING' AND updated_at < ?)`, ms); err != nil {
			return err
		}
		n, err = tx.Exec(ctx, "DELETE FROM operations WHERE status <> 'RUNNING' AND updated_at < ?", ms)
		return err
	})
	return n, err
}

// Package exports runs the Data API's transaction export operations
// (postTransactionExportJob): each job writes, from the store's address
// indexes, a CSV file of an address's transactions over a date range,
// kept in the store in chunks so that any instance serves its download.
//
// A worker leases one RUNNING job at a time in the store (several
// instances on one PostgreSQL store share the jobs, never running one
// from two at once) and writes the file chunk by chunk: each chunk is
// written in the transaction that moves the job's position, so a job cut
// short (a stop, a crash, a lease lost) resumes after its last chunk, on
// whichever instance claims it next. There is no HTTP here.
package exports

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/instrument"
	"github.com/avaindex/avaindex/internal/progress"
	"github.com/avaindex/avaindex/internal/store"
)

// Store is what the worker needs of the store: the jobs and the address
// indexes they read.
type Store interface {
	ClaimOperation(ctx context.Context, now time.Time, lease time.Duration, claim string) (*store.Operation, bool, error)
	RenewOperationClaim(ctx context.Context, id, claim string, until time.Time) error
	AppendOperationChunk(ctx context.Context, id, claim string, c store.OperationChunk) error
	FinishOperation(ctx context.Context, id, claim, status, code, message, nextDate string) error
	ReleaseOperationClaim(ctx context.Context, id, claim string) error
	RunningOperations(ctx context.Context) (int64, error)
	DeleteOperations(ctx context.Context, before time.Time) (int64, error)

	// The EVM address index (listTransactions) and the primary network's
	// (listLatestPrimaryNetworkTransactions).
	EVMAddressTxs(ctx context.Context, chainID uint64, addr common.Address, native bool, r store.BlockRange, asc bool, after *store.EVMTxKey, limit int) ([]internal.EVMTx, error)
	AddressTxs(ctx context.Context, q store.AddressTxQuery) ([]*store.AddressTx, error)
}

// QueueName is the running jobs in the progress status (/readyz).
const QueueName = "exports"

// Status codes of a finished job (the reference's OperationStatusCode).
const (
	CodeInvalidRequest = "ErrInvalidRequest"
	CodeInternal       = "ErrInternal"
	CodeTruncated      = "WarnTruncatedExport"
)

// Config is how jobs run; zero fields take the defaults.
type Config struct {
	// MaxRows bounds one export's rows: past it the job completes with
	// WarnTruncatedExport and the next day to start from.
	MaxRows int64
	// ChunkRows is how many rows one chunk (one transaction) holds.
	ChunkRows int
	// PollInterval is how often an idle worker looks for a job.
	PollInterval time.Duration
	// Lease is how long a claimed job is the worker's without a renewal:
	// a job whose instance died waits at most this long.
	Lease time.Duration
	// Retention is how long a finished job and its file are kept; 0
	// keeps them forever.
	Retention time.Duration
	// ChainIDs are the primary-network chains' blockchain ids (cb58), for
	// the blockchainId column.
	ChainIDs map[internal.Chain]string
}

// Defaults fills the zero fields.
func (c *Config) Defaults() {
	if c.MaxRows <= 0 {
		c.MaxRows = 1_000_000
	}
	if c.ChunkRows <= 0 {
		c.ChunkRows = 1000
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
}

// EVMColumns are the columns of an EVM export's CSV, one row per
// transaction of one of the addresses (a transaction of two of them is in
// the file twice, once under each).
var EVMColumns = []string{"chainId", "address", "blockNumber", "blockTimestamp", "blockHash", "txHash", "txIndex",
	"txStatus", "txType", "from", "to", "value", "gasLimit", "gasUsed", "gasPrice", "nonce", "contractAddress"}

// PrimaryNetworkColumns are the columns of a primary-network export's
// CSV, one row per transaction of the addresses on each chain, in the
// order of the request's chains.
var PrimaryNetworkColumns = []string{"blockchainId", "chainName", "txHash", "txType", "blockNumber", "blockHash", "blockTimestamp"}

// ChainNames are the chainName column's values.
var ChainNames = map[internal.Chain]string{internal.PChain: "p-chain", internal.XChain: "x-chain", internal.CChain: "c-chain"}

// Worker runs the export jobs.
type Worker struct {
	st    Store
	cfg   Config
	log   *slog.Logger
	queue progress.Queues
}

var (
	jobsDone = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "avaindex_export_jobs_total",
		Help: "Transaction export jobs finished, by status.",
	}, []string{"status"})
	rowsWritten = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "avaindex_export_rows_total",
		Help: "Rows written to transaction export files.",
	})
)

func init() {
	instrument.Registerer().MustRegister(jobsDone, rowsWritten)
}

// NewWorker returns a worker over st.
func NewWorker(st Store, cfg Config, log *slog.Logger) *Worker {
	cfg.Defaults()
	return &Worker{st: st, cfg: cfg, log: log}
}

// Report adds the running jobs, as last counted (progress.Reporter).
func (w *Worker) Report(s *progress.Status) { w.queue.Report(s) }

// Run runs jobs until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	var pruned time.Time
	for ctx.Err() == nil {
		if n, err := w.st.RunningOperations(ctx); err == nil {
			w.queue.Set(QueueName, n)
		}
		if w.cfg.Retention > 0 && time.Since(pruned) > time.Hour {
			if n, err := w.st.DeleteOperations(ctx, time.Now().Add(-w.cfg.Retention)); err != nil {
				w.log.Warn("exports: pruning finished jobs failed", "err", err)
			} else {
				pruned = time.Now()
				if n > 0 {
					w.log.Info("exports: pruned finished jobs", "jobs", n)
				}
			}
		}
		claimed, err := w.Once(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.Warn("exports: running a job failed", "err", err)
		}
		if !claimed || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(w.cfg.PollInterval):
			}
		}
	}
	return ctx.Err()
}

func newClaim() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Once claims one RUNNING job and runs it to its end, or until ctx ends
// (the job is then left RUNNING, at its last chunk, for the next claim);
// claimed tells whether there was one.
func (w *Worker) Once(ctx context.Context) (claimed bool, err error) {
	op, ok, err := w.st.ClaimOperation(ctx, time.Now(), w.cfg.Lease, newClaim())
	if err != nil || !ok {
		return false, err
	}
	// The claim's last writes outlive a stop.
	wctx := context.WithoutCancel(ctx)
	j := &job{w: w, op: op, until: time.Now().Add(w.cfg.Lease)}
	if len(op.Cursor) > 0 {
		if err := json.Unmarshal(op.Cursor, &j.pos); err != nil {
			return true, w.finish(wctx, op, store.OpFailed, CodeInternal, "the job's stored position is unreadable", "")
		}
	}
	status, code, msg, next, err := j.run(ctx)
	switch {
	case errors.Is(err, store.ErrOperationClaimLost):
		return true, err
	case err != nil && ctx.Err() != nil:
		// Stopped: resumed by the next claim, here or elsewhere.
		return true, w.st.ReleaseOperationClaim(wctx, op.ID, op.Claim)
	case err != nil:
		w.log.Error("exports: job failed", "operation", op.ID, "err", err)
		return true, w.finish(wctx, op, store.OpFailed, CodeInternal, "the export failed; create it again", "")
	}
	return true, w.finish(wctx, op, status, code, msg, next)
}

func (w *Worker) finish(ctx context.Context, op *store.Operation, status, code, msg, next string) error {
	jobsDone.WithLabelValues(status).Inc()
	return w.st.FinishOperation(ctx, op.ID, op.Claim, status, code, msg, next)
}

// position is a job's place in its export: its part (a chain and, for
// the EVM, an address), and the last transaction written of it.
type position struct {
	Part int `json:"part"`
	// Header is true once the header row is written.
	Header bool `json:"header"`
	// EVM is the last EVM tx of the part; nil at its start.
	EVM *store.EVMTxKey `json:"evm,omitempty"`
	// Tx is the last primary-network tx of the part; nil at its start.
	Tx   *store.AddressTxKey `json:"tx,omitempty"`
	Rows int64               `json:"rows"`
}

type job struct {
	w     *Worker
	op    *store.Operation
	pos   position
	until time.Time
	buf   bytes.Buffer
	out   *csv.Writer
	rows  int64
}

// part is one scan of an export.
type part struct {
	evmChain uint64
	evmAddr  common.Address
	chain    internal.Chain
}

func (j *job) parts() []part {
	var out []part
	if j.op.Type == store.OpExportEVM {
		for _, c := range j.op.Job.EVMChains {
			for _, a := range j.op.Job.EVMAddresses {
				out = append(out, part{evmChain: c, evmAddr: common.HexToAddress(a)})
			}
		}
		return out
	}
	for _, c := range j.op.Job.Chains {
		out = append(out, part{chain: c})
	}
	return out
}

// run writes the rest of the file and returns the job's final status.
func (j *job) run(ctx context.Context) (status, code, msg, next string, err error) {
	j.out = csv.NewWriter(&j.buf)
	if !j.pos.Header {
		cols := PrimaryNetworkColumns
		if j.op.Type == store.OpExportEVM {
			cols = EVMColumns
		}
		_ = j.out.Write(cols) // the header is no transaction: not counted
		j.pos.Header = true
	}
	// The range is whole UTC days.
	from, to := j.op.Job.First.Unix(), j.op.Job.Last.AddDate(0, 0, 1).Unix()-1
	parts := j.parts()
	for ; j.pos.Part < len(parts); j.pos.Part, j.pos.EVM, j.pos.Tx = j.pos.Part+1, nil, nil {
		p := parts[j.pos.Part]
		var (
			truncated *time.Time
			err       error
		)
		if p.chain == "" {
			truncated, err = j.evmPart(ctx, p, from, to)
		} else {
			truncated, err = j.primaryPart(ctx, p, from, to)
		}
		if err != nil {
			return "", "", "", "", err
		}
		if truncated != nil {
			if err := j.flush(ctx); err != nil {
				return "", "", "", "", err
			}
			day := truncated.UTC().Format(time.DateOnly)
			return store.OpCompletedWithWarning, CodeTruncated,
				fmt.Sprintf("the export stopped at %d rows (--export-max-rows); export again from %s", j.pos.Rows, day), day, nil
		}
	}
	if err := j.flush(ctx); err != nil {
		return "", "", "", "", err
	}
	return store.OpCompleted, "", fmt.Sprintf("exported %d rows", j.pos.Rows), "", nil
}

func (j *job) write(row []string) {
	_ = j.out.Write(row) // into a bytes.Buffer: never fails
	j.rows++
}

// full tells whether the export holds its most rows.
func (j *job) full() bool { return j.pos.Rows+j.rows >= j.w.cfg.MaxRows }

// flush writes the buffered rows as the next chunk with the position.
func (j *job) flush(ctx context.Context) error {
	j.out.Flush()
	if time.Until(j.until) < j.w.cfg.Lease/2 {
		j.until = time.Now().Add(j.w.cfg.Lease)
		if err := j.w.st.RenewOperationClaim(ctx, j.op.ID, j.op.Claim, j.until); err != nil {
			return err
		}
	}
	pos := j.pos
	pos.Rows += j.rows
	cursor, err := json.Marshal(pos)
	if err != nil {
		return err
	}
	if err := j.w.st.AppendOperationChunk(ctx, j.op.ID, j.op.Claim, store.OperationChunk{Data: j.buf.Bytes(), Cursor: cursor, Rows: j.rows}); err != nil {
		return err
	}
	rowsWritten.Add(float64(j.rows))
	j.pos, j.rows = pos, 0
	j.buf.Reset()
	return nil
}

// evmPart writes the part's txs within [from, to] (unix seconds); it
// returns the time of the first tx left out when the export is full.
func (j *job) evmPart(ctx context.Context, p part, from, to int64) (*time.Time, error) {
	addr := common.BytesToAddress(p.evmAddr[:]).Hex()
	chain := strconv.FormatUint(p.evmChain, 10)
	for {
		// The address index is read from the start: its order is the
		// blocks', and the range is a filter on their times.
		txs, err := j.w.st.EVMAddressTxs(ctx, p.evmChain, p.evmAddr, false, store.BlockRange{}, true, j.pos.EVM, j.w.cfg.ChunkRows)
		if err != nil {
			return nil, err
		}
		for i := range txs {
			t := &txs[i]
			ts := t.Timestamp.Unix()
			if ts > to {
				return nil, nil
			}
			if ts >= from {
				if j.full() {
					return &t.Timestamp, nil
				}
				j.write(evmRow(chain, addr, t))
			}
			j.pos.EVM = &store.EVMTxKey{BlockNumber: t.BlockNumber, Index: t.Index}
		}
		if err := j.flush(ctx); err != nil {
			return nil, err
		}
		if len(txs) < j.w.cfg.ChunkRows || ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func evmRow(chain, addr string, t *internal.EVMTx) []string {
	to, created := "", ""
	if t.To != nil {
		to = t.To.Hex()
	}
	if t.ContractAddress != nil {
		created = t.ContractAddress.Hex()
	}
	return []string{chain, addr, strconv.FormatUint(t.BlockNumber, 10), strconv.FormatInt(t.Timestamp.Unix(), 10),
		t.BlockHash.Hex(), t.Hash.Hex(), strconv.FormatUint(uint64(t.Index), 10), strconv.Itoa(int(t.Status)),
		strconv.Itoa(int(t.Type)), t.From.Hex(), to, decimal(t.Value), strconv.FormatUint(t.GasLimit, 10),
		strconv.FormatUint(t.GasUsed, 10), decimal(t.GasPrice), strconv.FormatUint(t.Nonce, 10), created}
}

func decimal(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

// primaryPart writes the addresses' txs of the part's chain within
// [from, to]; it returns the time of the first tx left out when the
// export is full.
func (j *job) primaryPart(ctx context.Context, p part, from, to int64) (*time.Time, error) {
	chainID, name := j.w.cfg.ChainIDs[p.chain], ChainNames[p.chain]
	for {
		txs, err := j.w.st.AddressTxs(ctx, store.AddressTxQuery{Chain: p.chain, Addresses: j.op.Job.Addresses, TxTypes: j.op.Job.TxTypes,
			Start: &from, End: &to, After: j.pos.Tx, Limit: j.w.cfg.ChunkRows})
		if err != nil {
			return nil, err
		}
		for _, t := range txs {
			if j.full() {
				return &t.Timestamp, nil
			}
			height, block := strconv.FormatUint(t.Height, 10), t.BlockID.String()
			if p.chain == internal.CChain {
				block = "0x" + hex.EncodeToString(t.BlockID[:]) // the EVM block's hash, as the Data API shows it
			}
			if t.DAG {
				height, block = "", ""
			}
			j.write([]string{chainID, name, t.ID.String(), t.Type, height, block, strconv.FormatInt(t.Timestamp.Unix(), 10)})
			j.pos.Tx = &store.AddressTxKey{Time: t.Key.Time, Key: t.Key.Key}
		}
		if err := j.flush(ctx); err != nil {
			return nil, err
		}
		if len(txs) < j.w.cfg.ChunkRows || ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

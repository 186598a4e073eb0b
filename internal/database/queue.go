package database

import (
	"context"
	"sync"
)

// A transaction's appended rows (Append) are written by a goroutine of
// the transaction's own, in the order they were appended, while the
// caller goes on to derive the next rows: the derivation's Go work then
// overlaps the database's (on PostgreSQL the server's, which the client
// otherwise waits on; on SQLite the cgo calls, on the other core). Every
// other statement of the transaction, and its commit, first waits for the
// queue to drain, so that it sees every row appended before it; the first
// write that fails is the transaction's error, and the writes queued after
// it are skipped.
//
// The queue is the transaction's only user of its connection while it
// writes: the caller's next statement waits for it, and a callback of
// RunQuery, RunPrepared or EachRow (whose rows are still open on the
// connection) appends synchronously.
type writeQueue struct {
	jobs    chan queuedWrite // nil until the first queued write
	pending sync.WaitGroup
	err     error // the first failed write's; read only after pending.Wait
	// reading counts the row callbacks running on the connection, during
	// which Append writes at once.
	reading int

	// mu guards queued, the rows queued and not yet written; drained
	// signals when the writer has written some.
	mu      sync.Mutex
	drained sync.Cond
	queued  int
}

// maxQueuedRows bounds the rows a transaction's queue holds: Append
// waits for the writer beyond it, unless the queue is empty. The queue's
// connection is slower than the derivation that fills it, so without a
// bound nearly all of a batch's rows waited in memory at once (44% of the
// EVM catch-up's live heap at its peak). With this bound the catch-up's
// peak fell by 15-38 MiB and the ingestion benchmarks did not move; at
// 16,384 rows the EVM ingestion on SQLite read 5-6% slower, not
// significantly (docs/benchmarks.md, "The EVM catch-up's memory again").
var maxQueuedRows = 32768

// queuedWrite is a queued job and the rows it writes.
type queuedWrite struct {
	run  func() error
	rows int
}

// add queues job, which writes rows rows, starting the goroutine on the
// first; it waits while the queue holds too many rows for them. A job of
// more rows than the bound counts as the bound: it waits for an empty
// queue.
func (q *writeQueue) add(job func() error, rows int) {
	rows = min(rows, maxQueuedRows)
	q.mu.Lock()
	if q.drained.L == nil {
		q.drained.L = &q.mu
	}
	for q.queued+rows > maxQueuedRows {
		q.drained.Wait()
	}
	q.queued += rows
	q.mu.Unlock()
	if q.jobs == nil {
		q.jobs = make(chan queuedWrite, 64)
		go func(jobs <-chan queuedWrite) {
			for w := range jobs {
				if q.err == nil {
					q.err = w.run()
				}
				q.mu.Lock()
				q.queued -= w.rows
				q.drained.Broadcast()
				q.mu.Unlock()
				q.pending.Done()
			}
		}(q.jobs)
	}
	q.pending.Add(1)
	q.jobs <- queuedWrite{job, rows}
}

// wait returns once every queued write has run, with the first error.
func (q *writeQueue) wait() error {
	q.pending.Wait()
	return q.err
}

// stop ends the queue, once its writes have run, with the first error.
func (q *writeQueue) stop() error {
	if q.jobs == nil {
		return nil
	}
	err := q.wait()
	close(q.jobs)
	q.jobs = nil
	return err
}

// flush waits for db's queued writes, if it has any, before a statement
// of its own.
func (db *DB) flush() error {
	if db.queue == nil {
		return nil
	}
	return db.queue.wait()
}

// Append writes rows into table as BulkInsert does, without its count.
// In a transaction the rows are queued and written while the caller goes
// on, unless the queue already holds maxQueuedRows rows, when Append waits
// for the writer first; a write that fails makes the transaction's next
// statement (other than QueryRow, which runs regardless) and Transact
// return its error.
// The caller must not change rows or the values in them after Append
// returns. Outside a transaction, Append is BulkInsert.
func (db *DB) Append(ctx context.Context, table string, columns []string, rows [][]any, conflict string) error {
	if len(rows) == 0 {
		return nil
	}
	if db.queue == nil || db.queue.reading > 0 {
		_, err := db.BulkInsert(ctx, table, columns, rows, conflict)
		return err
	}
	w := *db
	w.queue = nil // the queue's own writes run as they come
	db.queue.add(func() error {
		_, err := w.BulkInsert(ctx, table, columns, rows, conflict)
		return err
	}, len(rows))
	return nil
}

// Committed returns, inside a transaction, a handle whose reads run on
// another connection beside the transaction's queued writes rather than
// after them. They see what was committed and never the transaction's
// own writes, so it serves only reads of rows the transaction has not
// written. On SQLite they see the database as the transaction began (it
// holds the write lock: nothing else commits meanwhile); on PostgreSQL
// what is committed when they run, as the transaction's own READ
// COMMITTED reads would. Outside a transaction, or without a second
// connection (an in-memory SQLite database), it is db.
func (db *DB) Committed() *DB {
	if db.tx == nil || db.readTx || (db.dialect == SQLite && db.r == db.w) {
		return db
	}
	c := *db
	c.tx, c.conn, c.queue, c.analyzeAfter = nil, nil, nil, nil
	return &c
}

// iterating marks a row callback running on db's connection until the
// returned func is called.
func (db *DB) iterating() func() {
	if db.queue == nil {
		return func() {}
	}
	db.queue.reading++
	return func() { db.queue.reading-- }
}
